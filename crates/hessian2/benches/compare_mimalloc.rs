//! The `compare` harness with mimalloc as the global allocator, the allocator the
//! dubbo-rs server binaries use: decoding allocates every `String`, `Vec` and map of the
//! result, so the allocator is a large share of decode time (see
//! docs/performance-hessian.md).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;
mod harness;

fn main() {
    harness::main()
}
