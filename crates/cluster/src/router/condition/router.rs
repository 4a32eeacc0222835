//! The condition router: applies one condition rule to the providers of a call.

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, InvokerList, Router};
use dubbo_url::Url;

use super::matcher::{attachment_text, ConditionMatcher, Sample, Source};
use super::parser::Condition;
use super::rule::{ConditionRule, Conditions, MultiDestCondition};
use crate::router::RuleError;

/// Routes calls by one condition rule ([`ConditionRule`]), for the consumer `consumer_url`.
///
/// Conditions are applied in order, each to what the one before left. For each, a call that
/// satisfies `when` goes only to providers that satisfy `then`; if none does, the call keeps
/// the providers it had unless the rule is `force`. A condition with nothing (or `false`)
/// after `=>`, or a v3.1 condition without `to`, blocks the calls it matches.
#[derive(Debug)]
pub struct ConditionRouter {
    rule: ConditionRule,
    consumer: Url,
    name: String,
    /// Whether results can be cached per (snapshot, method, attachments read).
    cacheable: bool,
    /// The attachments the rule reads, for cache keys.
    attachment_keys: Vec<String>,
}

impl ConditionRouter {
    /// A router for `rule`, seen from the consumer `consumer`.
    pub fn new(rule: ConditionRule, consumer: Url) -> Self {
        let random = matches!(&rule.conditions, Conditions::MultiDest(c) if c.iter().any(|c| c.to.len() > 1));
        let cacheable = rule.runtime != Some(true) && !rule.reads_arguments() && !random;
        let mut attachment_keys: Vec<String> = Vec::new();
        for term in rule.terms() {
            if let Source::Attachment(Some(k)) = term.source() {
                if !attachment_keys.contains(k) {
                    attachment_keys.push(k.clone());
                }
            }
        }
        let name = match &rule.key {
            Some(key) => format!("condition({key})"),
            None => "condition".to_owned(),
        };
        Self {
            rule,
            consumer,
            name,
            cacheable,
            attachment_keys,
        }
    }

    /// Parses `yaml` into a router for `consumer`.
    pub fn from_yaml(yaml: &str, consumer: Url) -> Result<Self, RuleError> {
        Ok(Self::new(ConditionRule::from_yaml(yaml)?, consumer))
    }

    /// The rule this router applies.
    pub fn rule(&self) -> &ConditionRule {
        &self.rule
    }

    fn when_matches(&self, when: &[ConditionMatcher], invocation: &Invocation) -> bool {
        let sample = Sample {
            url: &self.consumer,
            invocation: Some(invocation),
            param: None,
        };
        when.iter().all(|t| t.is_match(&sample, true))
    }

    fn then_matches(&self, then: &[ConditionMatcher], provider: &dyn Invoker) -> bool {
        let sample = Sample {
            url: provider.url(),
            invocation: None,
            param: Some(&self.consumer),
        };
        then.iter().all(|t| t.is_match(&sample, false))
    }

    /// Java `ConditionStateRouter.doRoute` for one condition.
    fn route_simple(
        &self,
        cond: &Condition,
        invokers: Vec<Arc<dyn Invoker>>,
        invocation: &Invocation,
    ) -> Vec<Arc<dyn Invoker>> {
        if invokers.is_empty() || !self.when_matches(&cond.when, invocation) {
            return invokers;
        }
        let Some(then) = &cond.then else {
            return Vec::new();
        };
        if then.is_empty() {
            // Java: an empty `then` matches no provider.
            return if self.rule.force {
                Vec::new()
            } else {
                invokers
            };
        }
        let result: Vec<_> = invokers
            .iter()
            .filter(|i| self.then_matches(then, i.as_ref()))
            .cloned()
            .collect();
        if result.is_empty() && !self.rule.force {
            invokers
        } else {
            result
        }
    }

    /// Java `MultiDestConditionRouter.doRoute` for one condition.
    fn route_multi(
        &self,
        cond: &MultiDestCondition,
        invokers: Vec<Arc<dyn Invoker>>,
        invocation: &Invocation,
    ) -> Vec<Arc<dyn Invoker>> {
        if invokers.is_empty() || !self.when_matches(&cond.when, invocation) {
            return invokers;
        }
        if cond.to.is_empty() {
            return Vec::new();
        }
        let mut destinations: Vec<(u32, Vec<Arc<dyn Invoker>>)> = Vec::new();
        for dest in &cond.to {
            let subset: Vec<_> = invokers
                .iter()
                .filter(|i| self.then_matches(&dest.then, i.as_ref()))
                .cloned()
                .collect();
            if !subset.is_empty() {
                destinations.push((dest.weight, subset));
            }
        }
        match destinations.len() {
            0 if self.rule.force => Vec::new(),
            0 => invokers,
            1 => destinations.pop().map(|(_, d)| d).unwrap_or_default(),
            _ => pick_weighted(destinations),
        }
    }
}

/// One destination, chosen with probability weight / total.
fn pick_weighted(mut destinations: Vec<(u32, Vec<Arc<dyn Invoker>>)>) -> Vec<Arc<dyn Invoker>> {
    let total: u64 = destinations.iter().map(|(w, _)| u64::from(*w)).sum();
    let mut point = fastrand::u64(..total.max(1));
    let mut chosen = destinations.len() - 1;
    for (at, (w, _)) in destinations.iter().enumerate() {
        if point < u64::from(*w) {
            chosen = at;
            break;
        }
        point -= u64::from(*w);
    }
    destinations.swap_remove(chosen).1
}

impl Router for ConditionRouter {
    fn route(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
    ) -> Vec<Arc<dyn Invoker>> {
        let mut current = invokers.to_vec();
        if !self.rule.enabled {
            return current;
        }
        match &self.rule.conditions {
            Conditions::Simple(conds) => {
                for cond in conds {
                    current = self.route_simple(cond, current, invocation);
                }
            }
            Conditions::MultiDest(conds) => {
                for cond in conds {
                    current = self.route_multi(cond, current, invocation);
                }
            }
        }
        current
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn priority(&self) -> i32 {
        self.rule.scope.priority()
    }

    fn notify(&self, _snapshot: &InvokerList) {}

    fn cache_key(&self, invocation: &Invocation, key: &mut String) -> bool {
        if !self.cacheable {
            return false;
        }
        if !self.rule.enabled {
            return true;
        }
        push_part(key, Some(invocation.method_name()));
        for k in &self.attachment_keys {
            push_part(key, attachment_text(invocation, k).as_deref());
        }
        true
    }
}

/// Appends one key part, length-prefixed so that parts cannot run into each other.
pub(crate) fn push_part(key: &mut String, part: Option<&str>) {
    match part {
        Some(p) => {
            // Without the formatting machinery: this runs on every routed call.
            let mut digits = [0u8; 20];
            let mut at = digits.len();
            let mut n = p.len();
            loop {
                at -= 1;
                digits[at] = b'0' + (n % 10) as u8;
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            for &d in &digits[at..] {
                key.push(char::from(d));
            }
            key.push(':');
            key.push_str(p);
            key.push('|');
        }
        None => key.push_str("-|"),
    }
}

#[cfg(test)]
mod tests {
    use super::push_part;

    #[test]
    fn key_parts_are_length_prefixed() {
        let mut key = String::new();
        push_part(&mut key, Some("sayHello"));
        push_part(&mut key, None);
        push_part(&mut key, Some(""));
        push_part(&mut key, Some(&"x".repeat(1234)));
        assert_eq!(key, format!("8:sayHello|-|0:|1234:{}|", "x".repeat(1234)));
    }
}
