//! A consumer that subscribes while its registry is unusable is first fed from the cache file
//! that an earlier run wrote: real registry files, real cache file, real timers.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dubbo_registry::{
    CachingRegistry, Category, FailbackRegistry, FileRegistry, Notification, NotifyListener,
    Registry, RegistryCacheFile,
};
use dubbo_url::Url;
use tokio::sync::mpsc::unbounded_channel;

const IFACE: &str = "org.demo.Cached";

fn consumer() -> Url {
    Url::parse(&format!(
        "consumer://127.0.0.1/{IFACE}?interface={IFACE}&version=1.0&category=providers,routers&check=false"
    ))
    .unwrap()
}

fn provider() -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:20777/{IFACE}?interface={IFACE}&version=1.0&side=provider"
    ))
    .unwrap()
}

#[tokio::test]
async fn a_consumer_is_fed_from_the_cache_when_the_registry_is_down() {
    let dir = tempfile::tempdir().unwrap();
    let cache_path = dir.path().join("cache/dubbo-registry-demo-localhost.cache");
    let reg_url = Url::parse(&format!(
        "file://{}/reg?poll.period=50&file={}",
        dir.path().display(),
        cache_path.display()
    ))
    .unwrap();
    assert_eq!(
        RegistryCacheFile::path_for(&reg_url).as_deref(),
        Some(cache_path.as_path())
    );

    // First run: the consumer sees the provider; the cache file remembers it.
    {
        let provider_side = FileRegistry::open(&reg_url).unwrap();
        provider_side.register(&provider()).await.unwrap();
        let cache = RegistryCacheFile::open_with_delay(&cache_path, Duration::from_millis(10));
        let reg = CachingRegistry::new(Arc::new(FileRegistry::open(&reg_url).unwrap()), cache);
        let (tx, mut rx) = unbounded_channel();
        let l: Arc<dyn NotifyListener> = Arc::new(move |n: Notification| {
            let _ = tx.send(n);
        });
        reg.subscribe(&consumer(), l).await.unwrap();
        loop {
            let n = tokio::time::timeout(Duration::from_secs(5), rx.recv())
                .await
                .unwrap()
                .unwrap();
            if n.category == Category::Providers && n.urls[0].port() == 20777 {
                break;
            }
        }
        reg.destroy().await; // flushes the cache file
    }
    let text = std::fs::read_to_string(&cache_path).unwrap();
    assert!(
        text.contains("\norg.demo.Cached\\:1.0=dubbo\\://127.0.0.1\\:20777/"),
        "{text}"
    );

    // Second run: the registry is unusable (destroyed), the cache answers.
    let dead = FileRegistry::open(&reg_url).unwrap();
    dead.destroy().await;
    let cache = RegistryCacheFile::open(&cache_path);
    let reg = Arc::new(CachingRegistry::new(Arc::new(dead), cache));
    let (tx, mut rx) = unbounded_channel();
    let l: Arc<dyn NotifyListener> = Arc::new(move |n: Notification| {
        let _ = tx.send(n);
    });
    let err = reg.subscribe(&consumer(), l.clone()).await.unwrap_err();
    assert_eq!(err.code(), "REGISTRY_CLOSED");
    let mut got = Vec::new();
    while let Ok(n) = rx.try_recv() {
        got.push(n);
    }
    got.sort_by_key(|n| n.category);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].category, Category::Providers);
    assert_eq!(got[0].urls.to_vec(), vec![provider()]);
    assert_eq!(got[1].category, Category::Routers);
    assert_eq!(got[1].urls[0].protocol(), Some("empty"));
    assert_eq!(reg.lookup(&consumer()).await.unwrap(), vec![provider()]);

    // Under failback the cache still answers first; a closed registry is not worth retrying,
    // so the error still reaches the caller.
    let failback = FailbackRegistry::new(reg.clone());
    let (tx, mut rx) = unbounded_channel();
    let l: Arc<dyn NotifyListener> = Arc::new(move |n: Notification| {
        let _ = tx.send(n);
    });
    assert!(failback.subscribe(&consumer(), l).await.is_err());
    assert!(rx.try_recv().is_ok());
}
