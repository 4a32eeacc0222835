//! Client and server over real sockets on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_core::{
    filters::builtin_filters, invoker_fn, ErrorCode, ExportTable, FilterChain, Invocation, Invoker,
    MethodSignature, Protocol, RpcError, RpcResponse, ServiceKey, Stage, Value,
};
use dubbo_protocol_dubbo::body;
use dubbo_protocol_dubbo::{
    ClientConfig, Dispatcher, DubboClient, DubboProtocol, DubboServer, Header, ServerConfig,
};
use dubbo_url::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const GREETER: &str = "org.example.Greeter";

fn method(name: &str, types: &[&str]) -> Arc<MethodSignature> {
    Arc::new(MethodSignature::new(name, types, "java.lang.Object"))
}

fn call(name: &str, args: Vec<Value>) -> Invocation {
    let types: Vec<&str> = args.iter().map(|_| "java.lang.Object").collect();
    Invocation::new(
        ServiceKey::interface_only(GREETER),
        method(name, &types),
        args,
    )
}

/// A greeter service: `sayHello(name)`, `sleep(ms)`, `fail()`, `big(n)`, `echoArgs(...)`.
fn greeter() -> Arc<dyn Invoker> {
    let url = Url::parse("dubbo://127.0.0.1:0/org.example.Greeter").unwrap();
    Arc::new(invoker_fn(url, |inv: Invocation| async move {
        match inv.method_name() {
            "sayHello" => {
                let name = inv
                    .args()
                    .first()
                    .and_then(|v| v.to_value().ok())
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| "?".to_owned());
                let mut r = RpcResponse::new(Value::String(format!("Hello {name}")));
                r.attachments.insert("served-by", "rust");
                Ok(r)
            }
            "sleep" => {
                let ms = inv
                    .args()
                    .first()
                    .and_then(|v| v.to_value().ok())
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms as u64)).await;
                Ok(RpcResponse::new(Value::Long(ms)))
            }
            "fail" => Err(RpcError::business(
                "java.lang.IllegalStateException",
                "boom",
            )),
            "limit" => Err(RpcError::framework(ErrorCode::LimitExceeded, "too many")),
            "big" => {
                let n = inv
                    .args()
                    .first()
                    .and_then(|v| v.to_value().ok())
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0);
                Ok(RpcResponse::new(Value::Binary(vec![7u8; n as usize])))
            }
            "nothing" => Ok(RpcResponse::new(Value::Null)),
            "deadline" => {
                let left = inv.context().remaining().map(|d| d.as_millis() as i64);
                Ok(RpcResponse::new(Value::from(left.unwrap_or(-1))))
            }
            _ => Ok(RpcResponse::new(Value::List(dubbo_hessian2::List::new(
                inv.arg_values().unwrap(),
            )))),
        }
    }))
}

async fn server_with(config: ServerConfig) -> DubboServer {
    let exports = ExportTable::new();
    exports.insert(ServiceKey::interface_only(GREETER), greeter());
    DubboServer::bind("127.0.0.1:0", config, exports)
        .await
        .unwrap()
}

async fn server() -> DubboServer {
    server_with(ServerConfig::default()).await
}

async fn client_for(server: &DubboServer, config: ClientConfig) -> DubboClient {
    DubboClient::connect(server.local_addr().to_string(), config)
        .await
        .unwrap()
}

#[tokio::test]
async fn round_trip() {
    let server = server().await;
    let client = client_for(&server, ClientConfig::default()).await;
    let r = client
        .invoke(call("sayHello", vec!["world".into()]))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello world".into()));
    assert_eq!(r.attachments.get_str("served-by"), Some("rust"));
    assert_eq!(r.attachments.get_str("dubbo"), Some("2.0.2"));
    let r = client.invoke(call("nothing", vec![])).await.unwrap();
    assert_eq!(r.value, Value::Null);
    let args = vec![
        Value::Int(1),
        Value::Long(1 << 40),
        Value::Double(0.5),
        Value::Bool(true),
        Value::Null,
        Value::Binary(vec![1, 2, 3]),
        Value::Map(dubbo_hessian2::Map::new(vec![("k".into(), "v".into())])),
    ];
    let r = client.invoke(call("echoArgs", args.clone())).await.unwrap();
    assert_eq!(r.value, Value::List(dubbo_hessian2::List::new(args)));
    assert!(client.is_available());
}

#[tokio::test]
async fn direct_dispatcher() {
    let server = server_with(ServerConfig {
        dispatcher: Dispatcher::Direct,
        ..ServerConfig::default()
    })
    .await;
    let client = client_for(&server, ClientConfig::default()).await;
    let r = client
        .invoke(call("sayHello", vec!["direct".into()]))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello direct".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_calls_share_one_connection() {
    // Enough workers for every call at once: this test is about id multiplexing.
    let server = server_with(ServerConfig {
        threads: Some(1000),
        ..ServerConfig::default()
    })
    .await;
    let client = client_for(&server, ClientConfig::default()).await;
    let mut tasks = Vec::new();
    for i in 0..500i64 {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            // Mix quick calls with calls that sleep a little, so responses come back out of order.
            let (mut inv, expected) = if i % 2 == 0 {
                let ms = i % 13;
                (call("sleep", vec![Value::Long(ms)]), Value::Long(ms))
            } else {
                let name = format!("n{i}");
                let expected = Value::String(format!("Hello {name}"));
                (call("sayHello", vec![name.into()]), expected)
            };
            inv.context_mut().set_timeout(Duration::from_secs(10));
            let r = client.invoke(inv).await.unwrap();
            assert_eq!(r.value, expected);
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(server.connection_count(), 1);
    assert_eq!(client.pending_calls(), 0);
}

#[tokio::test]
async fn several_connections_round_robin() {
    let server = server().await;
    let client = client_for(
        &server,
        ClientConfig {
            connections: 3,
            ..ClientConfig::default()
        },
    )
    .await;
    for i in 0..6 {
        let r = client
            .invoke(call("sayHello", vec![Value::from(i)]))
            .await
            .unwrap();
        assert!(r.value.to_value().unwrap().as_str().is_some());
    }
    assert_eq!(server.connection_count(), 3);
}

#[tokio::test]
async fn timeout_names_method_and_address_and_late_response_is_dropped() {
    let server = server().await;
    let client = client_for(&server, ClientConfig::default()).await;
    let mut inv = call("sleep", vec![Value::Long(300)]);
    inv.context_mut().set_timeout(Duration::from_millis(50));
    let started = Instant::now();
    let err = client.invoke(inv).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_millis(250));
    assert_eq!(err.code(), Some(ErrorCode::Timeout), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("sleep"), "{msg}");
    assert!(msg.contains(&server.local_addr().to_string()), "{msg}");
    assert!(msg.contains("elapsed"), "{msg}");
    assert_eq!(client.pending_calls(), 0);
    // The late response arrives and is dropped; the connection keeps working.
    tokio::time::sleep(Duration::from_millis(350)).await;
    let r = client
        .invoke(call("sayHello", vec!["again".into()]))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello again".into()));
}

#[tokio::test]
async fn concurrent_calls_each_time_out_at_their_own_deadline() {
    // The pending map's sweep, not a timer per call, ends these waits: each call must fail at
    // its own deadline (within a sweep tick and scheduling slack), not at the first one's or
    // the last one's, and a call with time to spare must still be answered.
    let server = server().await;
    let client = client_for(&server, ClientConfig::default()).await;
    let started = Instant::now();
    let timed = |ms: u64| {
        let client = client.clone();
        async move {
            let mut inv = call("sleep", vec![Value::Long(400)]);
            inv.context_mut().set_timeout(Duration::from_millis(ms));
            let r = client.invoke(inv).await;
            (ms, r, started.elapsed())
        }
    };
    let answered = {
        let client = client.clone();
        async move {
            let mut inv = call("sleep", vec![Value::Long(20)]);
            inv.context_mut().set_timeout(Duration::from_secs(5));
            client.invoke(inv).await
        }
    };
    let (a, b, c, ok) = tokio::join!(timed(40), timed(120), timed(220), answered);
    for (ms, r, elapsed) in [a, b, c] {
        let err = r.unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::Timeout), "{err}");
        assert!(
            elapsed >= Duration::from_millis(ms),
            "{ms} ms call failed after {elapsed:?}"
        );
        assert!(
            elapsed < Duration::from_millis(ms + 80),
            "{ms} ms call failed only after {elapsed:?}"
        );
    }
    assert!(ok.is_ok(), "{ok:?}");
    assert_eq!(client.pending_calls(), 0);
}

#[tokio::test]
async fn provider_sees_deadline_from_timeout_attachment() {
    let server = server().await;
    let client = client_for(&server, ClientConfig::default()).await;
    let mut inv = call("deadline", vec![]);
    inv.context_mut().set_timeout(Duration::from_millis(5000));
    let r = client.invoke(inv).await.unwrap();
    let left = r.value.to_value().unwrap().as_i64().unwrap();
    assert!(left > 4000 && left <= 5000, "{left}");
}

#[tokio::test]
async fn business_exception_arrives_with_class_and_message() {
    let server = server().await;
    let client = client_for(&server, ClientConfig::default()).await;
    let err = client.invoke(call("fail", vec![])).await.unwrap_err();
    let b = err.as_business().expect("business error");
    assert_eq!(b.class_name, "java.lang.IllegalStateException");
    assert_eq!(b.message.as_deref(), Some("boom"));
    // A framework error raised by the service keeps its code across the wire.
    let err = client.invoke(call("limit", vec![])).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::LimitExceeded), "{err}");
}

#[tokio::test]
async fn unknown_service_is_service_not_found() {
    let server = server().await;
    let client = client_for(&server, ClientConfig::default()).await;
    let inv = Invocation::new(
        ServiceKey::new(GREETER, Some("other"), Some("9.9.9")),
        method("sayHello", &["java.lang.String"]),
        vec!["x".into()],
    );
    let err = client.invoke(inv).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::ServiceNotFound), "{err}");
    assert!(
        err.message().contains("Not found exported service"),
        "{err}"
    );
}

#[tokio::test]
async fn group_and_version_select_the_exporter() {
    let exports = ExportTable::new();
    let url = Url::parse("dubbo://127.0.0.1:0/a.B").unwrap();
    for (g, v, answer) in [(None, None, "plain"), (Some("g1"), Some("1.0.0"), "g1v1")] {
        let url = url.clone();
        exports.insert(
            ServiceKey::new("a.B", g, v),
            Arc::new(invoker_fn(url, move |_inv: Invocation| async move {
                Ok(RpcResponse::new(Value::String(answer.into())))
            })),
        );
    }
    let server = DubboServer::bind("127.0.0.1:0", ServerConfig::default(), exports)
        .await
        .unwrap();
    let client = client_for(&server, ClientConfig::default()).await;
    for (g, v, answer) in [
        (None, None, "plain"),
        (None, Some("0.0.0"), "plain"),
        (Some("g1"), Some("1.0.0"), "g1v1"),
    ] {
        let inv = Invocation::new(ServiceKey::new("a.B", g, v), method("m", &[]), vec![]);
        let r = client.invoke(inv).await.unwrap();
        assert_eq!(r.value, Value::String(answer.into()));
    }
}

#[tokio::test]
async fn thread_pool_exhausted_is_status_100() {
    let server = server_with(ServerConfig {
        threads: Some(1),
        ..ServerConfig::default()
    })
    .await;
    let client = client_for(&server, ClientConfig::default()).await;
    let c2 = client.clone();
    let slow = tokio::spawn(async move {
        let mut inv = call("sleep", vec![Value::Long(300)]);
        inv.context_mut().set_timeout(Duration::from_secs(5));
        c2.invoke(inv).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let err = client
        .invoke(call("sayHello", vec!["x".into()]))
        .await
        .unwrap_err();
    // Answered at once, not after the busy worker's 300 ms.
    assert!(started.elapsed() < Duration::from_millis(250));
    assert_eq!(err.code(), Some(ErrorCode::ThreadPoolExhausted), "{err}");
    assert!(err.message().contains("EXHAUSTED"), "{err}");
    assert!(slow.await.unwrap().is_ok());
    // Free again.
    assert!(client
        .invoke(call("sayHello", vec!["y".into()]))
        .await
        .is_ok());
}

#[tokio::test]
async fn queues_let_requests_wait_for_a_worker() {
    let server = server_with(ServerConfig {
        threads: Some(1),
        queues: 1,
        ..ServerConfig::default()
    })
    .await;
    let client = client_for(&server, ClientConfig::default()).await;
    let mut tasks = Vec::new();
    for _ in 0..2 {
        let c = client.clone();
        tasks.push(tokio::spawn(async move {
            let mut inv = call("sleep", vec![Value::Long(100)]);
            inv.context_mut().set_timeout(Duration::from_secs(5));
            c.invoke(inv).await
        }));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let third = client.invoke(call("sayHello", vec!["x".into()])).await;
    assert_eq!(
        third.unwrap_err().code(),
        Some(ErrorCode::ThreadPoolExhausted)
    );
    for t in tasks {
        assert!(t.await.unwrap().is_ok());
    }
}

#[tokio::test]
async fn payload_limit_on_both_sides() {
    let server = server_with(ServerConfig {
        payload: 1024,
        ..ServerConfig::default()
    })
    .await;
    // Refused locally before sending.
    let client = client_for(
        &server,
        ClientConfig {
            payload: 1024,
            ..ClientConfig::default()
        },
    )
    .await;
    let err = client
        .invoke(call("echoArgs", vec![Value::Binary(vec![0; 2000])]))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::PayloadTooLarge), "{err}");
    // A response over the provider's limit comes back as status 25.
    let err = client
        .invoke(call("big", vec![Value::Long(4000)]))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::PayloadTooLarge), "{err}");
    assert!(err.message().contains("status 25"), "{err}");
    assert!(client
        .invoke(call("sayHello", vec!["ok".into()]))
        .await
        .is_ok());

    // An oversize request that reaches the provider makes it close that connection...
    let big_client = client_for(&server, ClientConfig::default()).await;
    let err = big_client
        .invoke(call("echoArgs", vec![Value::Binary(vec![0; 2000])]))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Network), "{err}");
    // ...and keeps serving the others.
    assert!(client
        .invoke(call("sayHello", vec!["ok".into()]))
        .await
        .is_ok());
}

#[tokio::test]
async fn client_rejects_oversize_response_and_keeps_connection() {
    let server = server().await;
    let client = client_for(
        &server,
        ClientConfig {
            payload: 1024,
            ..ClientConfig::default()
        },
    )
    .await;
    let err = client
        .invoke(call("big", vec![Value::Long(5000)]))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::PayloadTooLarge), "{err}");
    let r = client
        .invoke(call("sayHello", vec!["after".into()]))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello after".into()));
}

async fn read_frame(s: &mut TcpStream) -> (Header, Vec<u8>) {
    let mut h = [0u8; 16];
    tokio::time::timeout(Duration::from_secs(2), s.read_exact(&mut h))
        .await
        .expect("a frame in time")
        .unwrap();
    let header = Header::decode(&h).unwrap();
    let mut body = vec![0u8; header.body_len as usize];
    s.read_exact(&mut body).await.unwrap();
    (header, body)
}

async fn assert_closed(s: &mut TcpStream) {
    let mut buf = [0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf))
        .await
        .expect("closed in time")
        .unwrap_or(0);
    assert_eq!(n, 0, "connection should be closed");
}

#[tokio::test]
async fn bad_input_closes_only_that_connection() {
    let server = server_with(ServerConfig {
        payload: 4096,
        ..ServerConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let client = client_for(&server, ClientConfig::default()).await;

    // Bad magic.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert_closed(&mut s).await;

    // Declared length over the payload limit.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut h = Header::request(1, 2, true, false);
    h.body_len = 1 << 30;
    s.write_all(&h.encode()).await.unwrap();
    assert_closed(&mut s).await;

    // Negative length.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut b = Header::request(1, 2, true, false).encode();
    b[12..16].copy_from_slice(&(-5i32).to_be_bytes());
    s.write_all(&b).await.unwrap();
    assert_closed(&mut s).await;

    // Truncated frame, then EOF.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let frame = body::encode_request(2, &call("sayHello", vec!["x".into()]), None, true).unwrap();
    s.write_all(&frame[..frame.len() - 3]).await.unwrap();
    s.shutdown().await.unwrap();
    assert_closed(&mut s).await;

    assert!(client
        .invoke(call("sayHello", vec!["ok".into()]))
        .await
        .is_ok());
}

#[tokio::test]
async fn malformed_bodies_get_bad_request_and_connection_stays() {
    let server = server().await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();

    // A body that is not a request (garbage hessian).
    let f = dubbo_protocol_dubbo::codec::encode_frame(
        Header::request(11, 2, true, false),
        &[0x05, b'2', b'.', b'0'],
    );
    s.write_all(&f).await.unwrap();
    let (h, body) = read_frame(&mut s).await;
    assert_eq!((h.id, h.status, h.flag), (11, 40, 0x02));
    let msg = body::decode_status_message(2, &body).unwrap();
    assert!(msg.starts_with("Fail to decode request due to"), "{msg}");

    // Arguments that do not match the descriptor (one declared, none sent, then a bad tag).
    let mut w = dubbo_hessian2::Hessian2Writer::new();
    for s in ["2.0.2", GREETER, "0.0.0", "sayHello", "Ljava/lang/String;"] {
        w.write_string(s);
    }
    w.buffer_mut().push(0xd0); // truncated int
    let f = dubbo_protocol_dubbo::codec::encode_frame(
        Header::request(12, 2, true, false),
        w.as_bytes(),
    );
    s.write_all(&f).await.unwrap();
    let (h, _) = read_frame(&mut s).await;
    assert_eq!((h.id, h.status), (12, 40));

    // A bad descriptor.
    let mut w = dubbo_hessian2::Hessian2Writer::new();
    for s in ["2.0.2", GREETER, "0.0.0", "sayHello", "Ljava/lang/String"] {
        w.write_string(s);
    }
    let f = dubbo_protocol_dubbo::codec::encode_frame(
        Header::request(13, 2, true, false),
        w.as_bytes(),
    );
    s.write_all(&f).await.unwrap();
    let (h, _) = read_frame(&mut s).await;
    assert_eq!((h.id, h.status), (13, 40));

    // Unknown serialization id for a call: BAD_REQUEST in hessian2.
    let mut frame = body::encode_request(14, &call("sayHello", vec!["x".into()]), None, true)
        .unwrap()
        .to_vec();
    frame[2] = 0xc0 | 8; // kryo
    s.write_all(&frame).await.unwrap();
    let (h, body) = read_frame(&mut s).await;
    assert_eq!((h.id, h.status, h.serialization_id()), (14, 40, 2));
    let message = body::decode_status_message(2, &body).unwrap();
    assert!(
        message.contains("Unexpected serialization id:8 ")
            && message.contains("kryo is not permitted")
            && message.contains("hessian2 (2) and fastjson2 (23) only"),
        "{message}"
    );

    // fastjson2 to a service whose URL does not advertise it: refused, in fastjson2.
    let frame =
        body::fastjson2::encode_request(16, &call("sayHello", vec!["x".into()]), None, true)
            .unwrap();
    s.write_all(&frame).await.unwrap();
    let (h, body) = read_frame(&mut s).await;
    assert_eq!((h.id, h.status, h.serialization_id()), (16, 40, 23));
    let message = body::decode_status_message(23, &body).unwrap();
    assert!(
        message.contains("Unexpected serialization id:23 ")
            && message.contains("fastjson2 is not permitted")
            && message.contains("accepts hessian2 (2) only"),
        "{message}"
    );

    // The same connection still serves a good request.
    let frame = body::encode_request(15, &call("sayHello", vec!["x".into()]), None, true).unwrap();
    s.write_all(&frame).await.unwrap();
    let (h, body) = read_frame(&mut s).await;
    assert_eq!((h.id, h.status), (15, 20));
    let r = body::decode_ok_response(&body).unwrap().unwrap();
    assert_eq!(r.value, Value::String("Hello x".into()));
}

#[tokio::test]
async fn heartbeat_request_gets_heartbeat_response() {
    let server = server().await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    s.write_all(&body::heartbeat_request(77, 2)).await.unwrap();
    let (h, body) = read_frame(&mut s).await;
    assert_eq!((h.flag, h.status, h.id), (0x22, 20, 77));
    assert_eq!(body, vec![0x4e]);
    // A Java 3.2 peer's fastjson2 heartbeat is answered in fastjson2.
    s.write_all(&body::heartbeat_request(78, 23)).await.unwrap();
    let (h, body) = read_frame(&mut s).await;
    assert_eq!((h.flag, h.status, h.id), (0x37, 20, 78));
    assert_eq!(body, vec![0, 0, 0, 1, 0xaf]);
}

#[tokio::test]
async fn client_sends_heartbeats_when_idle() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let _client = DubboClient::connect(
        addr.to_string(),
        ClientConfig {
            heartbeat: Duration::from_millis(100),
            idle_timeout: Duration::from_secs(10),
            ..ClientConfig::default()
        },
    )
    .await
    .unwrap();
    let (mut s, _) = listener.accept().await.unwrap();
    let (h, body) = read_frame(&mut s).await;
    assert_eq!(h.flag, 0xe2);
    assert_eq!(body, vec![0x4e]);
    // Answer it; another one follows after the next idle period.
    s.write_all(&body::heartbeat_response(h.id, 2))
        .await
        .unwrap();
    let (h2, _) = read_frame(&mut s).await;
    assert_eq!(h2.flag, 0xe2);
    assert_ne!(h2.id, h.id);
}

#[tokio::test]
async fn server_closes_idle_connections() {
    let server = server_with(ServerConfig {
        idle_timeout: Duration::from_millis(200),
        ..ServerConfig::default()
    })
    .await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    let started = Instant::now();
    assert_closed(&mut s).await;
    assert!(started.elapsed() >= Duration::from_millis(150));
}

#[tokio::test]
async fn readonly_event_marks_client_unavailable_while_inflight_call_completes() {
    let server = Arc::new(server().await);
    let client = client_for(&server, ClientConfig::default()).await;
    assert!(client.is_available());
    let c2 = client.clone();
    let slow = tokio::spawn(async move {
        let mut inv = call("sleep", vec![Value::Long(400)]);
        inv.context_mut().set_timeout(Duration::from_secs(5));
        c2.invoke(inv).await
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let s2 = server.clone();
    let shutdown = tokio::spawn(async move { s2.shutdown(Duration::from_secs(5)).await });
    let started = Instant::now();
    while client.is_available() {
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "readonly event not seen"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(client.is_readonly());
    assert!(!slow.is_finished());
    let r = slow.await.unwrap().unwrap();
    assert_eq!(r.value, Value::Long(400));
    shutdown.await.unwrap();
    assert_eq!(server.connection_count(), 0);
    // The server is gone: a new call fails with a network error naming the address.
    let err = client
        .invoke(call("sayHello", vec!["late".into()]))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Network), "{err}");
    assert!(
        err.message().contains(&server.local_addr().to_string()),
        "{err}"
    );
}

#[tokio::test]
async fn failed_connect_is_a_network_error_with_backoff() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let err = DubboClient::connect(addr.to_string(), ClientConfig::default())
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Network));
    assert!(err.message().contains(&addr.to_string()), "{err}");

    let client = DubboClient::new(
        addr.to_string(),
        ClientConfig {
            reconnect_backoff: Duration::from_millis(200),
            ..ClientConfig::default()
        },
    );
    assert!(client.is_available());
    assert!(client.invoke(call("sayHello", vec![])).await.is_err());
    // Within the backoff the client reports itself unavailable and fails fast.
    assert!(!client.is_available());
    let err = client.invoke(call("sayHello", vec![])).await.unwrap_err();
    assert!(err.message().contains("next attempt"), "{err}");
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(client.is_available());
}

#[tokio::test]
async fn lazy_client_reconnects_after_the_connection_dies() {
    let exports = ExportTable::new();
    exports.insert(ServiceKey::interface_only(GREETER), greeter());
    let server = DubboServer::bind("127.0.0.1:0", ServerConfig::default(), exports.clone())
        .await
        .unwrap();
    let addr = server.local_addr();
    let client = DubboClient::new(
        addr.to_string(),
        ClientConfig {
            lazy: true,
            reconnect_backoff: Duration::from_millis(10),
            ..ClientConfig::default()
        },
    );
    assert!(client
        .invoke(call("sayHello", vec!["1".into()]))
        .await
        .is_ok());
    server.close().await;
    drop(server);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(client
        .invoke(call("sayHello", vec!["2".into()]))
        .await
        .is_err());
    // A provider back on the same port is found again by the next calls.
    let server = DubboServer::bind(addr, ServerConfig::default(), exports)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let r = client
        .invoke(call("sayHello", vec!["3".into()]))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello 3".into()));
    drop(server);
}

#[tokio::test]
async fn protocol_export_refer_echo_and_generic() {
    let protocol = DubboProtocol::new();
    let url = Url::parse(
        "dubbo://127.0.0.1:0/org.example.Greeter?bind.port=0&version=1.0.0&heartbeat=60000",
    )
    .unwrap();
    let served = FilterChain::build(&builtin_filters(), Stage::Provider, &url, greeter());
    let exporter = protocol
        .export(url.clone(), Arc::new(served))
        .await
        .unwrap();
    let addr = protocol.server_addr(&url).unwrap();
    let consumer = Url::parse(&format!(
        "dubbo://{addr}/org.example.Greeter?version=1.0.0&timeout=2000"
    ))
    .unwrap();
    let invoker = protocol.refer(consumer.clone()).await.unwrap();
    assert!(invoker.is_available());
    let key = ServiceKey::new(GREETER, None, Some("1.0.0"));

    let inv = Invocation::new(
        key.clone(),
        method("sayHello", &["java.lang.String"]),
        vec!["proto".into()],
    );
    let r = invoker.invoke(inv).await.unwrap();
    assert_eq!(r.value, Value::String("Hello proto".into()));

    // $echo is answered by the provider's echo filter.
    let echo = Invocation::new(
        key.clone(),
        Arc::new(MethodSignature::echo()),
        vec![Value::Long(42)],
    );
    assert_eq!(invoker.invoke(echo).await.unwrap().value, Value::Long(42));

    // $invoke goes through the generic filter to sayHello.
    let generic = Invocation::new(
        key.clone(),
        Arc::new(MethodSignature::generic_invoke()),
        vec![
            "sayHello".into(),
            Value::typed_list("[string", vec!["java.lang.String".into()]),
            Value::typed_list("[object", vec!["gen".into()]),
        ],
    );
    assert_eq!(
        invoker.invoke(generic).await.unwrap().value,
        Value::String("Hello gen".into())
    );

    // A second reference to the same address shares the connection.
    let invoker2 = protocol.refer(consumer).await.unwrap();
    let inv = Invocation::new(
        key.clone(),
        method("sayHello", &["java.lang.String"]),
        vec!["2".into()],
    );
    assert!(invoker2.invoke(inv).await.is_ok());
    assert_eq!(protocol.servers()[0].connection_count(), 1);

    // Unexport: the service is gone.
    exporter.unexport();
    let inv = Invocation::new(
        key.clone(),
        method("sayHello", &["java.lang.String"]),
        vec!["x".into()],
    );
    let err = invoker.invoke(inv).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::ServiceNotFound), "{err}");

    invoker.destroy();
    assert!(!invoker.is_available());
    let inv = Invocation::new(
        key,
        method("sayHello", &["java.lang.String"]),
        vec!["x".into()],
    );
    assert!(invoker.invoke(inv).await.is_err());
    protocol.shutdown(Duration::from_millis(100)).await;
    assert!(protocol.servers().is_empty());
}

#[tokio::test]
async fn method_level_timeout_from_url() {
    let protocol = DubboProtocol::new();
    let url = Url::parse("dubbo://127.0.0.1:0/org.example.Greeter?bind.port=0").unwrap();
    let _exporter = protocol.export(url.clone(), greeter()).await.unwrap();
    let addr = protocol.server_addr(&url).unwrap();
    let consumer = Url::parse(&format!(
        "dubbo://{addr}/org.example.Greeter?timeout=5000&sleep.timeout=60"
    ))
    .unwrap();
    let invoker = protocol.refer(consumer).await.unwrap();
    let started = Instant::now();
    let err = invoker
        .invoke(call("sleep", vec![Value::Long(500)]))
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() < Duration::from_millis(400));
    protocol.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn oneway_calls_do_not_wait() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let exports = ExportTable::new();
    let url = Url::parse("dubbo://127.0.0.1:0/a.B").unwrap();
    exports.insert(
        ServiceKey::interface_only("a.B"),
        Arc::new(invoker_fn(url, move |_inv: Invocation| {
            let h = h.clone();
            async move {
                h.fetch_add(1, Ordering::SeqCst);
                Ok(RpcResponse::new(Value::Null))
            }
        })),
    );
    let server = DubboServer::bind("127.0.0.1:0", ServerConfig::default(), exports)
        .await
        .unwrap();
    let client = client_for(&server, ClientConfig::default()).await;
    let inv = Invocation::new(
        ServiceKey::interface_only("a.B"),
        method("fire", &[]),
        vec![],
    );
    let r = client.send_oneway(inv).await.unwrap();
    assert_eq!(r.value, Value::Null);
    let started = Instant::now();
    while hits.load(Ordering::SeqCst) == 0 {
        assert!(started.elapsed() < Duration::from_secs(2));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The response form follows each request's dubbo version: a consumer speaking 2.0.2 (Java 2.6.3
/// and later, 2.7, 3.x) gets the with-attachments types and the attachments; an older one (2.0.0,
/// 2.0.1: `Version.isSupportResponseAttatchment` is false) gets the plain type and none, which it
/// could not read.
#[tokio::test]
async fn response_attachments_only_for_consumers_that_read_them() {
    let server = server().await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    for (id, version, type_byte, attachments) in [
        (21, b"2.0.2", 0x94, true),  // RESPONSE_VALUE_WITH_ATTACHMENTS
        (22, b"2.0.1", 0x91, false), // RESPONSE_VALUE
    ] {
        let mut frame = body::encode_request(id, &call("sayHello", vec!["x".into()]), None, true)
            .unwrap()
            .to_vec();
        // The body opens with the dubbo version as a short hessian string: 0x05 "2.0.2".
        assert_eq!(&frame[16..22], b"\x052.0.2");
        frame[17..22].copy_from_slice(version);
        s.write_all(&frame).await.unwrap();
        let (h, body) = read_frame(&mut s).await;
        assert_eq!((h.id, h.status), (id, 20));
        assert_eq!(
            body[0], type_byte,
            "response type for dubbo version {version:?}"
        );
        let r = body::decode_ok_response(&body).unwrap().unwrap();
        assert_eq!(r.value, Value::String("Hello x".into()));
        assert_eq!(r.attachments.get("served-by").is_some(), attachments);
    }
}

/// Reads until the peer closes, for up to a second: whether it closed.
async fn closed_by_peer(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 16];
    matches!(
        tokio::time::timeout(Duration::from_secs(1), s.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test]
async fn accepts_refuses_and_counts_connections_beyond_the_limit() {
    let server = server_with(ServerConfig {
        accepts: 1,
        ..ServerConfig::default()
    })
    .await;
    let client = client_for(&server, ClientConfig::default()).await;
    assert!(client
        .invoke(call("sayHello", vec!["one".into()]))
        .await
        .is_ok());
    let mut extra = TcpStream::connect(server.local_addr()).await.unwrap();
    assert!(closed_by_peer(&mut extra).await);
    assert_eq!(server.refused_connections(), 1);
    assert_eq!(server.connection_count(), 1);
    let r = client
        .invoke(call("sayHello", vec!["still".into()]))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello still".into()));
}
