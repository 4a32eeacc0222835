//! Feeds arbitrary text to the URL parsers: plain (`Url::parse`), with an interner, and
//! percent-encoded as a whole (`Url::parse_encoded`, as ZooKeeper node names are), and prints
//! what parses. Nothing may panic, and the plain and interned parsers must agree.
//!
//! Two properties do not hold, as in Java, and are not checked: the encoded form of a text
//! need not read as the text does (Java's encoded parser drops a parameter that has no `=`),
//! and a URL need not read back from the text it prints (a host with a `:` and port 0 prints
//! without the port, and the `:` then reads as a port separator).

#![no_main]

use dubbo_url::{Interner, Url};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let plain = Url::parse(text);
    let interned = Url::parse_with(text, &Interner::new());
    if let Ok(url) = Url::parse_encoded(text) {
        let _ = url.to_encoded_full_string();
    }
    if let Ok(url) = Url::parse_encoded(&dubbo_url::encode(text)) {
        let _ = url.to_full_string();
    }
    match (&plain, &interned) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.to_full_string(), b.to_full_string(), "interned parse differs");
            let _ = a.to_encoded_full_string();
        }
        (Err(_), Err(_)) => {}
        _ => panic!("parsers disagree: {plain:?} / {interned:?}"),
    }
});
