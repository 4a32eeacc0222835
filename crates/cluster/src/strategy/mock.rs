//! `mock`: a local answer instead of, or after the failure of, the remote call.

use std::sync::Arc;

use dubbo_core::{BoxFuture, ErrorCode, Invocation, RpcError, RpcResponse, RpcResult, Value};
use dubbo_url::Url;

use super::{ClusterCall, ClusterStrategy};

/// What a reference's `mock` setting asks for (Java's `MockClusterInvoker`).
#[derive(Debug, Clone, PartialEq)]
pub enum MockSetting {
    /// `force:return X`: never call a provider; answer X.
    ForceReturn(String),
    /// `force:throw [msg]`: never call a provider; fail.
    ForceThrow(Option<String>),
    /// `fail:return X` (or `return X`): call; on a framework failure answer X.
    FailReturn(String),
    /// `fail:throw [msg]` (or `throw [msg]`): call; on a framework failure fail with the mock's
    /// error.
    FailThrow(Option<String>),
}

impl MockSetting {
    /// The setting of the URL's `mock` parameter; `None` when absent, empty or `false`.
    ///
    /// Java's forms that name a mock class (`true`, `default`, a class name) have no Rust
    /// counterpart and are a `Config` error.
    pub fn from_url(url: &Url) -> Result<Option<Self>, RpcError> {
        let Some(raw) = url.parameter("mock").map(str::trim) else {
            return Ok(None);
        };
        if raw.is_empty() || raw == "false" {
            return Ok(None);
        }
        let (force, rest) = match raw.strip_prefix("force:") {
            Some(r) => (true, r.trim()),
            None => (false, raw.strip_prefix("fail:").unwrap_or(raw).trim()),
        };
        if let Some(v) = rest.strip_prefix("return") {
            let v = v.trim().to_owned();
            return Ok(Some(if force {
                Self::ForceReturn(v)
            } else {
                Self::FailReturn(v)
            }));
        }
        if let Some(m) = rest.strip_prefix("throw") {
            let m = Some(m.trim().to_owned()).filter(|m| !m.is_empty());
            return Ok(Some(if force {
                Self::ForceThrow(m)
            } else {
                Self::FailThrow(m)
            }));
        }
        Err(RpcError::framework(
            ErrorCode::Config,
            format!(
                "mock={raw}: only `return VALUE`, `throw` and their `force:`/`fail:` forms are \
                 supported (a mock class cannot be loaded)"
            ),
        ))
    }
}

/// Wraps a reference's strategy with its `mock` setting.
pub struct Mock {
    setting: MockSetting,
    inner: Arc<dyn ClusterStrategy>,
}

impl Mock {
    /// `inner` with the mock `setting`.
    pub fn new(setting: MockSetting, inner: Arc<dyn ClusterStrategy>) -> Self {
        Self { setting, inner }
    }

    /// `inner` with the URL's `mock` setting; a `Config` error when there is none.
    pub fn from_url(
        url: &Url,
        inner: Arc<dyn ClusterStrategy>,
    ) -> Result<Arc<dyn ClusterStrategy>, RpcError> {
        match MockSetting::from_url(url)? {
            Some(s) => Ok(Arc::new(Self::new(s, inner))),
            None => Err(RpcError::framework(
                ErrorCode::Config,
                "cluster=mock needs a `mock` setting such as `force:return null`",
            )),
        }
    }
}

impl ClusterStrategy for Mock {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            match &self.setting {
                MockSetting::ForceReturn(v) => Ok(RpcResponse::new(mock_value(v, &invocation))),
                MockSetting::ForceThrow(m) => Err(mock_error(m.as_deref(), &call, &invocation)),
                MockSetting::FailReturn(v) => {
                    let probe = invocation.clone();
                    match self.inner.invoke(call, invocation).await {
                        Err(e) if !e.is_business() => {
                            tracing::warn!(error = %e, "mock: call failed, answering the mock value");
                            Ok(RpcResponse::new(mock_value(v, &probe)))
                        }
                        other => other,
                    }
                }
                MockSetting::FailThrow(m) => {
                    let probe = invocation.clone();
                    let shared = call.clone();
                    match self.inner.invoke(call, invocation).await {
                        Err(e) if !e.is_business() => {
                            Err(mock_error(m.as_deref(), &shared, &probe))
                        }
                        other => other,
                    }
                }
            }
        })
    }

    fn background(&self) -> Option<super::BackgroundWork> {
        self.inner.background()
    }

    fn destroy(&self) {
        self.inner.destroy()
    }
}

fn mock_error(message: Option<&str>, call: &ClusterCall, invocation: &Invocation) -> RpcError {
    RpcError::business(
        "org.apache.dubbo.rpc.RpcException",
        message.map(str::to_owned).unwrap_or_else(|| {
            format!(
                "mocked exception for method {} of service {}",
                invocation.method_name(),
                call.service()
            )
        }),
    )
}

/// The value a mock's `return X` stands for, as Java's `MockInvoker.parseMockValue` reads it:
/// `null`, `empty` (an empty value of the method's return type), `true`/`false`, numbers,
/// quoted strings; anything else is the string itself.
pub(crate) fn mock_value(text: &str, invocation: &Invocation) -> Value {
    let t = text.trim();
    match t {
        "" | "null" => return Value::Null,
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "empty" => return empty_of(invocation.method().return_type()),
        _ => {}
    }
    let quoted = t.len() >= 2
        && ((t.starts_with('"') && t.ends_with('"')) || (t.starts_with('\'') && t.ends_with('\'')));
    if quoted {
        return Value::String(t[1..t.len() - 1].to_owned());
    }
    if let Ok(i) = t.parse::<i32>() {
        return Value::Int(i);
    }
    if let Ok(l) = t.parse::<i64>() {
        return Value::Long(l);
    }
    if let Ok(d) = t.parse::<f64>() {
        return Value::Double(d);
    }
    Value::String(t.to_owned())
}

fn empty_of(return_type: &str) -> Value {
    match return_type {
        "java.lang.String" => Value::String(String::new()),
        "int" | "java.lang.Integer" | "short" | "byte" => Value::Int(0),
        "long" | "java.lang.Long" => Value::Long(0),
        "double" | "float" | "java.lang.Double" | "java.lang.Float" => Value::Double(0.0),
        "boolean" | "java.lang.Boolean" => Value::Bool(false),
        t if t.starts_with("java.util.")
            && (t.ends_with("List") || t.ends_with("Set") || t.ends_with("Collection")) =>
        {
            Value::List(Default::default())
        }
        t if t.starts_with("java.util.") && t.ends_with("Map") => Value::Map(Default::default()),
        _ => Value::Null,
    }
}
