//! The refusal check of Dubbo's token: a call without the provider's token (or with another
//! one) must be refused with [`ErrorCode::Forbidden`]; with `--auth`, a call signed with the
//! wrong secret (or not at all) must be refused as Java's `dubbo-auth` refuses it.

use dubbo_rs::prelude::*;

use crate::cases::interop_reference;
use crate::reference_flags::ReferenceFlags;
use crate::report::Report;
use crate::service::InteropServiceClient;

/// Calls `InteropService.sayHello` at `url` sending the flags' token (none when not given) and
/// records one case that passes only if the provider refused the call with
/// [`ErrorCode::Forbidden`].
pub async fn check_forbidden(
    app: &Application,
    url: &str,
    flags: &ReferenceFlags,
    report: &mut Report,
) -> Result<(), DubboError> {
    let token = flags.token();
    let reference = app
        .default_module()
        .refer(flags.apply(interop_reference(url, token)))
        .await?;
    let c = InteropServiceClient::new(reference.invoker());
    let name = match token {
        Some(t) => format!("sayHello refused with token {t:?}"),
        None => "sayHello refused without a token".to_owned(),
    };
    // With --auth the call is signed (with --sk's secret) and must be refused as Java's
    // dubbo-auth refuses it: RpcAuthenticationException over dubbo://, UNAUTHENTICATED over
    // tri://.
    let name = if flags.signs() {
        "sayHello refused as unauthenticated".to_owned()
    } else {
        name
    };
    let refused = |e: &RpcError| {
        if flags.signs() {
            dubbo_rs::core::filters::auth::is_auth_refusal(e)
        } else {
            e.code() == Some(ErrorCode::Forbidden)
        }
    };
    match c.say_hello(Some("intruder".into())).await {
        Err(e) if refused(&e) => {
            report.check(&name, true, String::new);
            println!("  refusal: {}", e.message().lines().next().unwrap_or(""));
        }
        Err(e) => report.check(&name, false, || {
            format!("refused, but not as forbidden: {e}")
        }),
        Ok(v) => report.check(&name, false, || format!("served: {v:?}")),
    }
    Ok(())
}
