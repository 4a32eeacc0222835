//! The client's flags that shape every reference and call: `--token T`, `--auth …` (see
//! [`auth_flags`](crate::auth_flags)), `--timeout MS`,
//! `--param K=V` (a parameter on the reference) and `--attachment K=V` (an attachment on every
//! call, through a consumer filter).

use std::sync::Arc;
use std::time::Duration;

use dubbo_rs::core::{BoxFuture, Filter, FilterSpec, Invocation, Next, RpcResult, Stage};
use dubbo_rs::prelude::*;
use dubbo_rs::Framework;

use crate::args::Args;

/// What the client's flags add to its references and calls.
#[derive(Debug, Clone, Default)]
pub struct ReferenceFlags {
    /// Dubbo's token, sent with every call (`--token`).
    pub token: Option<String>,
    /// The reference's timeout (`--timeout MS`); the reference's own default otherwise.
    pub timeout: Option<Duration>,
    /// Parameters on the reference (`--param K=V`, repeatable), after everything else.
    pub params: Vec<(String, String)>,
    /// Attachments on every call (`--attachment K=V`, repeatable).
    pub attachments: Vec<(String, String)>,
}

impl ReferenceFlags {
    /// Reads `--token`, `--timeout`, `--param` and `--attachment`.
    pub fn from_args(args: &Args) -> Result<Self, String> {
        let owned = |pairs: Vec<(&str, &str)>| {
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect()
        };
        Ok(Self {
            token: args.get("token").map(str::to_owned),
            timeout: match args.get("timeout") {
                Some(t) => {
                    Some(Duration::from_millis(t.parse().map_err(|_| {
                        format!("--timeout {t}: not a number of milliseconds")
                    })?))
                }
                None => None,
            },
            // --auth and its credentials first, so that a --param can still override them.
            params: crate::auth_flags::auth_params(args)?
                .into_iter()
                .chain(owned(args.pairs("param")?))
                .collect(),
            attachments: owned(args.pairs("attachment")?),
        })
    }

    /// The token, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// `options` with the timeout and the parameters (the token is added where the reference
    /// is made, as before these flags existed).
    pub fn apply(&self, mut options: ReferenceOptions) -> ReferenceOptions {
        if let Some(t) = self.timeout {
            options = options.timeout(t);
        }
        for (k, v) in &self.params {
            options = options.parameter(k, v);
        }
        options
    }

    /// Whether `--auth` asks the references to sign their calls.
    pub fn signs(&self) -> bool {
        self.params.iter().any(|(k, v)| k == "auth" && v == "true")
    }

    /// A framework whose consumers put the attachments on every call, when there are any.
    pub fn framework(&self) -> Option<Arc<Framework>> {
        if self.attachments.is_empty() {
            return None;
        }
        let framework = Framework::new();
        framework.register_filter(FilterSpec::new(
            "interop-attachments",
            // Outermost: later filters and the routers see the attachments.
            i32::MIN,
            &[Stage::Consumer],
            Arc::new(AttachmentFilter(self.attachments.clone())),
        ));
        Some(framework)
    }
}

/// Puts fixed attachments on every call.
struct AttachmentFilter(Vec<(String, String)>);

impl Filter for AttachmentFilter {
    fn invoke<'a>(&'a self, mut call: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        for (k, v) in &self.0 {
            call.attachments_mut().insert(k.as_str(), v.as_str());
        }
        next.run(call)
    }
}
