//! The access-key signature against Java Dubbo's own `dubbo-auth` (`SignatureUtils`), run at
//! test time from the interop build: `INTEROP_JAVA_AUTH_JAR` (exported by `scripts/test.sh`
//! after `interop/java/build.sh`) runs `interop/java/dubbo-interop-auth/vector/SignVector.java`.
//!
//! Without the variable the test says so and passes, unless `DUBBO_RS_REQUIRE_PEERS=1` (set by
//! `scripts/test.sh`) makes that a failure.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use dubbo_core::filters::auth::{call_signature, colon_separated_key};

fn java_signature(jar: &std::ffi::OsStr, args: [&str; 4]) -> String {
    let source = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../interop/java/dubbo-interop-auth/vector/SignVector.java"
    );
    let out = Command::new("java")
        .arg("-cp")
        .arg(jar)
        // The platform charset decides how Java encodes the secret (`String.getBytes()`).
        .arg("-Dfile.encoding=UTF-8")
        .arg(source)
        .args(args)
        .output()
        .expect("java runs");
    assert!(
        out.status.success(),
        "SignVector failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn signature_matches_java_dubbo_auth() {
    let Some(jar) = std::env::var_os("INTEROP_JAVA_AUTH_JAR") else {
        let reason = "INTEROP_JAVA_AUTH_JAR is not set (run interop/java/build.sh)";
        if std::env::var_os("DUBBO_RS_REQUIRE_PEERS").is_some_and(|v| v == "1") {
            panic!("{reason}, and DUBBO_RS_REQUIRE_PEERS=1 requires it");
        }
        eprintln!("skipped: {reason}");
        return;
    };
    let cases = [
        (
            colon_separated_key(
                "org.apache.dubbo.interop.InteropService",
                Some("1.0.0"),
                None,
            ),
            "sayHello",
            "interop-secret-Key-1",
            "1733390000123",
        ),
        (
            colon_separated_key("org.example.Greeter", None, Some("g1")),
            "greet",
            "s3cr\u{e9}t \u{4e2d}",
            "0",
        ),
        (
            colon_separated_key("a.B", Some("2.0"), Some("grp")),
            "$echo",
            "k",
            "9999999999999",
        ),
    ];
    for (service, method, secret, ts) in cases {
        let java = java_signature(&jar, [&service, method, secret, ts]);
        assert_eq!(
            call_signature(&service, method, secret, ts),
            java,
            "{service} {method} {secret:?} {ts}"
        );
    }
}
