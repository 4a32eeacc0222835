//! The dynamic directory: registry notifications diffed against the known providers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_cluster::directory::{DynamicDirectory, InvokerFactory};
use dubbo_cluster::router::RouterChain;
use dubbo_core::{
    invoker_fn, BoxFuture, Directory, ErrorCode, ExportTable, FnInvoker, Invocation, Invoker,
    MethodSignature, Protocol, RpcError, RpcResponse, RpcResult, ServiceKey, Value,
};
use dubbo_protocol_dubbo::{DubboProtocol, DubboServer, ServerConfig};
use dubbo_url::Url;

const SERVICE: &str = "org.example.Greeter";

type Handler = fn(Invocation) -> std::future::Ready<RpcResult>;

fn answer(_inv: Invocation) -> std::future::Ready<RpcResult> {
    std::future::ready(Ok(RpcResponse::new(Value::Null)))
}

/// An `invoker_fn` invoker that records being destroyed and can be marked unavailable.
struct Tracked {
    inner: FnInvoker<Handler>,
    up: AtomicBool,
    destroyed: AtomicBool,
}

impl Invoker for Tracked {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        self.inner.invoke(invocation)
    }
    fn url(&self) -> &Url {
        self.inner.url()
    }
    fn is_available(&self) -> bool {
        self.up.load(Ordering::SeqCst) && !self.destroyed.load(Ordering::SeqCst)
    }
    fn destroy(&self) {
        self.destroyed.store(true, Ordering::SeqCst);
    }
}

/// A factory counting its calls, keeping what it made, failing for one port and slow for
/// another.
#[derive(Default)]
struct Fake {
    calls: AtomicUsize,
    created: Mutex<Vec<Url>>,
    made: Mutex<Vec<Arc<Tracked>>>,
    fail_port: Option<u16>,
    slow_port: Option<u16>,
}

impl Fake {
    fn made_for(&self, port: u16) -> Vec<Arc<Tracked>> {
        self.made
            .lock()
            .unwrap()
            .iter()
            .filter(|t| t.url().port() == port)
            .cloned()
            .collect()
    }
}

struct FakeFactory(Arc<Fake>);

impl InvokerFactory for FakeFactory {
    fn create(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>> {
        Box::pin(async move {
            let fake = &self.0;
            fake.calls.fetch_add(1, Ordering::SeqCst);
            fake.created.lock().unwrap().push(url.clone());
            if fake.slow_port == Some(url.port()) {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            if fake.fail_port == Some(url.port()) {
                return Err(RpcError::framework(ErrorCode::Network, "refused"));
            }
            let t = Arc::new(Tracked {
                inner: invoker_fn(url, answer as Handler),
                up: AtomicBool::new(true),
                destroyed: AtomicBool::new(false),
            });
            fake.made.lock().unwrap().push(t.clone());
            Ok(t as Arc<dyn Invoker>)
        })
    }
}

fn consumer() -> Url {
    Url::parse(&format!(
        "consumer://127.0.0.1/{SERVICE}?interface={SERVICE}"
    ))
    .unwrap()
}

fn url(port: u16, extra: &str) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:{port}/{SERVICE}?interface={SERVICE}{extra}"
    ))
    .unwrap()
}

fn directory(fake: &Arc<Fake>) -> DynamicDirectory {
    DynamicDirectory::new(consumer(), Arc::new(FakeFactory(fake.clone())))
}

fn call() -> Invocation {
    Invocation::new(
        ServiceKey::interface_only(SERVICE),
        Arc::new(MethodSignature::new(
            "sayHello",
            &["java.lang.String"],
            "java.lang.String",
        )),
        vec!["x".into()],
    )
}

fn ports(list: &[Arc<dyn Invoker>]) -> Vec<u16> {
    let mut p: Vec<u16> = list.iter().map(|i| i.url().port()).collect();
    p.sort_unstable();
    p
}

#[tokio::test]
async fn adds_removes_and_rebuilds_changed_providers() {
    let fake = Arc::new(Fake::default());
    let dir = directory(&fake);
    let first = dir
        .notify(vec![
            url(1, "&timestamp=1"),
            url(2, ""),
            url(3, "&weight=100"),
        ])
        .await;
    assert_eq!(first.added, 3);
    assert_eq!(ports(&dir.all()), vec![1, 2, 3]);
    assert_eq!(fake.calls.load(Ordering::SeqCst), 3);
    let before = dir.all();

    // 1: only its timestamp moves (unchanged); 2: removed; 3: weight changed; 4: added.
    let second = dir
        .notify(vec![
            url(1, "&timestamp=2"),
            url(3, "&weight=50"),
            url(4, ""),
        ])
        .await;
    assert_eq!(
        (
            second.added,
            second.changed,
            second.unchanged,
            second.removed
        ),
        (1, 1, 1, 1)
    );
    assert!(second.failed.is_empty());
    let after = dir.all();
    assert_eq!(ports(&after), vec![1, 3, 4]);
    assert_eq!(fake.calls.load(Ordering::SeqCst), 5, "3 and 4 built, 1 not");
    let created = fake.created.lock().unwrap().clone();
    assert!(!created[3..].iter().any(|u| u.port() == 1));

    let same = |port: u16, list: &[Arc<dyn Invoker>]| {
        list.iter()
            .find(|i| i.url().port() == port)
            .cloned()
            .unwrap()
    };
    assert!(Arc::ptr_eq(&same(1, &before), &same(1, &after)));
    assert!(!Arc::ptr_eq(&same(3, &before), &same(3, &after)));
    assert_eq!(same(3, &after).url().parameter("weight"), Some("50"));

    assert!(fake.made_for(2)[0].destroyed.load(Ordering::SeqCst));
    let threes = fake.made_for(3);
    assert!(
        threes[0].destroyed.load(Ordering::SeqCst),
        "old 3 destroyed"
    );
    assert!(!threes[1].destroyed.load(Ordering::SeqCst), "new 3 live");
    assert!(!fake.made_for(1)[0].destroyed.load(Ordering::SeqCst));
    assert_eq!(before.len(), 3, "an earlier snapshot is unchanged");
}

#[tokio::test]
async fn a_failing_provider_is_left_out_and_the_rest_applies() {
    let fake = Arc::new(Fake {
        fail_port: Some(2),
        ..Fake::default()
    });
    let dir = directory(&fake);
    let outcome = dir.notify(vec![url(1, ""), url(2, ""), url(3, "")]).await;
    assert_eq!(outcome.added, 2);
    assert_eq!(outcome.failed.len(), 1);
    assert_eq!(outcome.failed[0].port(), 2);
    assert_eq!(ports(&dir.list(&call())), vec![1, 3]);

    // It is retried on the next notification (and still fails); the others are kept.
    let again = dir.notify(vec![url(1, ""), url(2, ""), url(3, "")]).await;
    assert_eq!((again.unchanged, again.failed.len()), (2, 1));
    assert_eq!(fake.calls.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn list_skips_unavailable_providers_until_they_recover() {
    let fake = Arc::new(Fake::default());
    let dir = directory(&fake);
    dir.notify(vec![url(1, ""), url(2, "")]).await;
    let two = fake.made_for(2)[0].clone();
    two.up.store(false, Ordering::SeqCst);
    assert_eq!(ports(&dir.list(&call())), vec![1]);
    assert_eq!(dir.all().len(), 2);
    two.up.store(true, Ordering::SeqCst);
    assert_eq!(ports(&dir.list(&call())), vec![1, 2]);
}

#[tokio::test]
async fn an_empty_push_clears_but_a_plain_empty_list_is_ignored() {
    let fake = Arc::new(Fake::default());
    let dir = directory(&fake);
    dir.notify(vec![url(1, "")]).await;

    let plain = dir.notify(Vec::new()).await;
    assert!(plain.ignored);
    assert_eq!(dir.all().len(), 1, "empty protection keeps the providers");
    assert!(!dir.is_forbidden());

    let empty = Url::parse(&format!("empty://127.0.0.1/{SERVICE}?category=providers")).unwrap();
    let cleared = dir.notify(vec![empty]).await;
    assert_eq!(cleared.removed, 1);
    assert!(dir.all().is_empty());
    assert!(dir.is_forbidden());
    assert!(fake.made_for(1)[0].destroyed.load(Ordering::SeqCst));

    dir.notify(vec![url(1, "")]).await;
    assert!(!dir.is_forbidden());
    assert_eq!(dir.all().len(), 1);

    let unprotected = directory(&fake).with_empty_protection(false);
    unprotected.notify(vec![url(5, "")]).await;
    unprotected.notify(Vec::new()).await;
    assert!(unprotected.all().is_empty());
    assert!(unprotected.is_forbidden());
}

#[tokio::test(start_paused = true)]
async fn concurrent_notifications_apply_in_order() {
    let fake = Arc::new(Fake {
        slow_port: Some(1),
        ..Fake::default()
    });
    let dir = directory(&fake);
    // The first holds the writer while its slow provider is built; the second waits.
    let (a, b) = tokio::join!(
        dir.notify(vec![url(1, ""), url(2, "")]),
        dir.notify(vec![url(3, "")]),
    );
    assert_eq!(a.added, 2);
    assert_eq!((b.added, b.removed), (1, 2));
    assert_eq!(ports(&dir.all()), vec![3]);
    let created: Vec<u16> = fake
        .created
        .lock()
        .unwrap()
        .iter()
        .map(|u| u.port())
        .collect();
    assert_eq!(created.last(), Some(&3));
    assert!(fake.made_for(1)[0].destroyed.load(Ordering::SeqCst));
}

#[tokio::test]
async fn destroy_releases_everything_and_later_notifications_are_ignored() {
    let fake = Arc::new(Fake::default());
    let dir = directory(&fake).with_router_chain(Arc::new(RouterChain::new()));
    dir.notify(vec![url(1, ""), url(2, "")]).await;
    assert!(dir.is_available());
    dir.destroy();
    assert!(dir.all().is_empty());
    assert!(fake
        .made
        .lock()
        .unwrap()
        .iter()
        .all(|t| t.destroyed.load(Ordering::SeqCst)));
    assert!(dir.notify(vec![url(3, "")]).await.ignored);
    assert!(dir.all().is_empty());
}

async fn server(id: u16) -> DubboServer {
    let exports = ExportTable::new();
    let url = Url::parse(&format!("dubbo://127.0.0.1:0/{SERVICE}")).unwrap();
    exports.insert(
        ServiceKey::interface_only(SERVICE),
        Arc::new(invoker_fn(url, move |_inv: Invocation| async move {
            Ok(RpcResponse::new(Value::String(format!("provider {id}"))))
        })),
    );
    DubboServer::bind("127.0.0.1:0", ServerConfig::default(), exports)
        .await
        .unwrap()
}

#[tokio::test]
async fn over_dubbo_an_unchanged_providers_connection_survives_another_changing() {
    let a = server(0).await;
    let b = server(1).await;
    let protocol = Arc::new(DubboProtocol::new());
    let factory = {
        let protocol = protocol.clone();
        move |url: Url| {
            let protocol = protocol.clone();
            async move { protocol.refer(url).await }
        }
    };
    let dir = DynamicDirectory::new(consumer(), Arc::new(factory));
    let provider = |s: &DubboServer, extra: &str| {
        Url::parse(&format!(
            "dubbo://{}/{SERVICE}?interface={SERVICE}&timeout=2000{extra}",
            s.local_addr()
        ))
        .unwrap()
    };
    let call_all = |list: dubbo_core::InvokerList| async move {
        let mut answers = Vec::new();
        for i in list.iter() {
            answers.push(i.invoke(call()).await.unwrap().value);
        }
        answers
    };

    dir.notify(vec![
        provider(&a, "&timestamp=1"),
        provider(&b, "&weight=100"),
    ])
    .await;
    assert_eq!(call_all(dir.all()).await.len(), 2);
    assert_eq!((a.connection_count(), b.connection_count()), (1, 1));
    let a_before = dir
        .all()
        .iter()
        .find(|i| i.url().port() == a.local_addr().port())
        .cloned()
        .unwrap();

    let outcome = dir
        .notify(vec![
            provider(&a, "&timestamp=2"),
            provider(&b, "&weight=50"),
        ])
        .await;
    assert_eq!((outcome.unchanged, outcome.changed), (1, 1));
    let a_after = dir
        .all()
        .iter()
        .find(|i| i.url().port() == a.local_addr().port())
        .cloned()
        .unwrap();
    assert!(Arc::ptr_eq(&a_before, &a_after));

    // Before any new call: had a destroy closed a connection, a lazily reopened one would
    // not be there yet.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        (a.connection_count(), b.connection_count()),
        (1, 1),
        "no connection closed: the unchanged provider kept its invoker, the changed one \
         reused the shared connection"
    );
    let answers = call_all(dir.all()).await;
    assert!(answers.contains(&Value::String("provider 0".into())));
    assert!(answers.contains(&Value::String("provider 1".into())));
    assert!(a_after.is_available());
    assert_eq!((a.connection_count(), b.connection_count()), (1, 1));

    // The counter does see a provider's connection go: removing `a` closes it.
    drop((a_before, a_after));
    let removed = dir.notify(vec![provider(&b, "&weight=50")]).await;
    assert_eq!(removed.removed, 1);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while a.connection_count() != 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!((a.connection_count(), b.connection_count()), (0, 1));
}
