//! Generic calls: any method of any service, with dynamic values.

use std::sync::Arc;

use dubbo_core::attachments::keys;
use dubbo_core::{
    ErrorCode, Invocation, Invoker, MethodSignature, Payload, RpcError, ServiceKey, Value,
};
use dubbo_hessian2::List;

/// Calls methods by name with [`Value`] arguments through Dubbo's `$invoke`, the way a Java
/// `GenericService` does; the provider needs no Rust or Java types for them.
///
/// POJO arguments are given as maps (optionally with a `"class"` entry) and POJO results come
/// back as maps with a `"class"` entry.
#[derive(Clone)]
pub struct GenericClient {
    invoker: Arc<dyn Invoker>,
    service: ServiceKey,
    invoke_method: Arc<MethodSignature>,
    echo_method: Arc<MethodSignature>,
}

impl GenericClient {
    /// A generic client over a reference's invoker.
    pub fn new(invoker: Arc<dyn Invoker>, service: ServiceKey) -> Self {
        Self {
            invoker,
            service,
            invoke_method: Arc::new(MethodSignature::generic_invoke()),
            echo_method: Arc::new(MethodSignature::echo()),
        }
    }

    /// Calls `method(parameter_types…)` with `args`. Parameter types are Java names such as
    /// `java.lang.String`, `int` or `org.example.User`.
    pub async fn invoke(
        &self,
        method: &str,
        parameter_types: &[&str],
        args: Vec<Value>,
    ) -> Result<Value, RpcError> {
        let types = Value::List(List {
            type_name: Some("[string".into()),
            items: parameter_types
                .iter()
                .map(|t| Value::String((*t).to_owned()))
                .collect(),
        });
        let args = Value::List(List {
            type_name: Some("[object".into()),
            items: args,
        });
        let invocation = Invocation::new(
            self.service.clone(),
            self.invoke_method.clone(),
            vec![Value::String(method.to_owned()), types, args],
        )
        .with_attachment(keys::GENERIC, "true");
        tree(self.invoker.invoke(invocation).await?.value)
    }

    /// Dubbo's built-in `$echo`: the provider answers with `value` unchanged.
    pub async fn echo(&self, value: Value) -> Result<Value, RpcError> {
        let invocation =
            Invocation::new(self.service.clone(), self.echo_method.clone(), vec![value]);
        tree(self.invoker.invoke(invocation).await?.value)
    }
}

/// A generic caller works with trees: decode a result the protocol left encoded.
fn tree(value: Payload) -> Result<Value, RpcError> {
    value
        .into_value()
        .map_err(|e| RpcError::framework(ErrorCode::Codec, format!("decoding the result: {e}")))
}

impl std::fmt::Debug for GenericClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GenericClient")
            .field("service", &self.service)
            .finish()
    }
}
