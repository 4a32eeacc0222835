//! Calls waiting for their response, by request id, and the request id generator.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use dubbo_core::{ErrorCode, RpcError};
use tokio::sync::oneshot;

use crate::codec::Frame;

/// What a waiting call receives: its response frame, or why none will come.
pub(crate) type Reply = Result<Frame, RpcError>;

/// The next request id. Like Java's `Request.INVOKE_ID`, ids come from one process-wide
/// counter that starts at a random value and wraps around.
pub fn next_request_id() -> i64 {
    static NEXT: OnceLock<AtomicI64> = OnceLock::new();
    NEXT.get_or_init(|| AtomicI64::new(random_i64()))
        .fetch_add(1, Ordering::Relaxed)
}

/// A random starting point, from the randomly keyed hasher the standard library seeds per
/// process (no extra dependency needed for one number).
fn random_i64() -> i64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(std::process::id() as u64);
    h.finish() as i64
}

const SHARDS: usize = 8;

/// Hashes request ids. The ids in a map are this process's own (sequential, from
/// [`next_request_id`]); a peer only looks ids up, so a keyed hash buys nothing here and its
/// cost is paid twice per call. A folded multiply spreads sequential ids, whose low bits are
/// the same within a shard, over all buckets.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }

    fn write_i64(&mut self, id: i64) {
        let product = u128::from(id as u64) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Waiting = HashMap<i64, oneshot::Sender<Reply>, BuildHasherDefault<IdHasher>>;

/// The calls of one connection that wait for a response.
///
/// Sharded by id so that many concurrent callers and the connection's reader rarely contend.
#[derive(Debug)]
pub(crate) struct PendingCalls {
    shards: [Mutex<Waiting>; SHARDS],
    closed: AtomicBool,
}

impl PendingCalls {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(PendingCalls {
            shards: Default::default(),
            closed: AtomicBool::new(false),
        })
    }

    fn shard(&self, id: i64) -> &Mutex<Waiting> {
        &self.shards[(id as u64 as usize) % SHARDS]
    }

    /// Registers a call; the returned guard removes it again when dropped (after a timeout or
    /// a cancelled caller), so a late response finds nothing and is dropped.
    pub(crate) fn register(self: &Arc<Self>, id: i64) -> Result<PendingCall, RpcError> {
        let (tx, rx) = oneshot::channel();
        {
            let mut shard = self.shard(id).lock().unwrap_or_else(|p| p.into_inner());
            // Checked under the lock: `fail_all` takes every shard lock after setting `closed`.
            if self.closed.load(Ordering::Acquire) {
                return Err(RpcError::framework(ErrorCode::Network, "connection closed"));
            }
            shard.insert(id, tx);
        }
        Ok(PendingCall {
            calls: self.clone(),
            id,
            rx,
            answered: false,
        })
    }

    /// Hands `reply` to the call waiting for `id`. Returns false when none waits (it timed out,
    /// or the id is unknown).
    pub(crate) fn complete(&self, id: i64, reply: Reply) -> bool {
        let tx = self
            .shard(id)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        match tx {
            Some(tx) => tx.send(reply).is_ok(),
            None => false,
        }
    }

    /// Fails every waiting call with `err` and refuses new registrations.
    pub(crate) fn fail_all(&self, err: &RpcError) {
        self.closed.store(true, Ordering::Release);
        for shard in &self.shards {
            let drained: Vec<_> = shard
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .drain()
                .collect();
            for (_, tx) in drained {
                let _ = tx.send(Err(err.clone()));
            }
        }
    }

    /// Number of calls waiting.
    pub(crate) fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().map(|m| m.len()).unwrap_or(0))
            .sum()
    }
}

/// One registered call.
#[derive(Debug)]
pub(crate) struct PendingCall {
    calls: Arc<PendingCalls>,
    id: i64,
    rx: oneshot::Receiver<Reply>,
    /// The sender has left the map: whoever took it out (a response, or the connection
    /// failing every call) answered or dropped it, so there is nothing left to remove.
    answered: bool,
}

impl PendingCall {
    /// Waits for the reply; `None` if the connection dropped the call without a reason.
    pub(crate) async fn wait(&mut self) -> Option<Reply> {
        let reply = (&mut self.rx).await.ok();
        self.answered = true;
        reply
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        // A call that got its answer saves a lock and a lookup per call; one dropped while
        // waiting (timeout, cancelled caller) removes its sender so a late response finds none.
        if self.answered {
            return;
        }
        if let Ok(mut shard) = self.calls.shard(self.id).lock() {
            shard.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::Header;
    use bytes::Bytes;

    fn frame(id: i64) -> Frame {
        Frame {
            header: Header::response(id, 2, 20, false),
            body: Bytes::new(),
        }
    }

    #[tokio::test]
    async fn complete_and_drop() {
        let p = PendingCalls::new();
        let mut a = p.register(1).unwrap();
        let b = p.register(2).unwrap();
        assert_eq!(p.len(), 2);
        assert!(p.complete(1, Ok(frame(1))));
        assert_eq!(a.wait().await.unwrap().unwrap().header.id, 1);
        drop(b);
        assert_eq!(p.len(), 0);
        assert!(!p.complete(2, Ok(frame(2))));
    }

    #[tokio::test]
    async fn fail_all_closes() {
        let p = PendingCalls::new();
        let mut a = p.register(i64::MIN).unwrap();
        p.fail_all(&RpcError::framework(ErrorCode::Network, "gone"));
        assert!(a.wait().await.unwrap().is_err());
        assert!(p.register(3).is_err());
    }

    #[test]
    fn ids_increment() {
        // Other tests draw ids concurrently, so only distinctness is certain.
        let a = next_request_id();
        let b = next_request_id();
        assert_ne!(a, b);
    }
}
