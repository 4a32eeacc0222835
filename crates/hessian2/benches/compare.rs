//! The Rust side of the Java comparison: times the cases of Java's
//! `org.apache.dubbo.interop.hessian.Bench` (hessian-lite) with the same method and
//! prints the same table and CSV, so `scripts/bench-hessian.sh` can put them side by
//! side.
//!
//! ```text
//! cargo bench -p dubbo-hessian2 --bench compare -- [--warmup-ms 3000] [--measure-ms 5000]
//!     [--csv FILE] [--only CASE,...] [--ops encode,decode] [--list yes] [--java-bytes DIR]
//!     [--iters N]
//! ```
//!
//! `--iters N` runs each selected case and op exactly N times, untimed, and exits: for
//! profilers and instruction counts (`valgrind --tool=callgrind`), which do not depend
//! on the machine's load.
//!
//! Method (as in `Bench.java`): per case and op, a check, then `--warmup-ms` of
//! warm-up during which a batch size is chosen so that one sample takes about 50 ms,
//! then samples of that batch for `--measure-ms`. `ns/op` is the median over the
//! samples, `spread` the p10..p90 range relative to it, `cpu_ns/op` the median of
//! the thread's CPU time per op (from `/proc/thread-self/schedstat`, nanoseconds),
//! `cpu_p10` the 10th percentile of those (on a shared virtual machine stolen time
//! inflates even CPU time, only upwards: the best decile is the most stable figure).
//!
//! - `encode`: a fresh [`Hessian2Writer`](dubbo_hessian2::Hessian2Writer) (fresh
//!   tables) over one reused output buffer, `serialize(value)`;
//! - `decode`: a fresh reader, `deserialize::<T>()` into the Rust type (the value is
//!   dropped inside the timed loop; Java's garbage is collected by other threads).
//!
//! `--java-bytes DIR` first decodes Java's encodings (`Bench --dump DIR`) into the
//! Rust types, compares them with the Rust values and checks the sizes are equal.
//!
//! This binary uses the system allocator (glibc); `compare_mimalloc` is the same harness
//! with mimalloc as the global allocator.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod harness;

fn main() {
    harness::main()
}
