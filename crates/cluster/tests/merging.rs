//! Multi-group references: one provider per group, results merged (`merger`), over in-process
//! fake providers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use dubbo_cluster::merger::{register_mergers, Merger};
use dubbo_cluster::router::RouterChain;
use dubbo_cluster::strategy::register_strategies;
use dubbo_cluster::ClusterInvoker;
use dubbo_core::{
    invoker_fn, ErrorCode, Extensions, Invocation, Invoker, MethodSignature, RpcError, RpcResponse,
    ServiceKey, StaticDirectory, Value,
};
use dubbo_hessian2::List;
use dubbo_url::Url;

const SERVICE: &str = "org.example.Catalog";

fn extensions() -> Extensions {
    let ext = Extensions::new();
    register_strategies(&ext);
    register_mergers(&ext);
    ext
}

fn strings(items: &[&str]) -> Value {
    Value::List(List {
        type_name: None,
        items: items
            .iter()
            .map(|s| Value::String((*s).to_owned()))
            .collect(),
    })
}

/// A provider of `group` answering `answer`; records the group each call was addressed to.
fn provider(
    port: u16,
    group: &str,
    answer: Result<Value, RpcError>,
    seen: Arc<Mutex<Vec<String>>>,
) -> Arc<dyn Invoker> {
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:{port}/{SERVICE}?interface={SERVICE}&group={group}"
    ))
    .unwrap();
    Arc::new(invoker_fn(url, move |inv: Invocation| {
        seen.lock()
            .unwrap()
            .push(inv.service().group().unwrap_or("").to_owned());
        let answer = answer.clone();
        async move { answer.map(RpcResponse::new) }
    }))
}

fn reference(query: &str, providers: Vec<Arc<dyn Invoker>>, ext: &Extensions) -> ClusterInvoker {
    let url = Url::parse(&format!(
        "consumer://127.0.0.1/{SERVICE}?interface={SERVICE}&{query}"
    ))
    .unwrap();
    let dir = Arc::new(StaticDirectory::new(url, providers));
    ClusterInvoker::new(dir, Arc::new(RouterChain::new()), ext).unwrap()
}

fn call(method: &str, return_type: &str) -> Invocation {
    Invocation::new(
        ServiceKey::new(SERVICE, Some("*"), None),
        Arc::new(MethodSignature::new(method, &[] as &[&str], return_type)),
        vec![],
    )
}

#[tokio::test]
async fn merger_true_merges_lists_of_every_group() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let providers = vec![
        provider(1, "b", Ok(strings(&["b1"])), seen.clone()),
        provider(2, "a", Ok(strings(&["a1", "a2"])), seen.clone()),
        provider(3, "a", Ok(strings(&["a1", "a2"])), seen.clone()),
    ];
    let reference = reference("group=*&merger=true", providers, &extensions());
    let r = reference
        .invoke(call("list", "java.util.List"))
        .await
        .unwrap();
    // Groups in name order; one provider of group a answered, not both.
    assert_eq!(r.value, strings(&["a1", "a2", "b1"]));
    let mut groups = seen.lock().unwrap().clone();
    groups.sort();
    assert_eq!(groups, ["a", "b"], "each call addressed to its group");
}

#[tokio::test]
async fn without_a_merger_one_group_answers() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let providers = vec![
        provider(1, "a", Ok(strings(&["a"])), seen.clone()),
        provider(2, "b", Ok(strings(&["b"])), seen.clone()),
    ];
    let reference = reference("group=a,b", providers, &extensions());
    let r = reference
        .invoke(call("list", "java.util.List"))
        .await
        .unwrap();
    assert_eq!(r.value, strings(&["a"]));
    assert_eq!(*seen.lock().unwrap(), ["a"]);
}

#[tokio::test]
async fn a_method_level_merger_and_a_named_one() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let set = |items: &[&str]| match strings(items) {
        Value::List(mut l) => {
            l.type_name = Some("java.util.HashSet".into());
            Value::List(l)
        }
        v => v,
    };
    let providers = vec![
        provider(1, "a", Ok(set(&["x", "y"])), seen.clone()),
        provider(2, "b", Ok(set(&["y", "z"])), seen.clone()),
    ];
    let reference = reference("group=*&tags.merger=set", providers, &extensions());
    let r = reference
        .invoke(call("tags", "java.util.Collection"))
        .await
        .unwrap();
    assert_eq!(r.value, set(&["x", "y", "z"]));
    // Another method of the same reference has no merger: one group.
    seen.lock().unwrap().clear();
    reference
        .invoke(call("other", "java.util.Collection"))
        .await
        .unwrap();
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_user_merger_registered_by_name() {
    struct Sum;
    impl Merger for Sum {
        fn merge(&self, results: Vec<Value>) -> Result<Value, RpcError> {
            let total = results
                .iter()
                .map(|v| match v {
                    Value::Int(i) => *i,
                    _ => 0,
                })
                .sum();
            Ok(Value::Int(total))
        }
    }
    let ext = extensions();
    ext.register::<dyn Merger>("sum", Arc::new(Sum));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let providers = vec![
        provider(1, "a", Ok(Value::Int(2)), seen.clone()),
        provider(2, "b", Ok(Value::Int(3)), seen.clone()),
        provider(3, "c", Ok(Value::Null), seen.clone()),
    ];
    let reference = reference("group=*&merger=sum", providers, &ext);
    let r = reference.invoke(call("count", "int")).await.unwrap();
    assert_eq!(r.value, Value::Int(5), "null results are left out");
}

#[tokio::test]
async fn a_business_exception_leaves_its_group_out_and_a_framework_failure_fails_the_call() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let providers = vec![
        provider(1, "a", Ok(strings(&["a"])), seen.clone()),
        provider(
            2,
            "b",
            Err(RpcError::business("java.lang.IllegalStateException", "no")),
            seen.clone(),
        ),
        provider(3, "c", Ok(strings(&["c"])), seen.clone()),
    ];
    let merging = reference("group=*&merger=list", providers, &extensions());
    let r = merging
        .invoke(call("list", "java.util.List"))
        .await
        .unwrap();
    assert_eq!(r.value, strings(&["a", "c"]));

    let providers = vec![
        provider(1, "a", Ok(strings(&["a"])), seen.clone()),
        provider(
            2,
            "b",
            Err(RpcError::framework(ErrorCode::Network, "refused")),
            seen.clone(),
        ),
    ];
    let reference = reference("group=*&merger=list", providers, &extensions());
    let e = reference
        .invoke(call("list", "java.util.List"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Network));
}

#[tokio::test]
async fn merger_true_without_a_merger_for_the_type_is_a_config_error() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let providers = vec![
        provider(1, "a", Ok(Value::Int(1)), seen.clone()),
        provider(2, "b", Ok(Value::Int(2)), seen.clone()),
    ];
    let reference = reference("group=*&merger=true", providers, &extensions());
    let e = reference.invoke(call("count", "int")).await.unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Config));
    assert!(e.message().contains("int"), "{e}");
}

#[test]
fn unknown_and_java_only_mergers_are_refused_when_the_reference_is_made() {
    for query in ["group=*&merger=nope", "group=a,b&list.merger=.addAll"] {
        let url = Url::parse(&format!(
            "consumer://127.0.0.1/{SERVICE}?interface={SERVICE}&{query}"
        ))
        .unwrap();
        let dir = Arc::new(StaticDirectory::new(url, vec![]));
        let Err(e) = ClusterInvoker::new(dir, Arc::new(RouterChain::new()), &extensions()) else {
            panic!("{query}: accepted");
        };
        assert_eq!(e.code(), Some(ErrorCode::Config), "{query}");
        assert!(e.message().contains("merger"), "{query}: {e}");
    }
}

#[tokio::test]
async fn a_failing_provider_fails_over_within_its_group() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    for _ in 0..5 {
        let providers = vec![
            provider(
                1,
                "a",
                Err(RpcError::framework(ErrorCode::Network, "refused")),
                seen.clone(),
            ),
            provider(2, "a", Ok(strings(&["a"])), seen.clone()),
            provider(3, "b", Ok(strings(&["b"])), seen.clone()),
        ];
        let merging = reference("group=*&merger=list", providers, &extensions());
        let r = merging
            .invoke(call("list", "java.util.List"))
            .await
            .unwrap();
        assert_eq!(r.value, strings(&["a", "b"]));
    }
    // With no retries, a pick of the failing provider fails the call.
    let providers = vec![
        provider(
            1,
            "a",
            Err(RpcError::framework(ErrorCode::Network, "refused")),
            seen.clone(),
        ),
        provider(3, "b", Ok(strings(&["b"])), seen.clone()),
    ];
    let merging = reference("group=*&merger=list&retries=0", providers, &extensions());
    let e = merging
        .invoke(call("list", "java.util.List"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Network));
}
