//! Condition router, tag router and router chain behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use dubbo_cluster::router::{ConditionRouter, RouteError, RouterChain, TagRouter, TagRule};
use dubbo_core::{
    Invocation, Invoker, InvokerList, MethodSignature, Router, RpcResponse, RpcResult, ServiceKey,
    Value,
};
use dubbo_url::Url;

struct Provider(Url);

impl Invoker for Provider {
    fn invoke(&self, _: Invocation) -> dubbo_core::BoxFuture<'_, RpcResult> {
        Box::pin(async { Ok(RpcResponse::new(Value::Null)) })
    }
    fn url(&self) -> &Url {
        &self.0
    }
}

fn provider(url: &str) -> Arc<dyn Invoker> {
    Arc::new(Provider(Url::parse(url).unwrap()))
}

fn consumer() -> Url {
    Url::parse("consumer://10.0.0.9/com.foo.BarService?application=shop&env=gray&region=hz")
        .unwrap()
}

fn call(method: &str, args: Vec<Value>) -> Invocation {
    Invocation::new(
        ServiceKey::interface_only("com.foo.BarService"),
        Arc::new(MethodSignature::new::<&str>(method, &[], "void")),
        args,
    )
}

fn hosts(list: &[Arc<dyn Invoker>]) -> Vec<String> {
    list.iter().map(|i| i.url().address()).collect()
}

fn three() -> InvokerList {
    vec![
        provider("dubbo://10.20.153.10:20880/com.foo.BarService?region=hz&env=gray"),
        provider("dubbo://10.20.153.11:20880/com.foo.BarService?region=sh"),
        provider("dubbo://10.30.0.1:20881/com.foo.BarService?region=bj&dubbo.tag=blue"),
    ]
    .into()
}

fn condition(rule: &str) -> ConditionRouter {
    let yaml = format!("configVersion: v3.0\nscope: service\nkey: com.foo.BarService\nforce: false\nconditions:\n  - \"{rule}\"\n");
    ConditionRouter::from_yaml(&yaml, consumer()).unwrap()
}

fn route(rule: &str, inv: &Invocation) -> Vec<String> {
    hosts(&condition(rule).route(&three(), inv))
}

#[test]
fn method_wildcard_selects_hosts() {
    let r = "method = find* => host = 10.20.*";
    assert_eq!(
        route(r, &call("findAll", vec![])),
        ["10.20.153.10:20880", "10.20.153.11:20880"]
    );
    assert_eq!(
        route(r, &call("save", vec![])).len(),
        3,
        "when does not match"
    );
}

#[test]
fn value_lists_and_not_equal() {
    assert_eq!(
        route("=> host = 10.20.153.10,10.30.0.1", &call("m", vec![])),
        ["10.20.153.10:20880", "10.30.0.1:20881"]
    );
    assert_eq!(
        route("=> host != 10.20.153.10", &call("m", vec![])),
        ["10.20.153.11:20880", "10.30.0.1:20881"]
    );
    // `!=` wins over `=` for the same value; `&` joins terms.
    assert_eq!(
        route(
            "=> host = 10.20.* & host != 10.20.153.11",
            &call("m", vec![])
        ),
        ["10.20.153.10:20880"]
    );
}

#[test]
fn suffix_contains_port_and_url_parameters() {
    assert_eq!(
        route("=> host = *.11", &call("m", vec![])),
        ["10.20.153.11:20880"]
    );
    assert_eq!(
        route("=> host = 10.*.1", &call("m", vec![])),
        ["10.30.0.1:20881"]
    );
    assert_eq!(
        route("=> port = 20881", &call("m", vec![])),
        ["10.30.0.1:20881"]
    );
    assert_eq!(
        route("=> region = sh", &call("m", vec![])),
        ["10.20.153.11:20880"]
    );
    assert_eq!(
        route("=> address = *:20881", &call("m", vec![])),
        ["10.30.0.1:20881"]
    );
    // Left side reads the consumer URL; `consumer.`/`provider.` prefixes are dropped.
    assert_eq!(
        route(
            "consumer.application = shop => provider.region = bj",
            &call("m", vec![])
        ),
        ["10.30.0.1:20881"]
    );
    assert_eq!(
        route("application = other => region = bj", &call("m", vec![])).len(),
        3
    );
    // `$param`: the provider's region equals the consumer's.
    assert_eq!(
        route("=> region = $region", &call("m", vec![])),
        ["10.20.153.10:20880"]
    );
}

#[test]
fn arguments_attachments_and_ranges() {
    let r = "arguments[0] = vip => region = hz";
    assert_eq!(
        route(r, &call("m", vec!["vip".into()])),
        ["10.20.153.10:20880"]
    );
    assert_eq!(route(r, &call("m", vec!["normal".into()])).len(), 3);
    assert_eq!(route(r, &call("m", vec![])).len(), 3, "missing argument");
    let r = "arguments[1] = 1~10 => region = sh";
    assert_eq!(
        route(r, &call("m", vec![Value::Null, Value::Int(7)])),
        ["10.20.153.11:20880"]
    );
    assert_eq!(
        route(r, &call("m", vec![Value::Null, Value::Int(70)])).len(),
        3
    );
    let r = "attachments[user] = alice => region = bj";
    let inv = call("m", vec![]).with_attachment("user", "alice");
    assert_eq!(route(r, &inv), ["10.30.0.1:20881"]);
    assert_eq!(
        route(r, &call("m", vec![])).len(),
        3,
        "absent attachment never matches"
    );
}

#[test]
fn force_and_blocking() {
    let inv = call("m", vec![]);
    // Non-force: nothing matches, the list is kept.
    assert_eq!(route("=> region = nowhere", &inv).len(), 3);
    let forced = ConditionRouter::from_yaml(
        "force: true\nconditions: ['=> region = nowhere']",
        consumer(),
    )
    .unwrap();
    assert!(forced.route(&three(), &inv).is_empty());
    // `=> false` (or nothing) blocks matching calls whatever force says.
    assert!(route("method = m => false", &inv).is_empty());
    assert!(route("method = m =>", &inv).is_empty());
    let disabled =
        ConditionRouter::from_yaml("enabled: false\nconditions: ['=> false']", consumer()).unwrap();
    assert_eq!(disabled.route(&three(), &inv).len(), 3);
}

#[test]
fn bad_rules_are_refused() {
    let c = consumer();
    assert!(ConditionRouter::from_yaml("conditions: ['= a => host = b']", c.clone()).is_err());
    assert!(ConditionRouter::from_yaml("conditions: ['host => , b']", c.clone()).is_err());
    assert!(ConditionRouter::from_yaml("conditions: []", c.clone()).is_err());
    assert!(
        ConditionRouter::from_yaml("configVersion: v3.2\nconditions: ['=> a=b']", c.clone())
            .is_err()
    );
    assert!(ConditionRouter::from_yaml("conditions: [ unclosed", c.clone()).is_err());
    let err = ConditionRouter::from_yaml("priority: high\nconditions: ['=> a=b']", c).unwrap_err();
    assert!(err.to_string().contains("priority"), "{err}");
}

const V31: &str = "configVersion: v3.1
scope: service
key: com.foo.BarService
force: false
conditions:
  - from:
      match: method = weighted
    to:
      - match: region = hz
        weight: 30
      - match: region = sh
        weight: 70
  - from:
      match: method = blocked
";

#[test]
fn v31_weighted_destinations() {
    let router = ConditionRouter::from_yaml(V31, consumer()).unwrap();
    let inv = call("weighted", vec![]);
    let mut hz = 0;
    let n = 10_000;
    for _ in 0..n {
        let r = router.route(&three(), &inv);
        assert_eq!(r.len(), 1);
        if r[0].url().parameter("region") == Some("hz") {
            hz += 1;
        }
    }
    let share = f64::from(hz) / f64::from(n);
    assert!((0.27..0.33).contains(&share), "hz share {share}");
    // A `from` without `to` disables traffic; other methods pass through.
    assert!(router.route(&three(), &call("blocked", vec![])).is_empty());
    assert_eq!(router.route(&three(), &call("other", vec![])).len(), 3);
}

fn tagged() -> InvokerList {
    vec![
        provider("dubbo://10.0.0.1:20880/S?env=gray"),
        provider("dubbo://10.0.0.2:20880/S?dubbo.tag=blue"),
        provider("dubbo://10.0.0.3:20880/S"),
    ]
    .into()
}

fn tag_route(router: &TagRouter, inv: &Invocation) -> Vec<String> {
    hosts(&router.route(&tagged(), inv))
}

#[test]
fn static_tags_and_fallback() {
    let router = TagRouter::new(Url::parse("consumer://10.0.0.9/S").unwrap());
    let blue = call("m", vec![]).with_attachment("dubbo.tag", "blue");
    assert_eq!(tag_route(&router, &blue), ["10.0.0.2:20880"]);
    // No request tag: untagged providers only.
    assert_eq!(
        tag_route(&router, &call("m", vec![])),
        ["10.0.0.1:20880", "10.0.0.3:20880"]
    );
    // A tag nobody has: untagged providers, unless forced.
    let red = call("m", vec![]).with_attachment("dubbo.tag", "red");
    assert_eq!(
        tag_route(&router, &red),
        ["10.0.0.1:20880", "10.0.0.3:20880"]
    );
    let forced = red.clone().with_attachment("dubbo.force.tag", "true");
    assert!(tag_route(&router, &forced).is_empty());
    // The consumer URL's dubbo.tag is the default request tag.
    let by_url = TagRouter::new(Url::parse("consumer://10.0.0.9/S?dubbo.tag=blue").unwrap());
    assert_eq!(tag_route(&by_url, &call("m", vec![])), ["10.0.0.2:20880"]);
}

#[test]
fn tag_rules_with_addresses_and_match() {
    let router = TagRouter::new(Url::parse("consumer://10.0.0.9/S").unwrap());
    let rule = TagRule::from_yaml(
        "configVersion: v3.0
force: false
key: demo-provider
tags:
  - name: gray
    match:
      - key: env
        value: {exact: gray}
  - name: canary
    addresses: ['10.0.0.3:20880']
",
    )
    .unwrap();
    router.set_rule(Some(rule));
    router.notify(&tagged());
    let gray = call("m", vec![]).with_attachment("dubbo.tag", "gray");
    assert_eq!(tag_route(&router, &gray), ["10.0.0.1:20880"]);
    let canary = call("m", vec![]).with_attachment("dubbo.tag", "canary");
    assert_eq!(tag_route(&router, &canary), ["10.0.0.3:20880"]);
    // No tag: neither dynamically tagged addresses nor statically tagged providers.
    assert!(tag_route(&router, &call("m", vec![])).is_empty());
    // Static tags still work next to the rule.
    let blue = call("m", vec![]).with_attachment("dubbo.tag", "blue");
    assert_eq!(tag_route(&router, &blue), ["10.0.0.2:20880"]);
    // Hierarchical tag: `canary|x` falls back to `canary`.
    let nested = call("m", vec![]).with_attachment("dubbo.tag", "canary|x");
    assert_eq!(tag_route(&router, &nested), ["10.0.0.3:20880"]);
}

#[test]
fn a_runtime_tag_rule_is_never_cached_and_its_removal_caches_again() {
    let router = TagRouter::new(Url::parse("consumer://10.0.0.9/S").unwrap());
    let inv = call("m", vec![]).with_attachment("dubbo.tag", "canary");
    let mut key = String::new();
    assert!(router.cache_key(&inv, &mut key), "no rule: cacheable");
    assert_eq!(key, "6:canary|-|");
    let rule = |runtime: bool| {
        TagRule::from_yaml(&format!(
            "configVersion: v3.0
runtime: {runtime}
key: demo-provider
tags:
  - name: canary
    addresses: ['10.0.0.3:20880']
"
        ))
        .unwrap()
    };
    router.set_rule(Some(rule(true)));
    assert!(!router.cache_key(&inv, &mut String::new()), "runtime rule");
    router.set_rule(Some(rule(false)));
    assert!(
        router.cache_key(&inv, &mut String::new()),
        "rule without runtime"
    );
    router.set_rule(Some(rule(true)));
    router.set_rule(None);
    assert!(router.cache_key(&inv, &mut String::new()), "rule removed");
}

#[test]
fn tag_rule_regex_prefix_and_bad_yaml() {
    let rule = TagRule::from_yaml(
        "configVersion: v3.0\ntags:\n  - name: g\n    match: [{key: env, value: {regex: 'gr.y'}}]\n",
    )
    .unwrap();
    let router = TagRouter::new(Url::parse("consumer://10.0.0.9/S").unwrap());
    router.set_rule(Some(rule));
    router.notify(&tagged());
    let g = call("m", vec![]).with_attachment("dubbo.tag", "g");
    assert_eq!(tag_route(&router, &g), ["10.0.0.1:20880"]);
    assert!(TagRule::from_yaml("tags: []").is_err());
    assert!(TagRule::from_yaml(
        "configVersion: v3.0\ntags:\n  - name: g\n    match: [{key: env, value: {regex: '('}}]\n"
    )
    .is_err());
}

/// A router that counts its evaluations and keeps every provider.
struct Counting {
    calls: AtomicUsize,
    notified: AtomicUsize,
    priority: i32,
}

impl Router for Counting {
    fn route(&self, invokers: &[Arc<dyn Invoker>], _: &Invocation) -> Vec<Arc<dyn Invoker>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        invokers.to_vec()
    }
    fn name(&self) -> &str {
        "counting"
    }
    fn priority(&self) -> i32 {
        self.priority
    }
    fn notify(&self, _: &InvokerList) {
        self.notified.fetch_add(1, Ordering::Relaxed);
    }
    fn cache_key(&self, invocation: &Invocation, key: &mut String) -> bool {
        key.push_str(invocation.method_name());
        true
    }
}

#[test]
fn chain_caches_per_snapshot_and_key() {
    let chain = RouterChain::for_consumer(consumer());
    let counter = Arc::new(Counting {
        calls: AtomicUsize::new(0),
        notified: AtomicUsize::new(0),
        priority: 0,
    });
    chain.set_routers(vec![counter.clone()]);
    let snapshot = three();
    for _ in 0..10 {
        chain.route(&snapshot, &call("a", vec![])).unwrap();
        chain.route(&snapshot, &call("b", vec![])).unwrap();
    }
    assert_eq!(counter.calls.load(Ordering::Relaxed), 2, "once per key");
    assert_eq!(counter.notified.load(Ordering::Relaxed), 1);
    let next = three();
    for _ in 0..5 {
        chain.route(&next, &call("a", vec![])).unwrap();
    }
    assert_eq!(
        counter.calls.load(Ordering::Relaxed),
        3,
        "new snapshot, routed again"
    );
    assert_eq!(counter.notified.load(Ordering::Relaxed), 2);
    // A rule change drops the cache.
    chain
        .set_condition_rule_yaml("conditions: ['=> region = hz']")
        .unwrap();
    chain.route(&next, &call("a", vec![])).unwrap();
    assert_eq!(counter.calls.load(Ordering::Relaxed), 4);
    // A rule reading arguments is routed per call (after the cached head).
    chain
        .set_condition_rule_yaml("conditions: ['arguments[0] = x => region = sh']")
        .unwrap();
    let before = counter.calls.load(Ordering::Relaxed);
    for _ in 0..3 {
        chain.route(&next, &call("a", vec!["x".into()])).unwrap();
    }
    assert_eq!(counter.calls.load(Ordering::Relaxed), before + 1);
}

#[test]
fn chain_orders_by_priority_and_names_the_emptying_router() {
    let chain = RouterChain::for_consumer(consumer());
    chain
        .set_condition_rule_yaml(
            "key: com.foo.BarService\nforce: true\nconditions: ['=> region = hz']",
        )
        .unwrap();
    // Tag router (100) runs before the service rule (140): no tag → untagged providers.
    let routed = chain.route(&three(), &call("m", vec![])).unwrap();
    assert_eq!(hosts(&routed), ["10.20.153.10:20880"]);
    // A blue call: the tag router keeps the blue provider, the forced rule then empties it.
    let blue = call("m", vec![]).with_attachment("dubbo.tag", "blue");
    let Err(err) = chain.route(&three(), &blue) else {
        panic!("the forced rule empties the list")
    };
    let RouteError::Emptied {
        service,
        router,
        before,
        reason,
    } = &err;
    assert_eq!(*reason, None, "a condition router says nothing more");
    assert_eq!(service, "com.foo.BarService");
    assert_eq!(router, "condition(com.foo.BarService)");
    assert_eq!(*before, 3);
    assert!(
        err.to_string().contains("condition(com.foo.BarService)"),
        "{err}"
    );
    // Same again from the cache.
    assert_eq!(chain.route(&three(), &blue).err(), Some(err));
}

#[test]
fn bad_yaml_keeps_the_previous_rules() {
    let chain = RouterChain::for_consumer(consumer());
    chain
        .set_condition_rule_yaml("conditions: ['=> region = hz']")
        .unwrap();
    let snapshot = three();
    let before = hosts(&chain.route(&snapshot, &call("m", vec![])).unwrap());
    assert!(chain
        .set_condition_rule_yaml("conditions: ['=> = hz']")
        .is_err());
    assert!(chain.set_condition_rule_yaml("conditions: {oops").is_err());
    assert!(chain.set_tag_rule_yaml("tags: not-a-list").is_err());
    assert_eq!(
        hosts(&chain.route(&snapshot, &call("m", vec![])).unwrap()),
        before
    );
}

#[test]
fn empty_chain_passes_everything() {
    let chain = RouterChain::new();
    assert_eq!(chain.route(&three(), &call("m", vec![])).unwrap().len(), 3);
}

#[test]
fn a_chain_that_keeps_everyone_hands_on_the_snapshot_itself() {
    let chain = RouterChain::for_consumer(consumer());
    let untagged: InvokerList = vec![
        provider("dubbo://10.20.153.10:20880/com.foo.BarService"),
        provider("dubbo://10.20.153.11:20880/com.foo.BarService"),
    ]
    .into();
    // The tag router, with no tag on the call nor on the providers, keeps both: the result
    // is the snapshot's own allocation, for every method.
    for method in ["a", "b", "a"] {
        let routed = chain.route(&untagged, &call(method, vec![])).unwrap();
        assert!(Arc::ptr_eq(&routed, &untagged), "{method}");
    }
    // A rule that narrows the list gives a list of its own.
    chain
        .set_condition_rule_yaml("conditions: ['=> host = 10.20.153.10']")
        .unwrap();
    let routed = chain.route(&untagged, &call("a", vec![])).unwrap();
    assert_eq!(hosts(&routed), ["10.20.153.10:20880"]);
    assert!(!Arc::ptr_eq(&routed, &untagged));
}

#[test]
fn a_forced_tag_that_matches_nothing_is_named_in_the_error() {
    let chain = RouterChain::for_consumer(consumer());
    let red = call("m", vec![])
        .with_attachment("dubbo.tag", "red")
        .with_attachment("dubbo.force.tag", "true");
    let Err(err) = chain.route(&three(), &red) else {
        panic!("no provider has tag red")
    };
    let RouteError::Emptied { router, reason, .. } = &err;
    assert_eq!(router, "tag");
    let text = err.to_string();
    assert!(text.contains("tag `red`"), "{text}");
    assert!(text.contains("dubbo.force.tag=true"), "{text}");
    assert!(reason.as_deref().is_some_and(|r| r.contains("red")));
}
