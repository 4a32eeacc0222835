//! REST on the Triple port, end to end through an application: a service mapped with the
//! macro's attributes, called with plain HTTP/1.1 on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_rs::prelude::*;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: u32,
    pub name: String,
}

dubbo_rs::hessian2::java_type!(Item => "org.example.Item");

#[dubbo_rs::service(interface = "org.example.Catalog")]
pub trait Catalog {
    #[get(r"/items/{id:\d+}")]
    async fn get(&self, id: u32) -> Result<Item, RpcError>;
    #[get("/items/{id}/name", produces = "text/plain")]
    async fn name(&self, id: u32) -> Result<String, RpcError>;
    #[put("/items/{id}", header = "Cache-Control: no-store")]
    async fn put(
        &self,
        id: u32,
        item: Item,
        #[header("X-Who")] who: String,
    ) -> Result<String, RpcError>;
    #[get("/files/**")]
    async fn files(&self) -> Result<String, RpcError>;
    #[get("/session")]
    async fn session(&self, #[cookie("sid")] sid: String) -> Result<String, RpcError>;
    async fn count(&self, a: i32, b: Option<i32>) -> Result<i32, RpcError>;
}

struct Shop;

impl Catalog for Shop {
    async fn get(&self, id: u32) -> Result<Item, RpcError> {
        Ok(Item {
            id,
            name: format!("item {id}"),
        })
    }
    async fn name(&self, id: u32) -> Result<String, RpcError> {
        Ok(format!("item {id}"))
    }
    async fn put(&self, id: u32, item: Item, who: String) -> Result<String, RpcError> {
        Ok(format!("{who} put {} at {id}", item.name))
    }
    async fn files(&self) -> Result<String, RpcError> {
        Ok("files".into())
    }
    async fn session(&self, sid: String) -> Result<String, RpcError> {
        Ok(format!("session {sid}"))
    }
    async fn count(&self, a: i32, b: Option<i32>) -> Result<i32, RpcError> {
        Ok(a + b.unwrap_or(100))
    }
}

/// Sends one raw HTTP/1.1 request and returns the status, the head and the body.
async fn http(port: u16, request: &str) -> (u16, String, String) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

fn get(path: &str, extra: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\n{extra}Connection: close\r\n\r\n")
}

fn with_body(verb: &str, path: &str, body: &str, extra: &str) -> String {
    format!(
        "{verb} {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn mapped_routes_and_the_default_form() {
    let app = Application::builder("rest-test")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let module = app.default_module();
    let urls = module
        .export(CatalogServer::new(Shop), ServiceOptions::new())
        .await
        .unwrap();
    let port = urls[0].port();

    let (st, head, body) = http(port, &get("/items/7", "")).await;
    assert_eq!((st, body.as_str()), (200, r#"{"id":7,"name":"item 7"}"#));
    assert!(head.contains("content-type: application/json"), "{head}");
    // The regex keeps a non-number from the GET route: only PUT's `{id}` matches (405), not
    // a conversion error.
    let (st, head, _) = http(port, &get("/items/x7", "")).await;
    assert_eq!(st, 405);
    assert!(head.contains("allow: put"), "{head}");
    let (st, head, body) = http(port, &get("/items/7/name", "")).await;
    assert_eq!((st, body.as_str()), (200, "item 7"));
    assert!(head.contains("content-type: text/plain"), "{head}");
    // Only text is produced: JSON is not acceptable.
    let accept_json = "Accept: application/json\r\n";
    assert_eq!(http(port, &get("/items/7/name", accept_json)).await.0, 406);

    let put = with_body(
        "PUT",
        "/items/3",
        r#"{"id":3,"name":"lamp"}"#,
        "X-Who: ann\r\n",
    );
    let (st, head, body) = http(port, &put).await;
    assert_eq!((st, body.as_str()), (200, r#""ann put lamp at 3""#));
    assert!(head.contains("cache-control: no-store"), "{head}");
    // A required header missing; a body of the wrong shape.
    let (st, _, body) = http(
        port,
        &with_body("PUT", "/items/3", r#"{"id":3,"name":"l"}"#, ""),
    )
    .await;
    assert_eq!(st, 400, "{body}");
    assert!(
        body.contains(r#"missing header parameter \"X-Who\""#),
        "{body}"
    );
    let wrong = with_body("PUT", "/items/3", r#"{"id":"3"}"#, "X-Who: a\r\n");
    assert_eq!(http(port, &wrong).await.0, 400);

    assert_eq!(
        http(port, &get("/files/a/b/c.txt", "")).await.2,
        r#""files""#
    );
    let (st, _, body) = http(port, &get("/session", "Cookie: a=1; sid=s-9\r\n")).await;
    assert_eq!((st, body.as_str()), (200, r#""session s-9""#));

    // The default form: query parameters by name, an array, an object.
    assert_eq!(
        http(port, &get("/org.example.Catalog/count?a=1&b=2", ""))
            .await
            .2,
        "3"
    );
    assert_eq!(
        http(port, &get("/org.example.Catalog/count?a=1", ""))
            .await
            .2,
        "101"
    );
    let post = with_body("POST", "/org.example.Catalog/count", "[4, 5]", "");
    assert_eq!(http(port, &post).await.2, "9");
    let post = with_body(
        "POST",
        "/org.example.Catalog/count",
        r#"{"b": 1, "a": 2}"#,
        "",
    );
    assert_eq!(http(port, &post).await.2, "3");
    // Mapped methods are reached by their routes only.
    assert_eq!(
        http(port, &get("/org.example.Catalog/get?id=1", ""))
            .await
            .0,
        404
    );

    // Withdrawn: its routes answer 404.
    module.release();
    assert_eq!(http(port, &get("/items/7", "")).await.0, 404);
    app.shutdown().await;
}

/// Overloads of one Java name in the default form, told apart by Java's `~` suffix of
/// parameter types; the macro gives each parameter its Java type (`#[dubbo(java_type)]`
/// included).
#[dubbo_rs::service(interface = "org.example.Calc")]
pub trait Calc {
    #[dubbo(name = "add")]
    async fn add_longs(&self, a: i64, b: i64) -> Result<i64, RpcError>;
    #[dubbo(name = "add")]
    async fn add_strings(&self, a: String, b: String) -> Result<String, RpcError>;
    #[dubbo(name = "add")]
    async fn add_boxed(
        &self,
        #[dubbo(java_type = "java.lang.Long")] a: i64,
    ) -> Result<i64, RpcError>;
}

struct Adder;

impl Calc for Adder {
    async fn add_longs(&self, a: i64, b: i64) -> Result<i64, RpcError> {
        Ok(a + b)
    }
    async fn add_strings(&self, a: String, b: String) -> Result<String, RpcError> {
        Ok(a + &b)
    }
    async fn add_boxed(&self, a: i64) -> Result<i64, RpcError> {
        Ok(a * 10)
    }
}

#[tokio::test]
async fn overloads_in_the_default_form_by_java_suffix() {
    let app = Application::builder("rest-overloads")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(CalcServer::new(Adder), ServiceOptions::new())
        .await
        .unwrap();
    let port = urls[0].port();
    let call = |path: &'static str, body: &'static str| {
        let request = with_body("POST", &format!("/org.example.Calc/{path}"), body, "");
        async move { http(port, &request).await }
    };

    assert_eq!(call("add~ll", "[2, 3]").await.2, "5");
    assert_eq!(call("add~SS", r#"["a", "b"]"#).await.2, r#""ab""#);
    // `java.lang.Long` as declared (`L`), not the Rust type's `long` (`l`).
    assert_eq!(call("add~L", "[4]").await.2, "40");
    assert_eq!(call("add~l", "[4]").await.0, 404);
    let (st, _, body) = call("add", "[2, 3]").await;
    assert_eq!(st, 500, "{body}");
    assert!(
        body.contains("Ambiguous mapping for '/org.example.Calc/add'")
            && body.contains("add~ll, add~SS, add~L"),
        "{body}"
    );
    // Query parameters: one name reaches the only one-parameter overload; two fit two.
    let (st, _, body) = http(port, &get("/org.example.Calc/add?a=7", "")).await;
    assert_eq!((st, body.as_str()), (200, "70"));
    let (st, _, body) = http(port, &get("/org.example.Calc/add?a=7&b=1", "")).await;
    assert_eq!(st, 500, "{body}");
    let (st, _, body) = http(port, &get("/org.example.Calc/add~ll?a=7&b=1", "")).await;
    assert_eq!((st, body.as_str()), (200, "8"));
    app.shutdown().await;
}
