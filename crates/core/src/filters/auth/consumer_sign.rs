//! `consumersign` (consumer, Java's `ConsumerSignFilter`): signs every call of a reference
//! whose URL says `auth=true`.

use std::sync::Arc;

use dubbo_hessian2::Value;
use dubbo_url::Url;

use super::{colon_separated_key, now_millis, AuthError, Authenticator};
use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};
use crate::payload::Payload;

/// Signs calls as the URL's `authenticator` says; see [the module](super).
///
/// The registered filter reads the URL once per chain ([`Filter::for_chain`]); a URL whose
/// settings are wrong (credentials missing, unknown authenticator) fails each call with
/// [`ErrorCode::Config`] naming the key, and nothing unsigned is sent.
#[derive(Debug, Default, Clone)]
pub struct ConsumerSignFilter {
    resolved: Option<Result<Option<Authenticator>, AuthError>>,
}

impl ConsumerSignFilter {
    fn resolve(url: &Url) -> Result<Option<Authenticator>, AuthError> {
        Authenticator::from_url(url)
    }
}

impl Filter for ConsumerSignFilter {
    fn invoke<'a>(
        &'a self,
        mut invocation: Invocation,
        next: Next<'a>,
    ) -> BoxFuture<'a, RpcResult> {
        let owned;
        let resolved = match &self.resolved {
            Some(r) => r,
            None => {
                owned = Self::resolve(next.url());
                &owned
            }
        };
        match resolved {
            Ok(None) => {}
            Ok(Some(Authenticator::AccessKey(a))) => {
                let service = invocation.service();
                let key =
                    colon_separated_key(service.interface(), service.version(), service.group());
                let method = signed_method_name(&invocation).to_owned();
                let url = next.url();
                let consumer = invocation
                    .attachments()
                    .get_str(crate::attachments::keys::REMOTE_APPLICATION)
                    .or_else(|| url.parameter("application"))
                    .unwrap_or("unknown")
                    .to_owned();
                a.sign(
                    &key,
                    &method,
                    now_millis(),
                    &consumer,
                    invocation.attachments_mut(),
                );
            }
            Ok(Some(Authenticator::Basic(b))) => b.sign(invocation.attachments_mut()),
            Err(e) => {
                let e =
                    RpcError::framework(ErrorCode::Config, format!("cannot sign the call: {e}"));
                return Box::pin(async move { Err(e) });
            }
        }
        next.run(invocation)
    }

    fn for_chain(&self, url: &Url) -> Option<Arc<dyn Filter>> {
        Some(Arc::new(ConsumerSignFilter {
            resolved: Some(Self::resolve(url)),
        }))
    }
}

/// Java's `RpcUtils.getMethodName`: the real method of a generic `$invoke` / `$invokeAsync`
/// (its first argument), else the method called.
pub(super) fn signed_method_name(invocation: &Invocation) -> &str {
    let name = invocation.method_name();
    if name == "$invoke" || name == "$invokeAsync" {
        if let Some(Payload::Value(Value::String(m))) = invocation.args().first() {
            return m;
        }
    }
    name
}
