use crate::filter::{Filter, Next};
use crate::invocation::{Invocation, RpcResponse};
use crate::invoker::{BoxFuture, RpcResult};

/// Answers Dubbo's built-in `$echo(Object)` with its argument, before any service code runs.
#[derive(Debug, Default, Clone, Copy)]
pub struct EchoFilter;

impl Filter for EchoFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        if invocation.method().is_echo() {
            let value = invocation.args().first().cloned().unwrap_or_default();
            return Box::pin(async move { Ok(RpcResponse::new(value)) });
        }
        next.run(invocation)
    }
}
