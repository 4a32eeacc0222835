//! `--events-check SER`: which serialization the heartbeats and events between this client and
//! a dubbo:// provider are written in, read off the wire by a relay between them.
//!
//! The client refers to the provider through the relay with `heartbeat=200`, calls `sayHello`
//! once, then stays idle so that it sends heartbeats; every one must be in `SER` (the first
//! serialization of the reference: Java writes heartbeats and events in the channel's first
//! preference). It then prints `WAITING` and waits (up to 60 s) for the provider to shut down:
//! the readonly event the provider sends then must be in `SER` too (the provider's own first
//! preference, when it prefers the same). Heartbeat answers are reported, not checked (Java
//! answers in the heartbeat's serialization).

use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_rs::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::cases::interop_reference;
use crate::reference_flags::ReferenceFlags;
use crate::report::Report;
use crate::service::InteropServiceClient;

/// One event frame seen by the relay: whether the client sent it, its flag byte.
type Seen = Arc<Mutex<Vec<(bool, u8)>>>;

const FLAG_REQUEST: u8 = 0x80;
const FLAG_EVENT: u8 = 0x20;

/// The Dubbo id of a serialization name.
fn serialization_id(name: &str) -> Result<u8, String> {
    match name {
        "hessian2" => Ok(2),
        "fastjson2" => Ok(23),
        other => Err(format!(
            "--events-check {other}: expected hessian2 or fastjson2"
        )),
    }
}

/// Copies `from` to `to`, noting the flag byte of every event frame that passes.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    client: bool,
    seen: Seen,
    closed: Arc<tokio::sync::Notify>,
) {
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
        pending.extend_from_slice(&buf[..n]);
        while pending.len() >= 16 && pending[..2] == [0xda, 0xbb] {
            let len = u32::from_be_bytes([pending[12], pending[13], pending[14], pending[15]]);
            let total = 16 + len as usize;
            if pending.len() < total {
                break;
            }
            if pending[2] & FLAG_EVENT != 0 {
                if let Ok(mut s) = seen.lock() {
                    s.push((client, pending[2]));
                }
            }
            pending.drain(..total);
        }
    }
    let _ = to.shutdown().await;
    if !client {
        closed.notify_one();
    }
}

/// A relay to `target` on 127.0.0.1 that notes the event frames passing either way.
async fn relay(
    target: String,
    seen: Seen,
    closed: Arc<tokio::sync::Notify>,
) -> Result<String, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener
        .local_addr()
        .map_err(|e| e.to_string())?
        .to_string();
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            let Ok(outbound) = TcpStream::connect(&target).await else {
                continue;
            };
            let (ir, iw) = inbound.into_split();
            let (or, ow) = outbound.into_split();
            tokio::spawn(pump(ir, ow, true, seen.clone(), closed.clone()));
            tokio::spawn(pump(or, iw, false, seen.clone(), closed.clone()));
        }
    });
    Ok(addr)
}

fn events(seen: &Seen, client: bool, request: bool) -> Vec<u8> {
    seen.lock()
        .map(|s| {
            s.iter()
                .filter(|(c, flag)| *c == client && (flag & FLAG_REQUEST != 0) == request)
                .map(|(_, flag)| flag & 0x1f)
                .collect()
        })
        .unwrap_or_default()
}

/// Runs the check against the dubbo:// provider at `target` (`host:port`).
pub async fn run(
    app: &Application,
    target: &str,
    expected: &str,
    flags: &ReferenceFlags,
    report: &mut Report,
) -> Result<(), String> {
    let want = serialization_id(expected)?;
    let seen: Seen = Arc::default();
    let closed = Arc::new(tokio::sync::Notify::new());
    let relay = relay(target.to_owned(), seen.clone(), closed.clone()).await?;
    let options = flags
        .apply(interop_reference(
            &format!("dubbo://{relay}"),
            flags.token(),
        ))
        .parameter("heartbeat", "200");
    let reference = app
        .default_module()
        .refer(options)
        .await
        .map_err(|e| e.to_string())?;
    let client = InteropServiceClient::new(reference.invoker());
    let hello = client.say_hello(Some("events".into())).await;
    report.check("events.call", hello.is_ok(), || format!("{hello:?}"));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let sent = events(&seen, true, true);
    report.check(
        &format!("events.client_heartbeats_in_{expected}"),
        !sent.is_empty() && sent.iter().all(|id| *id == want),
        || format!("heartbeat requests sent in serialization ids {sent:?}"),
    );
    let answers = events(&seen, false, false);
    println!("heartbeat answers from the provider in serialization ids {answers:?}");

    println!("WAITING for the provider to shut down");
    let _ = std::io::stdout().flush();
    let _ = tokio::time::timeout(Duration::from_secs(60), closed.notified()).await;
    let provider_events = events(&seen, false, true);
    report.check(
        &format!("events.provider_readonly_event_in_{expected}"),
        !provider_events.is_empty() && provider_events.iter().all(|id| *id == want),
        || format!("event requests from the provider in serialization ids {provider_events:?}"),
    );
    Ok(())
}
