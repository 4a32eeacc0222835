//! The contract's `org.apache.dubbo.interop.StreamingService`: Java methods that take or return
//! a `StreamObserver`, served and called in Triple's wrapper mode (Hessian 2 per message).
//!
//! - `serverStream("N")`: `item-0` .. `item-(N-1)`; `"N:fail"`: the N items, then the error
//!   `failed after N`; `"forever"`: `tick-i` every 20 ms until the consumer cancels (30 s at
//!   most); `"cancelled"`: one item, how many streams of this provider ended cancelled.
//! - `clientStream`: the requests joined with `,` once the consumer completes; a request
//!   `"fail"` ends the call with the error `refused fail`.
//! - `biStream`: `echo:m` for each request m; `"fail"` ends it with the error `refused fail`.
//! - A request `"version"` stands for the provider's version in each answer (`none` when it
//!   was exported without one): `serverStream("version")` answers one item, the version;
//!   `clientStream` and `biStream` put it in place of the request. Several versions of the
//!   service on one port tell this way which one answered.
//!
//! Both sides come from the [`StreamingService`] trait: the provider is its
//! `StreamingServiceServer` (exported like any service, on tri://), the consumer its
//! `StreamingServiceClient` on a reference's invoker.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dubbo_rs::protocol_triple::{ResponseStream, Status, Streaming};
use futures::StreamExt;

use crate::report::Report;

/// The Java interface name.
pub const STREAMING_SERVICE: &str = "org.apache.dubbo.interop.StreamingService";

/// The contract's `StreamingService`, method by method as Java declares it.
#[dubbo_rs::service(interface = "org.apache.dubbo.interop.StreamingService")]
pub trait StreamingService: Send + Sync + 'static {
    /// Java `void serverStream(String request, StreamObserver<String> responses)`.
    async fn server_stream(&self, request: String) -> Result<ResponseStream<String>, Status>;
    /// Java `StreamObserver<String> clientStream(StreamObserver<String> response)`, answered
    /// once.
    async fn client_stream(&self, requests: Streaming<String>) -> Result<String, Status>;
    /// Java `StreamObserver<String> biStream(StreamObserver<String> responses)`.
    async fn bi_stream(
        &self,
        requests: Streaming<String>,
    ) -> Result<ResponseStream<String>, Status>;
}

type Out = ResponseStream<String>;

/// Counts a stream as cancelled when it is dropped before it ended by itself.
struct CancelGuard {
    cancelled: Arc<AtomicUsize>,
    done: bool,
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        if !self.done {
            self.cancelled.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// `stream` with a guard that counts it cancelled unless it ends (or fails) by itself; a
/// `CANCELLED` error from the request side counts as a cancel too.
fn guarded(stream: Out, cancelled: Arc<AtomicUsize>) -> Out {
    let guard = CancelGuard {
        cancelled,
        done: false,
    };
    Box::pin(futures::stream::unfold(
        (stream, guard),
        |(mut s, mut g)| async move {
            match s.next().await {
                Some(Ok(v)) => Some((Ok(v), (s, g))),
                Some(Err(e)) => {
                    // A status the service chose ends the stream; a reset seen on the request
                    // side is the consumer cancelling.
                    g.done = e.code() != dubbo_rs::protocol_triple::Code::Cancelled;
                    Some((Err(e), (s, g)))
                }
                None => {
                    g.done = true;
                    drop((s, g));
                    None
                }
            }
        },
    ))
}

fn server_stream(request: String, cancelled: Arc<AtomicUsize>) -> Result<Out, Status> {
    match request.as_str() {
        "cancelled" => {
            let n = cancelled.load(Ordering::SeqCst).to_string();
            Ok(Box::pin(futures::stream::iter([Ok(n)])))
        }
        "forever" => {
            let ticks = futures::stream::unfold(0u32, |i| async move {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Some((Ok(format!("tick-{i}")), i + 1))
            })
            .take(1500);
            Ok(guarded(Box::pin(ticks), cancelled))
        }
        other => {
            let (count, fail) = match other.strip_suffix(":fail") {
                Some(n) => (n, true),
                None => (other, false),
            };
            let n: u32 = count
                .parse()
                .map_err(|_| Status::invalid_argument(format!("not a count: {other:?}")))?;
            let items = (0..n).map(|i| Ok(format!("item-{i}")));
            let end = fail.then(|| Err(Status::unknown(format!("failed after {n}"))));
            Ok(Box::pin(futures::stream::iter(items.chain(end))))
        }
    }
}

fn bi_stream(requests: Streaming<String>, cancelled: Arc<AtomicUsize>, version: String) -> Out {
    let echoes = requests.map(move |r| match r {
        Ok(m) if m == "fail" => Err(Status::unknown("refused fail")),
        Ok(m) if m == VERSION_REQUEST => Ok(format!("echo:{version}")),
        Ok(m) => Ok(format!("echo:{m}")),
        Err(e) => Err(e),
    });
    // The stream ends at the first error ("fail"): nothing after it is read.
    let mut failed = false;
    let echoes = echoes.take_while(move |r| {
        let go = !failed;
        failed |= r.is_err();
        futures::future::ready(go)
    });
    guarded(Box::pin(echoes), cancelled)
}

async fn client_stream(
    mut requests: Streaming<String>,
    cancelled: Arc<AtomicUsize>,
    version: &str,
) -> Result<String, Status> {
    let mut guard = CancelGuard {
        cancelled,
        done: false,
    };
    let mut items = Vec::new();
    while let Some(m) = requests.next().await {
        match m {
            Ok(m) if m == "fail" => {
                guard.done = true;
                return Err(Status::unknown("refused fail"));
            }
            Ok(m) if m == VERSION_REQUEST => items.push(version.to_owned()),
            Ok(m) => items.push(m),
            Err(e) => return Err(e),
        }
    }
    guard.done = true;
    Ok(items.join(","))
}

/// The request that stands for the provider's version.
pub const VERSION_REQUEST: &str = "version";

/// The provider's side of the contract: it counts the streams its consumers cancelled, and
/// knows the version it is exported as.
#[derive(Debug)]
pub struct ContractStreams {
    cancelled: Arc<AtomicUsize>,
    version: String,
}

impl StreamingService for ContractStreams {
    async fn server_stream(&self, request: String) -> Result<Out, Status> {
        if request == VERSION_REQUEST {
            return Ok(Box::pin(futures::stream::iter([Ok(self.version.clone())])));
        }
        server_stream(request, self.cancelled.clone())
    }

    async fn client_stream(&self, requests: Streaming<String>) -> Result<String, Status> {
        client_stream(requests, self.cancelled.clone(), &self.version).await
    }

    async fn bi_stream(&self, requests: Streaming<String>) -> Result<Out, Status> {
        Ok(bi_stream(
            requests,
            self.cancelled.clone(),
            self.version.clone(),
        ))
    }
}

/// The provider, to export on a tri:// protocol without a version.
pub fn service() -> StreamingServiceServer<ContractStreams> {
    service_versioned("none")
}

/// The provider to export as `version`: it answers `version` requests with it.
pub fn service_versioned(version: &str) -> StreamingServiceServer<ContractStreams> {
    StreamingServiceServer::new(ContractStreams {
        cancelled: Arc::default(),
        version: version.to_owned(),
    })
}

async fn collect(
    client: &StreamingServiceClient,
    request: &str,
) -> Result<(Vec<String>, Option<Status>), Status> {
    let mut s = client.server_stream(request.to_owned()).await?;
    let mut items = Vec::new();
    while let Some(m) = s.next().await {
        match m {
            Ok(m) => items.push(m),
            Err(e) => return Ok((items, Some(e))),
        }
    }
    Ok((items, None))
}

async fn cancelled_count(client: &StreamingServiceClient) -> Result<usize, String> {
    match collect(client, "cancelled").await {
        Ok((items, None)) if items.len() == 1 => items[0].parse().map_err(|e| format!("{e}")),
        other => Err(format!("serverStream(\"cancelled\") answered {other:?}")),
    }
}

async fn await_cancelled(client: &StreamingServiceClient, before: usize) -> Result<(), String> {
    let mut now = before;
    for _ in 0..100 {
        now = cancelled_count(client).await?;
        if now > before {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!(
        "the provider saw no cancelled stream (count stays {now})"
    ))
}

fn items(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

fn has_message(e: &Option<Status>, fragment: &str) -> bool {
    e.as_ref().is_some_and(|s| s.message().contains(fragment))
}

/// Calls the `StreamingService` provider exported as `version` on `client` (a reference of
/// that version) with a `version` request of each stream kind: each must name `version`, so a
/// call answered by another version of the service on the same port fails.
pub async fn run_version_cases(
    client: &StreamingServiceClient,
    version: &str,
    report: &mut Report,
) {
    let r = collect(client, VERSION_REQUEST).await;
    report.check(
        &format!("streaming.version_{version}.server_stream"),
        matches!(&r, Ok((i, None)) if *i == items(&[version])),
        || format!("{r:?}"),
    );
    let r = client
        .client_stream(futures::stream::iter(items(&["a", VERSION_REQUEST])))
        .await;
    let want = format!("a,{version}");
    report.check(
        &format!("streaming.version_{version}.client_stream"),
        matches!(&r, Ok(s) if *s == want),
        || format!("{r:?}"),
    );
    let r = bidi(client, &[VERSION_REQUEST, "x"]).await;
    let want = vec![format!("echo:{version}"), "echo:x".to_owned()];
    report.check(
        &format!("streaming.version_{version}.bi_stream"),
        matches!(&r, Ok((i, None)) if *i == want),
        || format!("{r:?}"),
    );
}

/// Calls a `StreamingService` provider on `client`: each stream kind, an error mid-stream of
/// each, and cancelling a server stream and a bidirectional one.
pub async fn run_cases(client: &StreamingServiceClient, report: &mut Report) {
    let r = collect(client, "3").await;
    report.check(
        "streaming.server_stream",
        matches!(&r, Ok((i, None)) if *i == items(&["item-0", "item-1", "item-2"])),
        || format!("{r:?}"),
    );
    let r = collect(client, "2:fail").await;
    report.check(
        "streaming.server_stream_error_mid_stream",
        matches!(&r, Ok((i, e)) if *i == items(&["item-0", "item-1"]) && has_message(e, "failed after 2")),
        || format!("{r:?}"),
    );
    let r = server_stream_cancel(client).await;
    report.check("streaming.server_stream_cancel", r.is_ok(), || {
        format!("{r:?}")
    });

    let r = client
        .client_stream(futures::stream::iter(items(&["a", "b", "c"])))
        .await;
    report.check(
        "streaming.client_stream",
        matches!(&r, Ok(s) if s == "a,b,c"),
        || format!("{r:?}"),
    );
    let r = client
        .client_stream(futures::stream::iter(items(&["a", "fail"])))
        .await;
    report.check(
        "streaming.client_stream_error_mid_stream",
        matches!(&r, Err(s) if s.message().contains("refused fail")),
        || format!("{r:?}"),
    );

    let r = bidi(client, &["x", "y"]).await;
    report.check(
        "streaming.bi_stream",
        matches!(&r, Ok((i, None)) if *i == items(&["echo:x", "echo:y"])),
        || format!("{r:?}"),
    );
    let r = bidi(client, &["x", "fail", "z"]).await;
    report.check(
        "streaming.bi_stream_error_mid_stream",
        matches!(&r, Ok((i, e)) if *i == items(&["echo:x"]) && has_message(e, "refused fail")),
        || format!("{r:?}"),
    );
    let r = bi_stream_cancel(client).await;
    report.check("streaming.bi_stream_cancel", r.is_ok(), || format!("{r:?}"));
}

async fn bidi(
    client: &StreamingServiceClient,
    requests: &[&str],
) -> Result<(Vec<String>, Option<Status>), Status> {
    let mut s = client
        .bi_stream(futures::stream::iter(items(requests)))
        .await?;
    let mut out = Vec::new();
    while let Some(m) = s.next().await {
        match m {
            Ok(m) => out.push(m),
            Err(e) => return Ok((out, Some(e))),
        }
    }
    Ok((out, None))
}

async fn server_stream_cancel(client: &StreamingServiceClient) -> Result<(), String> {
    let before = cancelled_count(client).await?;
    let mut s = client
        .server_stream("forever".to_owned())
        .await
        .map_err(|e| e.to_string())?;
    for i in 0..3 {
        let m = s.next().await;
        if !matches!(&m, Some(Ok(t)) if *t == format!("tick-{i}")) {
            return Err(format!("message {i}: {m:?}"));
        }
    }
    // Dropping the stream resets it (RST_STREAM CANCEL).
    drop(s);
    await_cancelled(client, before).await
}

async fn bi_stream_cancel(client: &StreamingServiceClient) -> Result<(), String> {
    let before = cancelled_count(client).await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(4);
    let requests =
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) });
    // Sent before the call starts: Java answers with its response headers only together with
    // its first message, and the call returns once the headers are in.
    tx.send("x".to_owned()).await.map_err(|e| e.to_string())?;
    let mut s = client
        .bi_stream(requests)
        .await
        .map_err(|e| e.to_string())?;
    let m = s.next().await;
    if !matches!(&m, Some(Ok(t)) if t == "echo:x") {
        return Err(format!("first echo: {m:?}"));
    }
    // The request side is still open: dropping the response stream cancels the call.
    drop(s);
    drop(tx);
    await_cancelled(client, before).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition the macro generates lists the streaming methods as Java 3.3's
    /// `ServiceDefinitionBuilder` lists the interface's `StreamObserver` methods: the observer
    /// by its raw class name (a type of no properties), `void` for a server stream.
    #[test]
    fn the_definition_lists_the_streams_as_java_does() {
        let def = StreamingServiceClient::service_definition();
        assert_eq!(def.canonical_name, STREAMING_SERVICE);
        let observer = "org.apache.dubbo.common.stream.StreamObserver";
        let mut methods: Vec<(String, Vec<String>, String)> = def
            .methods
            .iter()
            .map(|m| {
                assert!(m.parameters.is_empty() && m.annotations.is_empty());
                (
                    m.name.clone(),
                    m.parameter_types.clone(),
                    m.return_type.clone(),
                )
            })
            .collect();
        methods.sort();
        let m = |name: &str, params: &[&str], ret: &str| {
            (
                name.to_owned(),
                params.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>(),
                ret.to_owned(),
            )
        };
        assert_eq!(
            methods,
            [
                m("biStream", &[observer], observer),
                m("clientStream", &[observer], observer),
                m("serverStream", &["java.lang.String", observer], "void"),
            ]
        );
        let mut types: Vec<(&str, usize)> = def
            .types
            .iter()
            .map(|t| {
                (
                    t.type_name.as_str(),
                    t.properties.len() + t.items.len() + t.enums.len(),
                )
            })
            .collect();
        types.sort_unstable();
        assert_eq!(types, [("java.lang.String", 0), (observer, 0), ("void", 0)]);
    }
}
