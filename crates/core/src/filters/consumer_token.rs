use crate::attachments::keys;
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

use super::token::is_empty_token;

/// The consumer side of Dubbo's token: sends the reference URL's `token` parameter as the
/// `token` attachment, unless the call already carries one.
///
/// Java does this in its protocol invokers (`AbstractInvoker` copies `interface`, `group` and
/// `token` from the URL); with a registry the URL's token is the provider's, and with a direct
/// URL the user gives it (`dubbo://host:port/Service?token=T`, or a reference parameter).
#[derive(Debug, Default, Clone, Copy)]
pub struct ConsumerTokenFilter;

impl Filter for ConsumerTokenFilter {
    fn invoke<'a>(
        &'a self,
        mut invocation: Invocation,
        next: Next<'a>,
    ) -> BoxFuture<'a, RpcResult> {
        if let Some(token) = next.url().parameter(keys::TOKEN) {
            if !is_empty_token(token) && !invocation.attachments().contains_key(keys::TOKEN) {
                invocation.attachments_mut().insert(keys::TOKEN, token);
            }
        }
        next.run(invocation)
    }
}
