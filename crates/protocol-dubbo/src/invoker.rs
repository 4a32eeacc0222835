//! [`DubboInvoker`]: the consumer-side invoker for one provider over dubbo://.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use dubbo_core::{BoxFuture, ErrorCode, Invocation, Invoker, RpcError, RpcResult};
use dubbo_url::Url;

use crate::config::method_timeout;
use crate::exchange::availability::Availability;
use crate::exchange::client::DubboClient;
use crate::exchange::handle::Handle;
use crate::serialization::Serialization;

/// Sends invocations to the provider its URL names, over a (possibly shared) [`DubboClient`].
///
/// The timeout of a call is its context's deadline when set, else the URL's
/// `<method>.timeout`, else `timeout`, else the client's default (1000 ms). A method whose
/// `<method>.return` is `false` is sent one-way and completes with `null` once queued.
pub struct DubboInvoker {
    url: Url,
    /// What requests are written in: the URL's first known `prefer.serialization`, then
    /// `serialization`, else Hessian 2.
    serialization: Serialization,
    client: Handle<DubboClient>,
    /// The client's usable-connection count, read by `is_available` without loading
    /// `client` (the cluster asks every provider on every call). It does not keep the
    /// connections open, so `destroy` still closes them.
    availability: Arc<Availability>,
    /// Set by `destroy`, before `client` is emptied.
    destroyed: AtomicBool,
    /// The URL's per-method settings, looked up once per method name: the lookups build
    /// `<method>.<key>` strings, which cost more than the rest of the invoker per call.
    methods: RwLock<HashMap<String, MethodSettings>>,
    /// The first method's settings, kept apart from `methods`: found by comparing its name,
    /// without the lock and the hash of a lookup, on every call of a reference that calls one
    /// method most.
    first: OnceLock<(Box<str>, MethodSettings)>,
}

/// What the URL says about one method.
#[derive(Debug, Clone, Copy)]
struct MethodSettings {
    /// `<method>.timeout`, else `timeout`.
    timeout: Option<Duration>,
    /// `<method>.return=false`.
    oneway: bool,
}

/// Most method names whose settings an invoker remembers (generic calls may name any method).
const METHOD_CACHE_CAPACITY: usize = 1024;

impl DubboInvoker {
    /// An invoker for the provider of `url`, calling through `client`.
    pub fn new(url: Url, client: DubboClient) -> Self {
        DubboInvoker {
            serialization: Serialization::for_consumer(&url),
            url,
            availability: client.availability(),
            destroyed: AtomicBool::new(false),
            client: Handle::new(Some(client)),
            methods: RwLock::new(HashMap::new()),
            first: OnceLock::new(),
        }
    }

    fn method_settings(&self, method: &str) -> MethodSettings {
        if let Some((name, settings)) = self.first.get() {
            if **name == *method {
                return *settings;
            }
        }
        if let Ok(map) = self.methods.read() {
            if let Some(s) = map.get(method) {
                return *s;
            }
        }
        let settings = MethodSettings {
            timeout: method_timeout(&self.url, method),
            oneway: self.url.method_parameter_strict(method, "return") == Some("false"),
        };
        if self.first.set((Box::from(method), settings)).is_ok() {
            return settings;
        }
        if let Ok(mut map) = self.methods.write() {
            if map.len() < METHOD_CACHE_CAPACITY {
                map.insert(method.to_owned(), settings);
            }
        }
        settings
    }

    /// The client, unless the invoker was destroyed.
    pub fn client(&self) -> Option<DubboClient> {
        self.client.get()
    }
}

impl std::fmt::Debug for DubboInvoker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DubboInvoker")
            .field("url", &self.url.to_string())
            .field("destroyed", &!self.client.is_some())
            .finish()
    }
}

impl Invoker for DubboInvoker {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        // A handle of the call's own: the client's future owns it and is the whole boxed
        // future.
        let client = match self.client.get() {
            Some(client) => client,
            None => {
                return Box::pin(std::future::ready(Err(RpcError::framework(
                    ErrorCode::Network,
                    format!(
                    "Rpc invoker for service {} on {} is DESTROYED, can not be invoked any more!",
                    invocation.service(),
                    client_address(&self.url)
                ),
                ))))
            }
        };
        let settings = self.method_settings(invocation.method_name());
        let timeout = match invocation.context().remaining() {
            Some(left) => left,
            None => settings.timeout.unwrap_or(client.config().timeout),
        };
        Box::pin(client.invoke_with_timeout(
            invocation,
            timeout,
            !settings.oneway,
            self.serialization,
        ))
    }

    fn url(&self) -> &Url {
        &self.url
    }

    fn is_available(&self) -> bool {
        if !self.destroyed.load(Ordering::Acquire) && self.availability.surely_available() {
            return true;
        }
        // No connection usable right now: the client knows whether one could be (re)opened.
        self.client.get().is_some_and(|c| c.is_available())
    }

    fn destroy(&self) {
        self.destroyed.store(true, Ordering::Release);
        // Dropping the last handle on a client closes its connections; a shared client stays
        // open for the other invokers using it.
        drop(self.client.replace(None));
    }
}

/// `host:port` of a URL, with the dubbo default port when it has none.
pub(crate) fn client_address(url: &Url) -> String {
    let host = url.host().unwrap_or("127.0.0.1");
    let port = match url.port() {
        0 => crate::protocol::DEFAULT_PORT,
        p => p,
    };
    format!("{host}:{port}")
}
