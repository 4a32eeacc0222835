//! A call's share of the async runtime, whatever its outcome.
//!
//! Tokio makes a task give way to others only when it waits on something (a socket, a channel,
//! a timer) or spends its cooperative budget there. A call that fails before touching any of
//! those (no provider left after routing, every provider unusable, a destroyed reference) is
//! ready at once; a caller that retries on error then loops without ever returning to the
//! scheduler, and on a runtime with as many busy callers as worker threads nothing else runs:
//! not the registry session's pings, not the watch that would bring the next provider, not a
//! heartbeat or a reconnect. The consumer then never recovers while its load lasts.
//!
//! So every call through the cluster spends one unit of the task's budget when it ends. A call
//! that waited on the network has usually spent some already; an instant one now spends it
//! too, and a task that makes a run of instant calls yields once its budget is gone (128 units
//! in tokio), exactly as a task of successful calls does. Outside a tokio runtime nothing is
//! spent.

use dubbo_core::{BoxFuture, RpcResult};

/// `call`, then one unit of the runtime's cooperative budget, so that calls which end without
/// waiting still let the runtime's other tasks run.
pub(crate) async fn spend_budget(call: BoxFuture<'_, RpcResult>) -> RpcResult {
    let result = call.await;
    tokio::task::consume_budget().await;
    result
}
