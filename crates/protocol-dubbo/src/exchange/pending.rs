//! Calls waiting for their response, by request id, and the request id generator.
//!
//! A waiting call carries its deadline in the map, and the connection's reader sweeps the map
//! for expired calls every [`SWEEP_TICK`] while any call waits (Java's `DefaultFuture` does the
//! same with one wheel timer per process). A timer per call would register and deregister
//! with the runtime's timer wheel on every call; the sweep costs one atomic load per call.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use dubbo_core::{ErrorCode, RpcError};
use tokio::sync::{oneshot, Notify};

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

/// How often the reader looks for expired calls while some call waits: a call fails at most
/// this much after its deadline (Java's timeout timer ticks every 30 ms).
pub(crate) const SWEEP_TICK: Duration = Duration::from_millis(10);

/// What a sweep hands a call past its deadline. Only the sweep answers with
/// [`ErrorCode::Timeout`]; the caller replaces it with the error that names the method,
/// provider and elapsed time.
fn expired() -> RpcError {
    RpcError::framework(ErrorCode::Timeout, "deadline passed")
}

#[derive(Debug)]
struct Waiter {
    deadline: Instant,
    tx: oneshot::Sender<Reply>,
}

type Waiting = HashMap<i64, Waiter, BuildHasherDefault<IdHasher>>;

/// The calls of one connection that wait for a response.
///
/// Sharded by id so that many concurrent callers and the connection's reader rarely contend.
#[derive(Debug)]
pub(crate) struct PendingCalls {
    shards: [Mutex<Waiting>; SHARDS],
    closed: AtomicBool,
    /// Whether the reader is sweeping (some call was registered since the map was last seen
    /// empty). A registration that finds it unset sets it and wakes the reader.
    sweeping: AtomicBool,
    wake_sweeper: Notify,
}

impl PendingCalls {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(PendingCalls {
            shards: Default::default(),
            closed: AtomicBool::new(false),
            sweeping: AtomicBool::new(false),
            wake_sweeper: Notify::new(),
        })
    }

    fn shard(&self, id: i64) -> &Mutex<Waiting> {
        &self.shards[(id as u64 as usize) % SHARDS]
    }

    /// Registers a call that expires at `deadline` (a sweep then answers it with
    /// [`ErrorCode::Timeout`]); the returned guard removes it again when dropped (a cancelled
    /// caller), so a late response finds nothing and is dropped.
    pub(crate) fn register(
        self: &Arc<Self>,
        id: i64,
        deadline: Instant,
    ) -> Result<PendingCall, RpcError> {
        let (tx, rx) = oneshot::channel();
        {
            let mut shard = self.shard(id).lock().unwrap_or_else(|p| p.into_inner());
            // Checked under the lock: `fail_all` takes every shard lock after setting `closed`.
            if self.closed.load(Ordering::Acquire) {
                return Err(RpcError::framework(ErrorCode::Network, "connection closed"));
            }
            shard.insert(id, Waiter { deadline, tx });
        }
        // Relaxed is enough: the sweeper clears the flag before it counts the calls under the
        // shard locks, so either it sees this call or this load sees the cleared flag.
        if !self.sweeping.load(Ordering::Relaxed) && !self.sweeping.swap(true, Ordering::AcqRel) {
            self.wake_sweeper.notify_one();
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
            Some(w) => w.tx.send(reply).is_ok(),
            None => false,
        }
    }

    /// Waits until a call is registered while no sweep is running.
    pub(crate) async fn sweep_needed(&self) {
        self.wake_sweeper.notified().await;
    }

    /// Answers every call whose deadline is at or before `now` with [`ErrorCode::Timeout`].
    /// Returns whether calls still wait (keep sweeping); when none does, the next
    /// registration wakes the sweeper again through [`sweep_needed`](Self::sweep_needed).
    pub(crate) fn sweep(&self, now: Instant) -> bool {
        let mut due = Vec::new();
        let mut waiting = false;
        for shard in &self.shards {
            let mut map = shard.lock().unwrap_or_else(|p| p.into_inner());
            due.extend(
                map.iter()
                    .filter(|(_, w)| w.deadline <= now)
                    .map(|(id, _)| *id),
            );
            let expired_here: Vec<Waiter> =
                due.drain(..).filter_map(|id| map.remove(&id)).collect();
            waiting |= !map.is_empty();
            drop(map);
            for w in expired_here {
                let _ = w.tx.send(Err(expired()));
            }
        }
        if waiting {
            return true;
        }
        // Nothing waits: stop until the next registration. A registration racing with this
        // either is seen by the second count or sees the cleared flag and wakes the sweeper.
        self.sweeping.store(false, Ordering::SeqCst);
        if self.len() > 0 && !self.sweeping.swap(true, Ordering::AcqRel) {
            return true;
        }
        false
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
            for (_, w) in drained {
                let _ = w.tx.send(Err(err.clone()));
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
        let mut a = p.register(1, far()).unwrap();
        let b = p.register(2, far()).unwrap();
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
        let mut a = p.register(i64::MIN, far()).unwrap();
        p.fail_all(&RpcError::framework(ErrorCode::Network, "gone"));
        assert!(a.wait().await.unwrap().is_err());
        assert!(p.register(3, far()).is_err());
    }

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    #[tokio::test]
    async fn sweep_answers_only_expired_calls_and_stops_when_none_wait() {
        let p = PendingCalls::new();
        let now = Instant::now();
        let mut due = p.register(10, now).unwrap();
        let mut later = p.register(11, now + Duration::from_secs(60)).unwrap();
        // The first registration asked for a sweep.
        tokio::time::timeout(Duration::from_secs(1), p.sweep_needed())
            .await
            .unwrap();
        assert!(p.sweep(now), "a call still waits");
        let err = due.wait().await.unwrap().unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::Timeout));
        assert_eq!(p.len(), 1);
        assert!(p.complete(11, Ok(frame(11))));
        assert_eq!(later.wait().await.unwrap().unwrap().header.id, 11);
        assert!(!p.sweep(Instant::now()), "nothing waits: the sweep stops");
        // The next registration wakes the sweeper again.
        let _again = p.register(12, far()).unwrap();
        tokio::time::timeout(Duration::from_secs(1), p.sweep_needed())
            .await
            .unwrap();
        assert!(p.sweep(Instant::now()));
    }

    #[test]
    fn ids_increment() {
        // Other tests draw ids concurrently, so only distinctness is certain.
        let a = next_request_id();
        let b = next_request_id();
        assert_ne!(a, b);
    }
}
