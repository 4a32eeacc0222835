//! Per-method CORS (`#[cross_origin]`, Spring's `@CrossOrigin`) through an application: a
//! method's settings replace the server's `triple.rest.cors` ones for its route, the other
//! routes keep the server's, and settings that cannot be applied stop the export.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_rs::config::{CorsConfig, ProtocolConfig, ProtocolTripleConfig, RestConfig};
use dubbo_rs::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[dubbo_rs::service(interface = "org.example.Board")]
pub trait Board {
    /// The server's settings.
    #[get("/notes")]
    async fn notes(&self) -> Result<String, RpcError>;
    /// Its own origins, headers and max age; the server's methods and exposed headers.
    #[get("/notes/{id}")]
    #[cross_origin(
        origins = "https://notes.example, http://localhost:[*]",
        allowed_headers = "X-Note",
        max_age = 60
    )]
    async fn note(&self, id: u32) -> Result<String, RpcError>;
    /// Every setting its own, a verb the server does not allow.
    #[put("/notes/{id}")]
    #[cross_origin(
        origins = "https://editor.example",
        methods = "PUT",
        allowed_headers = "*",
        exposed_headers = "X-Version",
        allow_credentials = true,
        max_age = 5
    )]
    async fn put(&self, id: u32, #[body] text: String) -> Result<String, RpcError>;
}

struct Notes;

impl Board for Notes {
    async fn notes(&self) -> Result<String, RpcError> {
        Ok("all".into())
    }
    async fn note(&self, id: u32) -> Result<String, RpcError> {
        Ok(format!("note {id}"))
    }
    async fn put(&self, id: u32, text: String) -> Result<String, RpcError> {
        Ok(format!("{id}={text}"))
    }
}

/// Only a bare `#[cross_origin]`: CORS for this route alone.
#[dubbo_rs::service(interface = "org.example.Door")]
pub trait Door {
    #[delete("/door")]
    #[cross_origin]
    async fn close(&self) -> Result<(), RpcError>;
    #[get("/door")]
    async fn look(&self) -> Result<String, RpcError>;
}

struct Front;

impl Door for Front {
    async fn close(&self) -> Result<(), RpcError> {
        Ok(())
    }
    async fn look(&self) -> Result<String, RpcError> {
        Ok("open".into())
    }
}

/// Credentials from any origin, which the server's settings (any origin) do not narrow.
#[dubbo_rs::service(interface = "org.example.Vault")]
pub trait Vault {
    #[get("/vault")]
    #[cross_origin(allow_credentials = true)]
    async fn open(&self) -> Result<String, RpcError>;
}

struct Safe;

impl Vault for Safe {
    async fn open(&self) -> Result<String, RpcError> {
        Ok("gold".into())
    }
}

/// Sends one raw HTTP/1.1 request; returns the status and the lower-cased head and the body.
async fn http(
    port: u16,
    verb: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String, String) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut req = format!("{verb} {path} HTTP/1.1\r\nHost: t\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if verb == "PUT" {
        req.push_str(
            "Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
        );
    } else {
        req.push_str("Connection: close\r\n\r\n");
    }
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (
        head[9..12].parse().unwrap(),
        head.to_ascii_lowercase(),
        body.to_owned(),
    )
}

fn preflight<'a>(origin: &'a str, method: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("Origin", origin),
        ("Access-Control-Request-Method", method),
    ]
}

fn tri_with_cors(cors: CorsConfig) -> ProtocolConfig {
    ProtocolConfig {
        name: Some("tri".into()),
        port: Some(0),
        triple: Some(ProtocolTripleConfig {
            rest: Some(RestConfig {
                cors: Some(cors),
                ..Default::default()
            }),
        }),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_methods_settings_replace_the_servers_for_its_route() {
    let app = Application::builder("rest-cors")
        .protocol_config(
            "tri",
            tri_with_cors(CorsConfig {
                allowed_origins: vec!["https://app.example".into()],
                allowed_methods: vec!["GET".into(), "POST".into()],
                exposed_headers: vec!["Location".into()],
                max_age: Some(600),
                ..Default::default()
            }),
        )
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(BoardServer::new(Notes), ServiceOptions::new())
        .await
        .unwrap();
    let port = urls[0].port();

    // The server's settings on a route without its own.
    let (st, head, _) = http(
        port,
        "OPTIONS",
        "/notes",
        &preflight("https://app.example", "GET"),
    )
    .await;
    assert_eq!(st, 204, "{head}");
    assert!(head.contains("access-control-max-age: 600"), "{head}");
    let (st, _, _) = http(
        port,
        "OPTIONS",
        "/notes",
        &preflight("https://notes.example", "GET"),
    )
    .await;
    assert_eq!(st, 403);

    // The route's own origins, headers and max age; the server's methods and exposed headers.
    let mut asked = preflight("https://notes.example", "GET");
    asked.push(("Access-Control-Request-Headers", "x-note"));
    let (st, head, _) = http(port, "OPTIONS", "/notes/7", &asked).await;
    assert_eq!(st, 204, "{head}");
    for want in [
        "access-control-allow-origin: https://notes.example",
        "access-control-allow-methods: GET, POST",
        "access-control-allow-headers: x-note",
        "access-control-max-age: 60",
        "access-control-expose-headers: Location",
    ] {
        assert!(
            head.contains(&want.to_ascii_lowercase()),
            "{want} in {head}"
        );
    }
    let (st, _, _) = http(
        port,
        "OPTIONS",
        "/notes/7",
        &preflight("http://localhost:5173", "GET"),
    )
    .await;
    assert_eq!(st, 204);
    // The server's origin is not the route's; a header the route does not allow.
    let (st, _, body) = http(
        port,
        "OPTIONS",
        "/notes/7",
        &preflight("https://app.example", "GET"),
    )
    .await;
    assert_eq!(st, 403, "{body}");
    let mut other = preflight("https://notes.example", "GET");
    other.push(("Access-Control-Request-Headers", "x-token"));
    assert_eq!(http(port, "OPTIONS", "/notes/7", &other).await.0, 403);
    // Actual requests: answered with the route's headers, or refused before the call.
    let (st, head, body) = http(
        port,
        "GET",
        "/notes/7",
        &[("Origin", "https://notes.example")],
    )
    .await;
    assert_eq!((st, body.as_str()), (200, r#""note 7""#), "{head}");
    assert!(
        head.contains("access-control-allow-origin: https://notes.example"),
        "{head}"
    );
    let (st, head, _) = http(
        port,
        "GET",
        "/notes/7",
        &[("Origin", "https://app.example")],
    )
    .await;
    assert_eq!(st, 403, "{head}");
    assert!(!head.contains("access-control-allow-origin"), "{head}");

    // Every setting its own: PUT (which the server does not allow), credentials.
    let mut asked = preflight("https://editor.example", "PUT");
    asked.push(("Access-Control-Request-Headers", "x-anything"));
    let (st, head, _) = http(port, "OPTIONS", "/notes/3", &asked).await;
    assert_eq!(st, 204, "{head}");
    for want in [
        "access-control-allow-origin: https://editor.example",
        "access-control-allow-methods: put",
        "access-control-allow-headers: x-anything",
        "access-control-max-age: 5",
        "access-control-allow-credentials: true",
        "access-control-expose-headers: x-version",
    ] {
        assert!(head.contains(want), "{want} in {head}");
    }
    // A preflight for GET on the same path is the GET route's.
    let (st, _, _) = http(
        port,
        "OPTIONS",
        "/notes/3",
        &preflight("https://editor.example", "GET"),
    )
    .await;
    assert_eq!(st, 403);
    let (st, head, body) = http(
        port,
        "PUT",
        "/notes/3",
        &[("Origin", "https://editor.example")],
    )
    .await;
    assert_eq!((st, body.as_str()), (200, r#""3=hi""#), "{head}");
    assert!(
        head.contains("access-control-allow-credentials: true"),
        "{head}"
    );

    // The OpenAPI document under the server's settings, for a Swagger UI elsewhere.
    let docs = "/dubbo/openapi/api-docs";
    let (st, head, _) = http(
        port,
        "OPTIONS",
        docs,
        &preflight("https://app.example", "GET"),
    )
    .await;
    assert_eq!(st, 204, "{head}");
    let (st, head, body) = http(port, "GET", docs, &[("Origin", "https://app.example")]).await;
    assert_eq!(st, 200, "{head}");
    assert!(body.contains("\"openapi\""), "{body}");
    assert!(
        head.contains("access-control-allow-origin: https://app.example"),
        "{head}"
    );
    let (st, _, _) = http(port, "GET", docs, &[("Origin", "https://evil.example")]).await;
    assert_eq!(st, 403);
    app.shutdown().await;
}

#[tokio::test]
async fn a_bare_attribute_turns_cors_on_for_its_route_alone() {
    let app = Application::builder("rest-cors-bare")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(DoorServer::new(Front), ServiceOptions::new())
        .await
        .unwrap();
    let port = urls[0].port();
    // Java's defaults, with the route's own verb as the methods.
    let (st, head, _) = http(
        port,
        "OPTIONS",
        "/door",
        &preflight("https://any.example", "DELETE"),
    )
    .await;
    assert_eq!(st, 204, "{head}");
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    assert!(
        head.contains("access-control-allow-methods: delete"),
        "{head}"
    );
    assert!(head.contains("access-control-max-age: 1800"), "{head}");
    let (st, head, _) = http(
        port,
        "DELETE",
        "/door",
        &[("Origin", "https://any.example")],
    )
    .await;
    assert_eq!(st, 200, "{head}");
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    // The other route of the path has no CORS: its preflight is refused, its answers bare.
    let (st, head, _) = http(
        port,
        "OPTIONS",
        "/door",
        &preflight("https://any.example", "GET"),
    )
    .await;
    assert_eq!(st, 403, "{head}");
    let (st, head, _) = http(port, "GET", "/door", &[("Origin", "https://any.example")]).await;
    assert_eq!(st, 200);
    assert!(!head.contains("access-control-"), "{head}");
    app.shutdown().await;
}

#[tokio::test]
async fn settings_that_cannot_apply_stop_the_export() {
    let app = Application::builder("rest-cors-bad")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let e = app
        .default_module()
        .export(VaultServer::new(Safe), ServiceOptions::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("org.example.Vault.open")
            && e.contains("#[cross_origin]")
            && e.contains("allow-credentials"),
        "{e}"
    );
}

/// The server bound for a refused export is shut down with the application, even when its
/// accept loop was never polled before the shutdown (it once waited forever).
#[tokio::test]
async fn shutdown_after_a_refused_export_finishes() {
    let app = Application::builder("rest-cors-bad-2")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let _ = app
        .default_module()
        .export(VaultServer::new(Safe), ServiceOptions::new())
        .await
        .unwrap_err();
    tokio::time::timeout(std::time::Duration::from_secs(5), app.shutdown())
        .await
        .expect("the application shut down within 5 s");
}
