#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn list(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

fn policy(s: CorsSettings) -> Arc<CorsPolicy> {
    s.policy().unwrap().expect("settings given")
}

fn origins(v: &[&str]) -> CorsSettings {
    CorsSettings {
        allowed_origins: list(v),
        ..Default::default()
    }
}

#[test]
fn nothing_set_is_no_cors() {
    assert_eq!(CorsSettings::default().policy().unwrap(), None);
}

#[test]
fn any_setting_fills_in_javas_defaults() {
    let p = policy(CorsSettings {
        max_age: Some(60),
        ..Default::default()
    });
    // Any origin, GET/HEAD/POST, any header.
    assert_eq!(p.allow_origin("https://x.example").as_deref(), Some("*"));
    assert_eq!(
        p.allow_method("post").unwrap(),
        list(&["GET", "HEAD", "POST"])
    );
    assert_eq!(p.allow_method("PUT"), None);
    assert_eq!(p.allow_headers(["X-Any"]).unwrap(), list(&["X-Any"]));
    let h = p.preflight("https://x.example", "GET", []).unwrap();
    assert!(h.contains(&("access-control-max-age", "60".to_owned())));
    let p = policy(origins(&["https://a.example"]));
    let h = p.preflight("https://a.example", "GET", []).unwrap();
    assert!(h.contains(&("access-control-max-age", "1800".to_owned())));
}

#[test]
fn exact_origins_ignore_case_and_a_trailing_slash() {
    let p = policy(origins(&["https://A.example/", " http://b.example "]));
    assert_eq!(
        p.allow_origin("https://a.EXAMPLE/").as_deref(),
        Some("https://a.EXAMPLE")
    );
    assert_eq!(
        p.allow_origin("http://b.example").as_deref(),
        Some("http://b.example")
    );
    assert_eq!(p.allow_origin("http://a.example"), None, "scheme differs");
    assert_eq!(
        p.allow_origin("https://a.example:8443"),
        None,
        "port differs"
    );
    assert_eq!(p.allow_origin("https://evil.example"), None);
    assert_eq!(p.allow_origin(""), None);
}

#[test]
fn origin_patterns_and_ports() {
    let p = policy(origins(&[
        "https://*.a.example",
        "http://localhost:[8080,8081]",
        "http://127.0.0.1:[*]",
    ]));
    assert!(p.allow_origin("https://x.a.example").is_some());
    assert!(p.allow_origin("https://x.y.a.example").is_some());
    assert!(
        p.allow_origin("https://a.example").is_none(),
        "the dot is literal"
    );
    assert!(p.allow_origin("http://x.a.example").is_none());
    assert!(
        p.allow_origin("https://x.a.example.evil").is_none(),
        "anchored"
    );
    assert!(p.allow_origin("http://localhost:8080").is_some());
    assert!(p.allow_origin("http://localhost:8081").is_some());
    assert!(p.allow_origin("http://localhost:9090").is_none());
    assert!(p.allow_origin("http://localhost").is_none());
    assert!(p.allow_origin("http://127.0.0.1:1234").is_some());
    assert!(p.allow_origin("http://127.0.0.1").is_some());
    assert!(p.allow_origin("http://127.0.0.2:1234").is_none());
}

#[test]
fn methods_any_or_listed() {
    let p = policy(CorsSettings {
        allowed_methods: list(&["get", " put ", "GET"]),
        ..Default::default()
    });
    assert_eq!(p.allow_method("PUT").unwrap(), list(&["GET", "PUT"]));
    assert_eq!(p.allow_method("POST"), None);
    let p = policy(CorsSettings {
        allowed_methods: list(&["GET", "*"]),
        ..Default::default()
    });
    assert_eq!(p.allow_method("PATCH").unwrap(), list(&["PATCH"]));
}

#[test]
fn headers_allowed_are_the_asked_ones_that_are_listed() {
    let p = policy(CorsSettings {
        allowed_headers: list(&["X-Token", "Content-Type"]),
        ..Default::default()
    });
    // Browsers send one comma-separated header.
    assert_eq!(
        p.allow_headers(["x-token, content-type, x-other"]).unwrap(),
        list(&["x-token", "content-type"])
    );
    assert_eq!(p.allow_headers(["x-other"]), None);
    assert_eq!(p.allow_headers([" "]).unwrap(), Vec::<String>::new());
}

#[test]
fn preflight_and_actual_answers() {
    let p = policy(CorsSettings {
        allowed_origins: list(&["https://a.example"]),
        allowed_methods: list(&["GET", "POST"]),
        allowed_headers: list(&["X-Token"]),
        exposed_headers: list(&["Location", "X-Trace"]),
        allow_credentials: Some(true),
        max_age: Some(600),
    });
    let h = p
        .preflight("https://a.example", "POST", ["X-Token"])
        .unwrap();
    assert_eq!(
        h,
        vec![
            (
                "access-control-allow-origin",
                "https://a.example".to_owned()
            ),
            (
                "access-control-expose-headers",
                "Location, X-Trace".to_owned()
            ),
            ("access-control-allow-credentials", "true".to_owned()),
            ("access-control-allow-methods", "GET, POST".to_owned()),
            ("access-control-allow-headers", "X-Token".to_owned()),
            ("access-control-max-age", "600".to_owned()),
        ]
    );
    assert!(p
        .preflight("https://evil.example", "GET", [])
        .unwrap_err()
        .contains("origin"));
    assert!(p
        .preflight("https://a.example", "DELETE", [])
        .unwrap_err()
        .contains("method"));
    assert!(p
        .preflight("https://a.example", "GET", ["X-Other"])
        .unwrap_err()
        .contains("headers"));
    let h = p.actual("https://a.example", "GET").unwrap();
    assert_eq!(h.len(), 3, "origin, exposed headers, credentials: {h:?}");
    assert!(p.actual("https://a.example", "DELETE").is_err());
    assert!(p.actual("https://b.example", "GET").is_err());
}

#[test]
fn bad_settings_name_their_key() {
    let err = |s: CorsSettings| s.policy().unwrap_err().key;
    assert_eq!(
        err(CorsSettings {
            allowed_methods: list(&["FETCH"]),
            ..Default::default()
        }),
        "allowed-methods"
    );
    assert_eq!(err(origins(&["a.example"])), "allowed-origins");
    assert_eq!(
        err(origins(&["http://a.example:[80,x]"])),
        "allowed-origins"
    );
    assert_eq!(
        err(CorsSettings {
            allowed_headers: list(&["X Token"]),
            ..Default::default()
        }),
        "allowed-headers"
    );
    assert_eq!(
        err(CorsSettings {
            exposed_headers: list(&["Bad:Name"]),
            ..Default::default()
        }),
        "exposed-headers"
    );
    // Credentials with any origin: browsers refuse `*` with credentials.
    assert_eq!(
        err(CorsSettings {
            allow_credentials: Some(true),
            ..Default::default()
        }),
        "allowed-origins"
    );
    assert_eq!(
        err(CorsSettings {
            allowed_origins: list(&["*"]),
            allow_credentials: Some(true),
            ..Default::default()
        }),
        "allowed-origins"
    );
}
