//! The tag router: sends a call carrying a tag to the providers with that tag.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::attachments::keys;
use dubbo_core::{Invocation, Invoker, InvokerList, Router};
use dubbo_url::Url;

use super::address::matches_any;
use super::rule::TagRule;
use crate::router::condition::push_part;

/// The attachment (or consumer URL parameter) that forbids falling back from a tag.
pub const FORCE_TAG_KEY: &str = "dubbo.force.tag";

/// The rule in force and its tags resolved against the latest provider snapshot.
#[derive(Default)]
struct State {
    rule: Option<Arc<TagRule>>,
    snapshot: Option<InvokerList>,
    /// Tag name to addresses (Java `tagnameToAddresses`).
    tag_addresses: HashMap<String, HashSet<String>>,
    /// Every address in some tag (Java `TagRouterRule.getAddresses`).
    all_addresses: HashSet<String>,
}

impl State {
    fn resolved(rule: Option<Arc<TagRule>>, snapshot: Option<InvokerList>) -> Self {
        let tag_addresses = rule
            .as_ref()
            .map(|r| r.resolve(snapshot.as_ref()))
            .unwrap_or_default();
        let all_addresses = tag_addresses.values().flatten().cloned().collect();
        Self {
            rule,
            snapshot,
            tag_addresses,
            all_addresses,
        }
    }
}

/// Routes by tag, as Java Dubbo's `TagStateRouter`.
///
/// The request tag is the `dubbo.tag` attachment, else the consumer URL's `dubbo.tag`. A
/// provider has a tag through its URL's `dubbo.tag` parameter (static), or through a tag rule
/// naming its address or matching its parameters (dynamic, see [`TagRouter::set_rule`]).
///
/// - With a tag: the providers with that tag; if there are none, the untagged providers,
///   unless `dubbo.force.tag` is `true` (then none), or the rule is `force` and the tag is
///   one of its tags (then none).
/// - Without a tag: only untagged providers (neither a static tag nor an address in the rule).
pub struct TagRouter {
    consumer: Url,
    state: ArcSwap<State>,
    /// Whether the rule in force asks for `runtime` routing: read on every call's cache key,
    /// where a load of `state` cost more than the rest of the key. Raised before a runtime
    /// rule is swapped in and lowered only after one is swapped out, so that a call in
    /// between errs towards not caching.
    runtime: AtomicBool,
}

impl TagRouter {
    /// A tag router for the consumer `consumer`, with no tag rule: static tags only.
    pub fn new(consumer: Url) -> Self {
        Self {
            consumer,
            state: ArcSwap::from_pointee(State::default()),
            runtime: AtomicBool::new(false),
        }
    }

    /// Replaces the tag rule (`None` removes it).
    pub fn set_rule(&self, rule: Option<TagRule>) {
        let rule = rule.map(Arc::new);
        let runtime = rule.as_ref().is_some_and(|r| r.runtime == Some(true));
        if runtime {
            self.runtime.store(true, Ordering::Release);
        }
        self.state
            .rcu(|old| State::resolved(rule.clone(), old.snapshot.clone()));
        if !runtime {
            self.runtime.store(false, Ordering::Release);
        }
    }

    /// The tag rule in force.
    pub fn rule(&self) -> Option<Arc<TagRule>> {
        self.state.load().rule.clone()
    }

    fn force_tag(&self, invocation: &Invocation) -> bool {
        let value = invocation
            .attachments()
            .get_str(FORCE_TAG_KEY)
            .or_else(|| self.consumer.parameter(FORCE_TAG_KEY))
            .unwrap_or("false");
        value.eq_ignore_ascii_case("true")
    }

    fn request_tag<'a>(&'a self, invocation: &'a Invocation) -> Option<&'a str> {
        invocation
            .attachments()
            .get_str(keys::TAG)
            .filter(|t| !t.is_empty())
            .or_else(|| self.consumer.parameter(keys::TAG))
            .filter(|t| !t.is_empty())
    }
}

fn static_tag(invoker: &dyn Invoker) -> Option<&str> {
    invoker.url().parameter(keys::TAG).filter(|t| !t.is_empty())
}

fn in_addresses(invoker: &dyn Invoker, addresses: &HashSet<String>) -> bool {
    let url = invoker.url();
    matches_any(addresses, url.host().unwrap_or(""), url.port())
}

fn filter(
    invokers: &[Arc<dyn Invoker>],
    keep: impl Fn(&dyn Invoker) -> bool,
) -> Vec<Arc<dyn Invoker>> {
    invokers
        .iter()
        .filter(|i| keep(i.as_ref()))
        .cloned()
        .collect()
}

/// Java `selectAddressByTagLevel`: for `a|b|c` (unless forced), the most specific of `a|b|c`,
/// `a|b`, `a` that names some addresses.
fn addresses_for<'a>(
    tags: &'a HashMap<String, HashSet<String>>,
    tag: &str,
    force: bool,
) -> Option<&'a HashSet<String>> {
    if force || !tag.contains('|') {
        return tags.get(tag);
    }
    let parts: Vec<&str> = tag.split('|').filter(|p| !p.is_empty()).collect();
    (1..=parts.len())
        .rev()
        .find_map(|n| tags.get(&parts[..n].join("|")).filter(|a| !a.is_empty()))
}

impl Router for TagRouter {
    fn route(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
    ) -> Vec<Arc<dyn Invoker>> {
        if invokers.is_empty() {
            return Vec::new();
        }
        let state = self.state.load();
        let tag = self.request_tag(invocation);
        let force_tag = self.force_tag(invocation);
        let rule = match &state.rule {
            Some(rule) if rule.enabled => rule,
            // No rule (or a disabled one): static tags only.
            _ => {
                return match tag {
                    Some(tag) => {
                        let tagged = filter(invokers, |i| static_tag(i) == Some(tag));
                        if tagged.is_empty() && !force_tag {
                            filter(invokers, |i| static_tag(i).is_none())
                        } else {
                            tagged
                        }
                    }
                    None => filter(invokers, |i| static_tag(i).is_none()),
                };
            }
        };
        match tag {
            Some(tag) => {
                let result = match addresses_for(&state.tag_addresses, tag, force_tag) {
                    Some(addresses) => {
                        let result = filter(invokers, |i| in_addresses(i, addresses));
                        if !result.is_empty() || rule.force {
                            return result;
                        }
                        result
                    }
                    None => filter(invokers, |i| static_tag(i) == Some(tag)),
                };
                if !result.is_empty() || force_tag {
                    return result;
                }
                // Fall back to providers in no tag at all.
                filter(invokers, |i| {
                    !in_addresses(i, &state.all_addresses) && static_tag(i).is_none()
                })
            }
            None => {
                let untagged_by_rule = if state.all_addresses.is_empty() {
                    invokers.to_vec()
                } else {
                    let rest = filter(invokers, |i| !in_addresses(i, &state.all_addresses));
                    if rest.is_empty() {
                        return rest;
                    }
                    rest
                };
                filter(&untagged_by_rule, |i| static_tag(i).is_none())
            }
        }
    }

    fn name(&self) -> &str {
        "tag"
    }

    fn explain_empty(&self, invocation: &Invocation) -> Option<String> {
        let forced = self.force_tag(invocation);
        let rule_force = self
            .state
            .load()
            .rule
            .as_ref()
            .is_some_and(|r| r.enabled && r.force);
        Some(match self.request_tag(invocation) {
            Some(tag) if forced => {
                format!(
                    "no provider has tag `{tag}`, which the call forces with {FORCE_TAG_KEY}=true"
                )
            }
            Some(tag) if rule_force => {
                format!("no provider has tag `{tag}`, and the tag rule is force: true")
            }
            Some(tag) => format!("no provider has tag `{tag}`, and none is untagged"),
            None => "the call carries no tag and every provider is tagged".to_owned(),
        })
    }

    fn priority(&self) -> i32 {
        100
    }

    fn notify(&self, snapshot: &InvokerList) {
        let snapshot = InvokerList::clone(snapshot);
        self.state.rcu(|old| {
            if old.rule.as_ref().is_some_and(|r| r.has_match_tags()) {
                Arc::new(State::resolved(old.rule.clone(), Some(snapshot.clone())))
            } else {
                Arc::new(State {
                    rule: old.rule.clone(),
                    snapshot: Some(snapshot.clone()),
                    tag_addresses: old.tag_addresses.clone(),
                    all_addresses: old.all_addresses.clone(),
                })
            }
        });
    }

    fn cache_key(&self, invocation: &Invocation, key: &mut String) -> bool {
        if self.runtime.load(Ordering::Acquire) {
            return false;
        }
        push_part(key, invocation.attachments().get_str(keys::TAG));
        push_part(key, invocation.attachments().get_str(FORCE_TAG_KEY));
        true
    }
}

impl std::fmt::Debug for TagRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TagRouter")
            .field("consumer", &self.consumer.to_string())
            .field("rule", &self.state.load().rule)
            .finish()
    }
}
