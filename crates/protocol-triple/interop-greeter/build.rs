fn main() -> std::io::Result<()> {
    dubbo_build::compile_protos(
        &["../../../interop/proto/greeter.proto"],
        &["../../../interop/proto"],
    )
}
