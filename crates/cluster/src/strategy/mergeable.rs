//! `mergeable`: a reference to several groups calls one provider of each and merges the
//! results (Java's `MergeableClusterInvoker`).

use std::collections::HashMap;
use std::sync::Arc;

use dubbo_core::{
    BoxFuture, ErrorCode, Extensions, Invocation, Invoker, InvokerList, RpcError, RpcResponse,
    RpcResult,
};
use dubbo_hessian2::Value;
use dubbo_url::Url;

use super::{ClusterCall, ClusterStrategy};
use crate::merger::{merger_name_for, Merger};

/// The name `cluster` may give this strategy; a reference to several groups gets it whatever
/// `cluster` says, as in Java.
pub const MERGEABLE: &str = "mergeable";

/// Whether a reference's `group` names several groups: `*` (every group) or a comma list.
pub fn is_multi_group(url: &Url) -> bool {
    let group = url.group().unwrap_or("").trim();
    group == "*" || group.split(',').filter(|g| !g.trim().is_empty()).count() > 1
}

/// What `merger` (or `<method>.merger`) asks for.
#[derive(Clone)]
enum MergeSetting {
    /// Not set, empty, `false`: one group answers (the first with an available provider).
    OneGroup,
    /// `true` or `default`: the merger for the method's declared return type.
    ByReturnType,
    /// A merger by name.
    Named(Arc<dyn Merger>),
}

/// Calls one provider of every group the routed providers belong to and merges the results
/// with the method's `merger`; without a merger, calls only the first group that has an
/// available provider.
///
/// Within a group the provider is picked by the method's load balancer, with failover to the
/// group's other providers (`retries`). A group whose provider throws a business exception is logged and left out of the
/// merge (Java does the same); a framework failure of any group fails the call. Each call is
/// addressed to the group of the provider it goes to, so the provider finds its service.
///
/// Every merger name is resolved when the reference is made: an unknown one is an
/// `ErrorCode::Config` error from `refer`. Java's `merger=.methodName` (a method called on the
/// result object) has no equivalent for dynamic values and is refused the same way.
pub struct Mergeable {
    default: MergeSetting,
    methods: HashMap<String, MergeSetting>,
    /// The mergers `merger=true` may pick, by name, looked up when the reference is made.
    by_type: HashMap<String, Arc<dyn Merger>>,
}

impl Mergeable {
    /// The strategy for the consumer URL `url`, with mergers from `extensions`.
    pub fn from_url(url: &Url, extensions: &Extensions) -> Result<Self, RpcError> {
        let setting = |key: &str, value: Option<&str>| parse(key, value, extensions);
        let default = setting("merger", url.parameter("merger"))?;
        let mut methods = HashMap::new();
        for (key, value) in url.params().iter() {
            if let Some(method) = key.strip_suffix(".merger") {
                methods.insert(method.to_owned(), setting(key, Some(value))?);
            }
        }
        let by_type = extensions
            .names::<dyn Merger>()
            .into_iter()
            .filter_map(|n| extensions.get::<dyn Merger>(&n).map(|m| (n, m)))
            .collect();
        Ok(Self {
            default,
            methods,
            by_type,
        })
    }

    /// The strategy when the reference needs it: several groups, or `cluster=mergeable`.
    pub fn for_reference(
        url: &Url,
        extensions: &Extensions,
    ) -> Result<Option<Arc<dyn ClusterStrategy>>, RpcError> {
        if !is_multi_group(url) && url.parameter("cluster") != Some(MERGEABLE) {
            return Ok(None);
        }
        Ok(Some(Arc::new(Self::from_url(url, extensions)?)))
    }

    fn setting(&self, method: &str) -> &MergeSetting {
        self.methods.get(method).unwrap_or(&self.default)
    }

    fn merger_for(&self, invocation: &Invocation) -> Result<Option<Arc<dyn Merger>>, RpcError> {
        match self.setting(invocation.method_name()) {
            MergeSetting::OneGroup => Ok(None),
            MergeSetting::Named(m) => Ok(Some(m.clone())),
            MergeSetting::ByReturnType => {
                let return_type = invocation.method().return_type();
                merger_name_for(return_type)
                    .and_then(|n| self.by_type.get(n))
                    .cloned()
                    .map(Some)
                    .ok_or_else(|| {
                        RpcError::framework(
                            ErrorCode::Config,
                            format!(
                                "merger=true: no merger for the return type {return_type} of \
                                 {}; name one with merger=<name>",
                                invocation.method_name()
                            ),
                        )
                    })
            }
        }
    }
}

fn parse(
    key: &str,
    value: Option<&str>,
    extensions: &Extensions,
) -> Result<MergeSetting, RpcError> {
    let value = value.map(str::trim).unwrap_or("");
    // Java's `ConfigUtils.isEmpty`: these all mean "not set".
    if matches!(value, "" | "false" | "0" | "null" | "N/A") {
        return Ok(MergeSetting::OneGroup);
    }
    if value == "true" || value == "default" {
        return Ok(MergeSetting::ByReturnType);
    }
    if value.starts_with('.') {
        return Err(RpcError::framework(
            ErrorCode::Config,
            format!(
                "{key}={value}: calling a method of the result to merge is Java-only; name a \
                 merger (registered: {})",
                extensions.names::<dyn Merger>().join(", ")
            ),
        ));
    }
    match extensions.get::<dyn Merger>(value) {
        Some(m) => Ok(MergeSetting::Named(m)),
        None => Err(RpcError::framework(
            ErrorCode::Config,
            format!(
                "{key}={value}: no such merger (registered: {})",
                extensions.names::<dyn Merger>().join(", ")
            ),
        )),
    }
}

/// The routed providers by group, groups in name order so merged results come in a stable
/// order.
fn by_group(invokers: &[Arc<dyn Invoker>]) -> Vec<(String, InvokerList)> {
    let mut groups: Vec<(String, Vec<Arc<dyn Invoker>>)> = Vec::new();
    for i in invokers {
        let g = i.url().group().unwrap_or("");
        match groups.iter_mut().find(|(name, _)| name == g) {
            Some((_, members)) => members.push(i.clone()),
            None => groups.push((g.to_owned(), vec![i.clone()])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
        .into_iter()
        .map(|(name, members)| (name, members.into()))
        .collect()
}

/// `invocation` addressed to `group`.
fn for_group(invocation: &Invocation, group: &str) -> Invocation {
    let mut inv = invocation.clone();
    let key = inv
        .service()
        .with_group((!group.is_empty()).then_some(group));
    inv.set_service(key);
    inv
}

/// The call to one group, with failover inside it: the provider is picked by the load
/// balancer; a framework failure is sent again to another provider of the same group, up to
/// the method's `retries` more times, while the call's deadline lasts (Java joins each group's
/// providers into a failover cluster invoker). A business exception is returned at once.
async fn call_group(
    call: &ClusterCall,
    invocation: &Invocation,
    group: &str,
    members: &InvokerList,
) -> RpcResult {
    let inv = for_group(invocation, group);
    let attempts = call.retries() as usize + 1;
    let mut tried: Vec<Arc<dyn Invoker>> = Vec::new();
    let mut last = None;
    for _ in 0..attempts {
        let provider = call.select(&inv, members, &tried)?;
        match call.invoke_on(&provider, inv.clone()).await {
            Ok(r) => return Ok(r),
            Err(e) if !super::failover::may_retry(&*provider, &inv, &e) => return Err(e),
            Err(e) => last = Some(e),
        }
        tried.push(provider);
        let expired = inv
            .context()
            .deadline()
            .is_some_and(|d| d <= std::time::Instant::now());
        if expired {
            break;
        }
    }
    Err(last.unwrap_or_else(|| call.no_provider(&inv)))
}

impl ClusterStrategy for Mergeable {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let groups = by_group(call.invokers());
            let Some(first) = groups.first() else {
                return Err(call.no_provider(&invocation));
            };
            let Some(merger) = self.merger_for(&invocation)? else {
                let (group, members) = groups
                    .iter()
                    .find(|(_, m)| m.iter().any(|i| i.is_available()))
                    .unwrap_or(first);
                return call_group(&call, &invocation, group, members).await;
            };
            let calls = groups
                .iter()
                .map(|(g, m)| call_group(&call, &invocation, g, m));
            let outcomes = futures::future::join_all(calls).await;
            let mut values = Vec::with_capacity(outcomes.len());
            for ((group, _), outcome) in groups.iter().zip(outcomes) {
                match outcome {
                    Ok(r) => values.push(r.value),
                    Err(e) if e.is_business() => {
                        tracing::error!(
                            service = call.service(),
                            group = group.as_str(),
                            method = invocation.method_name(),
                            error = %e,
                            "merger: a group failed; its result is left out"
                        );
                    }
                    Err(e) => return Err(e),
                }
            }
            if invocation.method().return_type() == "void" {
                return Ok(RpcResponse::default());
            }
            let mut present = Vec::with_capacity(values.len());
            for v in values {
                let v = v.into_value()?;
                if v != Value::Null {
                    present.push(v);
                }
            }
            let value = match present.len() {
                0 => Value::Null,
                1 => present.pop().unwrap_or(Value::Null),
                _ => merger.merge(present)?,
            };
            Ok(RpcResponse::new(value))
        })
    }
}
