use super::scanner::{starts_with_tail_first, Scanner};

#[test]
fn the_one_pass_integer_reads_as_the_general_one() {
    let mut tokens: Vec<String> = [
        "0",
        "7",
        "00",
        "01",
        "10",
        "123",
        "-1",
        "1.5",
        "1e3",
        "12a",
        "1-",
        "",
        "x",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
    ]
    .iter()
    .map(|t| (*t).to_owned())
    .collect();
    for digits in 16..=21 {
        tokens.push("9".repeat(digits));
        tokens.push(format!("1{}", "0".repeat(digits - 1)));
    }
    for token in &tokens {
        for end in ["", ",", "}", " ", "]", "\"", ".5", "e1", "a", "0"] {
            let data = format!("{token}{end}");
            let mut fast = Scanner {
                data: data.as_bytes(),
                pos: 0,
            };
            let mut general = Scanner {
                data: data.as_bytes(),
                pos: 0,
            };
            let (a, b) = (fast.u64(), general.general_u64());
            assert_eq!(a.as_ref().ok(), b.as_ref().ok(), "{data}");
            assert_eq!(
                a.map_err(|e| e.to_string()).err(),
                b.map_err(|e| e.to_string()).err()
            );
            assert_eq!(fast.pos, general.pos, "{data}");
        }
    }
}

#[test]
fn the_tail_first_prefix_check_is_starts_with() {
    let long: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
    let mut texts: Vec<Vec<u8>> = vec![Vec::new(), b"a".to_vec(), long.clone()];
    for at in [0, 1, 150, 203, 204, 250, 299] {
        let mut changed = long.clone();
        changed[at] ^= 1;
        texts.push(changed);
    }
    for data in &texts {
        for prefix in &texts {
            for len in [0, 1, 95, 96, 97, 204, 205, 299, 300] {
                let Some(prefix) = prefix.get(..len) else {
                    continue;
                };
                assert_eq!(
                    starts_with_tail_first(data, prefix),
                    data.starts_with(prefix),
                    "{len}"
                );
            }
        }
    }
}
