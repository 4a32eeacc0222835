//! The `prost_build::ServiceGenerator` that writes Triple clients and servers.

use std::collections::HashMap;
use std::fmt::Write as _;

use prost_build::{Method, Service, ServiceGenerator};

/// Writes, for each service, a `{name}_client` module with `{Name}Client` and a
/// `{name}_server` module with the `{Name}` trait and `{Name}Server<T>`.
#[derive(Debug, Clone)]
pub struct TripleServiceGenerator {
    krate: String,
    client: bool,
    server: bool,
    /// Encoded descriptor sets by full service name, for the servers' reflection answers.
    descriptors: HashMap<String, Vec<u8>>,
}

impl TripleServiceGenerator {
    /// A generator whose code refers to the Triple crate as `krate`.
    pub fn new(krate: String, client: bool, server: bool) -> Self {
        Self {
            krate,
            client,
            server,
            descriptors: HashMap::new(),
        }
    }

    /// Gives each generated server the encoded `FileDescriptorSet` of its service (by full
    /// name, `package.Service`), which the Triple server answers gRPC reflection with.
    pub fn with_descriptor_sets(mut self, descriptors: HashMap<String, Vec<u8>>) -> Self {
        self.descriptors = descriptors;
        self
    }
}

fn full_name(service: &Service) -> String {
    if service.package.is_empty() {
        service.proto_name.clone()
    } else {
        format!("{}.{}", service.package, service.proto_name)
    }
}

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn rust_type(t: &str) -> String {
    if t.starts_with("::") || t.starts_with("crate::") {
        t.to_owned()
    } else {
        format!("super::{t}")
    }
}

/// A message's full protobuf name without the leading dot the descriptor gives it
/// (`.pkg.Msg` is `pkg.Msg`), as Dubbo names IDL parameter types.
fn proto_type(t: &str) -> &str {
    t.strip_prefix('.').unwrap_or(t)
}

fn doc(lines: &[String], indent: &str, buf: &mut String) {
    for l in lines {
        let _ = writeln!(
            buf,
            "{indent}///{}",
            if l.is_empty() {
                String::new()
            } else {
                format!(" {}", l.trim_end())
            }
        );
    }
}

fn stream_assoc(m: &Method) -> String {
    format!("{}Stream", m.proto_name)
}

impl ServiceGenerator for TripleServiceGenerator {
    fn generate(&mut self, service: Service, buf: &mut String) {
        if self.client {
            self.client(&service, buf);
        }
        if self.server {
            self.server(&service, buf);
        }
    }
}

impl TripleServiceGenerator {
    fn client(&self, s: &Service, buf: &mut String) {
        let k = &self.krate;
        let full = full_name(s);
        let module = format!("{}_client", snake(&s.name));
        let client = format!("{}Client", s.name);
        let _ = writeln!(buf, "/// Triple client of `{full}`.");
        let _ = writeln!(buf, "pub mod {module} {{");
        let _ = writeln!(
            buf,
            "    #![allow(unused_variables, dead_code, missing_docs, clippy::all)]"
        );
        let _ = writeln!(buf, "    use {k}::codegen::*;");
        doc(&s.comments.leading, "    ", buf);
        let _ = writeln!(
            buf,
            "    /// Calls `{full}` over a shared Triple (HTTP/2) channel, or through an invoker."
        );
        let _ = writeln!(buf, "    #[derive(Debug, Clone)]");
        let _ = writeln!(buf, "    pub struct {client} {{ inner: IdlTransport }}");
        let _ = writeln!(buf, "    impl {client} {{");
        let _ = writeln!(buf, "        /// The service's full name.");
        let _ = writeln!(
            buf,
            "        pub const SERVICE_NAME: &'static str = \"{full}\";"
        );
        let _ = writeln!(buf, "        /// A client on `channel`.");
        let _ = writeln!(buf, "        pub fn new(channel: {k}::TripleChannel) -> Self {{ Self::from_client(TripleClient::new(channel)) }}");
        let _ = writeln!(buf, "        /// A client from a configured [`TripleClient`] (version, group, timeout, encoding).");
        let _ = writeln!(
            buf,
            "        pub fn from_client(inner: TripleClient) -> Self {{ Self {{ inner: IdlTransport::Direct(inner) }} }}"
        );
        let _ = writeln!(buf, "        /// A client whose calls go through `invoker` (filters, cluster, a `TripleInvoker`), each as one");
        let _ = writeln!(buf, "        /// invocation of `{full}` with the encoded request as its `Value::Binary` argument; the");
        let _ = writeln!(
            buf,
            "        /// invoker URL's `group` and `version` complete the service key."
        );
        let _ = writeln!(
            buf,
            "        pub fn from_invoker(invoker: ::std::sync::Arc<dyn Invoker>) -> Self {{ Self {{ inner: IdlTransport::Invoker(invoker) }} }}"
        );
        let _ = writeln!(
            buf,
            "        /// Connects to `addr` (`host:port`) with default settings."
        );
        let _ = writeln!(
            buf,
            "        pub async fn connect(addr: impl Into<String>) -> Result<Self, Status> {{"
        );
        let _ = writeln!(buf, "            Ok(Self::new({k}::TripleChannel::connect(addr, {k}::TripleConfig::default()).await?))");
        let _ = writeln!(buf, "        }}");
        let _ = writeln!(
            buf,
            "        /// The underlying client; `None` for a client made with `from_invoker`."
        );
        let _ = writeln!(
            buf,
            "        pub fn inner(&self) -> Option<&TripleClient> {{ match &self.inner {{ IdlTransport::Direct(c) => Some(c), IdlTransport::Invoker(_) => None }} }}"
        );
        let _ = writeln!(buf, "        /// Where the calls go.");
        let _ = writeln!(
            buf,
            "        pub fn transport(&self) -> &IdlTransport {{ &self.inner }}"
        );
        for m in &s.methods {
            let path = format!("/{full}/{}", m.proto_name);
            let input = rust_type(&m.input_type);
            let output = rust_type(&m.output_type);
            doc(&m.comments.leading, "        ", buf);
            let _ = writeln!(buf, "        /// Calls `{path}`.");
            let descriptor = format!(
                "const METHOD: IdlMethod = IdlMethod {{ path: \"{path}\", service: \"{full}\", method: \"{}\", request_type: \"{}\", response_type: \"{}\" }};",
                m.proto_name,
                proto_type(&m.input_proto_type),
                proto_type(&m.output_proto_type)
            );
            match (m.client_streaming, m.server_streaming) {
                (false, false) => {
                    let _ = writeln!(buf, "        pub async fn {}(&self, request: impl IntoRequest<{input}>) -> Result<{output}, Status> {{", m.name);
                    let _ = writeln!(buf, "            {descriptor}");
                    let _ = writeln!(buf, "            self.inner.unary::<{input}, {output}>(&METHOD, request.into_request()).await.map(Response::into_inner)");
                }
                (false, true) => {
                    let _ = writeln!(buf, "        pub async fn {}(&self, request: impl IntoRequest<{input}>) -> Result<Streaming<{output}>, Status> {{", m.name);
                    let _ = writeln!(buf, "            {descriptor}");
                    let _ = writeln!(buf, "            self.inner.server_streaming::<{input}, {output}>(&METHOD, request.into_request()).await.map(Response::into_inner)");
                }
                (true, false) => {
                    let _ = writeln!(buf, "        pub async fn {}(&self, request: impl IntoStreamingRequest<Message = {input}>) -> Result<{output}, Status> {{", m.name);
                    let _ = writeln!(buf, "            {descriptor}");
                    let _ = writeln!(buf, "            self.inner.client_streaming::<_, {input}, {output}>(&METHOD, request.into_streaming_request()).await.map(Response::into_inner)");
                }
                (true, true) => {
                    let _ = writeln!(buf, "        pub async fn {}(&self, request: impl IntoStreamingRequest<Message = {input}>) -> Result<Streaming<{output}>, Status> {{", m.name);
                    let _ = writeln!(buf, "            {descriptor}");
                    let _ = writeln!(buf, "            self.inner.bidi_streaming::<_, {input}, {output}>(&METHOD, request.into_streaming_request()).await.map(Response::into_inner)");
                }
            }
            let _ = writeln!(buf, "        }}");
        }
        let _ = writeln!(buf, "    }}");
        let _ = writeln!(buf, "}}");
        let _ = writeln!(buf, "pub use {module}::{client};");
    }

    fn server(&self, s: &Service, buf: &mut String) {
        let k = &self.krate;
        let full = full_name(s);
        let module = format!("{}_server", snake(&s.name));
        let trait_name = &s.name;
        let server = format!("{}Server", s.name);
        let _ = writeln!(buf, "/// Server side of `{full}`: implement [`{module}::{trait_name}`] and serve it with [`{module}::{server}`].");
        let _ = writeln!(buf, "pub mod {module} {{");
        let _ = writeln!(
            buf,
            "    #![allow(unused_variables, dead_code, missing_docs, clippy::all)]"
        );
        let _ = writeln!(buf, "    use {k}::codegen::*;");
        doc(&s.comments.leading, "    ", buf);
        let _ = writeln!(buf, "    /// The methods of `{full}`.");
        let _ = writeln!(buf, "    pub trait {trait_name}: Send + Sync + 'static {{");
        for m in &s.methods {
            let input = rust_type(&m.input_type);
            let output = rust_type(&m.output_type);
            let req = if m.client_streaming {
                format!("Request<Streaming<{input}>>")
            } else {
                format!("Request<{input}>")
            };
            let resp = if m.server_streaming {
                let assoc = stream_assoc(m);
                let _ = writeln!(
                    buf,
                    "        /// The response stream of `{}`.",
                    m.proto_name
                );
                let _ = writeln!(buf, "        type {assoc}: FuturesStream<Item = Result<{output}, Status>> + Send + 'static;");
                format!("Response<Self::{assoc}>")
            } else {
                format!("Response<{output}>")
            };
            doc(&m.comments.leading, "        ", buf);
            let _ = writeln!(buf, "        /// Handles `/{full}/{}`.", m.proto_name);
            let _ = writeln!(buf, "        fn {}(&self, request: {req}) -> impl ::std::future::Future<Output = Result<{resp}, Status>> + Send;", m.name);
        }
        let _ = writeln!(buf, "    }}");
        let _ = writeln!(
            buf,
            "    /// Serves a [`{trait_name}`] implementation as `{full}`."
        );
        let _ = writeln!(buf, "    #[derive(Debug)]");
        let _ = writeln!(
            buf,
            "    pub struct {server}<T> {{ inner: ::std::sync::Arc<T> }}"
        );
        let _ = writeln!(buf, "    impl<T> Clone for {server}<T> {{ fn clone(&self) -> Self {{ Self {{ inner: self.inner.clone() }} }} }}");
        let _ = writeln!(buf, "    impl<T: {trait_name}> {server}<T> {{");
        let _ = writeln!(buf, "        /// Serves `inner`.");
        let _ = writeln!(buf, "        pub fn new(inner: T) -> Self {{ Self {{ inner: ::std::sync::Arc::new(inner) }} }}");
        let _ = writeln!(buf, "        /// Serves an already shared implementation.");
        let _ = writeln!(
            buf,
            "        pub fn from_arc(inner: ::std::sync::Arc<T>) -> Self {{ Self {{ inner }} }}"
        );
        let _ = writeln!(buf, "    }}");
        if let Some(set) = self.descriptors.get(&full) {
            let _ = writeln!(
                buf,
                "    /// The encoded `FileDescriptorSet` of `{full}`: its file and every file it imports."
            );
            let _ = writeln!(
                buf,
                "    pub const FILE_DESCRIPTOR_SET: &[u8] = {};",
                crate::descriptors::byte_string(set)
            );
        }
        let _ = writeln!(
            buf,
            "    impl<T: {trait_name}> IdlService for {server}<T> {{"
        );
        let _ = writeln!(
            buf,
            "        fn service_name(&self) -> &str {{ \"{full}\" }}"
        );
        if self.descriptors.contains_key(&full) {
            let _ = writeln!(
                buf,
                "        fn file_descriptor_set(&self) -> &'static [u8] {{ FILE_DESCRIPTOR_SET }}"
            );
        }
        let _ = writeln!(
            buf,
            "        fn method_kind(&self, method: &str) -> Option<MethodKind> {{"
        );
        let _ = writeln!(buf, "            match method {{");
        for m in &s.methods {
            let kind = match (m.client_streaming, m.server_streaming) {
                (false, false) => "Unary",
                (true, false) => "ClientStreaming",
                (false, true) => "ServerStreaming",
                (true, true) => "BidiStreaming",
            };
            let _ = writeln!(
                buf,
                "                \"{}\" => Some(MethodKind::{kind}),",
                m.proto_name
            );
        }
        let _ = writeln!(buf, "                _ => None,");
        let _ = writeln!(buf, "            }}");
        let _ = writeln!(buf, "        }}");
        let _ = writeln!(buf, "        fn call(&self, method: &str, call: ServerCall) -> BoxFuture<Result<ServerReply, Status>> {{");
        let _ = writeln!(buf, "            let inner = self.inner.clone();");
        let _ = writeln!(buf, "            match method {{");
        for m in &s.methods {
            let helper = match (m.client_streaming, m.server_streaming) {
                (false, false) => "unary",
                (true, false) => "client_streaming",
                (false, true) => "server_streaming",
                (true, true) => "bidi_streaming",
            };
            let _ = writeln!(buf, "                \"{}\" => {k}::codegen::{helper}(call, move |req| async move {{ inner.{}(req).await }}),", m.proto_name, m.name);
        }
        let _ = writeln!(buf, "                other => {{");
        let _ = writeln!(buf, "                    let msg = format!(\"method {{other}} not found in service {full}\");");
        let _ = writeln!(
            buf,
            "                    Box::pin(async move {{ Err(Status::unimplemented(msg)) }})"
        );
        let _ = writeln!(buf, "                }}");
        let _ = writeln!(buf, "            }}");
        let _ = writeln!(buf, "        }}");
        let _ = writeln!(buf, "    }}");
        let _ = writeln!(buf, "}}");
        let _ = writeln!(buf, "pub use {module}::{{{trait_name}, {server}}};");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        assert_eq!(snake("Greeter"), "greeter");
        assert_eq!(snake("MetadataServiceV2"), "metadata_service_v2");
    }

    #[test]
    fn proto_type_names() {
        assert_eq!(
            proto_type(".org.apache.dubbo.interop.tri.GreeterRequest"),
            "org.apache.dubbo.interop.tri.GreeterRequest"
        );
        assert_eq!(proto_type("Plain"), "Plain");
    }
}
