//! The interface-level registry against a real ZooKeeper: layout, pushes, filtering.

// Test helpers outside #[test] functions panic as the failure report too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use dubbo_registry::{Category, Notification, NotifyListener, Registry};
use dubbo_registry_zookeeper::ZookeeperRegistry;
use dubbo_url::Url;
use support::{raw, Collector, ZkServer};
use zookeeper_client as zk;

const IFACE: &str = "org.apache.dubbo.demo.DemoService";

fn listener(c: &Collector<Notification>) -> Arc<dyn NotifyListener> {
    let c = c.clone();
    Arc::new(move |n: Notification| c.push(n))
}

fn provider(query: &str) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:20880/{IFACE}?application=demo provider&interface={IFACE}&methods=sayHello,sayHelloAsync&side=provider{query}"
    ))
    .unwrap()
}

fn consumer(query: &str) -> Url {
    Url::parse(&format!(
        "consumer://127.0.0.1/{IFACE}?application=demo-consumer&interface={IFACE}&side=consumer{query}"
    ))
    .unwrap()
}

fn of(category: Category) -> impl Fn(&Notification) -> bool {
    move |n| n.category == category
}

fn full(urls: &[Url]) -> Vec<String> {
    let mut v: Vec<String> = urls.iter().map(Url::to_full_string).collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_is_seen_by_another_registry_and_withdrawn() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let url = server.url("timeout=5000");
    let a = ZookeeperRegistry::connect(&url).await.unwrap();
    let b = ZookeeperRegistry::connect(&url).await.unwrap();
    let p = provider("");
    a.register(&p).await.unwrap();

    // The node, exactly as Java writes it: URLEncoder over the full URL (a space is '+').
    let zk = raw(&server).await;
    let dir = format!("/dubbo/{IFACE}/providers");
    let children = zk.list_children(&dir).await.unwrap();
    let expected = "dubbo%3A%2F%2F127.0.0.1%3A20880%2Forg.apache.dubbo.demo.DemoService%3Fapplication%3Ddemo+provider%26interface%3Dorg.apache.dubbo.demo.DemoService%26methods%3DsayHello%2CsayHelloAsync%26side%3Dprovider";
    assert_eq!(children, vec![expected.to_owned()]);
    let (_, stat) = zk.get_data(&format!("{dir}/{expected}")).await.unwrap();
    assert_ne!(stat.ephemeral_owner, 0, "a dynamic provider is ephemeral");
    // Parents are persistent.
    let (_, parent) = zk.get_data(&dir).await.unwrap();
    assert_eq!(parent.ephemeral_owner, 0);

    let seen = Collector::new();
    let l = listener(&seen);
    b.subscribe(&consumer(""), l.clone()).await.unwrap();
    let n = seen
        .wait_latest("providers", of(Category::Providers), |n| {
            n.urls.iter().any(|u| u.protocol() == Some("dubbo"))
        })
        .await;
    assert_eq!(full(&n.urls), vec![p.to_full_string()]);
    // Categories with nothing get one empty:// URL naming the category.
    for category in [Category::Configurators, Category::Routers] {
        let n = seen.wait_latest("empty", of(category), |_| true).await;
        assert_eq!(n.urls.len(), 1);
        assert_eq!(n.urls[0].protocol(), Some("empty"));
        assert_eq!(n.urls[0].parameter("category"), Some(category.as_str()));
        assert_eq!(n.urls[0].service_interface(), Some(IFACE));
    }
    assert_eq!(
        full(&b.lookup(&consumer("")).await.unwrap()),
        vec![p.to_full_string()]
    );
    // A lookup reads the categories it names: a registered consumer is found under
    // `consumers`, and only there.
    let registered = consumer("&category=consumers");
    a.register(&registered).await.unwrap();
    let any = |category: &str| consumer(&format!("&category={category}&group=*&version=*"));
    assert_eq!(
        full(&b.lookup(&any("consumers")).await.unwrap()),
        vec![registered.to_full_string()]
    );
    assert_eq!(
        full(&b.lookup(&any("providers,consumers")).await.unwrap()),
        vec![registered.to_full_string(), p.to_full_string()]
    );
    assert_eq!(
        full(&b.lookup(&consumer("")).await.unwrap()),
        vec![p.to_full_string()]
    );
    a.unregister(&registered).await.unwrap();

    a.unregister(&p).await.unwrap();
    let n = seen
        .wait_latest("empty providers", of(Category::Providers), |n| {
            n.urls.iter().all(|u| u.protocol() == Some("empty"))
        })
        .await;
    assert_eq!(n.urls.len(), 1);
    assert_eq!(n.urls[0].host(), Some("127.0.0.1"));
    assert_eq!(n.urls[0].parameter("category"), Some("providers"));
    assert!(zk.list_children(&dir).await.unwrap().is_empty());

    // After unsubscribing, changes are no longer pushed.
    b.unsubscribe(&consumer(""), &l).await.unwrap();
    let before = seen.all().len();
    a.register(&p).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(seen.all().len(), before);

    // Destroy withdraws what was registered.
    a.destroy().await;
    assert!(zk.list_children(&dir).await.unwrap().is_empty());
    assert_eq!(a.register(&p).await.unwrap_err().code(), "REGISTRY_CLOSED");
    b.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_version_filtering_and_foreign_nodes() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let a = ZookeeperRegistry::connect(&server.url("")).await.unwrap();
    let g1v1 = provider("&group=g1&version=1.0.0").with_port(1);
    let g2v1 = provider("&group=g2&version=1.0.0").with_port(2);
    let plain = provider("").with_port(3);
    let g1v2 = provider("&group=g1&version=2.0.0").with_port(4);
    let disabled = provider("&enabled=false").with_port(5);
    for p in [&g1v1, &g2v1, &plain, &g1v2, &disabled] {
        a.register(p).await.unwrap();
    }
    // Nodes other tools may leave behind: not a URL at all, and an undecodable one.
    let zk = raw(&server).await;
    let dir = format!("/dubbo/{IFACE}/providers");
    let open = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    zk.create(&format!("{dir}/not-a-url"), b"", &open)
        .await
        .unwrap();
    zk.create(&format!("{dir}/dubbo%3A%2F%2F%ZZbroken"), b"", &open)
        .await
        .unwrap();

    let b = ZookeeperRegistry::connect(&server.url("")).await.unwrap();
    let cases: Vec<(&str, Vec<&Url>)> = vec![
        ("&group=g1&version=1.0.0", vec![&g1v1]),
        ("&group=g1,g2&version=1.0.0", vec![&g1v1, &g2v1]),
        ("&group=*&version=*", vec![&g1v1, &g2v1, &plain, &g1v2]),
        ("", vec![&plain]),
        ("&group=g3&version=1.0.0", vec![]),
    ];
    for (query, expected) in cases {
        let seen = Collector::new();
        b.subscribe(
            &consumer(&format!("{query}&category=providers")),
            listener(&seen),
        )
        .await
        .unwrap();
        let n = seen
            .wait_latest(query, of(Category::Providers), |_| true)
            .await;
        if expected.is_empty() {
            assert_eq!(n.urls.len(), 1, "{query}");
            assert_eq!(n.urls[0].protocol(), Some("empty"), "{query}");
        } else {
            let want: Vec<Url> = expected.into_iter().cloned().collect();
            assert_eq!(full(&n.urls), full(&want), "{query}");
        }
    }

    // dynamic=false makes a persistent node, which outlives the registry.
    let admin = Url::parse(&format!(
        "override://0.0.0.0/{IFACE}?category=configurators&dynamic=false&enabled=true&timeout=3000"
    ))
    .unwrap();
    let seen = Collector::new();
    b.subscribe(&consumer("&category=configurators"), listener(&seen))
        .await
        .unwrap();
    a.register(&admin).await.unwrap();
    let n = seen
        .wait_latest("override", of(Category::Configurators), |n| {
            n.urls.iter().any(|u| u.protocol() == Some("override"))
        })
        .await;
    assert_eq!(full(&n.urls), vec![admin.to_full_string()]);
    let path = a.node_path(&admin).unwrap();
    assert!(path.starts_with(&format!("/dubbo/{IFACE}/configurators/override%3A%2F%2F")));
    let (_, stat) = zk.get_data(&path).await.unwrap();
    assert_eq!(stat.ephemeral_owner, 0);
    a.destroy().await;
    assert!(zk.get_data(&path).await.is_ok());

    // The registry URL's group moves the root.
    let c = ZookeeperRegistry::connect(&server.url("group=custom"))
        .await
        .unwrap();
    c.register(&plain).await.unwrap();
    let children = zk
        .list_children(&format!("/custom/{IFACE}/providers"))
        .await
        .unwrap();
    assert_eq!(children, vec![dubbo_url::encode(&plain.to_full_string())]);
    c.destroy().await;
    b.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leftover_ephemeral_node_is_taken_over() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let a = ZookeeperRegistry::connect(&server.url("")).await.unwrap();
    let p = provider("");
    let path = a.node_path(&p).unwrap();

    // A previous run of this process left its node, in a session the server still holds.
    let old = raw(&server).await;
    old.mkdir(
        &format!("/dubbo/{IFACE}/providers"),
        &zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all()),
    )
    .await
    .unwrap();
    old.create(
        &path,
        b"old",
        &zk::CreateMode::Ephemeral.with_acls(zk::Acls::anyone_all()),
    )
    .await
    .unwrap();

    a.register(&p).await.unwrap();
    let zk = raw(&server).await;
    let (_, stat) = zk.get_data(&path).await.unwrap();
    assert_ne!(stat.ephemeral_owner, old.session_id().0);
    // Registering again keeps the node (no delete and create that subscribers would see).
    a.register(&p).await.unwrap();
    let (_, again) = zk.get_data(&path).await.unwrap();
    assert_eq!(again.czxid, stat.czxid);

    // The old session ending does not take our node with it.
    drop(old);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(zk.get_data(&path).await.is_ok());
    a.destroy().await;
}

fn provider_at(port: u16, timestamp: u32) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:{port}/{IFACE}?application=demo&interface={IFACE}&side=provider&timestamp={timestamp}"
    ))
    .unwrap()
}

fn ports(n: &Notification) -> Vec<u16> {
    n.urls.iter().map(Url::port).collect()
}

/// Followed through the server's change feed, a change costs what it changes: new providers
/// are appended, a removed one's place is taken by the last, and the others stay the very
/// same `Url`s in their places, so the directory patches its list instead of rebuilding it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_keep_the_order_and_the_urls_of_the_others() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let url = server.url("timeout=5000");
    let provider_side = ZookeeperRegistry::connect(&url).await.unwrap();
    let consumer_side = ZookeeperRegistry::connect(&url).await.unwrap();
    let seen = Collector::new();
    consumer_side
        .subscribe(&consumer("&category=providers"), listener(&seen))
        .await
        .unwrap();
    let providers = of(Category::Providers);
    let wait = |what: &'static str, n: usize| {
        let seen = seen.clone();
        async move {
            seen.wait_latest(what, of(Category::Providers), move |l| {
                l.urls.len() == n && l.urls.iter().all(|u| u.protocol() == Some("dubbo"))
            })
            .await
        }
    };
    seen.wait_latest("empty", &providers, |_| true).await;

    let mut last = Vec::new();
    for (i, port) in [20881u16, 20882, 20883].into_iter().enumerate() {
        provider_side.register(&provider_at(port, 1)).await.unwrap();
        let n = wait("one more provider", i + 1).await;
        assert_eq!(ports(&n), [20881, 20882, 20883][..=i]);
        for (old, new) in last.iter().zip(n.urls.iter()) {
            assert!(Url::ptr_eq(old, new), "a known provider keeps its Url");
        }
        last = n.urls.to_vec();
    }

    provider_side
        .unregister(&provider_at(20881, 1))
        .await
        .unwrap();
    let n = wait("one provider less", 2).await;
    assert_eq!(ports(&n), [20883, 20882]);
    assert!(Url::ptr_eq(&n.urls[0], &last[2]) && Url::ptr_eq(&n.urls[1], &last[1]));
    let last = n.urls;

    // A restart: deregistered, then registered again with a new timestamp.
    provider_side
        .unregister(&provider_at(20882, 1))
        .await
        .unwrap();
    provider_side
        .register(&provider_at(20882, 2))
        .await
        .unwrap();
    let n = seen
        .wait_latest("the restarted provider", &providers, |l| {
            l.urls.iter().any(|u| u.parameter("timestamp") == Some("2"))
        })
        .await;
    assert_eq!(ports(&n), [20883, 20882]);
    assert!(Url::ptr_eq(&n.urls[0], &last[0]));
    assert_eq!(n.urls[1].parameter("timestamp"), Some("2"));

    provider_side.destroy().await;
    consumer_side.destroy().await;
}
