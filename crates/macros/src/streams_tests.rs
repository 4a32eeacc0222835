//! Unit tests of streaming methods: the three kinds recognised, the code generated for them,
//! and the diagnostics of streaming signatures written wrong.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{parse_service, ServiceArgs, StreamKind};

fn errors(item: TokenStream) -> Vec<String> {
    let mut item: syn::ItemTrait = syn::parse2(item).expect("a trait");
    match parse_service(ServiceArgs::default(), &mut item) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

fn assert_error(item: TokenStream, needle: &str) {
    let errors = errors(item);
    assert!(
        errors.iter().any(|e| e.contains(needle)),
        "no error containing {needle:?} in {errors:#?}"
    );
}

fn streaming() -> TokenStream {
    quote! {
        pub trait Streams: Send + Sync + 'static {
            async fn name(&self) -> Result<String, RpcError>;
            async fn server_stream(&self, request: String) -> Result<ResponseStream<String>, Status>;
            async fn client_stream(&self, requests: Streaming<i32>) -> Result<i64, RpcError>;
            #[dubbo(name = "biStream")]
            async fn echo(
                &self,
                requests: dubbo_rs::protocol_triple::Streaming<String>,
            ) -> Result<dubbo_rs::protocol_triple::ResponseStream<String>, Status>;
        }
    }
}

#[test]
fn the_three_kinds_are_told_apart_from_unary_methods() {
    let mut item: syn::ItemTrait = syn::parse2(streaming()).unwrap();
    let s = parse_service(ServiceArgs::default(), &mut item).unwrap_or_else(|e| panic!("{e}"));
    let unary: Vec<String> = s.methods.iter().map(|m| m.java_name.clone()).collect();
    assert_eq!(unary, ["name"]);
    let kinds: Vec<(String, StreamKind, String, String)> = s
        .streams
        .iter()
        .map(|m| {
            let shape = m.stream.as_ref().unwrap();
            let (req, resp) = (&shape.request, &shape.response);
            (
                m.java_name.clone(),
                shape.kind,
                quote!(#req).to_string(),
                quote!(#resp).to_string(),
            )
        })
        .collect();
    assert!(
        kinds
            == [
                (
                    "serverStream".into(),
                    StreamKind::Server,
                    "String".into(),
                    "String".into()
                ),
                (
                    "clientStream".into(),
                    StreamKind::Client,
                    "i32".into(),
                    "i64".into()
                ),
                (
                    "biStream".into(),
                    StreamKind::Bidi,
                    "String".into(),
                    "String".into()
                ),
            ]
    );
}

#[test]
fn streams_get_a_provider_side_and_client_methods() {
    let item: syn::ItemTrait = syn::parse2(streaming()).unwrap();
    let tokens = crate::expand_service(ServiceArgs::default(), item);
    let _: syn::File = syn::parse2(tokens.clone()).unwrap_or_else(|e| panic!("{e}: {tokens}"));
    let text = tokens.to_string();
    assert!(!text.contains("compile_error"), "{text}");
    for needle in [
        "pub fn streaming_interface",
        "fn streams",
        ". server_streaming_with_context (\"serverStream\"",
        ". client_streaming_with_context (\"clientStream\"",
        ". bidi_streaming_with_context (\"biStream\"",
        "interface_reference :: server_stream :: < String , String >",
        "interface_reference :: client_stream :: < _ , i32 , i64 >",
        "interface_reference :: bidi_stream :: < _ , String , String >",
        "org.apache.dubbo.common.stream.StreamObserver",
        // In the service definition, as Java lists a `StreamObserver` method.
        "name : :: std :: string :: String :: from (\"serverStream\")",
        "name : :: std :: string :: String :: from (\"biStream\")",
    ] {
        assert!(text.contains(needle), "no {needle:?} in {text}");
    }
    // Streams are neither dispatched as unary calls nor mapped to REST.
    assert!(!text.contains("fn server_stream_full"));
}

#[test]
fn a_service_without_streams_does_not_need_triple() {
    let item: syn::ItemTrait = syn::parse2(quote! {
        trait Unary { async fn f(&self, v: i32) -> Result<i32, RpcError>; }
    })
    .unwrap();
    let text = crate::expand_service(ServiceArgs::default(), item).to_string();
    assert!(!text.contains("protocol_triple"), "{text}");
    assert!(!text.contains("fn streams"), "{text}");
}

#[test]
fn a_request_stream_is_the_only_parameter() {
    assert_error(
        quote! { trait S { async fn m(&self, a: i32, r: Streaming<i32>) -> Result<i32, E>; } },
        "a client or bidirectional stream takes its requests as its only parameter: `async fn m(&self, requests: Streaming<Req>)`",
    );
}

#[test]
fn a_server_stream_takes_one_request_value() {
    assert_error(
        quote! { trait S { async fn m(&self, a: i32, b: i32) -> Result<ResponseStream<i32>, E>; } },
        "a server stream takes exactly one request value: `async fn m(&self, request: Req) -> Result<ResponseStream<Resp>, E>`",
    );
    assert_error(
        quote! { trait S { async fn m(&self) -> Result<ResponseStream<i32>, E>; } },
        "this method has 0 parameters",
    );
}

#[test]
fn streams_are_spelled_with_their_types() {
    // The client's type returned by the provider.
    assert_error(
        quote! { trait S { async fn m(&self, a: i32) -> Result<Streaming<i32>, E>; } },
        "a stream of responses is returned as `ResponseStream<Resp>`",
    );
    // `impl Stream` either way.
    assert_error(
        quote! { trait S { async fn m(&self, a: i32) -> Result<impl Stream<Item = i32>, E>; } },
        "returned as `ResponseStream<Resp>`",
    );
    assert_error(
        quote! { trait S { async fn m(&self, a: impl Stream<Item = i32>) -> Result<i32, E>; } },
        "a stream is taken as `Streaming<Req>`",
    );
    assert_error(
        quote! { trait S { async fn m(&self, a: ResponseStream<i32>) -> Result<i32, E>; } },
        "requests come as `Streaming<Req>`",
    );
    assert_error(
        quote! { trait S { async fn m(&self, a: i32) -> Result<ResponseStream, E>; } },
        "`ResponseStream<Resp>`",
    );
    assert_error(
        quote! { trait S { async fn m(&self, a: Streaming) -> Result<i32, E>; } },
        "`Streaming<Req>`",
    );
}

#[test]
fn what_streams_do_not_take() {
    assert_error(
        quote! { trait S { async fn m(&self, ctx: &mut RequestContext, a: i32) -> Result<ResponseStream<i32>, E>; } },
        "a streaming method takes its `RequestContext` as `&RequestContext`",
    );
    assert_error(
        quote! { trait S { async fn m(&self, #[dubbo(java_type = "int")] a: i32) -> Result<ResponseStream<i32>, E>; } },
        "`java_type` is for unary methods",
    );
    assert_error(
        quote! {
            trait S {
                #[dubbo(return_type = "void")]
                async fn m(&self, a: Streaming<i32>) -> Result<i32, E>;
            }
        },
        "`return_type` is for unary methods",
    );
}

#[test]
fn streams_have_no_http_mapping() {
    let mut item: syn::ItemTrait = syn::parse2(quote! {
        trait S {
            #[get("/count/{n}")]
            async fn count(&self, n: i32) -> Result<ResponseStream<i32>, E>;
        }
    })
    .unwrap();
    let (attrs, errors) = crate::rest::take_attrs(&mut item);
    errors.finish().unwrap();
    let service = parse_service(ServiceArgs::default(), &mut item).unwrap();
    let error = crate::rest::expand(&service, attrs).expect_err("an error");
    assert!(
        error
            .to_string()
            .contains("`count` streams: HTTP mappings are for unary methods"),
        "{error}"
    );
}

#[test]
fn streaming_methods_may_take_the_request_context() {
    let mut item: syn::ItemTrait = syn::parse2(quote! {
        trait S {
            async fn s(&self, ctx: &RequestContext, a: i32) -> Result<ResponseStream<i32>, E>;
            async fn b(&self, ctx: &dubbo_rs::core::RequestContext, r: Streaming<i32>)
                -> Result<ResponseStream<i32>, E>;
        }
    })
    .unwrap();
    let s = parse_service(ServiceArgs::default(), &mut item).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(String, bool, usize, bool)> = s
        .streams
        .iter()
        .map(|m| {
            (
                m.java_name.clone(),
                m.context == Some(crate::model::ContextParam::Shared),
                m.params.len(),
                m.stream
                    .as_ref()
                    .is_some_and(|s| s.kind == StreamKind::Server),
            )
        })
        .collect();
    assert!(
        got == [("s".into(), true, 1, true), ("b".into(), true, 1, false)],
        "{got:?}"
    );
}
