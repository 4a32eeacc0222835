fn main() -> std::io::Result<()> {
    dubbo_build::compile_protos(&["../proto/greeter.proto"], &["../proto"])
}
