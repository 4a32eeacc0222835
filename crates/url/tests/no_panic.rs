//! Random input never panics, and well-formed random Urls round-trip.
//!
//! A tiny xorshift generator keeps the test deterministic and dependency-free.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_url::{
    decode, encode, parse_address, parse_addresses, ConfigLayers, Interner, Url, UrlParams,
};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Pieces that exercise every branch of the parsers.
const PIECES: &[&str] = &[
    ":",
    "/",
    "//",
    "://",
    ":/",
    "@",
    "?",
    "&",
    ";",
    "=",
    "%",
    "#",
    "+",
    ",",
    "[",
    "]",
    "-",
    ".",
    "%3F",
    "%3f",
    "%3D",
    "%26",
    "%3A",
    "%2F",
    "%25",
    "%E4%B8%AD",
    "%FF",
    "%C3",
    "%",
    "%G1",
    "%-0",
    "%+A",
    "a",
    "Z",
    "0",
    "9",
    "20880",
    "-1",
    "99999",
    "2147483648",
    "dubbo",
    "file",
    "host",
    "127.0.0.1",
    "::1",
    "fe80::1%en0",
    "default.",
    "timeout",
    "methods",
    "é",
    "中",
    "😀",
    " ",
    "\t",
    "\u{FFFF}",
    "\u{E000}",
    "ß",
];

fn random_piecewise(rng: &mut XorShift) -> String {
    let n = rng.below(24);
    (0..n).map(|_| rng.pick(PIECES)).collect()
}

fn random_bytes(rng: &mut XorShift) -> String {
    let n = rng.below(48);
    let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn exercise(s: &str, interner: &Interner) {
    assert_eq!(decode(&encode(s)).as_deref(), Ok(s));
    let _ = decode(s);
    let _ = UrlParams::parse(s);
    let _ = UrlParams::parse_encoded(s);
    let _ = parse_address(s, &UrlParams::new());
    let _ = parse_addresses(s, &UrlParams::new());
    for url in [
        Url::parse(s),
        Url::parse_with(s, interner),
        Url::parse_encoded(s),
        Url::parse_encoded_with(s, interner),
    ]
    .into_iter()
    .flatten()
    {
        let full = url.to_full_string();
        let _ = url.to_string();
        let _ = url.to_identity_string();
        let _ = url.to_service_string();
        let _ = url.to_encoded_full_string();
        let _ = url.service_key();
        let _ = url.service_key_for_matching();
        let _ = url.protocol_service_key();
        let _ = url.path_key();
        let _ = url.colon_separated_key();
        let _ = url.authority();
        let _ = url.backup_address(2181);
        let _ = url.backup_urls();
        let _ = url.parameter_u64("timeout");
        let _ = url.parameter_f64("timeout");
        let _ = url.method_parameter("sayHello", "timeout");
        let _ = url.with_address(s);
        let _ = Url::parse(&full);
        let _ = Url::parse_encoded(&encode(&full));
        let layers = ConfigLayers::new(url.clone(), url.clone());
        let _ = layers.lookup(Some("a"), "timeout");
        assert!(url.equivalent(&url));
    }
}

#[test]
fn random_inputs_never_panic() {
    let interner = Interner::with_capacity(512);
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..8_000 {
        let s = random_piecewise(&mut rng);
        exercise(&s, &interner);
        let s = random_bytes(&mut rng);
        exercise(&s, &interner);
    }
}

#[test]
fn exhaustive_short_strings_never_panic() {
    // Every concatenation of up to three pieces of the delimiter alphabet.
    let alphabet = [
        "", ":", "/", "@", "?", "&", "=", "%", "#", ";", "+", "a", "1", "é", "%3", "%3F", "%3D",
        "%26",
    ];
    let interner = Interner::new();
    for a in alphabet {
        for b in alphabet {
            for c in alphabet {
                exercise(&format!("{a}{b}{c}"), &interner);
            }
        }
    }
}

/// Builds a well-formed Url string: the parts never contain the delimiters that would change
/// their meaning, values avoid `&`/`=`/leading or trailing spaces.
fn random_well_formed(rng: &mut XorShift) -> String {
    const PROTOCOLS: &[&str] = &["", "dubbo", "tri", "zookeeper", "consumer", "file", "nacos"];
    const HOSTS: &[&str] = &[
        "10.0.0.1",
        "localhost",
        "[::1]",
        "[fe80::a:b]",
        "example.org",
        "h",
    ];
    const KEYS: &[&str] = &[
        "interface",
        "side",
        "methods",
        "timeout",
        "sayHello.timeout",
        "version",
        "group",
        "application",
        "qos.port",
        "a-b_c",
        "中文",
        "default.retries",
    ];
    const VALUES: &[&str] = &[
        "",
        "provider",
        "a,b,c",
        "3000",
        "1.0.0",
        "hello world",
        "x:y/z",
        "100%",
        "a+b",
        "中文测试",
        "😀",
        "*",
        "#frag",
        "?q",
        "org.apache.dubbo.demo.DemoService$Inner",
    ];
    let mut s = String::new();
    let protocol = rng.pick(PROTOCOLS);
    if !protocol.is_empty() {
        s.push_str(protocol);
        s.push_str("://");
    }
    if rng.below(4) == 0 {
        s.push_str("user");
        if rng.below(2) == 0 {
            s.push_str(":pw");
        }
        s.push('@');
    }
    let host = rng.pick(HOSTS);
    s.push_str(host);
    // Java reads the text after the last ':' as the port, so bracketed IPv6 needs one.
    if host.starts_with('[') || rng.below(3) != 0 {
        s.push(':');
        s.push_str(&(1 + rng.below(65535)).to_string());
    }
    if rng.below(4) != 0 {
        s.push('/');
        s.push_str(rng.pick(&["org.Foo", "a/b/c", "D:/x.js", "org.Foo$Bar"]));
    }
    let n = rng.below(6);
    for i in 0..n {
        s.push(if i == 0 { '?' } else { '&' });
        s.push_str(rng.pick(KEYS));
        s.push('=');
        s.push_str(rng.pick(VALUES));
    }
    s
}

#[test]
fn random_well_formed_urls_round_trip() {
    let mut rng = XorShift(42);
    let interner = Interner::new();
    for _ in 0..5_000 {
        let s = random_well_formed(&mut rng);
        let url = Url::parse(&s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        let full = url.to_full_string();
        let again = Url::parse(&full).unwrap_or_else(|e| panic!("{full:?}: {e}"));
        assert_eq!(again.to_full_string(), full, "{s:?}");
        let node = url.to_encoded_full_string();
        let from_node =
            Url::parse_encoded_with(&node, &interner).unwrap_or_else(|e| panic!("{node:?}: {e}"));
        assert_eq!(from_node, again, "{s:?}");
        assert_eq!(from_node.to_encoded_full_string(), node);
        assert_eq!(decode(&node).as_deref(), Ok(full.as_str()));
    }
}
