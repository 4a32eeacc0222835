//! Graceful shutdown of a server: stop accepting, tell every connection, let in-flight calls
//! finish within the grace period, then close what is left.
//!
//! HTTP/2 connections get grpc-java's two-phase GOAWAY (h2's `graceful_shutdown`): first a
//! GOAWAY with last stream id 2^31-1 and a PING, then, once the PING is acknowledged (one round
//! trip later, so streams the client had already sent are not lost), a GOAWAY carrying the real
//! last stream id. Clients treat the GOAWAY as "go elsewhere": a Triple client opens a new
//! connection (or its invoker reports itself unavailable so the cluster picks another
//! provider). HTTP/1.1 connections finish their current request and close.

use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinSet;

/// The shutdown signal shared by a server's accept loop and its connections.
#[derive(Debug, Clone)]
pub(crate) struct ShutdownSignal {
    tx: watch::Sender<bool>,
}

impl ShutdownSignal {
    pub(crate) fn new() -> Self {
        let (tx, _rx) = watch::channel(false);
        Self { tx }
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<bool> {
        self.tx.subscribe()
    }

    pub(crate) fn trigger(&self) {
        self.tx.send_replace(true);
    }

    pub(crate) fn is_triggered(&self) -> bool {
        *self.tx.borrow()
    }
}

/// Waits for every connection task to end, at most `grace`; aborts the rest.
pub(crate) async fn drain(connections: &mut JoinSet<()>, grace: Duration) {
    let all = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(grace, all).await.is_err() {
        tracing::debug!(
            remaining = connections.len(),
            "grace period over; closing remaining connections"
        );
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    }
}
