//! The dynamic directory: registry notifications diffed against the known providers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_cluster::directory::{DynamicDirectory, InvokerFactory, NotifyOutcome};
use dubbo_cluster::router::RouterChain;
use dubbo_cluster::{ConfiguratorSource, Configurators};
use dubbo_core::{
    invoker_fn, BoxFuture, Directory, ErrorCode, ExportTable, FnInvoker, Invocation, Invoker,
    Protocol, RpcError, RpcResponse, RpcResult, ServiceKey, Value,
};
use dubbo_protocol_dubbo::{DubboProtocol, DubboServer, ServerConfig};
use dubbo_url::Url;

mod common;
use common::{call, SERVICE};

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
            if fake.fail_port == Some(url.port()) || url.parameter("refuse").is_some() {
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
    assert!(answers
        .iter()
        .any(|a| *a == Value::String("provider 0".into())));
    assert!(answers
        .iter()
        .any(|a| *a == Value::String("provider 1".into())));
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

// ---------------------------------------------------------------- override rules

/// A consumer at 10.0.0.100 of application `shop`, as `Module::refer_registry` builds it.
fn shop_directory(fake: &Arc<Fake>) -> DynamicDirectory {
    let consumer = Url::parse(&format!(
        "consumer://10.0.0.100/{SERVICE}?interface={SERVICE}&side=consumer&application=shop&register.ip=10.0.0.100"
    ))
    .unwrap();
    DynamicDirectory::new(consumer, Arc::new(FakeFactory(fake.clone())))
}

fn provider(port: u16) -> Url {
    url(port, "&side=provider&application=demo-provider&weight=100")
}

fn service_rule(config: &str) -> Configurators {
    Configurators::from_yaml(&format!(
        "configVersion: v3.0\nscope: service\nkey: {SERVICE}\nenabled: true\nconfigs:\n{config}"
    ))
    .unwrap()
}

fn weight_of(list: &[Arc<dyn Invoker>], port: u16) -> Option<String> {
    list.iter()
        .find(|i| i.url().port() == port)
        .and_then(|i| i.url().parameter("weight").map(str::to_owned))
}

/// The parameter `key` of the provider at `port` as the directory now holds it.
fn param_at(dir: &DynamicDirectory, port: u16, key: &str) -> Option<String> {
    invoker_at(&dir.all(), port)
        .url()
        .parameter(key)
        .map(str::to_owned)
}

fn invoker_at(list: &[Arc<dyn Invoker>], port: u16) -> Arc<dyn Invoker> {
    list.iter()
        .find(|i| i.url().port() == port)
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn a_weight_rule_rebuilds_only_the_provider_it_names() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    dir.notify(vec![provider(1), provider(2), provider(3)])
        .await;
    let before = dir.all();
    assert_eq!(fake.calls.load(Ordering::SeqCst), 3);

    let outcome = dir
        .set_configurators(
            ConfiguratorSource::Service,
            service_rule("  - side: consumer\n    providerAddresses: ['127.0.0.1:2']\n    parameters: {weight: 200}\n"),
        )
        .await;
    assert_eq!(
        (
            outcome.changed,
            outcome.unchanged,
            outcome.added,
            outcome.removed
        ),
        (1, 2, 0, 0)
    );
    assert_eq!(
        fake.calls.load(Ordering::SeqCst),
        4,
        "only provider 2 rebuilt"
    );
    let after = dir.all();
    assert_eq!(ports(&after), vec![1, 2, 3]);
    assert_eq!(weight_of(&after, 2).as_deref(), Some("200"));
    assert_eq!(weight_of(&after, 1).as_deref(), Some("100"));
    assert!(Arc::ptr_eq(&invoker_at(&before, 1), &invoker_at(&after, 1)));
    assert!(Arc::ptr_eq(&invoker_at(&before, 3), &invoker_at(&after, 3)));
    assert!(!Arc::ptr_eq(
        &invoker_at(&before, 2),
        &invoker_at(&after, 2)
    ));
    assert!(
        fake.made_for(2)[0].destroyed.load(Ordering::SeqCst),
        "old 2 destroyed"
    );
    assert!(!fake.made_for(2)[1].destroyed.load(Ordering::SeqCst));

    // The same rule again changes nothing.
    let again = dir
        .set_configurators(
            ConfiguratorSource::Service,
            service_rule("  - side: consumer\n    providerAddresses: ['127.0.0.1:2']\n    parameters: {weight: 200}\n"),
        )
        .await;
    assert!(again.ignored);
    assert_eq!(fake.calls.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_disabled_provider_leaves_the_snapshot_and_deleting_the_rule_restores_it() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    dir.notify(vec![provider(1), provider(2)]).await;
    let before = dir.all();

    let outcome = dir
        .set_configurators(
            ConfiguratorSource::Application,
            Configurators::from_yaml(
                "configVersion: v3.0\nscope: application\nkey: shop\nconfigs:\n  - side: consumer\n    providerAddresses: ['127.0.0.1:1']\n    parameters: {disabled: true}\n",
            )
            .unwrap(),
        )
        .await;
    assert_eq!((outcome.removed, outcome.unchanged), (1, 1));
    assert_eq!(ports(&dir.all()), vec![2]);
    assert_eq!(ports(&dir.list(&call())), vec![2]);
    assert!(fake.made_for(1)[0].destroyed.load(Ordering::SeqCst));
    assert!(Arc::ptr_eq(
        &invoker_at(&before, 2),
        &invoker_at(&dir.all(), 2)
    ));

    let restored = dir
        .set_configurators(ConfiguratorSource::Application, Configurators::default())
        .await;
    assert_eq!((restored.added, restored.unchanged), (1, 1));
    let all = dir.all();
    assert_eq!(ports(&all), vec![1, 2]);
    assert_eq!(
        invoker_at(&all, 1).url(),
        &provider(1),
        "the notified URL again"
    );
    assert!(Arc::ptr_eq(&invoker_at(&before, 2), &invoker_at(&all, 2)));
}

#[tokio::test]
async fn deleting_a_rule_restores_the_notified_url() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    dir.notify(vec![provider(1), provider(2)]).await;
    dir.set_configurators(
        ConfiguratorSource::Service,
        service_rule("  - side: consumer\n    parameters: {timeout: 5000}\n"),
    )
    .await;
    assert!(dir
        .all()
        .iter()
        .all(|i| i.url().parameter("timeout") == Some("5000")));
    let configured = dir.all();

    let outcome = dir
        .set_configurators(ConfiguratorSource::Service, Configurators::default())
        .await;
    assert_eq!(outcome.changed, 2);
    let all = dir.all();
    assert!(all.iter().all(|i| i.url().parameter("timeout").is_none()));
    assert_eq!(invoker_at(&all, 1).url(), &provider(1));
    assert!(
        configured.iter().all(|i| !i.is_available()),
        "replaced invokers destroyed"
    );
}

#[tokio::test]
async fn a_notification_after_a_rule_is_configured_by_it() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    dir.notify(vec![provider(1)]).await;
    dir.set_configurators(
        ConfiguratorSource::Service,
        service_rule("  - side: consumer\n    providerAddresses: ['127.0.0.1:2']\n    parameters: {weight: 7}\n"),
    )
    .await;
    assert_eq!(weight_of(&dir.all(), 1).as_deref(), Some("100"));

    let outcome = dir.notify(vec![provider(1), provider(2)]).await;
    assert_eq!((outcome.added, outcome.unchanged), (1, 1));
    assert_eq!(weight_of(&dir.all(), 2).as_deref(), Some("7"));
    let created = fake.created.lock().unwrap().clone();
    assert_eq!(
        created.last().unwrap().parameter("weight"),
        Some("7"),
        "built configured"
    );
}

#[tokio::test]
async fn a_rule_set_before_any_notification_applies_to_the_first() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    let early = dir
        .set_configurators(
            ConfiguratorSource::Service,
            service_rule("  - side: consumer\n    parameters: {weight: 3}\n"),
        )
        .await;
    assert_eq!(early, NotifyOutcome::default());
    assert!(dir.all().is_empty());
    assert_eq!(fake.calls.load(Ordering::SeqCst), 0);

    dir.notify(vec![provider(1), provider(2)]).await;
    assert_eq!(weight_of(&dir.all(), 1).as_deref(), Some("3"));
    assert_eq!(weight_of(&dir.all(), 2).as_deref(), Some("3"));
}

#[tokio::test]
async fn sources_apply_registry_then_application_then_service() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    dir.notify(vec![provider(1)]).await;
    let registry = Configurators::from_override_urls(&[Url::parse(
        "override://0.0.0.0/*?side=consumer&configVersion=v2.7&timeout=1&retries=9",
    )
    .unwrap()]);
    let application = Configurators::from_yaml(
        "configVersion: v3.0\nscope: application\nkey: shop\nconfigs:\n  - side: consumer\n    parameters: {timeout: 2}\n",
    )
    .unwrap();
    // Set out of order: the order of application is the sources', not the calls'.
    dir.set_configurators(
        ConfiguratorSource::Service,
        service_rule("  - side: consumer\n    parameters: {timeout: 3}\n"),
    )
    .await;
    dir.set_configurators(ConfiguratorSource::Application, application)
        .await;
    dir.set_configurators(ConfiguratorSource::Registry, registry)
        .await;
    let url = invoker_at(&dir.all(), 1).url().clone();
    assert_eq!(url.parameter("timeout"), Some("3"));
    assert_eq!(url.parameter("retries"), Some("9"));

    dir.set_configurators(ConfiguratorSource::Service, Configurators::default())
        .await;
    assert_eq!(param_at(&dir, 1, "timeout").as_deref(), Some("2"));
    // An empty:// push in the registry's configurators category clears its rules.
    dir.set_configurators(
        ConfiguratorSource::Registry,
        Configurators::from_override_urls(&[Url::parse(
            "empty://0.0.0.0/*?category=configurators",
        )
        .unwrap()]),
    )
    .await;
    assert_eq!(param_at(&dir, 1, "retries").as_deref(), None);
}

#[tokio::test]
async fn consumer_side_rules_match_the_consumers_own_host() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    dir.notify(vec![provider(1)]).await;
    let for_host = |host: &str| {
        Configurators::from_yaml(&format!(
            "configVersion: v3.0\nscope: service\nkey: {SERVICE}\nconfigs:\n  - side: consumer\n    addresses: ['{host}']\n    parameters: {{timeout: 4}}\n"
        ))
        .unwrap()
    };
    dir.set_configurators(ConfiguratorSource::Service, for_host("10.0.0.99"))
        .await;
    assert_eq!(param_at(&dir, 1, "timeout").as_deref(), None);
    dir.set_configurators(ConfiguratorSource::Service, for_host("10.0.0.100"))
        .await;
    assert_eq!(param_at(&dir, 1, "timeout").as_deref(), Some("4"));
    // Provider-side rules are for the providers themselves, not applied by consumers.
    dir.set_configurators(
        ConfiguratorSource::Service,
        service_rule("  - side: provider\n    parameters: {timeout: 6}\n"),
    )
    .await;
    assert_eq!(param_at(&dir, 1, "timeout").as_deref(), None);
}

#[tokio::test]
async fn a_provider_registered_disabled_gets_no_invoker() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    dir.notify(vec![
        provider(1),
        url(2, "&side=provider&disabled=true"),
        url(3, "&side=provider&enabled=false"),
        url(4, "&side=provider&enabled=false&disabled=false"),
    ])
    .await;
    assert_eq!(ports(&dir.all()), vec![1, 4]);
    assert_eq!(fake.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn rule_changes_and_notifications_do_not_race() {
    let fake = Arc::new(Fake {
        slow_port: Some(1),
        ..Fake::default()
    });
    let dir = Arc::new(shop_directory(&fake));
    // The notification is slow to build provider 1; the rule lands while it builds and
    // must still be applied to what that notification made.
    let notifying = {
        let dir = dir.clone();
        tokio::spawn(async move { dir.notify(vec![provider(1), provider(2)]).await })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    dir.set_configurators(
        ConfiguratorSource::Service,
        service_rule("  - side: consumer\n    parameters: {weight: 5}\n"),
    )
    .await;
    notifying.await.unwrap();
    let all = dir.all();
    assert_eq!(ports(&all), vec![1, 2]);
    assert_eq!(weight_of(&all, 1).as_deref(), Some("5"));
    assert_eq!(weight_of(&all, 2).as_deref(), Some("5"));
}

#[tokio::test]
async fn rules_beat_the_consumers_own_values_when_the_directory_merges() {
    let fake = Arc::new(Fake::default());
    let consumer = Url::parse(&format!(
        "consumer://10.0.0.100/{SERVICE}?interface={SERVICE}&side=consumer&application=shop&timeout=1000"
    ))
    .unwrap();
    let dir = DynamicDirectory::new(consumer, Arc::new(FakeFactory(fake.clone())))
        .with_consumer_merge(true);
    dir.notify(vec![provider(1)]).await;
    let merged = fake.created.lock().unwrap()[0].clone();
    assert_eq!(merged.parameter("application"), Some("shop"));
    assert_eq!(
        merged.parameter("remote.application"),
        Some("demo-provider")
    );
    assert_eq!(merged.parameter("timeout"), Some("1000"));

    dir.set_configurators(
        ConfiguratorSource::Service,
        service_rule("  - side: consumer\n    parameters: {timeout: 5000}\n"),
    )
    .await;
    assert_eq!(param_at(&dir, 1, "timeout").as_deref(), Some("5000"));
    assert_eq!(param_at(&dir, 1, "application").as_deref(), Some("shop"));

    // Without it, the factory gets the provider URL with the rule's values written on.
    let plain = shop_directory(&fake);
    plain
        .set_configurators(
            ConfiguratorSource::Service,
            service_rule("  - side: consumer\n    parameters: {timeout: 5000}\n"),
        )
        .await;
    plain.notify(vec![provider(1)]).await;
    assert_eq!(param_at(&plain, 1, "timeout").as_deref(), Some("5000"));
    assert_eq!(
        param_at(&plain, 1, "application").as_deref(),
        Some("demo-provider")
    );
    assert_eq!(param_at(&plain, 1, "remote.application"), None);
}

#[tokio::test]
async fn a_repeated_notification_keeps_the_rule_and_builds_nothing() {
    let fake = Arc::new(Fake::default());
    let dir = shop_directory(&fake);
    let list = vec![provider(1), provider(2)];
    dir.notify(list.clone()).await;
    dir.set_configurators(
        ConfiguratorSource::Service,
        service_rule("  - side: consumer\n    parameters: {weight: 8}\n"),
    )
    .await;
    let before = dir.all();
    assert_eq!(fake.calls.load(Ordering::SeqCst), 4);

    // The same clones again, as a registry's URL cache hands them out.
    let outcome = dir.notify(list.clone()).await;
    assert_eq!((outcome.unchanged, outcome.changed), (2, 0));
    // Equal URLs parsed anew go through the comparison and are unchanged too.
    let outcome = dir.notify(vec![provider(1), provider(2)]).await;
    assert_eq!((outcome.unchanged, outcome.changed), (2, 0));
    assert_eq!(fake.calls.load(Ordering::SeqCst), 4);
    let after = dir.all();
    assert!(Arc::ptr_eq(&invoker_at(&before, 1), &invoker_at(&after, 1)));
    assert_eq!(weight_of(&after, 2).as_deref(), Some("8"));
}

/// A re-push of the same `Url` clones with a few providers changed in place (what a registry's
/// parsed-URL cache produces) is applied by position with the same effects as the general
/// diff: unchanged providers keep their invokers, changed ones are rebuilt and the old ones
/// destroyed, a failed rebuild leaves the provider out, and a reordered push still applies.
#[tokio::test]
async fn a_push_of_the_same_urls_with_a_few_changed_patches_the_directory() {
    let fake = Arc::new(Fake::default());
    let dir = directory(&fake);
    let mut urls: Vec<Url> = (1..=50).map(|p| url(p, "&timestamp=1")).collect();
    assert_eq!(dir.notify(urls.clone()).await.added, 50);
    let first = dir.all();
    let calls = fake.calls.load(Ordering::SeqCst);
    assert_eq!(dir.notify(urls.clone()).await.unchanged, 50);
    assert_eq!(fake.calls.load(Ordering::SeqCst), calls);

    // 7 restarts (new timestamp: unchanged), 9 changes its weight (rebuilt).
    urls[6] = url(7, "&timestamp=2");
    urls[8] = url(9, "&timestamp=1&weight=5");
    let patched = dir.notify(urls.clone()).await;
    assert_eq!(
        (
            patched.added,
            patched.changed,
            patched.unchanged,
            patched.removed
        ),
        (0, 1, 49, 0)
    );
    assert_eq!(fake.calls.load(Ordering::SeqCst), calls + 1);
    let after = dir.all();
    assert_eq!(after.len(), 50);
    assert_eq!(weight_of(&after, 9).as_deref(), Some("5"));
    assert!(Arc::ptr_eq(&invoker_at(&first, 7), &invoker_at(&after, 7)));
    assert!(fake.made_for(9)[0].destroyed.load(Ordering::SeqCst));
    assert!(!fake.made_for(9)[1].destroyed.load(Ordering::SeqCst));
    assert!(!fake.made_for(7)[0].destroyed.load(Ordering::SeqCst));
    // The same clones again: recognised as unchanged, nothing built.
    assert_eq!(
        dir.notify(urls.clone()).await,
        NotifyOutcome {
            unchanged: 50,
            ..NotifyOutcome::default()
        }
    );
    assert_eq!(fake.calls.load(Ordering::SeqCst), calls + 1);

    // A rebuild that fails leaves the provider out and destroys its old invoker.
    urls[2] = url(3, "&timestamp=1&refuse=1");
    let failed = dir.notify(urls.clone()).await;
    assert_eq!(
        (failed.changed, failed.unchanged, failed.removed),
        (0, 49, 1)
    );
    assert_eq!(failed.failed.len(), 1);
    assert_eq!(dir.all().len(), 49);
    assert!(fake.made_for(3)[0].destroyed.load(Ordering::SeqCst));
    // The next push retries it through the general diff.
    urls[2] = url(3, "&timestamp=1");
    let retried = dir.notify(urls.clone()).await;
    assert_eq!((retried.added, retried.unchanged), (1, 49));
    assert_eq!(dir.all().len(), 50);

    // Another provider at a position, or another order, applies through the general diff.
    urls[0] = url(51, "");
    let replaced = dir.notify(urls.clone()).await;
    assert_eq!(
        (replaced.added, replaced.removed, replaced.unchanged),
        (1, 1, 49)
    );
    urls.reverse();
    let reordered = dir.notify(urls.clone()).await;
    assert_eq!(reordered.unchanged, 50);
    assert_eq!(dir.all().len(), 50);
}

/// A router that keeps a summary of the last snapshot it was told of.
#[derive(Default)]
struct LastSnapshot(Mutex<Vec<String>>);

impl dubbo_core::Router for LastSnapshot {
    fn route(&self, invokers: &[Arc<dyn Invoker>], _: &Invocation) -> Vec<Arc<dyn Invoker>> {
        invokers.to_vec()
    }
    fn notify(&self, snapshot: &dubbo_core::InvokerList) {
        *self.0.lock().unwrap() = summary(snapshot);
    }
}

/// Every provider of `list`, in order, as the URL its invoker was built from.
fn summary(list: &[Arc<dyn Invoker>]) -> Vec<String> {
    list.iter().map(|i| i.url().to_string()).collect()
}

/// What one push did to a directory, in terms that must not depend on the path it took.
#[derive(Debug, PartialEq)]
struct Effect {
    outcome: (usize, usize, usize, usize, usize, bool),
    snapshot: Vec<String>,
    /// Per provider of the new snapshot, whether it kept the invoker it had before the push.
    kept: Vec<bool>,
    /// How many invokers the factory made and how many of them are destroyed.
    made: (usize, usize),
    /// What the router chain was last told.
    routed: Vec<String>,
}

async fn push(
    dir: &DynamicDirectory,
    fake: &Fake,
    router: &LastSnapshot,
    list: Arc<[Url]>,
) -> Effect {
    let before = dir.all();
    let o = dir.notify(list).await;
    let after = dir.all();
    let made = fake.made.lock().unwrap();
    Effect {
        outcome: (
            o.added,
            o.changed,
            o.unchanged,
            o.removed,
            o.failed.len(),
            o.ignored,
        ),
        snapshot: summary(&after),
        kept: after
            .iter()
            .map(|i| before.iter().any(|b| Arc::ptr_eq(b, i)))
            .collect(),
        made: (
            made.len(),
            made.iter()
                .filter(|t| t.destroyed.load(Ordering::SeqCst))
                .count(),
        ),
        routed: router.0.lock().unwrap().clone(),
    }
}

/// The positional patch (a push of the last one's `Url` clones with a few changed) and the
/// general diff (the same URLs parsed anew) have the same effects push after push: the same
/// outcome, snapshot, kept and destroyed invokers, and router notifications, through
/// successive patches that reuse the spare snapshot, a failed rebuild, `empty://`, and lists
/// the caller keeps as well as lists it hands over.
#[tokio::test]
async fn the_positional_patch_and_the_general_diff_agree() {
    let make = || {
        let fake = Arc::new(Fake::default());
        let router = Arc::new(LastSnapshot::default());
        let chain = Arc::new(RouterChain::new());
        chain.set_routers(vec![router.clone() as Arc<dyn dubbo_core::Router>]);
        let dir = directory(&fake).with_router_chain(chain);
        (fake, router, dir)
    };
    let (fast_fake, fast_router, fast) = make();
    let (slow_fake, slow_router, slow) = make();
    let mut spec: Vec<(u16, String)> = (1..=40).map(|p| (p, "&timestamp=1".to_owned())).collect();
    // `fast` is handed the same clones but where the spec changed; `slow` fresh URLs each time.
    let mut fast_urls: Vec<Url> = spec.iter().map(|(p, e)| url(*p, e)).collect();
    let steps: Vec<Vec<(usize, &str)>> = vec![
        vec![],
        vec![(6, "&timestamp=2")],
        vec![(8, "&timestamp=1&weight=5")],
        vec![(11, "&timestamp=1&weight=7"), (8, "&timestamp=3&weight=6")],
        vec![(19, "&timestamp=1&weight=9")],
        vec![(8, "&timestamp=3&weight=6")],
        vec![(2, "&timestamp=1&refuse=1")],
        vec![(2, "&timestamp=1")],
        vec![(4, "&timestamp=1&weight=2"), (30, "&timestamp=4")],
        vec![(4, "&timestamp=1&weight=3")],
    ];
    let mut kept_lists: Vec<Arc<[Url]>> = Vec::new();
    for (n, changes) in steps.iter().enumerate() {
        for &(i, extra) in changes {
            spec[i].1 = extra.to_owned();
            fast_urls[i] = url(spec[i].0, extra);
        }
        let fast_list: Arc<[Url]> = fast_urls.clone().into();
        if n % 2 == 0 {
            // The caller keeps this one (as the consumer's watch channel does).
            kept_lists.push(Arc::clone(&fast_list));
        } else {
            kept_lists.clear();
        }
        let slow_list: Arc<[Url]> = spec.iter().map(|(p, e)| url(*p, e)).collect();
        let a = push(&fast, &fast_fake, &fast_router, fast_list).await;
        let b = push(&slow, &slow_fake, &slow_router, slow_list).await;
        assert_eq!(a, b, "step {n}");
        assert_eq!(
            a.routed, a.snapshot,
            "step {n}: the router chain saw the snapshot"
        );
    }
    let weights: Vec<Option<String>> = [5u16, 9, 12, 20]
        .iter()
        .map(|&p| weight_of(&fast.all(), p))
        .collect();
    assert_eq!(
        weights,
        [Some("3"), Some("6"), Some("7"), Some("9")].map(|w| w.map(str::to_owned))
    );

    // `empty://` clears both; the next push rebuilds both alike.
    let empty = Url::parse(&format!("empty://127.0.0.1/{SERVICE}?interface={SERVICE}")).unwrap();
    let a = push(&fast, &fast_fake, &fast_router, vec![empty.clone()].into()).await;
    let b = push(&slow, &slow_fake, &slow_router, vec![empty].into()).await;
    assert_eq!(a, b);
    assert!(a.snapshot.is_empty() && fast.is_forbidden());
    let a = push(&fast, &fast_fake, &fast_router, fast_urls.clone().into()).await;
    let b = push(&slow, &slow_fake, &slow_router, fast_urls.into()).await;
    assert_eq!(a, b);
    assert_eq!(a.outcome.0, 40);
}
