//! `providerauth` (provider, Java's `ProviderAuthFilter` and, over Triple,
//! `ProviderAuthHeaderFilter`): refuses calls of a service whose URL says `auth=true` unless
//! they carry the right credentials.

use std::sync::Arc;

use dubbo_url::Url;

use super::consumer_sign::signed_method_name;
use super::{colon_separated_key, now_millis, refusal, AuthError, Authenticated, Authenticator};
use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// Checks calls as the URL's `authenticator` says; see [the module](super).
///
/// A refused call is answered as Java does ([`refusal`]); over access keys the provider also
/// refuses a `timestamp` outside `auth.timestamp.window`, which Java does not check.
#[derive(Debug, Default, Clone)]
pub struct ProviderAuthFilter {
    resolved: Option<Resolved>,
}

#[derive(Debug, Clone)]
struct Resolved {
    auth: Result<Option<Authenticator>, AuthError>,
    /// The service's colon-separated key (`interface:version:group`), from the URL as Java's.
    service: String,
}

impl ProviderAuthFilter {
    fn resolve(url: &Url) -> Resolved {
        let interface = url.service_interface().unwrap_or_default();
        Resolved {
            auth: Authenticator::from_url(url),
            service: colon_separated_key(
                interface,
                url.parameter("version"),
                url.parameter("group"),
            ),
        }
    }
}

impl Filter for ProviderAuthFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let owned;
        let resolved = match &self.resolved {
            Some(r) => r,
            None => {
                owned = Self::resolve(next.url());
                &owned
            }
        };
        let trusted = invocation.context().get::<Authenticated>().is_some();
        let checked = match &resolved.auth {
            Ok(None) => Ok(()),
            Ok(Some(_)) if trusted => Ok(()),
            Ok(Some(Authenticator::AccessKey(a))) => a.authenticate(
                &resolved.service,
                signed_method_name(&invocation),
                invocation.attachments(),
                now_millis(),
            ),
            Ok(Some(Authenticator::Basic(b))) => b.authenticate(invocation.attachments()),
            Err(e) => {
                // Export refuses such settings; this is a URL changed afterwards.
                let e = RpcError::framework(
                    ErrorCode::Config,
                    format!("the provider's authentication settings are wrong: {e}"),
                );
                return Box::pin(async move { Err(e) });
            }
        };
        match checked {
            Ok(()) => next.run(invocation),
            Err(e) => {
                tracing::debug!(
                    code = e.code(),
                    service = %resolved.service,
                    method = invocation.method_name(),
                    remote = ?invocation.context().remote_addr(),
                    "call refused: {e}"
                );
                let e = refusal(&e);
                Box::pin(async move { Err(e) })
            }
        }
    }

    fn for_chain(&self, url: &Url) -> Option<Arc<dyn Filter>> {
        Some(Arc::new(ProviderAuthFilter {
            resolved: Some(Self::resolve(url)),
        }))
    }
}
