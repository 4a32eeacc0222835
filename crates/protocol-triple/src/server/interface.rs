//! Interface (wrapper) mode on the server: the core's Rust-trait services, reached through the
//! exporter registry, called with `TripleRequestWrapper` and answered with
//! `TripleResponseWrapper`.
//!
//! The response wrapper's `type` is the called method's declared return type, as Java's
//! provider writes it (`void` for a `void` method), when the service declares its methods
//! ([`DeclaredReturnType`]); else the runtime class of the value.
//!
//! A business exception is answered as Java Dubbo answers it: the exception object (Hessian 2)
//! in the response wrapper's `data`, the response header `tri-exception-code: 3`
//! (`RpcException.BIZ_EXCEPTION`) and `grpc-status: 0` in the trailers. Framework errors become
//! a gRPC status.

use std::sync::Arc;

use dubbo_core::{
    Attachments, DeclaredReturnType, Invocation, Invoker, MethodSignature, RpcError, ServiceKey,
};
use http::{HeaderMap, HeaderName, HeaderValue};

use super::routing::{ServerCall, ServerReply};
use crate::headers::{core_attachments, put_core_attachments, TRI_EXCEPTION_CODE};
use crate::status::Status;
use crate::wrapper::{
    encode_payload, java_type_of, java_type_of_encoded, TripleRequestWrapper, TripleResponseWrapper,
};
use crate::wrapper_serialization::{WrapperSerialization, FASTJSON2};

/// Whether the service exported as `url` names fastjson2 in `prefer.serialization` or
/// `serialization` (Java's `PermittedSerializationKeeper`).
fn permits_fastjson2(url: &dubbo_url::Url) -> bool {
    ["prefer.serialization", "serialization"].iter().any(|k| {
        url.parameter(k)
            .is_some_and(|v| v.split(',').any(|n| n.trim() == FASTJSON2))
    })
}

/// `RpcException.BIZ_EXCEPTION`, the `tri-exception-code` of a business exception.
pub const BIZ_EXCEPTION_CODE: &str = "3";

/// The service key a request names: its service path, `tri-service-group`, `tri-service-version`.
pub fn request_service_key(service: &str, headers: &HeaderMap) -> ServiceKey {
    let (group, version) = requested_group_version(headers);
    ServiceKey::new(service, group, version)
}

/// The `tri-service-group` and `tri-service-version` a request names, if any.
pub(crate) fn requested_group_version(headers: &HeaderMap) -> (Option<&str>, Option<&str>) {
    use crate::headers::name;
    let get = |h: HeaderName| headers.get(h).and_then(|v| v.to_str().ok());
    (get(name::TRI_SERVICE_GROUP), get(name::TRI_SERVICE_VERSION))
}

/// Serves one wrapper-mode call on `invoker`.
pub(crate) async fn serve(
    invoker: Arc<dyn Invoker>,
    key: ServiceKey,
    mut call: ServerCall,
) -> Result<ServerReply, Status> {
    let first = match call.messages.message().await {
        Some(m) => m?,
        None => return Err(Status::internal("request had no message")),
    };
    if let Some(extra) = call.messages.message().await {
        extra?;
        return Err(Status::unimplemented(
            "interface-mode streaming is not supported; unary calls carry one message",
        ));
    }
    let wrapper = TripleRequestWrapper::decode(first)?;
    let Some(ser) = WrapperSerialization::from_serialize_type(&wrapper.serialize_type) else {
        return Err(Status::unimplemented(format!(
            "serialization {:?} is not supported (hessian4 and fastjson2 only)",
            wrapper.serialize_type
        )));
    };
    // What the service permits, as on dubbo://: its advertised serializations and Hessian 2.
    if ser == WrapperSerialization::Fastjson2 && !permits_fastjson2(invoker.url()) {
        return Err(Status::unimplemented(format!(
            "serialization {FASTJSON2:?} is not permitted by {key} (it accepts hessian4 only)"
        )));
    }
    if wrapper.args.len() != wrapper.arg_types.len() {
        return Err(Status::internal(format!(
            "wrapper has {} arguments but {} argument types",
            wrapper.args.len(),
            wrapper.arg_types.len()
        )));
    }
    // Each argument is a stream of its own: Hessian 2 left encoded, for the service's typed
    // dispatch to decode straight into its parameter types.
    let args = wrapper
        .args
        .into_iter()
        .map(|a| ser.decode_payload(a))
        .collect::<Result<Vec<_>, _>>()?;
    let method = Arc::new(MethodSignature::new(
        &call.method,
        &wrapper.arg_types,
        "java.lang.Object",
    ));
    let mut inv = Invocation::with_payloads(key.clone(), method, args);
    let mut attachments = Attachments::new();
    core_attachments(&call.metadata, &mut attachments);
    attachments.insert_service(&key);
    if let Some(app) = call
        .metadata
        .get(crate::headers::name::TRI_CONSUMER_APPNAME)
        .and_then(|v| v.to_str().ok())
    {
        attachments.insert("remote.application", app);
    }
    if let Some(d) = call.deadline {
        let ms = d
            .saturating_duration_since(std::time::Instant::now())
            .as_millis();
        attachments.insert("timeout", ms.to_string());
        inv.context_mut().set_deadline(d);
    }
    *inv.attachments_mut() = attachments;
    inv.context_mut()
        .set_connection_addrs(call.connection.clone());
    let serialize_type = if wrapper.serialize_type.is_empty() {
        crate::wrapper::HESSIAN4.to_owned()
    } else {
        wrapper.serialize_type
    };
    // Java names the method's declared return type in the response; the service fills this.
    // Java's `$invoke`, `$invokeAsync` and `$echo` are declared `Object`, whatever the generic
    // call reaches.
    let declared = if call.method.starts_with('$') {
        let d = DeclaredReturnType::new();
        d.set("java.lang.Object");
        Some(Arc::new(d))
    } else {
        inv.context_mut().insert(DeclaredReturnType::new());
        inv.context().get_shared::<DeclaredReturnType>()
    };
    match invoker.invoke(inv).await {
        Ok(resp) => {
            let declared = declared.and_then(|d| d.get()).map(|t| t.to_string());
            let (data, type_name) = match ser {
                WrapperSerialization::Hessian2 => {
                    let data = encode_payload(&resp.value)?;
                    // A service that declares nothing (a hand-written invoker): the runtime
                    // class, read off the bytes, as a typed result has no tree to look at.
                    let type_name = declared.unwrap_or_else(|| java_type_of_encoded(&data));
                    (data, type_name)
                }
                WrapperSerialization::Fastjson2 => {
                    let value = resp
                        .value
                        .to_value()
                        .map_err(|e| Status::internal(format!("encoding the result: {e}")))?;
                    let type_name = declared.unwrap_or_else(|| java_type_of(&value));
                    (ser.encode_value(&value)?, type_name)
                }
            };
            let payload = TripleResponseWrapper {
                serialize_type,
                data,
                type_name,
            }
            .encode();
            let mut trailers = HeaderMap::new();
            put_core_attachments(&mut trailers, &resp.attachments);
            Ok(ServerReply::single(HeaderMap::new(), payload, trailers))
        }
        Err(RpcError::Business(b)) => {
            let value = b.to_value();
            let payload = TripleResponseWrapper {
                serialize_type,
                data: ser.encode_value(&value)?,
                type_name: b.class_name.clone(),
            }
            .encode();
            let mut headers = HeaderMap::new();
            headers.insert(
                TRI_EXCEPTION_CODE,
                HeaderValue::from_static(BIZ_EXCEPTION_CODE),
            );
            Ok(ServerReply::single(headers, payload, HeaderMap::new()))
        }
        Err(e) => Err(Status::from(e)),
    }
}
