//! Generates the etcd v3 client stubs from proto/etcd.proto through a protox descriptor set,
//! so no protoc binary is needed.

fn main() -> std::io::Result<()> {
    let fds = protox::compile(["proto/etcd.proto"], ["proto"])
        .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
    tonic_prost_build::configure()
        .build_server(false)
        .compile_fds(fds)?;
    println!("cargo:rerun-if-changed=proto/etcd.proto");
    Ok(())
}
