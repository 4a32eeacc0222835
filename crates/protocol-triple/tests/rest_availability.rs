//! A `rest://` invoker's availability follows its base URL's connections: unavailable after a
//! connection that could not be made, available again once the wait is over and a call is
//! answered, and never after `destroy`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{ErrorCode, Invocation, Invoker, MethodSignature, Protocol, ServiceKey, Value};
use dubbo_protocol_triple::RestProtocol;
use dubbo_url::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn call() -> Invocation {
    let key = ServiceKey::new("org.example.Echo", None, None);
    let sig = Arc::new(MethodSignature::new(
        "echo",
        &["java.lang.String"],
        "java.lang.String",
    ));
    Invocation::new(key, sig, vec![Value::String("x".into())])
}

/// Answers every request on `listener` with `"ok"` (JSON), one request per connection.
async fn serve(listener: tokio::net::TcpListener) {
    loop {
        let Ok((mut s, _)) = listener.accept().await else {
            return;
        };
        tokio::spawn(async move {
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            // The request head and its short body arrive together or soon after.
            while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => seen.extend_from_slice(&buf[..n]),
                }
            }
            let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4\r\nconnection: close\r\n\r\n\"ok\"";
            let _ = s.write_all(answer.as_bytes()).await;
            let _ = s.shutdown().await;
        });
    }
}

#[tokio::test]
async fn availability_follows_the_connections() {
    // A port nothing listens on (yet).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let protocol = RestProtocol::new();
    let url = Url::parse(&format!("rest://127.0.0.1:{port}/org.example.Echo")).unwrap();
    let invoker = protocol.refer(url).await.unwrap();
    assert!(invoker.is_available(), "nothing failed yet");

    let e = invoker.invoke(call()).await.unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Network), "{e}");
    assert!(
        e.message().contains("refused"),
        "the cause is named: {}",
        e.message()
    );
    assert!(!invoker.is_available(), "its connection could not be made");

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let server = tokio::spawn(serve(listener));
    // The wait after one failure is 100 ms; then it may be tried again.
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(invoker.is_available(), "the wait is over");
    let r = invoker.invoke(call()).await.unwrap();
    assert_eq!(r.value, Value::String("ok".into()));
    assert!(invoker.is_available());

    invoker.destroy();
    assert!(!invoker.is_available(), "destroyed");
    server.abort();
}
