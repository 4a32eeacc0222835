//! [`ThreadPoolStats`]: what a protocol server's request pool looks like now, for the
//! `dubbo_thread_pool_*` metrics Java Dubbo reports for its server thread pools.

/// One server's request pool, as of now.
///
/// dubbo-rs runs requests as tasks, not on a thread pool of its own, but a server bounds how
/// many run at once (`threads`) and how many wait (`queues`) exactly as Java's pools do; these
/// are the same figures under Java's names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadPoolStats {
    /// Java's name for the pool: `DubboServerHandler-{host}:{port}`.
    pub name: String,
    /// Requests that may run at once (`threads`); 0 when unbounded (Java's cached pool).
    pub core_size: usize,
    /// The same bound (fixed pools have one size); `i32::MAX` when unbounded, as Java reports.
    pub max_size: usize,
    /// The most requests that have run at once since the server started.
    pub largest_size: usize,
    /// Requests running now.
    pub active_size: usize,
    /// Workers started: for a bounded pool, as many as ever ran at once (Java's pool size,
    /// which a fixed pool never shrinks).
    pub thread_count: usize,
    /// Requests waiting for a worker now.
    pub queue_size: usize,
    /// Requests refused because pool and queue were full (status 100) since the start.
    pub rejected: u64,
}
