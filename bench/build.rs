//! Generates BenchService twice from proto/bench.proto: Triple stubs (dubbo-build) into
//! `$OUT_DIR/triple` and tonic stubs (tonic-prost-build, from a protox descriptor set, no protoc)
//! into `$OUT_DIR/tonic`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let out = PathBuf::from(
        std::env::var_os("OUT_DIR").ok_or_else(|| std::io::Error::other("OUT_DIR is not set"))?,
    );
    let triple = out.join("triple");
    let tonic = out.join("tonic");
    std::fs::create_dir_all(&triple)?;
    std::fs::create_dir_all(&tonic)?;
    dubbo_build::configure()
        .out_dir(&triple)
        .compile(&["proto/bench.proto"], &["proto"])?;
    let fds = protox::compile(["proto/bench.proto"], ["proto"])
        .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
    tonic_prost_build::configure()
        .out_dir(&tonic)
        .compile_fds(fds)?;
    println!("cargo:rerun-if-changed=proto/bench.proto");
    Ok(())
}
