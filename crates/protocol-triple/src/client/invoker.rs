//! The interface-mode (wrapper) invoker: core [`Invocation`]s sent as Triple calls.

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwapOption;
use dubbo_core::{
    Attachments, BoxFuture, BusinessError, ErrorCode, Invocation, Invoker, RpcError, RpcResponse,
    RpcResult,
};
use dubbo_hessian2::Value;
use dubbo_url::Url;
use http::{HeaderMap, HeaderValue};

use super::idl_call::IdlCall;
use super::idl_send::send_idl;
use super::unary::TripleClient;
use crate::headers::{
    core_attachments, put_core_attachments, TRI_CONSUMER_APPNAME, TRI_EXCEPTION_CODE,
    TRI_SERVICE_GROUP, TRI_SERVICE_VERSION,
};
use crate::server::MethodKind;
use crate::status::Status;
use crate::wrapper::{TripleRequestWrapper, TripleResponseWrapper};
use crate::wrapper_serialization::WrapperSerialization;

/// Java Dubbo's default consumer timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1000);

/// An [`Invoker`] calling one provider over Triple in wrapper mode.
///
/// The call goes to `:path /{interface}/{method}` with a `TripleRequestWrapper` whose arguments
/// are Hessian 2 (`hessian4`) and whose `argTypes` are the method's Java parameter types. The
/// service version and group travel as `tri-service-version` / `tri-service-group`, the
/// application as `tri-consumer-appname`, attachments as headers. A response with
/// `tri-exception-code` is the provider's business exception and becomes
/// [`RpcError::Business`] with its class name and message. Transport failures are
/// [`ErrorCode::Network`].
///
/// The timeout of a call is its context's deadline when set, else the URL's
/// `<method>.timeout`, else `timeout`, else 1000 ms.
///
/// **IDL mode.** An invocation whose context holds an [`IdlCall`] (made by a generated client
/// built with `from_invoker`) is sent as a gRPC call instead: the argument, `Value::Binary`,
/// is the encoded request message, sent as is with `application/grpc+proto`; the result is the
/// encoded response message as `Value::Binary`, with the response headers and trailers as
/// attachments, and a non-OK `grpc-status` is the matching [`RpcError`]. Streams travel in the
/// call's [`IdlStreams`](super::idl_call::IdlStreams). Unary and client-streaming calls have the
/// timeout above; server- and bidi-streaming calls only the context's deadline, if any, since
/// a stream lasts as long as the application reads it.
///
/// [`destroy`](Invoker::destroy) lets go of the client: the channel's connection closes once
/// no other invoker or client uses it.
pub struct TripleInvoker {
    url: Url,
    client: ArcSwapOption<TripleClient>,
    /// What wrapper-mode values are written in, from the URL (`prefer.serialization`).
    serialization: WrapperSerialization,
}

impl std::fmt::Debug for TripleInvoker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let client = self.client.load();
        f.debug_struct("TripleInvoker")
            .field("addr", &client.as_ref().map(|c| c.channel().addr()))
            .finish()
    }
}

impl TripleInvoker {
    /// An invoker described by `url` that sends over `client`'s channel.
    pub fn new(url: Url, client: TripleClient) -> Self {
        Self {
            serialization: WrapperSerialization::for_consumer(&url),
            url,
            client: ArcSwapOption::from_pointee(client),
        }
    }

    /// The client; `None` once the invoker is destroyed.
    pub fn client(&self) -> Option<Arc<TripleClient>> {
        self.client.load_full()
    }

    fn timeout_for(&self, inv: &Invocation) -> Duration {
        if let Some(rem) = inv.context().remaining() {
            return rem;
        }
        let method = inv.method_name();
        self.url
            .method_parameter(method, "timeout")
            .or_else(|| self.url.parameter("timeout"))
            .and_then(|t| t.trim().parse::<u64>().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT)
    }

    /// The request headers of a call: its attachments (less the ones Triple carries in its own
    /// headers), the service's version and group, the consumer's application.
    fn call_headers(&self, inv: &Invocation) -> HeaderMap {
        let service = inv.service();
        let mut headers = HeaderMap::new();
        let mut attachments = inv.attachments().clone();
        for k in ["timeout", "version", "group", "interface", "path"] {
            attachments.remove(k);
        }
        put_core_attachments(&mut headers, &attachments);
        let set = |h: &mut HeaderMap, k: &'static str, v: Option<&str>| {
            if let Some(v) = v.filter(|v| !v.is_empty()) {
                if let Ok(v) = HeaderValue::from_str(v) {
                    h.insert(k, v);
                }
            }
        };
        set(&mut headers, TRI_SERVICE_VERSION, service.version());
        set(&mut headers, TRI_SERVICE_GROUP, service.group());
        set(&mut headers, TRI_CONSUMER_APPNAME, self.url.application());
        headers
    }

    async fn call(&self, inv: Invocation) -> RpcResult {
        let Some(client) = self.client.load_full() else {
            return Err(RpcError::framework(
                ErrorCode::Network,
                format!("invoker for {} is destroyed", self.url.address()),
            ));
        };
        if let Some(idl) = inv.context().get::<IdlCall>().cloned() {
            let timeout = match idl.kind() {
                MethodKind::Unary | MethodKind::ClientStreaming => Some(self.timeout_for(&inv)),
                MethodKind::ServerStreaming | MethodKind::BidiStreaming => {
                    inv.context().remaining()
                }
            };
            let headers = self.call_headers(&inv);
            return send_idl(&client, inv, idl, headers, timeout).await;
        }
        let timeout = self.timeout_for(&inv);
        let path = format!("/{}/{}", inv.service().interface(), inv.method_name());
        let headers = self.call_headers(&inv);
        let ser = self.serialization;
        let wrapper = match ser {
            WrapperSerialization::Hessian2 => {
                TripleRequestWrapper::hessian(inv.args(), inv.method().parameter_types())
            }
            WrapperSerialization::Fastjson2 => inv
                .args()
                .iter()
                .map(|a| ser.encode_payload(a))
                .collect::<Result<Vec<_>, _>>()
                .map(|args| TripleRequestWrapper {
                    serialize_type: ser.serialize_type().to_owned(),
                    args,
                    arg_types: inv
                        .method()
                        .parameter_types()
                        .iter()
                        .map(|t| t.to_string())
                        .collect(),
                }),
        }
        .map_err(to_rpc)?;
        let raw = client
            .unary_raw(&path, &headers, wrapper.encode(), Some(timeout))
            .await
            .map_err(to_rpc)?;
        let resp = TripleResponseWrapper::decode(raw.payload)
            .map_err(|e| RpcError::framework(ErrorCode::Codec, e.to_string()))?;
        // The provider answers in the request's serialization; either one is read.
        let ser =
            WrapperSerialization::from_serialize_type(&resp.serialize_type).ok_or_else(|| {
                RpcError::framework(
                    ErrorCode::Codec,
                    format!(
                        "response in unsupported serialization {:?}",
                        resp.serialize_type
                    ),
                )
            })?;
        let exception_code = raw
            .headers
            .get(TRI_EXCEPTION_CODE)
            .or_else(|| raw.trailers.get(TRI_EXCEPTION_CODE))
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|c| !c.is_empty() && *c != "0");
        if exception_code.is_some() {
            let value = ser.decode_value(&resp.data).map_err(to_rpc)?;
            return Err(RpcError::Business(business_error(value, &resp.type_name)));
        }
        // The wrapper's data is the result's own stream: a typed caller decodes it directly.
        let value = ser.decode_payload(resp.data).map_err(to_rpc)?;
        let mut out = Attachments::new();
        core_attachments(&raw.headers, &mut out);
        core_attachments(&raw.trailers, &mut out);
        Ok(RpcResponse {
            value,
            attachments: out,
        })
    }
}

fn to_rpc(s: Status) -> RpcError {
    RpcError::from(s)
}

fn business_error(value: Value, type_name: &str) -> BusinessError {
    match BusinessError::from_value(value) {
        Ok(b) => b,
        Err(value) => BusinessError {
            class_name: if type_name.is_empty() {
                "java.lang.RuntimeException".to_owned()
            } else {
                type_name.to_owned()
            },
            message: value.as_str().map(str::to_owned),
            raw: Some(value),
        },
    }
}

impl Invoker for TripleInvoker {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(self.call(invocation))
    }

    fn url(&self) -> &Url {
        &self.url
    }

    fn is_available(&self) -> bool {
        self.client
            .load()
            .as_ref()
            .is_some_and(|c| c.channel().is_available())
    }

    fn destroy(&self) {
        // Dropping this handle on the shared channel closes its connection when it was the
        // last one; calls still running keep their own handles and finish.
        self.client.store(None);
    }
}
