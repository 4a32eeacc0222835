use super::backup::append_default_port;
use super::java::{java_is_blank, java_parse_bool, java_parse_double};

#[test]
fn java_double() {
    assert_eq!(java_parse_double(" 1.5 "), Some(1.5));
    assert_eq!(java_parse_double("2d"), Some(2.0));
    assert_eq!(java_parse_double("1e3"), Some(1000.0));
    assert_eq!(java_parse_double("-Infinity"), Some(f64::NEG_INFINITY));
    assert!(java_parse_double("NaN").is_some_and(f64::is_nan));
    assert_eq!(java_parse_double("inf"), None);
    assert_eq!(java_parse_double("nan"), None);
    assert_eq!(java_parse_double("0x10"), None);
    assert_eq!(java_parse_double(""), None);
}

#[test]
fn blank_and_bool() {
    assert!(java_is_blank(""));
    assert!(java_is_blank(" \t\u{3000}"));
    assert!(!java_is_blank("\u{A0}"));
    assert!(java_parse_bool("TRUE"));
    assert!(!java_parse_bool("yes"));
}

#[test]
fn default_port_append() {
    assert_eq!(
        append_default_port("10.20.153.10:0", 2181).unwrap(),
        "10.20.153.10:2181"
    );
    assert_eq!(
        append_default_port("10.20.153.10", 2181).unwrap(),
        "10.20.153.10:2181"
    );
    assert_eq!(
        append_default_port("10.20.153.10:1", 2181).unwrap(),
        "10.20.153.10:1"
    );
    assert_eq!(append_default_port("h", 0).unwrap(), "h");
    assert!(append_default_port("a:1,b:2", 2181).is_err());
}
