//! `tilecode solve`, `analyze` and `random` end to end.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn tilecode() -> Command {
    Command::cargo_bin("tilecode").unwrap()
}

fn json(args: &[&str], stdin: &str) -> Value {
    let out = tilecode().args(args).write_stdin(stdin).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs a command that must fail as a usage error (exit 1) with `message` on stderr.
fn usage_error(args: &[&str], stdin: &str, message: &str) {
    tilecode()
        .args(args)
        .write_stdin(stdin.to_string())
        .assert()
        .code(1)
        .stderr(predicate::str::contains(message));
}

const LECTURE_24_1: &str = "11001\n11100\n10001\n00111\n10011\n";

mod solve {
    use super::*;

    #[test]
    fn lecture_example_from_stdin() {
        let v = json(&["solve", "lights-out:5x5", "-", "--json"], LECTURE_24_1);
        assert_eq!(v["solvable"], true);
        assert_eq!(v["presses"], "0010010111010101110100100");
        assert_eq!(v["press_count"], 12);
        assert_eq!(v["optimal"], false);
        assert_eq!(v["solutions"], 4);
        assert_eq!(v["certificate"], Value::Null);
    }

    #[test]
    fn human_output_draws_the_presses() {
        tilecode()
            .args(["solve", "lights-out:5x5", "-"])
            .write_stdin(LECTURE_24_1)
            .assert()
            .success()
            .stdout(predicate::str::contains("solvable with 12 presses"))
            .stdout(predicate::str::contains(
                "..#..\n#.###\n.#.#.\n###.#\n..#..\n",
            ));
    }

    #[test]
    fn board_file_with_dots_and_spaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        std::fs::write(&path, "# . .\n\n# # #\n# # #\n").unwrap();
        let v = json(
            &["solve", "lights-out:3x3", path.to_str().unwrap(), "--json"],
            "",
        );
        assert_eq!(v["presses"], "000100001");
        assert_eq!(v["optimal"], true);
    }

    #[test]
    fn unsolvable_board_has_a_certificate() {
        let v = json(
            &["solve", "lights-out:5x5", "-", "--json"],
            "10101\n00000\n00000\n00000\n00000\n",
        );
        assert_eq!(v["solvable"], false);
        assert_eq!(v["presses"], Value::Null);
        let cert = v["certificate"].as_str().unwrap();
        assert_eq!(cert.len(), 25);
        // Odd overlap with the board.
        let overlap = cert
            .chars()
            .zip("1010100000000000000000000".chars())
            .filter(|&(a, b)| a == '1' && b == '1')
            .count();
        assert_eq!(overlap % 2, 1);
        tilecode()
            .args(["solve", "lights-out:5x5", "-"])
            .write_stdin("10101\n00000\n00000\n00000\n00000\n")
            .assert()
            .success()
            .stdout(predicate::str::contains("not solvable"))
            .stdout(predicate::str::contains("certificate"));
    }

    #[test]
    fn gale_berlekamp_lists_rows_and_columns() {
        let v = json(
            &["solve", "gale-berlekamp:3x4", "-", "--json"],
            "0110\n1001\n0110\n",
        );
        assert_eq!(v["solvable"], true);
        assert_eq!(v["presses"]["rows"], serde_json::json!([1]));
        assert_eq!(v["presses"]["cols"], serde_json::json!([1, 2]));
        assert_eq!(v["press_count"], 3);
        assert_eq!(v["solutions"], 2);
    }

    #[test]
    fn torus_and_stencils() {
        // A single press on a 5x5 torus lights exactly its plus.
        let v = json(
            &["solve", "lights-out:5x5", "-", "--torus", "--json"],
            "11001\n10000\n00000\n00000\n10000\n",
        );
        assert_eq!(v["solvable"], true);
        let v = json(
            &["solve", "stencil:111/101/111:3x3", "-", "--json"],
            "111\n101\n111\n",
        );
        assert_eq!(v["solvable"], true);
    }

    #[test]
    fn q_state_paper_example() {
        // The paper's Section 6 four-state 4x4 Alien Tiles game.
        let v = json(
            &["solve", "alien:4x4", "-", "--states", "4", "--json"],
            "0000\n0120\n0300\n0000\n",
        );
        assert_eq!(v["solvable"], true);
        assert_eq!(v["presses"], "0020303332130020");
        assert_eq!(v["optimal"], true);
        assert_eq!(v["solutions"], 1);
        assert_eq!(v["states"], 4);
    }

    #[test]
    fn many_states_use_numbers() {
        let v = json(
            &[
                "solve",
                "gale-berlekamp:2x3",
                "-",
                "--states",
                "12",
                "--json",
            ],
            "1 2 3\n4 5 6\n",
        );
        assert_eq!(v["solvable"], true);
        let rows: Vec<u64> = serde_json::from_value(v["presses"]["row_counts"].clone()).unwrap();
        let cols: Vec<u64> = serde_json::from_value(v["presses"]["col_counts"].clone()).unwrap();
        for (i, r) in rows.iter().enumerate() {
            for (j, c) in cols.iter().enumerate() {
                let cell = (3 * i + j + 1) as u64;
                assert_eq!((cell + r + c) % 12, 0);
            }
        }
        let v = json(
            &["analyze", "lights-out:2x2", "--states", "12", "--json"],
            "",
        );
        assert_eq!(v["quiet_patterns"], serde_json::json!(["4,4,4,4"]));
        assert_eq!(v["quiet_pattern_orders"], serde_json::json!([3]));
        assert_eq!(v["solvable_fraction"], "1/3");
    }

    #[test]
    fn q_state_certificate() {
        let v = json(
            &["solve", "alien:3x3", "-", "--states", "4", "--json"],
            "100\n000\n000\n",
        );
        assert_eq!(v["solvable"], false);
        assert_eq!(v["certificate"].as_str().unwrap().len(), 9);
    }

    #[test]
    fn wrong_size_is_one_line_exit_1() {
        tilecode()
            .args(["solve", "lights-out:5x5", "-"])
            .write_stdin("101\n010\n")
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "expected a 5x5 board for lights-out:5x5, found 2x3",
            ))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    }

    #[test]
    fn bad_characters_are_one_line_exit_1() {
        for (args, input) in [
            (vec!["solve", "lights-out:2x2", "-"], "1x\n01\n"),
            (
                vec!["solve", "lights-out:2x2", "-", "--states", "3"],
                "13\n01\n",
            ),
            (vec!["solve", "lights-out:2x2", "-"], "10\n011\n"),
            (vec!["solve", "lights-out:2x2", "-"], "\n"),
        ] {
            tilecode()
                .args(&args)
                .write_stdin(input)
                .assert()
                .code(1)
                .stderr(predicate::str::starts_with("tilecode: "))
                .stderr(predicate::function(|s: &str| s.lines().count() == 1));
        }
    }

    #[test]
    fn bad_game_spec_and_missing_file() {
        for args in [
            vec!["solve", "chess:5x5", "-"],
            vec!["solve", "lights-out:5", "-"],
            vec!["solve", "stencil:01/11:3x3", "-"],
            vec!["solve", "lights-out:3x3", "/nonexistent/board.txt"],
            vec!["solve", "lights-out:3x3", "-", "--states", "1"],
            vec!["solve", "lights-out:3x3", "-", "--method", "closed-form"],
        ] {
            tilecode()
                .args(&args)
                .write_stdin("000\n000\n000\n")
                .assert()
                .code(1)
                .stderr(predicate::function(|s: &str| s.lines().count() == 1));
        }
    }

    #[test]
    fn q_state_torus_past_the_smith_limit_by_packed_elimination() {
        // 40x40 on a torus: 3200 > 2048 cells + moves, and light chasing needs a plain board,
        // so this is packed elimination over GF(3).
        use tilecode::game::Game;
        use tilecode::game::qstate::effect_q;
        let args = ["lights-out:40x40", "--states", "3", "--torus"];
        let out = tilecode()
            .args(["random", "--seed", "4"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        let board = String::from_utf8(out.stdout).unwrap();
        let v = json(
            &[&["solve"][..], &args[..1], &["-", "--json"], &args[1..]].concat(),
            &board,
        );
        assert_eq!(v["solvable"], true);
        assert_eq!(v["method"], "gauss");
        let presses: Vec<u32> = v["presses"]
            .as_str()
            .unwrap()
            .chars()
            .map(|c| c.to_digit(10).unwrap())
            .collect();
        let game = "lights-out:40x40"
            .parse::<Game>()
            .unwrap()
            .with_torus(true)
            .with_states(3);
        let made = effect_q(&game, &presses);
        let cells: Vec<u32> = board.chars().filter_map(|c| c.to_digit(10)).collect();
        assert_eq!(cells.len(), 1600);
        for (m, b) in made.cells().iter().zip(&cells) {
            assert_eq!((m + b) % 3, 0);
        }
        // On a plain board `--shortest` needs the quiet patterns, so it takes the packed
        // elimination rather than light chasing.
        let out = tilecode()
            .args(["random", "lights-out:40x40", "--states", "3", "--seed", "2"])
            .output()
            .unwrap();
        let plain = String::from_utf8(out.stdout).unwrap();
        let v = json(
            &[
                "solve",
                "lights-out:40x40",
                "-",
                "--states",
                "3",
                "--shortest",
                "--json",
            ],
            &plain,
        );
        assert_eq!(v["solvable"], true);
        assert_eq!(v["method"], "gauss");
        // A prime power keeps the Smith normal form's limit for --method gauss and says why,
        // naming the decomposition that solves the board at this size.
        for why in [
            "Q = 4 has the part 2^2, which needs the Smith normal form",
            "solved at this size by decomposition",
        ] {
            usage_error(
                &[
                    "solve",
                    "lights-out:40x40",
                    "-",
                    "--states",
                    "4",
                    "--torus",
                    "--method",
                    "gauss",
                ],
                &board,
                why,
            );
        }
    }

    #[test]
    fn too_large_for_elimination() {
        tilecode()
            .args(["solve", "lights-out:200x200", "-", "--method", "gauss"])
            .write_stdin(("0".repeat(200) + "\n").repeat(200))
            .assert()
            .code(1)
            .stderr(predicate::str::contains("out of reach"));
    }
}

mod methods {
    use super::*;

    #[test]
    fn shortest_proves_the_lecture_optimum() {
        let v = json(
            &["solve", "lights-out:5x5", "-", "--shortest", "--json"],
            LECTURE_24_1,
        );
        assert_eq!(v["press_count"], 8);
        assert_eq!(v["optimal"], true);
        assert_eq!(v["lower_bound"], 8);
        // Either exact search may prove it; both report optimal only when proven.
        let search = v["search"].as_str().unwrap();
        assert!(
            ["gray-code", "branch-and-bound"].contains(&search),
            "{search}"
        );
        tilecode()
            .args(["solve", "lights-out:5x5", "-", "--shortest"])
            .write_stdin(LECTURE_24_1)
            .assert()
            .success()
            .stdout(predicate::str::contains("8 presses (proven minimal"));
    }

    #[test]
    fn every_method_solves_what_it_applies_to() {
        let board = String::from_utf8(
            tilecode()
                .args(["random", "squares:8x8", "--seed", "5"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        for method in ["auto", "gauss", "chase", "one-way", "two-way"] {
            let v = json(
                &["solve", "squares:8x8", "-", "--method", method, "--json"],
                &board,
            );
            assert_eq!(v["solvable"], true, "{method}");
            let expect = if method == "auto" { "gauss" } else { method };
            assert_eq!(v["method"], expect);
        }
    }

    #[test]
    fn sweeps_apply_to_plain_squares_only() {
        tilecode()
            .args(["solve", "lights-out:3x3", "-", "--method", "one-way"])
            .write_stdin("000\n000\n000\n")
            .assert()
            .code(1)
            .stderr(predicate::str::contains("expected a plain squares game"));
    }

    #[test]
    fn closed_forms_for_alien_and_gale_berlekamp() {
        let v = json(
            &["solve", "alien:4x5", "-", "--json"],
            "10000\n00000\n00000\n00000\n",
        );
        assert_eq!(v["method"], "closed-form");
        assert_eq!(v["solvable"], false);
        assert!(v["certificate"].is_string());
        let v = json(
            &[
                "solve",
                "gale-berlekamp:3x4",
                "-",
                "--method",
                "closed-form",
                "--json",
            ],
            "0110\n1001\n0110\n",
        );
        assert_eq!(v["presses"]["rows"], serde_json::json!([1]));
        assert_eq!(v["presses"]["cols"], serde_json::json!([1, 2]));
        let v = json(
            &["solve", "alien:3x5", "-", "--shortest", "--json"],
            "11111\n11111\n11111\n",
        );
        assert_eq!(v["optimal"], true);
        assert_eq!(v["press_count"], 3);
    }

    #[test]
    fn large_boards_use_closed_forms_and_chasing() {
        for game in [
            "alien:301x299",
            "lights-out:300x300",
            "gale-berlekamp:500x400",
        ] {
            let board = tilecode()
                .args(["random", game, "--seed", "8"])
                .output()
                .unwrap()
                .stdout;
            let v = json(
                &["solve", game, "-", "--json"],
                &String::from_utf8(board).unwrap(),
            );
            assert_eq!(v["solvable"], true, "{game}");
        }
    }

    #[test]
    fn shortest_with_many_states_counts_clicks() {
        // The classic 7x7 four-state Alien Tiles: all cells 2 clear with one row pressed twice.
        let board = ("2".repeat(7) + "\n").repeat(7);
        let v = json(
            &[
                "solve",
                "alien:7x7",
                "-",
                "--states",
                "4",
                "--shortest",
                "--json",
            ],
            &board,
        );
        assert_eq!(v["press_count"], 14);
        assert_eq!(v["optimal"], true);
        assert_eq!(v["lower_bound"], 14);
        assert_eq!(v["search"], "row-sums");
        let v = json(
            &[
                "solve",
                "lights-out:3x3",
                "-",
                "--torus",
                "--states",
                "4",
                "--shortest",
                "--json",
            ],
            "233\n231\n020\n",
        );
        // 16 solutions; tests/qshortest.rs checks the walk against exhaustive search.
        assert_eq!(v["solutions"], 16);
        assert_eq!(v["press_count"], 8);
        assert_eq!(v["optimal"], true);
        assert_eq!(v["search"], "kernel-walk");
    }

    #[test]
    fn a_digit_past_the_states_names_the_fix() {
        usage_error(
            &["solve", "alien:4x5", "-"],
            "01300\n00000\n00000\n00000\n",
            "pass --states 4",
        );
    }
}

mod analyze {
    use super::*;

    #[test]
    fn lights_out_5x5() {
        let v = json(&["analyze", "lights-out:5x5", "--json"], "");
        assert_eq!(v["rank"], 23);
        assert_eq!(v["nullity"], 2);
        assert_eq!(v["solvable_boards"], 8_388_608);
        assert_eq!(v["solvable_fraction"], "1/4");
        assert_eq!(
            v["quiet_patterns"],
            serde_json::json!(["1010110101000001010110101", "0111010101110111010101110"])
        );
    }

    #[test]
    fn big_counts_are_exact_json_integers() {
        let out = tilecode()
            .args(["analyze", "alien:9x9", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        // 2^(81 - 9 - 9 + 2) = 2^65, beyond 64 bits, written in full.
        assert!(
            text.contains("\"solvable_boards\":36893488147419103232"),
            "{text}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["nullity"], 16);
        assert_eq!(v["solvable_fraction"], "1/65536");
    }

    #[test]
    fn completely_solvable_and_text_output() {
        let v = json(&["analyze", "squares:6x6", "--json"], "");
        assert_eq!(v["completely_solvable"], true);
        assert_eq!(v["solvable_fraction"], "1");
        assert_eq!(v["quiet_patterns"], serde_json::json!([]));
        tilecode()
            .args(["analyze", "lights-out:4x4"])
            .assert()
            .success()
            .stdout(predicate::str::contains("rank                 12"))
            .stdout(predicate::str::contains("1/16"))
            .stdout(predicate::str::contains("#...\n##..\n#.#.\n.###\n"));
    }

    #[test]
    fn many_quiet_patterns_are_cut_in_text() {
        tilecode()
            .args(["analyze", "alien:7x7"])
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "... and 4 more (use --json for all)",
            ));
    }

    #[test]
    fn large_stencil_games_by_chasing() {
        let v = json(&["analyze", "lights-out:100x100", "--json"], "");
        let (rank, nullity) = (v["rank"].as_u64().unwrap(), v["nullity"].as_u64().unwrap());
        assert_eq!(rank + nullity, 10_000);
        assert_eq!(
            v["quiet_patterns"].as_array().unwrap().len() as u64,
            nullity
        );
        tilecode()
            .args(["analyze", "lights-out:1000x1000"])
            .assert()
            .success()
            .stdout(predicate::str::contains("of 2^1000000"));
    }

    #[test]
    fn q_state() {
        let v = json(&["analyze", "alien:3x3", "--states", "4", "--json"], "");
        assert_eq!(v["rank"], 5);
        assert_eq!(v["solvable_boards"], 16384);
        assert_eq!(v["solvable_fraction"], "1/16");
        assert_eq!(v["solutions_per_board"], 16);
        assert_eq!(v["quiet_patterns"].as_array().unwrap().len(), 4);
        assert_eq!(
            v["invariant_factors"],
            serde_json::json!([{"factor": 1, "count": 5}, {"factor": 2, "count": 4}])
        );
    }

    #[test]
    fn q_state_alien_past_elimination_in_closed_form() {
        let start = std::time::Instant::now();
        let v = json(&["analyze", "alien:200x200", "--states", "3", "--json"], "");
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        for key in [
            "game",
            "torus",
            "states",
            "rows",
            "cols",
            "cells",
            "moves",
            "rank",
            "nullity",
            "solvable_boards",
            "solvable_fraction",
            "completely_solvable",
            "solutions_per_board",
            "quiet_patterns",
            "quiet_pattern_orders",
            "invariant_factors",
        ] {
            assert!(v.get(key).is_some(), "{key}");
        }
        // The constant boards are the quiet patterns: 200 + 200 - 1 = 0 (mod 3).
        assert_eq!(v["rank"], 39999);
        assert_eq!(v["nullity"], 1);
        assert_eq!(v["solutions_per_board"], 3);
        assert_eq!(v["solvable_fraction"], "1/3");
        assert_eq!(v["completely_solvable"], false);
        assert_eq!(v["quiet_patterns"], serde_json::Value::Null);
        assert_eq!(
            v["invariant_factors"],
            serde_json::json!([{"factor": 1, "count": 39999}, {"factor": 0, "count": 1}])
        );
        tilecode()
            .args(["analyze", "alien:200x200", "--states", "3"])
            .assert()
            .success()
            .stdout(predicate::str::contains("of 3^40000 (1/3)"))
            .stdout(predicate::str::contains(
                "1 (generators; counted in closed form",
            ));
    }
}

mod random {
    use super::*;

    #[test]
    fn seeded_boards_are_reproducible_and_solvable() {
        for game in [
            "lights-out:5x5",
            "alien:4x5",
            "squares:5x5",
            "gale-berlekamp:3x6",
        ] {
            let a = tilecode()
                .args(["random", game, "--seed", "11"])
                .output()
                .unwrap();
            let b = tilecode()
                .args(["random", game, "--seed", "11"])
                .output()
                .unwrap();
            assert!(a.status.success());
            assert_eq!(a.stdout, b.stdout);
            let v = json(
                &["solve", game, "-", "--json"],
                &String::from_utf8(a.stdout).unwrap(),
            );
            assert_eq!(v["solvable"], true, "{game}");
        }
    }

    #[test]
    fn q_state_and_torus() {
        let out = tilecode()
            .args([
                "random",
                "lights-out:4x4",
                "--states",
                "3",
                "--torus",
                "--seed",
                "2",
            ])
            .output()
            .unwrap();
        let board = String::from_utf8(out.stdout).unwrap();
        assert_eq!(board.lines().count(), 4);
        let v = json(
            &[
                "solve",
                "lights-out:4x4",
                "-",
                "--states",
                "3",
                "--torus",
                "--json",
            ],
            &board,
        );
        assert_eq!(v["solvable"], true);
    }

    #[test]
    fn large_boards_need_no_reduction() {
        let out = tilecode()
            .args(["random", "lights-out:300x200", "--seed", "1"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), 300);
        assert!(text.lines().all(|l| l.len() == 200));
    }
}

mod hardest {
    use super::*;

    #[test]
    fn small_boards_and_their_presses() {
        let v = json(&["hardest", "lights-out:3x3", "--json"], "");
        assert_eq!(v["press_count"], 9);
        assert_eq!(v["board"], "101010101");
        assert_eq!(v["presses"], "111111111");
        assert_eq!(v["solvable_boards"], 512);
        let v = json(&["hardest", "alien:3x3", "--states", "4", "--json"], "");
        assert_eq!(v["press_count"], 15);
        assert_eq!(v["hardest_boards"], 7);
        // The board it names takes that many clicks to solve, by the shortest search.
        let board: String = v["board"]
            .as_str()
            .unwrap()
            .as_bytes()
            .chunks(3)
            .map(|r| format!("{}\n", String::from_utf8_lossy(r)))
            .collect();
        let s = json(
            &[
                "solve",
                "alien:3x3",
                "-",
                "--states",
                "4",
                "--shortest",
                "--json",
            ],
            &board,
        );
        assert_eq!(s["press_count"], 15);
        tilecode()
            .args(["hardest", "alien:3x3"])
            .assert()
            .success()
            .stdout(predicate::str::contains("needs 3 presses (7 of 32"));
    }

    #[test]
    fn too_many_boards_is_refused_with_the_count() {
        usage_error(&["hardest", "lights-out:7x7"], "", "found 2^49");
    }
}

mod decompose {
    use super::*;

    #[test]
    fn the_papers_example_through_the_cli() {
        // Solving g means producing -g; the presses are unique (even by even).
        let v = json(
            &[
                "solve",
                "alien:4x4",
                "-",
                "--states",
                "4",
                "--method",
                "decompose",
                "--json",
            ],
            "0000\n0120\n0300\n0000\n",
        );
        assert_eq!(v["method"], "decompose");
        let direct = json(
            &["solve", "alien:4x4", "-", "--states", "4", "--json"],
            "0000\n0120\n0300\n0000\n",
        );
        assert_eq!(v["presses"], direct["presses"]);
        // An unsolvable board gets the Smith normal form's certificate.
        let v = json(
            &[
                "solve",
                "lights-out:2x3",
                "-",
                "--states",
                "3",
                "--method",
                "decompose",
                "--json",
            ],
            "000\n012\n",
        );
        assert_eq!(v["solvable"], false);
        assert_eq!(v["certificate"], "102201");
    }

    #[test]
    fn two_states_name_the_fix() {
        usage_error(
            &["solve", "lights-out:2x2", "-", "--method", "decompose"],
            "00\n00\n",
            "expected --states Q with Q > 2",
        );
    }
}

mod decompose_past_the_smith_limit {
    use super::*;
    use tilecode::game::Game;
    use tilecode::game::qstate::effect_q;

    /// A random solvable board of `game` (`--states q`), solved with `extra` arguments; the
    /// JSON's presses, applied to the board, clear it.
    fn solve_random(game: &str, q: u32, torus: bool, extra: &[&str]) -> Value {
        let qs = q.to_string();
        let mut args = vec!["--states", &qs];
        if torus {
            args.push("--torus");
        }
        let out = tilecode()
            .args(["random", game, "--seed", "6"])
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success());
        let board = String::from_utf8(out.stdout).unwrap();
        let v = json(
            &[&["solve", game, "-", "--json"][..], &args, extra].concat(),
            &board,
        );
        assert_eq!(v["solvable"], true, "{game}");
        assert_eq!(v["method"], "decompose", "{game}");
        let g = game
            .parse::<Game>()
            .unwrap()
            .with_torus(torus)
            .with_states(q);
        let presses: Vec<u32> = v["presses"]
            .as_str()
            .unwrap()
            .chars()
            .map(|c| c.to_digit(10).unwrap())
            .collect();
        let cells: Vec<u32> = board.chars().filter_map(|c| c.to_digit(10)).collect();
        assert_eq!(cells.len(), g.num_cells());
        let made = effect_q(&g, &presses);
        for (m, b) in made.cells().iter().zip(&cells) {
            assert_eq!((m + b) % q, 0, "{game}");
        }
        assert_eq!(
            v["press_count"],
            presses.iter().map(|&x| x as u64).sum::<u64>()
        );
        v
    }

    #[test]
    fn alien_and_lights_out_past_2048() {
        // 3200 cells + moves over Z/4: alien has no closed form for solving and no chase, so
        // auto decomposes. Even by even, the presses are unique.
        let v = solve_random("alien:40x40", 4, false, &[]);
        assert_eq!(v["solutions"], 1);
        assert_eq!(v["optimal"], true);
        assert_eq!(v["certificate"], Value::Null);
        // Plain lights-out would be chased by auto; --method decompose takes the layers.
        solve_random("lights-out:48x48", 9, false, &["--method", "decompose"]);
        // On a torus there is no chase: auto decomposes.
        solve_random("lights-out:40x40", 8, true, &[]);
    }

    #[test]
    fn the_number_of_solutions_agrees_with_light_chasing() {
        // Lights-out 64x64 has quiet patterns mod 3; over Z/9 the second layer counts them.
        // Over Z/8 the layers do not count the solutions past the uniqueness.
        for q in ["9", "8"] {
            let v = solve_random(
                "lights-out:64x64",
                q.parse().unwrap(),
                false,
                &["--method", "decompose"],
            );
            let out = tilecode()
                .args(["random", "lights-out:64x64", "--seed", "6", "--states", q])
                .output()
                .unwrap();
            let board = String::from_utf8(out.stdout).unwrap();
            let chased = json(
                &["solve", "lights-out:64x64", "-", "--states", q, "--json"],
                &board,
            );
            assert_eq!(chased["method"], "chase");
            if q == "9" {
                assert_eq!(v["solutions"], chased["solutions"]);
                assert_eq!(v["optimal"], false);
            } else {
                assert_ne!(chased["solutions"], 1);
                assert_eq!(v["solutions"], Value::Null);
            }
        }
    }

    #[test]
    fn unsolvable_boards_and_the_limits() {
        // Lights-out 64x64 has quiet patterns mod 3, and a lone corner is not solvable.
        let mut board = String::from("1");
        board.push_str(&"0".repeat(63));
        board.push('\n');
        board.push_str(&("0".repeat(64) + "\n").repeat(63));
        let args = ["solve", "lights-out:64x64", "-", "--states", "9"];
        let v = json(
            &[&args[..], &["--method", "decompose", "--json"]].concat(),
            &board,
        );
        assert_eq!(v["solvable"], false);
        assert_eq!(v["method"], "decompose");
        assert_eq!(v["certificate"], Value::Null);
        tilecode()
            .args(args)
            .args(["--method", "decompose"])
            .write_stdin(board.clone())
            .assert()
            .success()
            .stdout(predicate::str::contains("the decomposition proved it"));
        usage_error(
            &[&args[..], &["--method", "decompose", "--shortest"]].concat(),
            &board,
            "without --shortest the board is solved by decomposition",
        );
        usage_error(
            &["solve", "alien:130x130", "-", "--states", "4"],
            &("0".repeat(130) + "\n").repeat(130),
            "unknowns^2 x (cells + unknowns) <= 2^43",
        );
    }
}

mod closed_form_at_any_size {
    use super::*;
    use tilecode::game::{Game, Solve, Solver};
    use tilecode::gf2::BitVec;

    #[test]
    fn analyze_alien_past_elimination_agrees_with_elimination() {
        // 65x65 has 4225 moves: analyze takes the closed form; the library still eliminates.
        let v = json(&["analyze", "alien:65x65", "--json"], "");
        let game: Game = "alien:65x65".parse().unwrap();
        let s = Solver::new(&game).unwrap();
        assert_eq!(v["nullity"], s.nullity());
        assert_eq!(v["rank"], s.rank());
        let quiet = v["quiet_patterns"].as_array().unwrap();
        assert_eq!(quiet.len(), s.nullity());
        for k in quiet {
            let k = BitVec::parse(k.as_str().unwrap()).unwrap();
            assert!(game.effect(&k).bits().is_zero());
        }
    }

    #[test]
    fn huge_alien_and_gale_berlekamp() {
        let v = json(&["analyze", "alien:999x1001", "--json"], "");
        assert_eq!(v["nullity"], 999 + 1001 - 2);
        assert_eq!(v["rank"], 999 * 1001 - 1998);
        assert_eq!(v["quiet_patterns"], Value::Null);
        assert!(v["solvable_fraction"].as_str().unwrap().len() > 100);
        let v = json(&["analyze", "gale-berlekamp:3000x2000", "--json"], "");
        assert_eq!(
            (v["rank"].clone(), v["nullity"].clone()),
            (4999.into(), 1.into())
        );
        assert_eq!(v["quiet_patterns"][0], "1".repeat(5000));
        let board = tilecode()
            .args(["random", "alien:999x1001", "--seed", "3"])
            .output()
            .unwrap()
            .stdout;
        let v = json(
            &["solve", "alien:999x1001", "-", "--json"],
            std::str::from_utf8(&board).unwrap(),
        );
        assert_eq!(v["solvable"], true);
    }
}

mod q_state_chase {
    use super::*;
    use tilecode::game::Game;
    use tilecode::game::qstate::{QBoard, effect_q};

    #[test]
    fn three_state_lights_out_past_elimination() {
        let text = tilecode()
            .args([
                "random",
                "lights-out:200x200",
                "--states",
                "3",
                "--seed",
                "9",
            ])
            .output()
            .unwrap()
            .stdout;
        let text = String::from_utf8(text).unwrap();
        let v = json(
            &[
                "solve",
                "lights-out:200x200",
                "-",
                "--states",
                "3",
                "--json",
            ],
            &text,
        );
        assert_eq!(v["method"], "chase");
        assert_eq!(v["solvable"], true);
        let game: Game = "lights-out:200x200".parse::<Game>().unwrap().with_states(3);
        let board = QBoard::parse(&text, 3).unwrap();
        let x: Vec<u32> = v["presses"]
            .as_str()
            .unwrap()
            .chars()
            .map(|c| c.to_digit(10).unwrap())
            .collect();
        let made = effect_q(&game, &x);
        for (m, b) in made.cells().iter().zip(board.cells()) {
            assert_eq!((m + b) % 3, 0);
        }
        tilecode()
            .args([
                "solve",
                "lights-out:200x200",
                "-",
                "--states",
                "3",
                "--torus",
            ])
            .write_stdin(text)
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains("out of reach")
                    .or(predicate::str::contains("expected cells + moves")),
            );
    }
}
