use tilecode::stream::*;

#[test]
fn smoke() {
    for spec in [
        "alien:9x9",
        "secded:72",
        "hamming:7",
        "repetition:3",
        "parity:9",
        "alien:4x4",
        "alien:4x5",
        "alien:5x4",
        "alien:3x3",
    ] {
        for d in [64usize, 512] {
            let opts = Options::new(spec.parse().unwrap(), d);
            for len in [0usize, 1, 17, 1000, 3_000_000] {
                let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 300) as u8).collect();
                let enc = encode(&data, &opts).unwrap();
                let (dec, rep) = decode(&enc).unwrap();
                assert_eq!(&dec[..], &data[..], "{spec} {d} {len}");
                assert_eq!(rep.status(), StreamStatus::Clean);
                let mut e = enc.to_vec();
                let mid = e.len() / 2;
                e[mid] ^= 1;
                e[0] ^= 0x80;
                let last = e.len() - 1;
                e[last] ^= 4;
                let r = decode(&e);
                match r {
                    Ok((dec, rep)) => {
                        assert_eq!(&dec[..], &data[..]);
                        if len > 0 {
                            println!("{spec} {d} {len} {:?}", rep.status());
                        }
                    }
                    Err(err) => println!("{spec} {d} {len} err {err}"),
                }
            }
        }
    }
}
