//! [`WriteGauge`]: whether a connection's writer has frames queued that it has not started to
//! write yet, so that a frame queued now would leave in the same socket write.

use std::sync::atomic::{AtomicU8, Ordering};

const IDLE: u8 = 0;
/// Some frame is queued and the writer has not taken it into a write yet.
const OPEN: u8 = 1;
/// The writer is in a socket write with what it had taken off the queue.
const WRITING: u8 = 2;

/// The state of one connection's writer, as its senders and the writer itself report it.
///
/// It is a hint for a caller choosing among providers (the cluster sends the calls of one
/// burst to the provider whose write is still open, so that they cost one syscall instead of
/// one each): every race between the senders and the writer only makes the hint stale for a
/// moment, never loses or delays a frame. The writer yields once before writing a lone frame,
/// which is the window in which later calls of the same burst join it.
#[derive(Debug, Default)]
pub(crate) struct WriteGauge {
    state: AtomicU8,
}

impl WriteGauge {
    /// Told by a sender after its frame was queued.
    pub(crate) fn queued(&self) {
        // A load first: in a burst most senders find it open already, and a load does not
        // take the cache line from the writer's core.
        if self.state.load(Ordering::Relaxed) != OPEN {
            self.state.store(OPEN, Ordering::Relaxed);
        }
    }

    /// Told by the writer when it starts writing what it took off the queue.
    pub(crate) fn writing(&self) {
        self.state.store(WRITING, Ordering::Relaxed);
    }

    /// Told by the writer when its write is done. A frame queued during the write left the
    /// gauge open, and it stays so: that frame waits for the next write.
    pub(crate) fn written(&self) {
        let _ = self
            .state
            .compare_exchange(WRITING, IDLE, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Whether a frame queued now would most likely go out with frames already queued.
    pub(crate) fn is_open(&self) -> bool {
        self.state.load(Ordering::Relaxed) == OPEN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_from_the_first_queued_frame_until_the_writer_takes_it() {
        let g = WriteGauge::default();
        assert!(!g.is_open());
        g.queued();
        assert!(g.is_open());
        g.queued();
        assert!(g.is_open());
        g.writing();
        assert!(!g.is_open());
        g.written();
        assert!(!g.is_open());
    }

    #[test]
    fn a_frame_queued_during_a_write_keeps_it_open() {
        let g = WriteGauge::default();
        g.queued();
        g.writing();
        g.queued();
        g.written();
        assert!(
            g.is_open(),
            "the frame queued during the write is still waiting"
        );
        g.writing();
        g.written();
        assert!(!g.is_open());
    }
}
