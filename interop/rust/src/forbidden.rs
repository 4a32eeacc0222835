//! The refusal check of Dubbo's token: a call without the provider's token (or with another
//! one) must be refused with [`ErrorCode::Forbidden`].

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
    match c.say_hello(Some("intruder".into())).await {
        Err(e) if e.code() == Some(ErrorCode::Forbidden) => {
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
