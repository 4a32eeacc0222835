//! Feeds arbitrary text as the attachments of a call (`signature`, `timestamp`, `ak`,
//! `consumer`, `authorization`) to the access-key and HTTP Basic checks, and as URL parameters
//! (`auth`, `authenticator`, credentials, `auth.timestamp.window`) to the settings reader.
//! Nothing may panic, and a call the check accepts must carry the signature the provider
//! computes itself.

#![no_main]

use dubbo_core::filters::auth::{
    call_signature, AccessKeyAuthenticator, Authenticator, BasicAuthenticator,
};
use dubbo_core::Attachments;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{0}');
    let mut next = || parts.next().unwrap_or("").to_owned();
    let (signature, timestamp, ak, consumer, authorization, now) =
        (next(), next(), next(), next(), next(), next());
    let mut attachments = Attachments::new();
    for (k, v) in [
        ("signature", &signature),
        ("timestamp", &timestamp),
        ("ak", &ak),
        ("consumer", &consumer),
        ("authorization", &authorization),
    ] {
        if !v.is_empty() {
            attachments.insert(k, v.as_str());
        }
    }
    let now: i64 = now.parse().unwrap_or(0);
    for window in [0, 300_000] {
        let a = AccessKeyAuthenticator::new("ak", "sk").with_window(window);
        if a.authenticate("a.B:1.0.0:", "m", &attachments, now).is_ok() {
            assert_eq!(signature, call_signature("a.B:1.0.0:", "m", "sk", &timestamp));
        }
    }
    let _ = BasicAuthenticator::new("u", "p").authenticate(&attachments);
    // The same text as URL parameters.
    let query = format!(
        "auth={signature}&authenticator={timestamp}&.accessKeyId={ak}&.secretAccessKey={consumer}&username={ak}&password={consumer}&auth.timestamp.window={authorization}"
    );
    if let Ok(url) = dubbo_url::Url::parse(&format!("dubbo://127.0.0.1:1/a.B?{query}")) {
        let _ = Authenticator::from_url(&url);
    }
});
