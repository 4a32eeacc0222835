//! [`InstanceMetadata`]: application-level metadata the metadata report does not hold
//! (storage type `local`, Java's default), asked of the instances' own MetadataService with
//! the client references use (`dubbo_rs::Application::instance_metadata`), and kept by
//! application and revision: a revision is fetched once, from one of the instances that
//! announce it, however many instances announce it and however often the catalog is read.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use dubbo_registry::{MetadataInfo, ServiceInstance};
use dubbo_rs::config::SslConfig;
use dubbo_rs::Application;
use futures::stream::{self, StreamExt};

/// MetadataService calls in flight (each a connection to an instance).
pub const IN_FLIGHT: usize = 16;

/// How many instances of a revision are asked before the revision counts as not fetched.
pub const TRIES_PER_REVISION: usize = 3;

/// How long one instance has to answer (connection included).
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a revision that could not be fetched is left alone before it is asked again.
pub const RETRY_AFTER: Duration = Duration::from_secs(30);

/// (application, revision).
pub type RevisionKey = (String, String);

enum Fetched {
    Found(Arc<MetadataInfo>),
    Failed(Instant),
}

/// Metadata fetched from instances, by application and revision.
pub struct InstanceMetadata {
    /// The name of the application the MetadataService references are made in.
    name: String,
    /// Its TLS client settings, if instances are dialled with TLS.
    ssl: Option<SslConfig>,
    /// That application, made at the first fetch.
    client: Mutex<Option<Application>>,
    cache: Mutex<HashMap<RevisionKey, Fetched>>,
}

impl InstanceMetadata {
    /// Nothing fetched yet; the references will be made in an application named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ssl: None,
            client: Mutex::new(None),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Instances dialled with these TLS client settings.
    pub fn with_ssl(mut self, ssl: Option<SslConfig>) -> Self {
        self.ssl = ssl;
        self
    }

    /// The metadata of each revision in `wanted` (with some of the instances announcing it:
    /// [`TRIES_PER_REVISION`] are enough), from the cache or their MetadataService; revisions
    /// no instance answered for are left out (and asked again after [`RETRY_AFTER`]).
    /// Revisions not in `wanted` leave the cache.
    pub async fn fetch(
        &self,
        wanted: Vec<(RevisionKey, Vec<ServiceInstance>)>,
    ) -> HashMap<RevisionKey, Arc<MetadataInfo>> {
        let mut found = HashMap::new();
        let mut missing = Vec::new();
        {
            let mut cache = lock(&self.cache);
            let keep: BTreeSet<&RevisionKey> = wanted.iter().map(|(k, _)| k).collect();
            cache.retain(|k, _| keep.contains(k));
            for (key, instances) in &wanted {
                match cache.get(key) {
                    Some(Fetched::Found(info)) => {
                        found.insert(key.clone(), info.clone());
                    }
                    Some(Fetched::Failed(at)) if at.elapsed() < RETRY_AFTER => {}
                    _ => missing.push((key.clone(), instances.clone())),
                }
            }
        }
        if missing.is_empty() {
            return found;
        }
        let Some(client) = self.client() else {
            return found;
        };
        let fetched: Vec<(RevisionKey, Option<MetadataInfo>)> = stream::iter(missing)
            .map(|(key, instances)| {
                let client = client.clone();
                async move {
                    let info = from_any(client, &key, instances).await;
                    (key, info)
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        let mut cache = lock(&self.cache);
        for (key, info) in fetched {
            match info {
                Some(info) => {
                    let info = Arc::new(info);
                    cache.insert(key.clone(), Fetched::Found(info.clone()));
                    found.insert(key, info);
                }
                None => {
                    cache.insert(key, Fetched::Failed(Instant::now()));
                }
            }
        }
        found
    }

    /// The application references are made in, made once.
    fn client(&self) -> Option<Application> {
        let mut client = lock(&self.client);
        if client.is_none() {
            let mut builder = Application::builder(self.name.as_str());
            if let Some(ssl) = &self.ssl {
                builder = builder.ssl(ssl.clone());
            }
            match builder.build() {
                Ok(app) => *client = Some(app),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot make the MetadataService client");
                }
            }
        }
        client.clone()
    }

    /// Stops the client's connections.
    pub async fn shutdown(&self) {
        let client = lock(&self.client).take();
        if let Some(app) = client {
            app.shutdown().await;
        }
    }
}

/// The metadata of revision `key` from the first of `instances` (at most
/// [`TRIES_PER_REVISION`]) that answers it.
async fn from_any(
    client: Application,
    key: &RevisionKey,
    instances: Vec<ServiceInstance>,
) -> Option<MetadataInfo> {
    for instance in &instances {
        match tokio::time::timeout(FETCH_TIMEOUT, client.instance_metadata(instance)).await {
            Ok(Ok(info)) if info.revision == key.1 => return Some(info),
            Ok(Ok(info)) => tracing::debug!(
                app = %key.0, instance = %instance.address(), asked = %key.1, answered = %info.revision,
                "the MetadataService answered another revision"
            ),
            Ok(Err(e)) => tracing::debug!(
                app = %key.0, instance = %instance.address(), error = %e,
                "cannot fetch metadata from the instance"
            ),
            Err(_) => tracing::debug!(
                app = %key.0, instance = %instance.address(),
                "the instance's MetadataService did not answer in time"
            ),
        }
    }
    None
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use dubbo_registry::REVISION_KEY;

    use super::*;

    /// An instance whose MetadataService cannot be reached: the revision is left out, its
    /// failure kept (not asked again before [`RETRY_AFTER`]), and forgotten once no instance
    /// announces it.
    #[tokio::test]
    async fn a_revision_no_instance_answers_is_kept_as_failed_then_forgotten() {
        // A port nobody listens on: bound, then closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let mut i = ServiceInstance::new("gone", "127.0.0.1", port);
        i.metadata.insert(REVISION_KEY.into(), "r1".into());
        let key = ("gone".to_owned(), "r1".to_owned());
        let fetched = InstanceMetadata::new("test");
        let found = fetched.fetch(vec![(key.clone(), vec![i.clone()])]).await;
        assert!(found.is_empty());
        assert!(matches!(
            lock(&fetched.cache).get(&key),
            Some(Fetched::Failed(_))
        ));
        let started = Instant::now();
        assert!(fetched.fetch(vec![(key.clone(), vec![i])]).await.is_empty());
        assert!(started.elapsed() < Duration::from_millis(50), "asked again");
        assert!(fetched.fetch(Vec::new()).await.is_empty());
        assert!(lock(&fetched.cache).is_empty());
        fetched.shutdown().await;
    }
}
