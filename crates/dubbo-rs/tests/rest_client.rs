//! The `rest` protocol's consumer: a reference with a REST-mapped service trait calls a
//! dubbo-rs provider's REST routes (HTTP/1.1 and h2c) and a plain HTTP server that is no Dubbo
//! at all, through the cluster (balanced over two base URLs, failover for idempotent verbs on
//! connection failures only), all on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_rs::core::rest::{http_status_error, http_status_of_business};
use dubbo_rs::core::ErrorCode;
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
    #[get("/items/{id}")]
    async fn get(&self, id: u32) -> Result<Item, RpcError>;
    #[get("/items/{id}/name", produces = "text/plain")]
    async fn name(&self, id: u32) -> Result<String, RpcError>;
    #[put("/items/{id}")]
    async fn put(
        &self,
        id: u32,
        item: Item,
        #[header("X-Who")] who: String,
    ) -> Result<String, RpcError>;
    #[post("/items", status = 201)]
    async fn create(&self, ctx: &mut RequestContext, item: Item) -> Result<Item, RpcError>;
    #[get("/search")]
    async fn search(
        &self,
        #[query("q")] text: String,
        #[query] tags: Vec<String>,
        #[cookie("sid")] sid: Option<String>,
    ) -> Result<String, RpcError>;
    #[post("/form", consumes = "application/x-www-form-urlencoded")]
    async fn form(&self, #[form] a: i32, #[form] b: String) -> Result<String, RpcError>;
    #[delete("/items/{id}", status = 204)]
    async fn delete(&self, id: u32) -> Result<(), RpcError>;
    async fn count(&self, a: i32, b: Option<i32>) -> Result<i32, RpcError>;
}

struct Shop;

impl Catalog for Shop {
    async fn get(&self, id: u32) -> Result<Item, RpcError> {
        if id == 0 {
            return Err(http_status_error(404, "no item 0"));
        }
        if id == 13 {
            return Err(RpcError::business("java.lang.IllegalStateException", "13"));
        }
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
    async fn create(&self, ctx: &mut RequestContext, item: Item) -> Result<Item, RpcError> {
        ctx.set_response_attachment("location", format!("/items/{}", item.id));
        Ok(item)
    }
    async fn search(
        &self,
        text: String,
        tags: Vec<String>,
        sid: Option<String>,
    ) -> Result<String, RpcError> {
        Ok(format!(
            "{text}|{}|{}",
            tags.join("+"),
            sid.unwrap_or_default()
        ))
    }
    async fn form(&self, a: i32, b: String) -> Result<String, RpcError> {
        Ok(format!("{b}{a}"))
    }
    async fn delete(&self, _id: u32) -> Result<(), RpcError> {
        Ok(())
    }
    async fn count(&self, a: i32, b: Option<i32>) -> Result<i32, RpcError> {
        Ok(a + b.unwrap_or(100))
    }
}

async fn provider() -> (Application, u16) {
    let app = Application::builder("rest-provider")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(CatalogServer::new(Shop), ServiceOptions::new())
        .await
        .unwrap();
    let port = urls[0].port();
    (app, port)
}

async fn client(app: &Application, url: &str, retries: u32) -> CatalogClient {
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new(CatalogClient::INTERFACE)
                .url(url)
                .timeout(Duration::from_secs(5))
                .parameter("retries", retries.to_string()),
        )
        .await
        .unwrap();
    CatalogClient::from_invoker(reference.invoker())
}

async fn every_case(c: &CatalogClient) {
    assert_eq!(
        c.get(7).await.unwrap(),
        Item {
            id: 7,
            name: "item 7".into()
        }
    );
    assert_eq!(c.name(5).await.unwrap(), "item 5");
    let lamp = Item {
        id: 3,
        name: "lamp".into(),
    };
    assert_eq!(
        c.put(3, lamp.clone(), "ann".into()).await.unwrap(),
        "ann put lamp at 3"
    );
    let (item, attachments) = c.create_full(lamp.clone()).await.unwrap();
    assert_eq!(item, lamp);
    assert_eq!(attachments.get_str(":status"), Some("201"));
    assert_eq!(attachments.get_str("location"), Some("/items/3"));
    assert_eq!(
        c.search(
            "a b&c".into(),
            vec!["x".into(), "y/z".into()],
            Some("s-1".into())
        )
        .await
        .unwrap(),
        "a b&c|x+y/z|s-1"
    );
    assert_eq!(c.form(4, "é=".into()).await.unwrap(), "é=4");
    let ((), attachments) = c.delete_full(1).await.unwrap();
    assert_eq!(attachments.get_str(":status"), Some("204"));
    // The default mapping: POST /org.example.Catalog/count with [2, null].
    assert_eq!(c.count(2, None).await.unwrap(), 102);
    assert_eq!(c.count(2, Some(3)).await.unwrap(), 5);
    // Errors come back typed: a status of the service's choosing, a business exception.
    let e = c.get(0).await.unwrap_err();
    assert_eq!(http_status_of_business(e.as_business().unwrap()), Some(404));
    assert_eq!(e.message(), "no item 0");
    let e = c.get(13).await.unwrap_err();
    assert_eq!(
        e.as_business().unwrap().class_name,
        "java.lang.IllegalStateException"
    );
}

#[tokio::test]
async fn calls_a_dubbo_rs_provider_over_http1_and_h2c() {
    let (provider, port) = provider().await;
    let consumer = Application::builder("rest-consumer").build().unwrap();
    every_case(&client(&consumer, &format!("rest://127.0.0.1:{port}"), 0).await).await;
    every_case(&client(&consumer, &format!("rest://127.0.0.1:{port}?client=h2c"), 0).await).await;
    // A bad key value is a configuration error naming it.
    let e = consumer
        .default_module()
        .refer(
            ReferenceOptions::new(CatalogClient::INTERFACE)
                .url(format!("rest://127.0.0.1:{port}?client=spdy")),
        )
        .await;
    assert!(e.is_err());
    consumer.shutdown().await;
    provider.shutdown().await;
}

/// What the plain server saw: request line, lower-cased head, body.
type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

/// A plain HTTP/1.1 server (no Dubbo): answers every request with `answer(line)` and records
/// it; one request per connection.
async fn plain_server(answer: fn(&str) -> (u16, &'static str, String)) -> (u16, Seen) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Arc::default();
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                let (head, body) = loop {
                    let n = s.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).into_owned();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let len = head
                            .to_ascii_lowercase()
                            .lines()
                            .find_map(|l| {
                                l.strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap())
                            })
                            .unwrap_or(0);
                        if body.len() >= len {
                            break (head.to_owned(), body.to_owned());
                        }
                    }
                };
                let line = head.lines().next().unwrap_or("").to_owned();
                let (status, content_type, text) = answer(&line);
                record
                    .lock()
                    .unwrap()
                    .push((line, head.to_ascii_lowercase(), body));
                let reply = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nX-Served: plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                    text.len()
                );
                let _ = s.write_all(reply.as_bytes()).await;
            });
        }
    });
    (port, seen)
}

fn plain_answer(line: &str) -> (u16, &'static str, String) {
    if line.starts_with("GET /items/9 ") {
        (200, "application/json", r#"{"id":9,"name":"plain"}"#.into())
    } else if line.starts_with("GET /items/9/name") {
        (200, "text/plain", "nine".into())
    } else if line.starts_with("GET /items/") || line.starts_with("GET /api/") {
        (404, "text/html", "<h1>Not Found</h1>".into())
    } else if line.starts_with("PUT ") {
        (503, "text/plain", "busy".into())
    } else {
        (200, "application/json", r#""ok""#.into())
    }
}

#[tokio::test]
async fn calls_a_plain_http_server() {
    let (port, seen) = plain_server(plain_answer).await;
    let consumer = Application::builder("rest-consumer").build().unwrap();
    let c = client(
        &consumer,
        &format!("rest://127.0.0.1:{port}?contextpath=/api"),
        0,
    )
    .await
    .with_attachment("x-trace", "t-1");
    // The server answers at /api/...: the context path is in front.
    let e = c.get(9).await.unwrap_err();
    assert_eq!(http_status_of_business(e.as_business().unwrap()), Some(404));
    assert_eq!(e.message(), "<h1>Not Found</h1>");
    let c = client(&consumer, &format!("rest://127.0.0.1:{port}"), 0)
        .await
        .with_attachment("x-trace", "t-1");
    assert_eq!(c.get(9).await.unwrap().name, "plain");
    assert_eq!(c.name(9).await.unwrap(), "nine");
    let (value, attachments) = c.search_full("q".into(), vec![], None).await.unwrap();
    assert_eq!(value, "ok");
    assert_eq!(attachments.get_str("x-served"), Some("plain"));
    let e = c
        .put(
            1,
            Item {
                id: 1,
                name: "n".into(),
            },
            "w".into(),
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::ShuttingDown));
    assert_eq!(c.form(1, "a b".into()).await.unwrap(), "ok");

    let seen = seen.lock().unwrap().clone();
    let lines: Vec<&str> = seen.iter().map(|(l, _, _)| l.as_str()).collect();
    assert_eq!(
        lines,
        [
            "GET /api/items/9 HTTP/1.1",
            "GET /items/9 HTTP/1.1",
            "GET /items/9/name HTTP/1.1",
            "GET /search?q=q HTTP/1.1",
            "PUT /items/1 HTTP/1.1",
            "POST /form HTTP/1.1",
        ]
    );
    let (_, head, body) = &seen[4];
    assert!(head.contains("x-who: w"), "{head}");
    assert!(head.contains("x-trace: t-1"), "{head}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert_eq!(body, r#"{"id":1,"name":"n"}"#);
    let (_, head, body) = &seen[5];
    assert!(
        head.contains("content-type: application/x-www-form-urlencoded"),
        "{head}"
    );
    assert_eq!(body, "a=1&b=a%20b");
    consumer.shutdown().await;
}

/// A port nothing listens on (bound, then closed).
async fn dead_port() -> u16 {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    l.local_addr().unwrap().port()
}

#[tokio::test]
async fn balances_and_fails_over_only_idempotent_verbs() {
    let (p1, seen1) = plain_server(plain_answer).await;
    let (p2, seen2) = plain_server(plain_answer).await;
    let consumer = Application::builder("rest-consumer").build().unwrap();
    let both = client(
        &consumer,
        &format!("rest://127.0.0.1:{p1};rest://127.0.0.1:{p2}"),
        2,
    )
    .await;
    for _ in 0..20 {
        assert_eq!(both.get(9).await.unwrap().name, "plain");
    }
    let (n1, n2) = (seen1.lock().unwrap().len(), seen2.lock().unwrap().len());
    assert_eq!(n1 + n2, 20);
    assert!(n1 > 0 && n2 > 0, "both base URLs answer: {n1} and {n2}");

    let dead = dead_port().await;
    let with_dead = client(
        &consumer,
        &format!("rest://127.0.0.1:{dead};rest://127.0.0.1:{p1}"),
        2,
    )
    .await;
    let before = seen1.lock().unwrap().len();
    for _ in 0..10 {
        // GET is idempotent: a refused connection is retried on the other base URL (and the
        // dead one is then left out while it stays unavailable).
        assert_eq!(with_dead.get(9).await.unwrap().name, "plain");
    }
    assert_eq!(seen1.lock().unwrap().len() - before, 10);
    let before = seen1.lock().unwrap().len();
    let mut post_refused = 0;
    for _ in 0..10 {
        // POST is not: a refused connection is the caller's error, never sent twice. A new
        // reference each time: one that failed to connect is not chosen again for a while.
        let fresh = client(
            &consumer,
            &format!("rest://127.0.0.1:{dead};rest://127.0.0.1:{p1}"),
            2,
        )
        .await;
        match fresh.form(1, "x".into()).await {
            Ok(v) => assert_eq!(v, "ok"),
            Err(e) => {
                assert_eq!(e.code(), Some(ErrorCode::Network), "{e}");
                post_refused += 1;
            }
        }
    }
    let served = seen1.lock().unwrap().len() - before;
    assert_eq!(served, 10 - post_refused);
    assert!(
        post_refused > 0,
        "random balancing sent no POST to the dead URL"
    );
    // An HTTP answer is not retried even for GET: 404 once, from one server.
    let before = seen1.lock().unwrap().len() + seen2.lock().unwrap().len();
    assert!(both.get(5).await.is_err());
    let after = seen1.lock().unwrap().len() + seen2.lock().unwrap().len();
    assert_eq!(after - before, 1);
    consumer.shutdown().await;
}

/// Overloads in the default mapping (Java names shared with `#[dubbo(name = ...)]`).
#[dubbo_rs::service(interface = "org.example.Calc")]
pub trait Calc {
    #[dubbo(name = "add")]
    async fn add_longs(&self, a: i64, b: i64) -> Result<String, RpcError>;
    #[dubbo(name = "add")]
    async fn add_texts(&self, a: String, b: String) -> Result<String, RpcError>;
    async fn twice(&self, s: String) -> Result<String, RpcError>;
}

struct Adder;

impl Calc for Adder {
    async fn add_longs(&self, a: i64, b: i64) -> Result<String, RpcError> {
        Ok(format!("long {}", a + b))
    }
    async fn add_texts(&self, a: String, b: String) -> Result<String, RpcError> {
        Ok(format!("text {a}{b}"))
    }
    async fn twice(&self, s: String) -> Result<String, RpcError> {
        Ok(s.repeat(2))
    }
}

#[tokio::test]
async fn names_overloads_with_their_suffix() {
    let provider = Application::builder("rest-calc-provider")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = provider
        .default_module()
        .export(CalcServer::new(Adder), ServiceOptions::new())
        .await
        .unwrap();
    let port = urls[0].port();
    let consumer = Application::builder("rest-calc-consumer").build().unwrap();
    for url in [
        format!("rest://127.0.0.1:{port}"),
        format!("rest://127.0.0.1:{port}?client=h2c"),
    ] {
        let reference = consumer
            .default_module()
            .refer(
                ReferenceOptions::new(CalcClient::INTERFACE)
                    .url(url)
                    .timeout(Duration::from_secs(5)),
            )
            .await
            .unwrap();
        let calc = CalcClient::from_invoker(reference.invoker());
        // POST /org.example.Calc/add~ll and add~SS: each reaches its overload (without the
        // suffix the server answers 500, ambiguous).
        assert_eq!(calc.add_longs(2, 3).await.unwrap(), "long 5");
        assert_eq!(
            calc.add_texts("a".into(), "b".into()).await.unwrap(),
            "text ab"
        );
        // A name of its own goes without one.
        assert_eq!(calc.twice("x".into()).await.unwrap(), "xx");
    }
    // The exact request line, on a server that knows nothing of Dubbo.
    let (port, seen) = plain_server(|_| (200, "application/json", "\"ok\"".to_owned())).await;
    let reference = consumer
        .default_module()
        .refer(ReferenceOptions::new(CalcClient::INTERFACE).url(format!("rest://127.0.0.1:{port}")))
        .await
        .unwrap();
    let calc = CalcClient::from_invoker(reference.invoker());
    calc.add_texts("a".into(), "b".into()).await.unwrap();
    calc.twice("x".into()).await.unwrap();
    let lines: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(l, _, _)| l.clone())
        .collect();
    assert_eq!(
        lines,
        [
            "POST /org.example.Calc/add~SS HTTP/1.1",
            "POST /org.example.Calc/twice HTTP/1.1"
        ]
    );
    consumer.shutdown().await;
    provider.shutdown().await;
}
