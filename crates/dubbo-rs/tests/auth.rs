//! Access-key authentication between dubbo-rs applications found through the embedded file
//! registry: the provider's `auth=true` reaches consumers through the registry, the
//! credentials come from each application's `dubbo.security.auth` (YAML or environment) and
//! never from the registry. Also the class lists of generic calls.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;
use dubbo_rs::GenericClient;

#[dubbo_rs::service(interface = "org.example.Vault")]
pub trait Vault {
    async fn open(&self, who: String) -> Result<String, RpcError>;
}

struct VaultImpl;

impl Vault for VaultImpl {
    async fn open(&self, who: String) -> Result<String, RpcError> {
        Ok(format!("opened for {who}"))
    }
}

const SK: &str = "provider-secret";

/// A provider of the vault with access-key auth, its secret from the environment.
async fn provider(registry: &str, extra: &str) -> Application {
    let yaml = format!(
        "dubbo:\n  application: {{ name: vault-provider }}\n  registry: {{ address: '{registry}' }}\n  protocols:\n    dubbo: {{ port: 0, host: 127.0.0.1 }}\n    tri: {{ port: 0, host: 127.0.0.1 }}\n  provider:\n    parameters: {{ auth: 'true', authenticator: accesskey }}\n  security:\n    auth: {{ access-key-id: vault-ak }}\n{extra}"
    );
    let env = [("DUBBO_SECURITY_AUTH_SECRET_ACCESS_KEY", SK)];
    let config = DubboConfig::from_yaml_with_env(&yaml, env).unwrap();
    let app = Application::builder("vault-provider")
        .config(config)
        .build()
        .unwrap();
    app.default_module()
        .export(
            VaultServer::new(VaultImpl),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    app.ready().await;
    app
}

/// A consumer through the registry with `security` settings (indented YAML), or none.
fn consumer(registry: &str, security: &str) -> Application {
    let yaml = format!(
        "dubbo:\n  application: {{ name: vault-consumer }}\n  registry: {{ address: '{registry}' }}\n{security}"
    );
    let config = DubboConfig::from_yaml(&yaml).unwrap();
    Application::builder("vault-consumer")
        .config(config)
        .build()
        .unwrap()
}

async fn open(app: &Application, protocol: &str) -> Result<String, RpcError> {
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Vault")
                .version("1.0.0")
                .protocol(protocol)
                .parameter("retries", "0")
                .timeout(Duration::from_secs(5)),
        )
        .await
        .map_err(|e| RpcError::framework(ErrorCode::NoProvider, e.to_string()))?;
    VaultClient::new(reference.invoker())
        .open("me".into())
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_through_a_registry_with_credentials_from_configuration() {
    let dir = support::TempDir::new("auth-test");
    let registry = dir.url();
    let p = provider(&registry, "").await;

    let right = consumer(
        &registry,
        &format!("  security:\n    auth: {{ access-key-id: vault-ak, secret-access-key: {SK} }}\n"),
    );
    let wrong = consumer(
        &registry,
        "  security:\n    auth: { access-key-id: vault-ak, secret-access-key: guess }\n",
    );
    let none = consumer(&registry, "");
    for protocol in ["dubbo", "tri"] {
        assert_eq!(
            open(&right, protocol).await.unwrap(),
            "opened for me",
            "{protocol}"
        );
        let e = open(&wrong, protocol).await.unwrap_err();
        assert_eq!(
            e.code(),
            Some(ErrorCode::Unauthenticated),
            "{protocol}: {e}"
        );
        assert!(
            e.message()
                .contains("Failed to authenticate, signature is not correct"),
            "{protocol}: {e}"
        );
        // A consumer without credentials does not send the call unsigned.
        let e = open(&none, protocol).await.unwrap_err();
        assert_eq!(e.code(), Some(ErrorCode::Config), "{protocol}: {e}");
        assert!(e.message().contains(".accessKeyId"), "{protocol}: {e}");
    }
    // Nothing secret was registered, by the provider or the consumers: the registry directory
    // holds no trace of a secret.
    let mut stack = vec![std::path::PathBuf::from(dir.path())];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                assert!(!text.contains(SK), "secret in {}", path.display());
                assert!(
                    !text.contains("guess"),
                    "consumer secret in {}",
                    path.display()
                );
                assert!(
                    !text.contains("secretAccessKey"),
                    "key in {}",
                    path.display()
                );
            }
        }
    }

    for app in [right, wrong, none, p] {
        app.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_without_its_secret_fails_at_export() {
    let app = Application::builder("no-secret")
        .protocol("dubbo", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let err = app
        .default_module()
        .export(
            VaultServer::new(VaultImpl),
            ServiceOptions::new()
                .parameter("auth", "true")
                .parameter("authenticator", "accesskey")
                .parameter(".accessKeyId", "ak"),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains(".secretAccessKey"), "{err}");
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generic_calls_name_only_allowed_classes() {
    let yaml = "dubbo:\n  application: { name: lists }\n  protocols:\n    dubbo: { port: 0, host: 127.0.0.1 }\n  security:\n    serialize: { allowedClassList: 'org.example.' }\n";
    let app = Application::builder("lists")
        .config(DubboConfig::from_yaml(yaml).unwrap())
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(VaultServer::new(VaultImpl), ServiceOptions::new())
        .await
        .unwrap();
    assert!(
        !urls[0].to_full_string().contains("allowedClassList"),
        "{}",
        urls[0]
    );
    let consumer = Application::builder("lists-consumer").build().unwrap();
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Vault")
                .url(format!("dubbo://127.0.0.1:{}", urls[0].port()))
                .parameter("retries", "0"),
        )
        .await
        .unwrap();
    let generic = GenericClient::new(reference.invoker(), reference.service_key().clone());
    let arg = |class: &str| {
        let mut m = dubbo_rs::hessian2::Map::default();
        m.entries.push((Value::from("class"), Value::from(class)));
        Value::Map(m)
    };
    // A plain string passes; a map naming a class outside the list is refused.
    assert_eq!(
        generic
            .invoke("open", &["java.lang.String"], vec![Value::from("x")])
            .await
            .unwrap(),
        Value::from("opened for x")
    );
    let err = generic
        .invoke("open", &["java.lang.String"], vec![arg("com.evil.Gadget")])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Forbidden), "{err}");
    assert!(
        err.message().contains("com.evil.Gadget") && err.message().contains("allowedClassList"),
        "{err}"
    );
    consumer.shutdown().await;
    app.shutdown().await;
}
