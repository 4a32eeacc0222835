//! [`SentOnce`]: the mark of a call that cannot be sent a second time.

/// Put in an invocation's [`CallContext`](crate::CallContext) by whoever made a call whose
/// arguments are consumed by its first sending (a stream of requests): fault-tolerance
/// strategies then never send it again, whatever the failure, and the caller sees the first
/// attempt's error.
#[derive(Debug, Clone, Copy, Default)]
pub struct SentOnce;
