//! Solve a Lights Out board, list every solution, and prove another board unsolvable.
//!
//! Run with `cargo run --example solve_board`.

use tilecode::game::{Board, Game, Solve, Solver};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The lecture's Example 24.1 on the classic 5x5 board.
    let game: Game = "lights-out:5x5".parse()?;
    let solver = Solver::new(&game)?;
    println!(
        "{game}: rank {}, nullity {}, {} of 2^25 boards solvable",
        solver.rank(),
        solver.nullity(),
        solver.solvable_count()
    );
    let board = Board::parse("11001\n11100\n10001\n00111\n10011\n")?;
    let presses = solver.solve(&board).expect("this board is solvable");
    println!("\npresses ({}):", presses.weight());
    print!("{}", Board::from_bits(5, 5, presses.clone())?);

    // Every solution is the canonical one plus a combination of the quiet patterns.
    let quiet = solver.quiet_patterns();
    for mask in 0u32..1 << quiet.len() {
        let mut x = presses.clone();
        for (i, q) in quiet.iter().enumerate() {
            if mask >> i & 1 == 1 {
                x.xor_assign(q);
            }
        }
        assert_eq!(game.effect(&x), board);
        println!("solution {mask}: {} presses", x.weight());
    }

    // A board no presses can clear, and the certificate that proves it.
    let bad = Board::parse("10101\n00000\n00000\n00000\n00000\n")?;
    let certificate = solver.solve(&bad).expect_err("this board is unsolvable");
    println!("\nunsolvable; certificate (even overlap with every move, odd with the board):");
    print!("{}", Board::from_bits(5, 5, certificate)?);
    Ok(())
}
