//! Streaming methods: which of a trait's methods stream, and the checks that say how to write
//! one whose signature is wrong.
//!
//! A method streams when a parameter is `Streaming<Req>` (its requests come as a stream) or
//! its result is `ResponseStream<Resp>` (its responses go as a stream), both from
//! `dubbo_rs::protocol_triple`, by the last segment of their paths:
//!
//! | Rust                                                              | Java                                          |
//! |-------------------------------------------------------------------|-----------------------------------------------|
//! | `async fn m(&self, r: Req) -> Result<ResponseStream<Resp>, E>`     | `void m(Req, StreamObserver<Resp>)`           |
//! | `async fn m(&self, r: Streaming<Req>) -> Result<Resp, E>`          | `StreamObserver<Req> m(StreamObserver<Resp>)`, answered once |
//! | `async fn m(&self, r: Streaming<Req>) -> Result<ResponseStream<Resp>, E>` | `StreamObserver<Req> m(StreamObserver<Resp>)` |

use syn::{GenericArgument, PathArguments, Type, TypeParamBound};

use crate::model::{
    name_and_params, strip_group, ContextParam, Errors, Param, StreamKind, StreamShape,
};

/// The Java type of a `StreamObserver` parameter or result.
pub const STREAM_OBSERVER: &str = "org.apache.dubbo.common.stream.StreamObserver";

/// The request stream of a server-side streaming method.
const STREAMING: &str = "Streaming";
/// The response stream of a streaming method.
const RESPONSE_STREAM: &str = "ResponseStream";

/// `Some(T)` when `ty` is spelled `...name<T>`; `Some(None)` when it is `...name` with some
/// other arguments (reported by the caller); `None` when it is not `name` at all.
fn wrapped<'a>(ty: &'a Type, name: &str) -> Option<Option<&'a Type>> {
    let Type::Path(p) = strip_group(ty) else {
        return None;
    };
    let last = p.path.segments.last()?;
    if p.qself.is_some() || last.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return Some(None);
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    match (types.next(), types.next(), args.args.len()) {
        (Some(t), None, 1) => Some(Some(t)),
        _ => Some(None),
    }
}

/// Whether `ty` is `impl Stream<...>` (or names `Stream` among its bounds).
pub fn is_impl_stream(ty: &Type) -> bool {
    let Type::ImplTrait(t) = strip_group(ty) else {
        return false;
    };
    t.bounds.iter().any(|b| match b {
        TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Stream" || s.ident == "TryStream"),
        _ => false,
    })
}

/// The stream shape of a method with wire `params` and result `Result<ok, _>`, or `None` for a
/// unary method; a streaming method written wrong is reported in `errors` (then `None` too).
pub fn shape(
    sig: &syn::Signature,
    context: Option<ContextParam>,
    params: &[Param],
    ok: &Type,
    return_java_type: Option<&syn::LitStr>,
    errors: &mut Errors,
) -> Option<StreamShape> {
    let name = &sig.ident;
    let before = errors.count();

    if wrapped(ok, STREAMING).is_some() {
        errors.spanned(
            ok,
            format!(
                "a stream of responses is returned as `ResponseStream<Resp>` (a boxed stream: \
                 `Ok(Box::pin(stream))`); `Streaming<T>` is what arrives: the requests of a \
                 client or bidirectional stream (`requests: Streaming<Req>`) and what the \
                 client of `{name}` returns"
            ),
        );
    }
    let response_stream = match wrapped(ok, RESPONSE_STREAM) {
        Some(Some(t)) => Some(t),
        Some(None) => {
            errors.spanned(
                ok,
                "`ResponseStream` takes the type of each response: `ResponseStream<Resp>`",
            );
            None
        }
        None => None,
    };
    let mut request_stream = None;
    for p in params {
        if wrapped(&p.ty, RESPONSE_STREAM).is_some() {
            errors.spanned(
                &p.ty,
                "`ResponseStream` is the result of a server or bidirectional stream; requests \
                 come as `Streaming<Req>`",
            );
        }
        match wrapped(&p.ty, STREAMING) {
            Some(Some(t)) if params.len() == 1 => request_stream = Some(t),
            Some(Some(_)) => errors.spanned(
                &p.ty,
                format!(
                    "a client or bidirectional stream takes its requests as its only parameter: \
                     `async fn {name}(&self, requests: Streaming<Req>)` (Java \
                     `StreamObserver<Req> {name}(StreamObserver<Resp>)`); this method has {} \
                     parameters",
                    params.len()
                ),
            ),
            Some(None) => errors.spanned(
                &p.ty,
                "`Streaming` takes the type of each request: `Streaming<Req>`",
            ),
            None => {}
        }
    }

    let kind = match (request_stream, response_stream) {
        (None, None) => {
            return None;
        }
        (Some(_), None) => StreamKind::Client,
        (None, Some(_)) => StreamKind::Server,
        (Some(_), Some(_)) => StreamKind::Bidi,
    };
    if kind == StreamKind::Server && params.len() != 1 {
        errors.spanned(
            name_and_params(sig),
            format!(
                "a server stream takes exactly one request value: `async fn {name}(&self, \
                 request: Req) -> Result<ResponseStream<Resp>, E>` (Java `void {name}(Req, \
                 StreamObserver<Resp>)`); this method has {} parameters (to stream requests \
                 too, take `requests: Streaming<Req>`)",
                params.len()
            ),
        );
    }
    if context == Some(ContextParam::Mutable) {
        errors.spanned(
            name_and_params(sig),
            "a streaming method takes its `RequestContext` as `&RequestContext` (a stream sends \
             no response attachments): `ctx: &RequestContext`",
        );
    }
    for p in params {
        if let Some(lit) = &p.java_type {
            errors.spanned(
                lit,
                "the values of a stream carry the Java type of their Rust type (`JavaType`); \
                 `java_type` is for unary methods",
            );
        }
    }
    if let Some(lit) = return_java_type {
        errors.spanned(
            lit,
            "a streaming method's Java signature follows from its stream types; `return_type` \
             is for unary methods",
        );
    }
    if errors.count() > before {
        return None;
    }
    let request = match request_stream {
        Some(t) => t.clone(),
        None => params.first()?.ty.clone(),
    };
    let response = response_stream.unwrap_or(ok).clone();
    crate::model::check_wire_type(&request, errors);
    crate::model::check_wire_type(&response, errors);
    Some(StreamShape {
        kind,
        request,
        response,
    })
}
