//! What a provider at a dubbo:// address serves: its MetadataService's `getExportedURLs()`,
//! asked over dubbo:// as a Java consumer asks it. The MetadataService is exported under the
//! provider's application name as group and version `1.0.0`, so the application must be known
//! (`dubbo ls --url dubbo://HOST:PORT --app APP`), as a Java consumer knows it from the
//! instance it found in the registry.

use std::time::Duration;

use dubbo_hessian2::json::value_to_json;
use dubbo_rs::{Application, GenericClient, ReferenceOptions};
use dubbo_url::Url;

use crate::centre::DEFAULT_TIMEOUT_MS;
use crate::dubbo::ls::ProviderRow;
use crate::dubbo::tls::TlsFlags;
use crate::dubbo::CliError;

/// The interface of Dubbo's MetadataService.
pub const METADATA_SERVICE: &str = "org.apache.dubbo.metadata.MetadataService";

/// The URLs the provider at `target` (`dubbo://HOST:PORT`) exports, from the MetadataService
/// of application `app`, one row each.
pub async fn exported(
    target: &str,
    app: &str,
    tls: &TlsFlags,
) -> Result<Vec<ProviderRow>, CliError> {
    let mut builder = Application::builder("dubbo-cli");
    if let Some(ssl) = tls.ssl() {
        builder = builder.ssl(ssl);
    }
    let application = builder.build()?;
    let timeout = DEFAULT_TIMEOUT_MS.parse().unwrap_or(5000);
    let options = ReferenceOptions::new(METADATA_SERVICE)
        .url(target.to_owned())
        .group(app.to_owned())
        .version("1.0.0")
        .timeout(Duration::from_millis(timeout));
    let outcome = async {
        let reference = application.default_module().refer(options).await?;
        let client = GenericClient::new(reference.invoker(), reference.service_key().clone());
        Ok::<_, CliError>(client.invoke("getExportedURLs", &[], Vec::new()).await?)
    }
    .await;
    application.shutdown().await;
    let urls = match value_to_json(&outcome?) {
        serde_json::Value::Array(items) => items,
        serde_json::Value::Null => Vec::new(),
        other => {
            return Err(CliError::io(
                format!("{METADATA_SERVICE}.getExportedURLs at {target}"),
                &format!("answered {other}, not a set of URLs"),
            ))
        }
    };
    rows(urls)
}

/// One row per exported URL, sorted as `ls` sorts registrations.
pub fn rows(urls: Vec<serde_json::Value>) -> Result<Vec<ProviderRow>, CliError> {
    let mut rows = Vec::new();
    for item in urls {
        let serde_json::Value::String(text) = item else {
            return Err(CliError::io(
                "an exported URL",
                &format!("{item} is not text"),
            ));
        };
        let url = Url::parse(&text)
            .map_err(|e| CliError::io(format!("the exported URL {text:?}"), &e))?;
        rows.push(ProviderRow::from_url(url));
    }
    rows.sort_by(|a, b| {
        (&a.service, &a.protocol, &a.version, &a.group).cmp(&(
            &b.service,
            &b.protocol,
            &b.version,
            &b.group,
        ))
    });
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exported_urls_become_rows() {
        let rows = rows(vec![
            serde_json::json!("tri://127.0.0.1:50051/org.a.B?interface=org.a.B&version=1.0.0&application=demo&side=provider"),
            serde_json::json!("dubbo://127.0.0.1:20880/org.a.B?interface=org.a.B&version=1.0.0&group=g&application=demo&side=provider"),
        ])
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (
                rows[0].protocol.as_str(),
                rows[0].group.as_str(),
                rows[0].application.as_str()
            ),
            ("dubbo", "g", "demo")
        );
        assert_eq!(
            (rows[1].protocol.as_str(), rows[1].address.as_str()),
            ("tri", "127.0.0.1:50051")
        );
        assert!(super::rows(vec![serde_json::json!(1)]).is_err());
    }
}
