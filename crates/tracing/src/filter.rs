//! The tracing filter: a client span around each consumer call, a server span around each
//! provider call, and the W3C trace context carried between them in attachments.

use std::sync::Arc;

use dubbo_core::{BoxFuture, Filter, Invocation, Next, RpcResult};

use crate::current::{current_span, in_span};
use crate::span::{peer_attributes, rpc_attributes, SpanKind};
use crate::trace_context::{SpanContext, TRACEPARENT, TRACESTATE};
use crate::tracer::Tracer;
use crate::tracers::Tracers;

/// Java's name of the consumer-side filter (`filter=-observationsender` removes it).
pub const CLIENT_TRACING_FILTER_NAME: &str = "observationsender";
/// Java's name of the provider-side filter (`filter=-observationreceiver` removes it).
pub const SERVER_TRACING_FILTER_NAME: &str = "observationreceiver";

/// Records spans with the tracer of the call's application, when it has one; otherwise it
/// passes the call on untouched.
#[derive(Debug, Clone)]
pub struct TracingFilter {
    tracers: Arc<Tracers>,
}

impl TracingFilter {
    /// A filter recording with the tracers installed in `tracers`.
    pub fn new(tracers: Arc<Tracers>) -> Self {
        Self { tracers }
    }
}

impl Filter for TracingFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        if self.tracers.is_empty() {
            return next.run(invocation);
        }
        let url = next.url();
        let Some(tracer) = self.tracers.get(url.parameter("application").unwrap_or("")) else {
            return next.run(invocation);
        };
        match url.parameter("side") {
            Some("consumer") => client_call(tracer, invocation, next),
            _ => server_call(tracer, invocation, next),
        }
    }
}

/// `{service}/{method}`, OpenTelemetry's RPC span name.
fn span_name(invocation: &Invocation) -> String {
    format!(
        "{}/{}",
        invocation.service().interface(),
        invocation.method_name()
    )
}

/// The trace context that came with a call's attachments, if it is valid.
fn incoming_context(invocation: &Invocation) -> Option<SpanContext> {
    let attachments = invocation.attachments();
    let value = attachments.get_str(TRACEPARENT)?;
    match SpanContext::from_traceparent(value, attachments.get_str(TRACESTATE)) {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            tracing::debug!(error = %e, "ignoring the incoming trace context");
            None
        }
    }
}

fn client_call<'a>(
    tracer: Arc<Tracer>,
    mut invocation: Invocation,
    next: Next<'a>,
) -> BoxFuture<'a, RpcResult> {
    // The provider call being served, else a context the caller put on the invocation.
    let parent = current_span().or_else(|| incoming_context(&invocation));
    let ctx = tracer.child_of(parent.as_ref());
    let attachments = invocation.attachments_mut();
    attachments.insert(TRACEPARENT, ctx.traceparent());
    if let Some(state) = &ctx.trace_state {
        attachments.insert(TRACESTATE, state.to_string());
    }
    if !ctx.sampled {
        return next.run(invocation);
    }
    let url = next.url();
    let mut attributes = rpc_attributes(invocation.service().interface(), invocation.method_name());
    // At the cluster stage the URL is a provider's only for a direct (url=) reference.
    if let Some(host) = url.host().filter(|_| url.protocol() != Some("consumer")) {
        peer_attributes(&mut attributes, SpanKind::Client, host, url.port());
    }
    let name = span_name(&invocation);
    Box::pin(async move {
        let recording = tracer.record(&ctx, parent.as_ref(), SpanKind::Client, name, attributes);
        let result = next.run(invocation).await;
        recording.finish(result.as_ref().err().map(ToString::to_string));
        result
    })
}

fn server_call<'a>(
    tracer: Arc<Tracer>,
    invocation: Invocation,
    next: Next<'a>,
) -> BoxFuture<'a, RpcResult> {
    let parent = incoming_context(&invocation);
    let ctx = tracer.child_of(parent.as_ref());
    if !ctx.sampled {
        return Box::pin(in_span(ctx, next.run(invocation)));
    }
    let mut attributes = rpc_attributes(invocation.service().interface(), invocation.method_name());
    if let Some(peer) = invocation.context().remote_addr() {
        let host = peer.ip().to_string();
        peer_attributes(&mut attributes, SpanKind::Server, &host, peer.port());
    }
    let name = span_name(&invocation);
    Box::pin(async move {
        let recording = tracer.record(&ctx, parent.as_ref(), SpanKind::Server, name, attributes);
        let result = in_span(ctx.clone(), next.run(invocation)).await;
        recording.finish(result.as_ref().err().map(ToString::to_string));
        result
    })
}
