use super::*;

fn pairs(p: &UrlParams) -> Vec<(String, String)> {
    p.iter().map(|(k, v)| (k.into(), v.into())).collect()
}

fn owned(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
}

#[test]
fn decoded_edge_cases_follow_java() {
    let p = UrlParams::parse("==a&b=&c");
    assert_eq!(pairs(&p), owned(&[("a", ""), ("b", ""), ("c", "")]));
    let p = UrlParams::parse("a==b&&;x=1=2");
    assert_eq!(pairs(&p), owned(&[("a", "=b"), ("x", "1=2")]));
    let p = UrlParams::parse("a=1&a=2");
    assert_eq!(p.get("a"), Some("2"));
    let p = UrlParams::parse("timeout=7&default.timeout=5");
    assert_eq!(p.get("timeout"), Some("7"));
    let p = UrlParams::parse("default.timeout=5&timeout=7");
    assert_eq!(p.get("timeout"), Some("7"));
    let p = UrlParams::parse("default.timeout=5&default.timeout=6");
    assert_eq!(p.get("timeout"), Some("5"));
    assert_eq!(p.get("default.timeout"), Some("6"));
    // Two levels, as Java (parser pass + URLParam pass); not three.
    let p = UrlParams::parse("default.default.default.x=1");
    assert_eq!(
        p.keys().collect::<Vec<_>>(),
        [
            "default.default.default.x",
            "default.default.x",
            "default.x"
        ]
    );
    let p = UrlParams::parse("default.default.x=1&default.x=2");
    assert_eq!(p.get("x"), Some("2"));
    assert!(UrlParams::parse("").is_empty());
    assert_eq!(UrlParams::parse("k=v w").get("k"), Some("v w"));
    assert_eq!(UrlParams::parse("é=ü&x").get("é"), Some("ü"));
}

#[test]
fn encoded_edge_cases_follow_java() {
    let p = UrlParams::parse_encoded("a%3D1%26b%3D%26c%3Dx+y%2Cz").unwrap();
    assert_eq!(pairs(&p), owned(&[("a", "1"), ("b", ""), ("c", "x y,z")]));
    // Name without '=' loses two characters, as in Java.
    let p = UrlParams::parse_encoded("a%3D1%26flag").unwrap();
    assert_eq!(pairs(&p), owned(&[("a", "1"), ("fl", "")]));
    // A leading encoded '=' gives an empty key.
    let p = UrlParams::parse_encoded("%3Dv").unwrap();
    assert_eq!(p.get(""), Some("v"));
    assert_eq!(
        UrlParams::parse_encoded("a%3D%E4%B8%AD").unwrap().get("a"),
        Some("中")
    );
    assert_eq!(
        UrlParams::parse_encoded("a%3").unwrap_err().code(),
        "url.unterminated_escape"
    );
    assert_eq!(
        UrlParams::parse_encoded("a%3Dz%zz").unwrap_err().code(),
        "url.invalid_escape"
    );
    assert_eq!(
        UrlParams::parse_encoded("a%3D%FF").unwrap_err().code(),
        "url.invalid_utf8"
    );
    // Literal delimiters and non-ASCII text do not panic.
    for q in ["&", "=", "é&ü=x", "&&==", "a=b&c", "%26%26", "😀%3D😀%26"] {
        let _ = UrlParams::parse_encoded(q);
    }
}

#[test]
fn query_string_is_sorted_and_trimmed() {
    let p: UrlParams = [("b", " 2 "), ("a", "1"), ("", "x"), ("c", "")]
        .into_iter()
        .collect();
    assert_eq!(p.to_query_string(), "a=1&b=2&c=");
    let mut s = String::new();
    p.write_query(&mut s, true, &["b"]);
    assert_eq!(s, "?b=2");
    // In UTF-16 the surrogates of U+1F600 (D83D..) sort before U+FF01; in UTF-8 they do not.
    let p: UrlParams = [("\u{FF01}", "1"), ("\u{1F600}", "2")]
        .into_iter()
        .collect();
    assert_eq!(p.to_query_string(), "\u{1F600}=2&\u{FF01}=1");
}

#[test]
fn copy_on_write() {
    let p = UrlParams::parse("a=1&b=2");
    let q = p.with("a", "1");
    assert!(Arc::ptr_eq(&p.map, &q.map));
    let q = p.with("a", "3").without("b").with_if_absent("a", "9");
    assert_eq!(q.to_query_string(), "a=3");
    assert_eq!(p.to_query_string(), "a=1&b=2");
    let r = p.with_all([("a", "1"), ("b", "2")]);
    assert!(Arc::ptr_eq(&p.map, &r.map));
    let r = p.without_all(["x", "y"]);
    assert!(Arc::ptr_eq(&p.map, &r.map));
}

#[test]
fn layered_sets_read_and_compare_as_flat_ones() {
    use std::hash::BuildHasher;
    let shared = UrlParams::parse("b=2&d=4&methods=x");
    let own = UrlParams::parse("a=1&c=3&e=5");
    let layered = shared.layered(&own);
    let flat = UrlParams::parse("a=1&b=2&c=3&d=4&e=5&methods=x");
    assert!(Arc::ptr_eq(&layered.map, &shared.map));
    assert_eq!(pairs(&layered), pairs(&flat));
    assert_eq!(layered, flat);
    assert_eq!(flat, layered);
    let s = std::collections::hash_map::RandomState::new();
    assert_eq!(s.hash_one(&layered), s.hash_one(&flat));
    assert_eq!(
        (layered.len(), layered.get("c"), layered.get("d")),
        (6, Some("3"), Some("4"))
    );
    assert!(layered.contains_key("e") && !layered.contains_key("f"));
    assert_eq!(layered.to_query_string(), flat.to_query_string());
    assert_eq!(layered.with("c", "9").get("c"), Some("9"));
    assert_eq!(
        layered.without("a").to_query_string(),
        "b=2&c=3&d=4&e=5&methods=x"
    );
    assert_eq!(layered.with_all([("b", "7")]).get("b"), Some("7"));
    assert!(layered.ptr_eq(&layered.clone()));
    assert!(!layered.ptr_eq(&shared.layered(&own)));
    // An own key also in the shared map wins, through a flat copy.
    let over = shared.layered(&UrlParams::parse("b=9"));
    assert_eq!(over.get("b"), Some("9"));
    assert_eq!(over.len(), 3);
    assert!(shared.layered(&UrlParams::new()).ptr_eq(&shared));
}

#[test]
fn a_lone_timestamp_layer_reads_compares_and_copies_as_flat() {
    use std::hash::BuildHasher;
    let shared = UrlParams::parse("interface=a.B&side=provider&zone=z");
    let key: Arc<str> = Arc::from("timestamp");
    let one = shared.layered_pairs(&[(Arc::clone(&key), "1796079976076")]);
    let flat = UrlParams::parse("interface=a.B&side=provider&timestamp=1796079976076&zone=z");
    assert!(matches!(one.own, Some(OwnLayer::Timestamp(_))));
    assert!(Arc::ptr_eq(&one.map, &shared.map));
    assert_eq!(one, flat);
    assert_eq!(flat, one);
    assert_eq!(
        one,
        shared.layered(&UrlParams::parse("timestamp=1796079976076"))
    );
    let s = std::collections::hash_map::RandomState::new();
    assert_eq!(s.hash_one(&one), s.hash_one(&flat));
    assert_eq!(pairs(&one), pairs(&flat));
    assert_eq!(one.to_query_string(), flat.to_query_string());
    assert_eq!(
        (one.len(), one.get("timestamp")),
        (4, Some("1796079976076"))
    );
    assert_eq!(one.with("timestamp", "2").get("timestamp"), Some("2"));
    assert_eq!(one.without("timestamp"), shared);
    assert!(one.ptr_eq(&one.clone()));
    let other = shared.layered_pairs(&[(Arc::clone(&key), "2")]);
    assert!(!one.ptr_eq(&other) && one != other);
    // Layering again flattens, keeping every pair.
    let again = one.layered_pairs(&[(Arc::from("pid"), "7")]);
    assert_eq!(again.get("timestamp"), Some("1796079976076"));
    assert_eq!(again.get("pid"), Some("7"));
    // A timestamp the shared map already has is replaced, through a flat copy.
    let over = flat.layered_pairs(&[(key, "3")]);
    assert_eq!((over.get("timestamp"), over.len()), (Some("3"), 4));
    // Values of the shared map are known shared; those of own layers are not.
    assert!(one.shares_values(&other, &["interface", "zone"]));
    assert!(one.shares_values(&shared, &["interface"]));
    assert!(!one.shares_values(&other, &["zone", "timestamp"]));
    let pid = shared.layered_pairs(&[(Arc::from("pid"), "7"), (Arc::from("timestamp"), "1")]);
    assert!(pid.shares_values(&one, &["interface"]) && !pid.shares_values(&one, &["pid"]));
    assert!(!one.shares_values(&flat, &["interface"]));
    // The inline layer costs a layered set 8 bytes over a flat one, not an allocation.
    assert!(std::mem::size_of::<UrlParams>() <= 32);
}

#[test]
fn method_parameters() {
    let p = UrlParams::parse("methods=sayHello,bye&sayHello.timeout=5&other.timeout=9&x.y.z=1");
    assert_eq!(p.method_parameter_strict("sayHello", "timeout"), Some("5"));
    assert_eq!(p.method_parameter_strict("other", "timeout"), None);
    assert_eq!(p.method_parameter_strict("bye", "timeout"), None);
    let p = UrlParams::parse("x.y.z=1&say.timeout=");
    assert_eq!(p.method_parameter_strict("x", "y.z"), Some("1"));
    assert_eq!(p.method_parameter_strict("x.y", "z"), None);
    assert_eq!(p.method_parameter_strict("say", "timeout"), None);
}
