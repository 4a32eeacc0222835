//! Interface-mode streams (Java `StreamObserver` methods in wrapper mode): a
//! `StreamingInterface` served and called with the typed client calls, each kind, an error
//! mid-stream, a cancel seen by the service, and the wrappers as Java writes them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use dubbo_protocol_triple::server::interface_stream::StreamingInterface;
use dubbo_protocol_triple::wrapper::{TripleRequestWrapper, TripleResponseWrapper};
use dubbo_protocol_triple::wrapper_stream::{encode_request, STREAM_OBSERVER};
use dubbo_protocol_triple::{
    Code, Request, Status, Streaming, TripleChannel, TripleClient, TripleConfig, TripleServer,
};

const IFACE: &str = "org.example.Streams";

struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

async fn serve(dropped: Arc<AtomicUsize>) -> (TripleServer, TripleClient) {
    let service = StreamingInterface::new(IFACE)
        .server_streaming("count", move |n: i32| {
            let dropped = dropped.clone();
            async move {
                let guard = Dropped(dropped);
                let items = futures::stream::iter(0..n)
                    .then(move |i| async move {
                        if i >= 3 {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        if i == 5 && n == 6 {
                            Err(Status::unknown("five is too many"))
                        } else {
                            Ok(i)
                        }
                    })
                    // The guard lives as long as the stream: dropped when it ends or is cancelled.
                    .map(move |r| {
                        let _ = &guard;
                        r
                    });
                Ok(items)
            }
        })
        .client_streaming("join", |reqs: Streaming<String>| async move {
            let all: Vec<String> = reqs.map(|r| r.unwrap()).collect().await;
            Ok(all.join("+"))
        })
        .bidi_streaming("echo", |reqs: Streaming<String>| async move {
            Ok(reqs.map(|r| r.map(|s| format!("echo:{s}"))))
        });
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default())
        .await
        .unwrap();
    server.add_idl_service(service);
    let channel = TripleChannel::connect(server.local_addr().to_string(), TripleConfig::default())
        .await
        .unwrap();
    (server, TripleClient::new(channel))
}

#[tokio::test]
async fn each_kind_errors_and_cancels() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let (server, client) = serve(dropped.clone()).await;

    let s = client
        .interface_server_streaming::<i32, i32>(&format!("/{IFACE}/count"), Request::new(4))
        .await
        .unwrap()
        .into_inner();
    let got: Vec<_> = s.collect().await;
    assert_eq!(
        got.into_iter().map(|r| r.unwrap()).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );

    // An error after five items ends the stream with that status.
    let got: Vec<_> = client
        .interface_server_streaming::<i32, i32>(&format!("/{IFACE}/count"), Request::new(6))
        .await
        .unwrap()
        .into_inner()
        .collect()
        .await;
    assert_eq!(got.len(), 6);
    let err = got[5].as_ref().unwrap_err();
    assert_eq!(
        (err.code(), err.message()),
        (Code::Unknown, "five is too many")
    );

    // Dropping the response stream cancels the call: the service's stream is dropped early.
    let before = dropped.load(Ordering::SeqCst);
    let mut s = client
        .interface_server_streaming::<i32, i32>(&format!("/{IFACE}/count"), Request::new(1000))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(s.next().await.unwrap().unwrap(), 0);
    drop(s);
    let mut waited = 0;
    while dropped.load(Ordering::SeqCst) == before && waited < 100 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += 1;
    }
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        before + 1,
        "the service's stream was not dropped"
    );

    let joined = client
        .interface_client_streaming::<_, String, String>(
            &format!("/{IFACE}/join"),
            Request::new(futures::stream::iter(["a".to_owned(), "b".to_owned()])),
        )
        .await
        .unwrap()
        .into_inner();
    assert_eq!(joined, "a+b");

    let echoes: Vec<_> = client
        .interface_bidi_streaming::<_, String, String>(
            &format!("/{IFACE}/echo"),
            Request::new(futures::stream::iter(["x".to_owned(), "y".to_owned()])),
        )
        .await
        .unwrap()
        .into_inner()
        .map(|r| r.unwrap())
        .collect()
        .await;
    assert_eq!(echoes, ["echo:x", "echo:y"]);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn wrappers_as_java_writes_them() {
    let (server, client) = serve(Arc::new(AtomicUsize::new(0))).await;
    // A server-stream request as Java 3.3 sends it: one argument, two argument types.
    let req = encode_request(&2i32, &["java.lang.Integer", STREAM_OBSERVER]).unwrap();
    let w = TripleRequestWrapper::decode(req.clone()).unwrap();
    assert_eq!((w.args.len(), w.arg_types.len()), (1, 2));
    let resp = client
        .server_streaming_raw(
            &format!("/{IFACE}/count"),
            &http::HeaderMap::new(),
            req,
            None,
        )
        .await
        .unwrap()
        .into_inner();
    let msgs: Vec<_> = resp.map(|r| r.unwrap()).collect().await;
    assert_eq!(msgs.len(), 2);
    for m in msgs {
        let w = TripleResponseWrapper::decode(m).unwrap();
        // The declared element type of the stream, as Java's `Class.getName()`.
        assert_eq!(w.type_name, "java.lang.Integer");
        assert_eq!(w.serialize_type, "hessian4");
    }
    // A method the service does not have is UNIMPLEMENTED.
    let err = client
        .interface_server_streaming::<i32, i32>(&format!("/{IFACE}/nope"), Request::new(1))
        .await
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    server.shutdown(Duration::from_secs(1)).await;
}
