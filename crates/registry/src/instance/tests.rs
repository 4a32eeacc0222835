use super::reader::RECENT_MAPS;
use super::*;

#[test]
fn values_the_reader_skips_are_held_to_json_grammar() {
    // Found by the read_instance fuzz target: an unknown field's object was skipped by
    // matching brackets only, so broken objects inside it were accepted.
    let json = ServiceInstance::new("demo-provider", "127.0.0.1", 20880).to_curator_json();
    let with_field =
        |value: &str| json.replacen("\"port\":", &format!("\"x\":{value},\"port\":"), 1);
    for (value, ok) in [
        (r#"{"a":[1,-2.5e+3,true,null,{"b":"c"}],"d":{}}"#, true),
        ("[]", true),
        (r#"[ { } , [ ] ]"#, true),
        (r#"{"a" "b"}"#, false),
        (r#"{"a":1,}"#, false),
        (r#"{"a":1 "b":2}"#, false),
        (r#"[1,,2]"#, false),
        (r#"{"a":zzz}"#, false),
        (r#"{1:2}"#, false),
        (r#"[1.2.3]"#, false),
        (r#"[01]"#, false),
        (r#"[1.]"#, false),
        (r#"[1e]"#, false),
        ("[-]", false),
        (r#"{"a":[}]"#, false),
    ] {
        let doc = with_field(value);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&doc).is_ok(),
            ok,
            "{doc}"
        );
        let read = ServiceInstance::from_curator_json("/services/demo-provider/x", doc.as_bytes());
        assert_eq!(read.is_ok(), ok, "{doc}: {read:?}");
        if let Ok(instance) = read {
            assert_eq!(instance.port, 20880);
        }
    }
}

#[test]
fn strings_the_reader_skips_are_held_to_json_rules() {
    // Found by the read_instance fuzz target: the scanner skipped `@class` and `id` without
    // looking inside, so a raw control character there was accepted where serde_json and
    // Java's Jackson refuse the document.
    let json = ServiceInstance::new("demo-provider", "127.0.0.1", 20880).to_curator_json();
    let class = "org.apache.dubbo.registry.zookeeper.ZookeeperInstance";
    let with_class = |text: &str| json.replacen(class, text, 1);
    for (bad, why) in [
        ("org.apache\\u0000dubbo", None),
        ("org.apache\\ud83d\\ude00", None),
        ("org.apache\\u00e9\\n\\/", None),
        ("org.apache\u{1}dubbo", Some("control character")),
        ("org.apache\\xdubbo", Some("invalid escape")),
        ("org.apache\\u12g4", Some("escape")),
        ("org.apache\\ud83d", Some("escape")),
        ("org.apache\\ude00", Some("escape")),
    ] {
        let doc = with_class(bad);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&doc).is_ok(),
            why.is_none(),
            "{doc}"
        );
        let read = ServiceInstance::from_curator_json("/services/demo-provider/x", doc.as_bytes());
        match why {
            None => assert_eq!(read.unwrap().app, "demo-provider"),
            Some(why) => {
                let err = read.unwrap_err().to_string();
                assert!(
                    err.contains(why) && err.contains("/services/demo-provider/x"),
                    "{err}"
                );
            }
        }
    }
}

#[test]
fn curator_json_has_javas_layout_and_reads_back() {
    let mut i = ServiceInstance::new("demo-provider", "127.0.0.1", 20880);
    i.registration_time = 1_700_000_000_000;
    i.metadata.insert(REVISION_KEY.into(), "abc".into());
    i.metadata.insert(
        ENDPOINTS_KEY.into(),
        r#"[{"port":20880,"protocol":"dubbo"},{"port":50051,"protocol":"tri"}]"#.into(),
    );
    let json = i.to_curator_json();
    assert!(json.starts_with(
        r#"{"name":"demo-provider","id":"127.0.0.1:20880","address":"127.0.0.1","port":20880,"sslPort":null,"payload":{"@class":"org.apache.dubbo.registry.zookeeper.ZookeeperInstance","id":"127.0.0.1:20880","name":"demo-provider","metadata":{"#
    ), "{json}");
    assert!(json.ends_with(
        r#"},"registrationTimeUTC":1700000000000,"serviceType":"DYNAMIC","uriSpec":null}"#
    ));
    let back =
        ServiceInstance::from_curator_json("/services/demo-provider/x", json.as_bytes()).unwrap();
    assert_eq!(back, i);
    assert_eq!(back.revision(), "abc");
    assert_eq!(back.port_for("tri"), 50051);
    assert_eq!(back.port_for("rest"), 20880);
}

#[test]
fn java_ipv6_mapped_instances_are_dialled_in_brackets() {
    let json = br#"{"name":"p","id":"::ffff:127.0.0.1:20880","address":"::ffff:127.0.0.1","port":20880,"sslPort":null,"payload":{"@class":"org.apache.dubbo.registry.zookeeper.ZookeeperInstance","id":"::ffff:127.0.0.1:20880","name":"p","metadata":{"dubbo.metadata.revision":"r1","extra":"x"}},"registrationTimeUTC":1,"serviceType":"DYNAMIC","uriSpec":null,"enabled":true}"#;
    let i = ServiceInstance::from_curator_json("/services/p/x", json).unwrap();
    assert_eq!(i.address(), "[::ffff:127.0.0.1]:20880");
    assert_eq!(i.revision(), "r1");
}

#[test]
fn foreign_and_partial_data_is_refused_with_the_path() {
    for data in [
        &b"not json"[..],
        br#"{"name":"p","id":"x","address":"h"}"#,
        b"{",
    ] {
        let e = ServiceInstance::from_curator_json("/services/p/bad", data).unwrap_err();
        assert_eq!(e.code(), "REGISTRY_BAD_DATA");
        assert!(e.to_string().contains("/services/p/bad"), "{e}");
    }
}

fn java_like(host: &str, revision: &str, timestamp: &str) -> ServiceInstance {
    let mut i = ServiceInstance::new("p", host, 20880);
    let m = &mut i.metadata;
    m.insert(
        METADATA_SERVICE_PARAMS_KEY.into(),
        r#"{"version":"2.0.0","port":"50051","protocol":"tri"}"#.into(),
    );
    m.insert(REVISION_KEY.into(), revision.into());
    m.insert(TIMESTAMP_KEY.into(), timestamp.into());
    m.insert("zone".into(), "a<b>&'\u{0}\u{e9}".into());
    i
}

#[test]
fn metadata_reads_as_one_map_in_key_order() {
    let i = java_like("10.0.0.1", "r1", "42");
    let plain: BTreeMap<String, String> = i
        .metadata
        .iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    assert_eq!(i.metadata.to_map(), plain);
    let keys: Vec<&str> = i.metadata.keys().collect();
    assert_eq!(
        keys,
        [
            METADATA_SERVICE_PARAMS_KEY,
            REVISION_KEY,
            TIMESTAMP_KEY,
            "zone"
        ]
    );
    // Serialised exactly as the plain map would be.
    assert_eq!(
        serde_json::to_string(&i.metadata).unwrap(),
        serde_json::to_string(&plain).unwrap()
    );
    assert_eq!(i.metadata.len(), 4);
    assert_eq!(i.metadata[TIMESTAMP_KEY], "42");
    assert_eq!(InstanceMetadata::from(plain.clone()), i.metadata);
    assert_eq!(plain.into_iter().collect::<InstanceMetadata>(), i.metadata);
}

#[test]
fn the_reader_shares_metadata_between_instances_of_a_revision() {
    let mut reader = InstanceReader::new();
    let read = |reader: &mut InstanceReader, i: &ServiceInstance| {
        let json = i.to_curator_json();
        let back = reader
            .read_curator_json("/services/p/x", json.as_bytes())
            .unwrap();
        assert_eq!(&back, i);
        assert_eq!(back.to_curator_json(), json);
        back
    };
    let a = read(&mut reader, &java_like("10.0.0.1", "r1", "1"));
    let b = read(&mut reader, &java_like("10.0.0.2", "r1", "2"));
    let c = read(&mut reader, &java_like("10.0.0.3", "r2", "3"));
    assert!(a.metadata.shares_with(&b.metadata));
    assert!(!a.metadata.shares_with(&c.metadata));
    assert_eq!(b.metadata[TIMESTAMP_KEY], "2");
    assert_eq!(
        a.metadata_service_params()
            .get("protocol")
            .map(String::as_str),
        Some("tri")
    );

    // Changing one instance's metadata leaves the others alone.
    let mut changed = a.clone();
    changed.metadata.insert(REVISION_KEY.into(), "r9".into());
    assert_eq!(b.revision(), "r1");
    assert_eq!(changed.revision(), "r9");
    assert_eq!(
        changed.metadata.remove("zone").as_deref(),
        Some("a<b>&'\u{0}\u{e9}")
    );
    assert!(b.metadata.contains_key("zone"));

    // Maps no instance holds any more are forgotten.
    drop((a, b, changed));
    reader.forget_unused();
    assert_eq!(reader.shared.len(), 1);
}

#[test]
fn metadata_that_is_not_strings_is_refused_even_after_good_instances() {
    let mut reader = InstanceReader::new();
    let good = java_like("10.0.0.1", "r1", "1").to_curator_json();
    reader
        .read_curator_json("/services/p/good", good.as_bytes())
        .unwrap();
    for bad in [
        good.replace(
            r#""dubbo.metadata.revision":"r1""#,
            r#""dubbo.metadata.revision":1"#,
        ),
        good.replace(r#""timestamp":"1""#, r#""timestamp":1"#),
        good.replace(r#""timestamp":"1""#, r#""timestamp":null"#),
        good.replace(r#""metadata":{"#, r#""metadata":[{"#),
    ] {
        let e = reader
            .read_curator_json("/services/p/bad", bad.as_bytes())
            .unwrap_err();
        assert_eq!(e.code(), "REGISTRY_BAD_DATA", "{bad}");
        assert!(e.to_string().contains("/services/p/bad"), "{e}");
    }
    // Escapes in keys and values read as the text they stand for.
    let escaped = good.replace(r#""timestamp":"1""#, r#""time\u0073tamp":"\u0031""#);
    let i = reader
        .read_curator_json("/services/p/esc", escaped.as_bytes())
        .unwrap();
    assert_eq!(i.metadata[TIMESTAMP_KEY], "1");
}

/// Documents as Java writes them, and variants a general parser reads the same way.
fn documents() -> Vec<String> {
    let java = java_like("10.0.0.1", "r1", "17").to_curator_json();
    let mut ipv6 = java_like("::1", "r2", "18");
    ipv6.metadata.insert(
        ENDPOINTS_KEY.into(),
        r#"[{"port":20880,"protocol":"dubbo"}]"#.into(),
    );
    vec![
        java.clone(),
        ipv6.to_curator_json(),
        // Whitespace, fields in another order, unknown fields of every kind.
        java.replace(r#"",""#, "\" ,\n\t\"")
            .replace(r#"":""#, "\" : \""),
        java.replace(
            r#""name":"p","#,
            r#""enabled":true,"extra":{"a":[1,{"b":"}"}],"c":-1.5e3},"name":"p","#,
        ),
        // sslPort only, null payload, no metadata, escapes where they are kept.
        java.replace(r#""port":20880,"sslPort":null"#, r#""sslPort":443"#),
        r#"{"name":"a\u0070p","address":"h\"1","port":1,"payload":null}"#.to_owned(),
        r#"{"name":"p","address":"h","port":1,"payload":{"@class":"x"}}"#.to_owned(),
        r#"{"name":"p","address":"h","port":1,"payload":{"metadata":{}},"registrationTimeUTC":0}"#
            .to_owned(),
        // Duplicate metadata keys: the last wins.
        r#"{"name":"p","address":"h","port":1,"payload":{"metadata":{"a":"1","timestamp":"1","a":"2","timestamp":"2"}}}"#
            .to_owned(),
        r#"{"name":"p","address":"h","port":1,"payload":{"metadata":{"k\u00e9":"\ud83d\ude00"}}}"#
            .to_owned(),
    ]
}

/// The spans of values the scanner skips without reading (the ends of `"key":` values
/// in these documents, which hold no `,"` or `}`).
fn skipped_spans(doc: &str) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    for key in [
        r#""id""#,
        r#""@class""#,
        r#""serviceType""#,
        r#""uriSpec""#,
        r#""enabled""#,
        r#""extra""#,
    ] {
        for (at, _) in doc.match_indices(key) {
            let from = at + key.len();
            // The nested `extra` object ends with the one exponent in the documents.
            let stop = if key == r#""extra""# { "e3}" } else { "" };
            let end = match doc[from..].find(stop) {
                Some(e) if !stop.is_empty() => from + e + stop.len(),
                _ => doc[from..].find([',', '}']).map_or(doc.len(), |e| from + e),
            };
            spans.push(at..end);
        }
    }
    // payload.name, the second "name".
    if let Some((at, _)) = doc.match_indices(r#""name""#).nth(1) {
        let end = doc[at..].find(',').map_or(doc.len(), |e| at + e);
        spans.push(at..end);
    }
    spans
}

#[test]
fn the_scanner_reads_what_serde_json_reads() {
    for doc in documents() {
        let expected = reference::read(doc.as_bytes()).unwrap();
        let mut reader = InstanceReader::new();
        let got = reader
            .read_curator_json("/services/p/x", doc.as_bytes())
            .unwrap();
        assert_eq!(got, expected, "{doc}");
        assert_eq!(got.to_curator_json(), expected.to_curator_json());
        // A second read finds the map it built.
        let again = reader
            .read_curator_json("/services/p/x", doc.as_bytes())
            .unwrap();
        assert!(again.metadata.shares_with(&got.metadata));
        // ... by comparing its text, once it has read it pair by pair.
        let mut key = Vec::new();
        let scanned = scan::scan(
            doc.as_bytes(),
            &mut key,
            &reader.recent,
            &mut scan::Layout::default(),
        )
        .unwrap();
        if doc.contains(r#""metadata""#) {
            assert!(
                matches!(scanned.metadata, scan::Metadata::Known(0)),
                "{doc}"
            );
            assert!(key.is_empty());
        }
    }
}

#[test]
fn the_scanner_refuses_what_serde_json_refuses_where_it_reads() {
    let mut checked = 0;
    for doc in documents() {
        let bytes = doc.as_bytes();
        // Every proper prefix is partial data.
        for end in 0..bytes.len() {
            let e =
                ServiceInstance::from_curator_json("/services/p/cut", &bytes[..end]).unwrap_err();
            assert_eq!(e.code(), "REGISTRY_BAD_DATA");
            assert!(e.to_string().contains("/services/p/cut"), "{e}");
        }
        // Every byte replaced: where the scanner reads, it agrees with serde_json; in a
        // skipped value it may accept what serde_json refuses, never the reverse.
        let skipped = skipped_spans(&doc);
        let mut warmed = InstanceReader::new();
        for at in 0..bytes.len() {
            for b in [
                b'"', b'\\', b'{', b'}', b'[', b',', b':', b'1', b'x', b' ', 0x01, 0xff,
            ] {
                let mut mutated = bytes.to_vec();
                mutated[at] = b;
                let expected = reference::read(&mutated);
                // A fresh reader reads the pairs; one that has just read the document
                // compares the metadata with it first.
                let fresh = InstanceReader::new().read_curator_json("/services/p/m", &mutated);
                warmed.read_curator_json("/services/p/x", bytes).unwrap();
                let after_base = warmed.read_curator_json("/services/p/m", &mutated);
                for got in [fresh, after_base] {
                    match (&expected, &got) {
                        (Ok(e), Ok(g)) => assert_eq!(e, g),
                        (Ok(_), Err(e)) => {
                            panic!("refused {:?}: {e}", String::from_utf8_lossy(&mutated))
                        }
                        (Err(_), Ok(_)) => assert!(
                            skipped.iter().any(|s| s.contains(&at)),
                            "accepted {:?}",
                            String::from_utf8_lossy(&mutated)
                        ),
                        (Err(_), Err(e)) => {
                            assert!(e.to_string().contains("/services/p/m"), "{e}");
                        }
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000);
}

#[test]
fn many_revisions_interleaved_each_share_one_map() {
    let mut reader = InstanceReader::new();
    // More revisions than the reader compares before hashing.
    let revisions: Vec<String> = (0..RECENT_MAPS * 2 + 1).map(|r| format!("r{r}")).collect();
    let mut read = Vec::new();
    for i in 0..revisions.len() * 5 {
        let want = java_like(
            &format!("10.0.0.{i}"),
            &revisions[i * 7 % revisions.len()],
            &i.to_string(),
        );
        let got = reader
            .read_curator_json("/services/p/x", want.to_curator_json().as_bytes())
            .unwrap();
        assert_eq!(got, want);
        read.push(got);
    }
    for a in &read {
        for b in &read {
            assert_eq!(
                a.metadata.shares_with(&b.metadata),
                a.revision() == b.revision()
            );
        }
    }
    assert_eq!(reader.shared.len(), revisions.len());
    read.retain(|i| i.revision() == "r0");
    reader.forget_unused();
    assert_eq!(reader.shared.len(), 1);
    assert!(reader.recent.is_empty());
}

/// Whether `reader` reads `doc` along the layout of the document it read last.
fn follows_layout(reader: &InstanceReader, doc: &str) -> bool {
    scan::scan_along(doc.as_bytes(), &reader.recent, &reader.layout).is_some()
}

#[test]
fn documents_read_along_the_last_layout_read_as_in_full() {
    let base = java_like("10.0.0.1", "r1", "17");
    let java = base.to_curator_json();
    let mut other = java_like("192.168.100.200", "r1", "1700000000123");
    other.port = 7;
    other.registration_time = 1_700_000_000_000;
    let mut ipv6 = java_like("::1", "r1", "18");
    ipv6.registration_time = 5;
    let mut no_timestamp = base.clone();
    no_timestamp.metadata.remove(TIMESTAMP_KEY);
    // (document, read along the layout of `java` once its metadata is known)
    let cases: Vec<(String, bool)> = vec![
        // Other values in the slots: id, address, ports, times, timestamp.
        (other.to_curator_json(), true),
        (ipv6.to_curator_json(), true),
        (
            java.replace(
                r#""port":20880,"sslPort":null"#,
                r#""port":null,"sslPort":443"#,
            ),
            true,
        ),
        (java.replace(r#""sslPort":null"#, r#""sslPort":443"#), true),
        (java.replacen(r#""name":"p""#, r#""name":"q""#, 1), true),
        (java.replace(r#""name":"p""#, r#""name":"q""#), false),
        (
            java.replace(r#""timestamp":"17""#, r#""timestamp":"1\u0038""#),
            true,
        ),
        (
            java.replace(r#""address":"10.0.0.1""#, r#""address":"h\"1""#),
            true,
        ),
        (
            java.replacen(r#""id":"10.0.0.1:20880""#, r#""id":"a\\b""#, 1),
            true,
        ),
        // Another metadata text, other text between the slots, fields reordered.
        (java_like("10.0.0.2", "r2", "19").to_curator_json(), false),
        (no_timestamp.to_curator_json(), false),
        (
            java.replace(r#""serviceType":"DYNAMIC""#, r#""serviceType":"STATIC""#),
            false,
        ),
        (
            java.replace(r#","uriSpec":null"#, r#","uriSpec":null,"enabled":true"#),
            false,
        ),
        (
            java.replace(r#""name":"p","id""#, r#""id":"x","name":"p","i""#),
            false,
        ),
        (format!(" {java}\n"), false),
        (java.replace(r#""port":20880"#, r#""port":"20880""#), false),
        // Values of the wrong kind or invalid, documents cut short or run on.
        (java.replace(r#""port":20880"#, r#""port":70000"#), false),
        (java.replace(r#""port":20880"#, r#""port":020880"#), false),
        (
            java.replace(r#""registrationTimeUTC":0"#, r#""registrationTimeUTC":-1"#),
            false,
        ),
        (
            java.replacen(r#""id":"10.0.0.1:20880""#, r#""id":1"#, 1),
            false,
        ),
        (
            java.replacen(r#""id":"10.0.0.1:20880""#, "\"id\":\"a\u{1}\"", 1),
            false,
        ),
        (
            java.replace(r#""address":"10.0.0.1""#, r#""address":"\x""#),
            false,
        ),
        (
            java.replace(r#""timestamp":"17""#, r#""timestamp":17"#),
            false,
        ),
        (java[..java.len() - 1].to_owned(), false),
        (java[..java.len() / 2].to_owned(), false),
        (format!("{java}}}"), false),
        (format!("{java}{java}"), false),
    ];
    for (doc, along) in &cases {
        let mut warm = InstanceReader::new();
        warm.read_curator_json("/services/p/a", java.as_bytes())
            .unwrap();
        assert!(follows_layout(&warm, &java));
        assert_eq!(follows_layout(&warm, doc), *along, "{doc}");
        let expected = reference::read(doc.as_bytes()).ok();
        assert!(expected.is_some() || !along, "{doc}");
        let fresh = InstanceReader::new().read_curator_json("/services/p/b", doc.as_bytes());
        let got = warm.read_curator_json("/services/p/b", doc.as_bytes());
        match (&fresh, &got) {
            (Ok(f), Ok(g)) => {
                assert_eq!(f, g, "{doc}");
                // (serde_json refuses some values the scanner skips, never the reverse.)
                if let Some(e) = &expected {
                    assert_eq!(g, e, "{doc}");
                }
                assert_eq!(g.to_curator_json(), f.to_curator_json());
            }
            (Err(f), Err(g)) => assert_eq!(f.to_string(), g.to_string()),
            _ => panic!("{doc}: fresh {fresh:?}, along the layout {got:?}"),
        }
        // An accepted document is (or has the layout of) the layout for the next.
        if got.is_ok() {
            assert!(follows_layout(&warm, doc), "{doc}");
        }
        let again = warm.read_curator_json("/services/p/b", java.as_bytes());
        assert_eq!(again.unwrap(), base);
    }
}
