//! Drives a [`Target`]: warm-up, then a measured window, in closed loop (a fixed number of
//! callers, each starting its next call when the last one ends) or open loop (calls started on
//! a fixed schedule, latency counted from the scheduled start so a slow server cannot hide its
//! queueing: no coordinated omission).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::args::Options;
use crate::proc_stat;
use crate::target::Target;

const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// Highest latency the histograms hold (longer ones are clamped): 60 s, in ns.
const MAX_NS: u64 = 60_000_000_000;

/// What a run measured.
#[derive(Debug, Clone)]
pub struct RunStats {
    /// Calls that completed successfully inside the measured window.
    pub calls: u64,
    /// Calls that failed inside the measured window.
    pub errors: u64,
    /// Messages received by the successful calls (1 per unary call).
    pub messages: u64,
    /// Length of the measured window.
    pub elapsed: Duration,
    /// Latency of the successful calls, in nanoseconds.
    pub latency_ns: Histogram<u64>,
    /// Server CPU time (user + system) over the window, µs.
    pub server_cpu_us: Option<u64>,
    /// Server RSS at the end of the window, KiB.
    pub server_rss_kib: Option<u64>,
    /// Server peak RSS, KiB.
    pub server_peak_rss_kib: Option<u64>,
    /// This process's CPU time over the window, µs.
    pub client_cpu_us: Option<u64>,
    /// CPU time of every other process on the machine over the window, µs: neighbours that
    /// competed with the server and the load generator.
    pub other_cpu_us: Option<u64>,
    /// The first error seen, if any.
    pub first_error: Option<String>,
}

impl RunStats {
    /// Successful calls per second.
    pub fn qps(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    /// Messages per second.
    pub fn msgs_per_sec(&self) -> f64 {
        self.messages as f64 / self.elapsed.as_secs_f64()
    }

    /// Latency quantile `q` (0..=1) in µs.
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.latency_ns.is_empty() {
            return f64::NAN;
        }
        self.latency_ns.value_at_quantile(q) as f64 / 1000.0
    }

    /// Server CPU-µs per call.
    pub fn server_cpu_us_per_call(&self) -> Option<f64> {
        let cpu = self.server_cpu_us?;
        (self.calls > 0).then(|| cpu as f64 / self.calls as f64)
    }

    /// CPU use of other processes over the window, percent of one core.
    pub fn other_cpu_pct(&self) -> Option<f64> {
        self.other_cpu_us
            .map(|us| us as f64 / self.elapsed.as_micros() as f64 * 100.0)
    }

    /// Client CPU use over the window, percent of one core.
    pub fn client_cpu_pct(&self) -> Option<f64> {
        self.client_cpu_us
            .map(|us| us as f64 / self.elapsed.as_micros() as f64 * 100.0)
    }
}

struct Shared {
    phase: AtomicU8,
    /// Every completed call, warm-up included (for the progress line).
    done: AtomicU64,
    failed: AtomicU64,
    first_error: Mutex<Option<String>>,
    /// Open loop: the next ticket.
    next_ticket: AtomicU64,
}

struct WorkerResult {
    calls: u64,
    errors: u64,
    messages: u64,
    hist: Histogram<u64>,
}

// The bounds are constants that satisfy hdrhistogram's rules (low >= 1, high >= 2 * low,
// 0..=5 significant digits), so construction cannot fail.
#[allow(clippy::expect_used)]
fn new_hist() -> Histogram<u64> {
    // 3 significant digits from 1 ns to 60 s.
    Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds")
}

async fn worker<T: Target>(
    target: Arc<T>,
    shared: Arc<Shared>,
    id: usize,
    rate: Option<f64>,
    start: Instant,
) -> WorkerResult {
    let mut r = WorkerResult {
        calls: 0,
        errors: 0,
        messages: 0,
        hist: new_hist(),
    };
    loop {
        if shared.phase.load(Ordering::Relaxed) == STOP {
            break;
        }
        let begin = match rate {
            None => Instant::now(),
            Some(rate) => {
                let ticket = shared.next_ticket.fetch_add(1, Ordering::Relaxed);
                let due = start + Duration::from_secs_f64(ticket as f64 / rate);
                let now = Instant::now();
                if due > now {
                    // Idle until the scheduled time: measure from when the call really starts,
                    // so timer slack of the generator is not charged to the server.
                    tokio::time::sleep_until(due.into()).await;
                    if shared.phase.load(Ordering::Relaxed) == STOP {
                        break;
                    }
                    Instant::now()
                } else {
                    // Behind schedule: the call waited for a free caller, and that wait is
                    // part of its latency.
                    due
                }
            }
        };
        let outcome = target.call(id).await;
        let end = Instant::now();
        let measuring = shared.phase.load(Ordering::Relaxed) == MEASURE;
        match outcome {
            Ok(n) => {
                shared.done.fetch_add(1, Ordering::Relaxed);
                if measuring {
                    r.calls += 1;
                    r.messages += n;
                    let ns = end.saturating_duration_since(begin).as_nanos() as u64;
                    r.hist.saturating_record(ns.clamp(1, MAX_NS));
                }
            }
            Err(e) => {
                shared.failed.fetch_add(1, Ordering::Relaxed);
                if measuring {
                    r.errors += 1;
                }
                {
                    let mut first = shared.first_error.lock().unwrap_or_else(|p| p.into_inner());
                    if first.is_none() {
                        *first = Some(e);
                    }
                }
                // Do not spin on a dead server.
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    }
    r
}

/// Runs the warm-up and the measured window against `target` as `o` says.
pub async fn run<T: Target>(target: Arc<T>, o: &Options) -> RunStats {
    let shared = Arc::new(Shared {
        phase: AtomicU8::new(WARMUP),
        done: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        first_error: Mutex::new(None),
        next_ticket: AtomicU64::new(0),
    });
    let start = Instant::now();
    let workers: Vec<_> = (0..o.concurrency)
        .map(|id| tokio::spawn(worker(target.clone(), shared.clone(), id, o.rate, start)))
        .collect();

    let mut progress = Progress::new(o, shared.clone());
    let warmup_end = start + o.warmup;
    progress.until(warmup_end, "warmup", start, o.warmup).await;

    shared.phase.store(MEASURE, Ordering::Relaxed);
    let m_start = Instant::now();
    let srv_cpu0 = o.server_pid.and_then(proc_stat::cpu_time_us);
    let cli_cpu0 = proc_stat::cpu_time_us(std::process::id());
    let all_cpu0 = proc_stat::machine_busy_us();
    progress
        .until(m_start + o.duration, "measure", m_start, o.duration)
        .await;
    shared.phase.store(STOP, Ordering::Relaxed);
    let elapsed = m_start.elapsed();
    let srv_cpu1 = o.server_pid.and_then(proc_stat::cpu_time_us);
    let cli_cpu1 = proc_stat::cpu_time_us(std::process::id());
    let all_cpu1 = proc_stat::machine_busy_us();
    progress.finish();
    let delta = |a: Option<u64>, b: Option<u64>| a.zip(b).map(|(a, b)| b.saturating_sub(a));
    let server_cpu_us = delta(srv_cpu0, srv_cpu1);
    let client_cpu_us = delta(cli_cpu0, cli_cpu1);
    let other_cpu_us = delta(all_cpu0, all_cpu1)
        .map(|all| all.saturating_sub(server_cpu_us.unwrap_or(0) + client_cpu_us.unwrap_or(0)));

    let mut stats = RunStats {
        calls: 0,
        errors: 0,
        messages: 0,
        elapsed,
        latency_ns: new_hist(),
        server_cpu_us,
        server_rss_kib: o.server_pid.and_then(proc_stat::rss_kib),
        server_peak_rss_kib: o.server_pid.and_then(proc_stat::peak_rss_kib),
        client_cpu_us,
        other_cpu_us,
        first_error: None,
    };
    for w in workers {
        // A worker stuck in a call (dead server) is abandoned after the call timeout.
        match tokio::time::timeout(o.timeout + Duration::from_secs(1), w).await {
            Ok(Ok(r)) => {
                stats.calls += r.calls;
                stats.errors += r.errors;
                stats.messages += r.messages;
                let _ = stats.latency_ns.add(&r.hist);
            }
            _ => stats.errors += 1,
        }
    }
    stats.first_error = shared
        .first_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    stats
}

/// The once-a-second progress line on stderr (rewritten in place on a terminal).
struct Progress {
    shared: Arc<Shared>,
    quiet: bool,
    tty: bool,
    last_done: u64,
    last_at: Instant,
    label: String,
}

impl Progress {
    fn new(o: &Options, shared: Arc<Shared>) -> Self {
        Progress {
            shared,
            quiet: o.quiet,
            tty: std::io::stderr().is_terminal(),
            last_done: 0,
            last_at: Instant::now(),
            label: format!(
                "{} {} {} c={} conns={}",
                o.label,
                o.target.name(),
                o.scenario.name(),
                o.concurrency,
                o.connections
            ),
        }
    }

    async fn until(&mut self, end: Instant, phase: &str, phase_start: Instant, total: Duration) {
        loop {
            let now = Instant::now();
            if now >= end {
                return;
            }
            let next = (now + Duration::from_secs(1)).min(end);
            tokio::time::sleep_until(next.into()).await;
            self.print(phase, phase_start.elapsed(), total);
        }
    }

    fn print(&mut self, phase: &str, elapsed: Duration, total: Duration) {
        if self.quiet {
            return;
        }
        let done = self.shared.done.load(Ordering::Relaxed);
        let failed = self.shared.failed.load(Ordering::Relaxed);
        let now = Instant::now();
        let secs = now.duration_since(self.last_at).as_secs_f64().max(1e-9);
        let qps = (done - self.last_done) as f64 / secs;
        self.last_done = done;
        self.last_at = now;
        let line = format!(
            "{}: {phase} {:.0}/{:.0}s  calls {done}  qps {qps:.0}  errors {failed}",
            self.label,
            elapsed.as_secs_f64(),
            total.as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    fn finish(&self) {
        if !self.quiet && self.tty {
            eprintln!();
        }
    }
}
