//! `dubbo.ssl` between dubbo-rs applications over dubbo:// and tri:// on 127.0.0.1: YAML and
//! environment keys, mutual TLS, a protocol with `ssl-enabled: false`, keys refused at start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;
use dubbo_rs::tls::testing::TestPki;

#[dubbo_rs::service(interface = "org.example.Safe")]
pub trait Safe {
    async fn open(&self, who: String) -> Result<String, RpcError>;
}

struct SafeImpl;

impl Safe for SafeImpl {
    async fn open(&self, who: String) -> Result<String, RpcError> {
        Ok(format!("opened for {who}"))
    }
}

fn pki(tag: &str) -> TestPki {
    let dir = std::env::temp_dir().join(format!("dubbo-rs-tls-{tag}-{}", std::process::id()));
    TestPki::create(&dir).unwrap()
}

fn p(path: &std::path::Path) -> String {
    path.display().to_string()
}

async fn provider(yaml: &str, env: &[(&str, String)]) -> (Application, Vec<dubbo_rs::url::Url>) {
    let config =
        DubboConfig::from_yaml_with_env(yaml, env.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
    let app = Application::builder("safe-provider")
        .config(config)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(SafeServer::new(SafeImpl), ServiceOptions::new())
        .await
        .unwrap();
    (app, urls)
}

fn consumer(ssl: Option<dubbo_rs::config::SslConfig>) -> Application {
    let mut b = Application::builder("safe-consumer");
    if let Some(ssl) = ssl {
        b = b.ssl(ssl);
    }
    b.build().unwrap()
}

async fn open(app: &Application, url: &dubbo_rs::url::Url) -> Result<String, String> {
    let target = format!(
        "{}://127.0.0.1:{}",
        url.protocol().unwrap_or("dubbo"),
        url.port()
    );
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Safe")
                .url(target)
                .timeout(Duration::from_secs(3))
                .parameter("check", "false"),
        )
        .await
        .map_err(|e| e.to_string())?;
    SafeClient::new(reference.invoker())
        .open("tls".into())
        .await
        .map_err(|e| e.to_string())
}

const PROTOCOLS: &str = "
dubbo:
  protocols:
    dubbo:
      port: 0
    tri:
      port: 0
";

#[tokio::test]
async fn mutual_tls_from_yaml_and_environment() {
    let k = pki("mtls");
    // The server keys come from the environment, as DUBBO_SSL_* overrides.
    let env = [
        ("DUBBO_SSL_SERVER_KEY_CERT_CHAIN_PATH", p(&k.server_cert)),
        ("DUBBO_SSL_SERVER_PRIVATE_KEY_PATH", p(&k.server_key)),
        ("DUBBO_SSL_SERVER_TRUST_CERT_COLLECTION_PATH", p(&k.ca)),
    ];
    let (provider, urls) = provider(PROTOCOLS, &env).await;
    assert_eq!(urls.len(), 2);
    let full = dubbo_rs::config::SslConfig {
        client_trust_cert_collection_path: Some(p(&k.ca)),
        client_key_cert_chain_path: Some(p(&k.client_cert)),
        client_private_key_path: Some(p(&k.client_key)),
        ..Default::default()
    };
    let no_cert = dubbo_rs::config::SslConfig {
        client_trust_cert_collection_path: Some(p(&k.ca)),
        ..Default::default()
    };
    let good = consumer(Some(full));
    let anonymous = consumer(Some(no_cert));
    let plain = consumer(None);
    for url in &urls {
        assert_eq!(open(&good, url).await.unwrap(), "opened for tls", "{url}");
        assert!(open(&anonymous, url).await.is_err(), "{url}");
        assert!(open(&plain, url).await.is_err(), "{url}");
        assert_eq!(open(&good, url).await.unwrap(), "opened for tls", "{url}");
    }
    for app in [good, anonymous, plain, provider] {
        app.shutdown().await;
    }
}

#[tokio::test]
async fn ssl_enabled_false_keeps_a_port_plaintext() {
    let k = pki("mixed");
    let yaml = format!(
        "
dubbo:
  ssl:
    server-key-cert-chain-path: {}
    server-private-key-path: {}
  protocols:
    dubbo:
      port: 0
      ssl-enabled: false
    tri:
      port: 0
",
        p(&k.server_cert),
        p(&k.server_key)
    );
    let (provider, urls) = provider(&yaml, &[]).await;
    let dubbo = urls.iter().find(|u| u.protocol() == Some("dubbo")).unwrap();
    let tri = urls.iter().find(|u| u.protocol() == Some("tri")).unwrap();
    let plain = consumer(None);
    let tls = consumer(Some(dubbo_rs::config::SslConfig {
        client_trust_cert_collection_path: Some(p(&k.ca)),
        ..Default::default()
    }));
    assert_eq!(open(&plain, dubbo).await.unwrap(), "opened for tls");
    assert!(open(&plain, tri).await.is_err());
    assert_eq!(open(&tls, tri).await.unwrap(), "opened for tls");
    for app in [plain, tls, provider] {
        app.shutdown().await;
    }
}

fn start_error(yaml: &str) -> String {
    let config = DubboConfig::from_yaml_with_env(yaml, std::iter::empty::<(&str, &str)>());
    match config {
        Err(e) => e.to_string(),
        Ok(c) => match Application::builder("x").config(c).build() {
            Err(e) => e.to_string(),
            Ok(_) => "started".to_owned(),
        },
    }
}

#[test]
fn bad_ssl_keys_are_refused_at_start_naming_the_key() {
    let k = pki("bad");
    let e = start_error(&format!(
        "dubbo:\n  ssl:\n    server-key-cert-chain-path: {}\n",
        p(&k.server_cert)
    ));
    assert!(e.contains("dubbo.ssl.server-private-key-path"), "{e}");
    let e = start_error(&format!(
        "dubbo:\n  ssl:\n    server-key-cert-chain-path: {}\n    server-private-key-path: /nonexistent/key.pem\n",
        p(&k.server_cert)
    ));
    assert!(e.contains("dubbo.ssl.server-private-key-path"), "{e}");
    assert!(e.contains("/nonexistent/key.pem"), "{e}");
    let e = start_error("dubbo:\n  ssl:\n    server-key-pasword: x\n");
    assert!(e.contains("server-key-pasword"), "{e}");
    let e = start_error("dubbo:\n  protocols:\n    tri:\n      ssl-enabled: true\n");
    assert!(e.contains("dubbo.protocols.tri.ssl-enabled"), "{e}");
    let e = start_error(&format!(
        "dubbo:\n  ssl:\n    client-key-cert-chain-path: {}\n    client-private-key-path: {}\n",
        p(&k.client_cert),
        p(&k.client_key)
    ));
    assert!(
        e.contains("dubbo.ssl.client-trust-cert-collection-path"),
        "{e}"
    );
    // A complete, readable configuration starts.
    let ok = start_error(&format!(
        "dubbo:\n  ssl:\n    server-key-cert-chain-path: {}\n    server-private-key-path: {}\n    server-allow-plaintext: \"true\"\n    cert-reload-interval: 1000\n",
        p(&k.server_cert),
        p(&k.server_key)
    ));
    assert_eq!(ok, "started");
}

async fn scrape(app: &Application) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(app.qos_address().unwrap())
        .await
        .unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).await.unwrap();
    text
}

fn gauge(text: &str, name: &str, protocol: &str, role: &str) -> String {
    text.lines()
        .find(|l| {
            l.starts_with(name)
                && l.contains(&format!("protocol=\"{protocol}\""))
                && l.contains(&format!("role=\"{role}\""))
        })
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no {name} for {protocol} {role} in\n{text}"))
}

#[tokio::test]
async fn certificate_gauges_on_the_qos_port_follow_reloads() {
    let k = pki("gauge");
    let app = Application::builder("gauge-provider")
        .protocol("dubbo", 0)
        .host("127.0.0.1")
        .qos_port(0)
        .ssl(dubbo_rs::config::SslConfig {
            server_key_cert_chain_path: Some(p(&k.server_cert)),
            server_private_key_path: Some(p(&k.server_key)),
            client_trust_cert_collection_path: Some(p(&k.ca)),
            client_key_cert_chain_path: Some(p(&k.client_cert)),
            client_private_key_path: Some(p(&k.client_key)),
            cert_reload_interval: Some(50),
            ..Default::default()
        })
        .build()
        .unwrap();
    let text = scrape(&app).await;
    for protocol in ["dubbo", "tri"] {
        for (role, cn) in [("server", "server"), ("client", "client")] {
            let expiry = gauge(
                &text,
                "dubbo_tls_certificate_expiry_seconds{",
                protocol,
                role,
            );
            assert!(expiry.contains(&format!("subject=\"CN={cn}\"")), "{expiry}");
            let secs: i64 = expiry.rsplit(' ').next().unwrap().parse().unwrap();
            // The test PKI's certificates are valid for a year.
            assert!(secs > 300 * 86_400, "{expiry}");
            assert!(gauge(&text, "dubbo_tls_certificate_valid{", protocol, role).ends_with(" 1"));
        }
    }
    // The server's files now hold the client's pair (CN=client): after the interval, the next
    // scrape looks at the files and the server gauges name the new certificate.
    std::fs::copy(&k.client_key, &k.server_key).unwrap();
    std::fs::copy(&k.client_cert, &k.server_cert).unwrap();
    tokio::time::sleep(Duration::from_millis(120)).await;
    let text = scrape(&app).await;
    for protocol in ["dubbo", "tri"] {
        let expiry = gauge(
            &text,
            "dubbo_tls_certificate_expiry_seconds{",
            protocol,
            "server",
        );
        assert!(expiry.contains("subject=\"CN=client\""), "{expiry}");
    }
    app.shutdown().await;
}

/// A dubbo:// factory that records the TLS it is given and builds the protocol with it.
struct RecordingFactory(std::sync::Arc<std::sync::Mutex<Vec<(bool, bool)>>>);

impl dubbo_rs::ProtocolFactory for RecordingFactory {
    fn create(&self, tls: &dubbo_rs::ProtocolTls) -> std::sync::Arc<dyn dubbo_rs::core::Protocol> {
        self.0
            .lock()
            .unwrap()
            .push((tls.server.is_some(), tls.client.is_some()));
        std::sync::Arc::new(dubbo_rs::protocol_dubbo::DubboProtocol::with_tls(
            tls.server.clone(),
            tls.client.clone(),
        ))
    }
}

#[tokio::test]
async fn the_framework_protocol_factory_receives_the_application_tls() {
    let k = pki("factory");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let framework = dubbo_rs::Framework::new();
    framework
        .extensions()
        .register::<dyn dubbo_rs::ProtocolFactory>(
            "dubbo",
            std::sync::Arc::new(RecordingFactory(seen.clone())),
        );
    let provider = Application::builder("factory-provider")
        .framework(framework.clone())
        .protocol("dubbo", 0)
        .host("127.0.0.1")
        .ssl(dubbo_rs::config::SslConfig {
            server_key_cert_chain_path: Some(p(&k.server_cert)),
            server_private_key_path: Some(p(&k.server_key)),
            ..Default::default()
        })
        .build()
        .unwrap();
    let urls = provider
        .default_module()
        .export(SafeServer::new(SafeImpl), ServiceOptions::new())
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![(true, false)]);
    // The port the factory's protocol opened serves TLS: a TLS client is served, a plaintext
    // one refused.
    let tls_consumer = Application::builder("factory-consumer")
        .framework(framework.clone())
        .ssl(dubbo_rs::config::SslConfig {
            client_trust_cert_collection_path: Some(p(&k.ca)),
            ..Default::default()
        })
        .build()
        .unwrap();
    let plain = consumer(None);
    assert_eq!(
        open(&tls_consumer, &urls[0]).await.unwrap(),
        "opened for tls"
    );
    assert_eq!(*seen.lock().unwrap(), vec![(true, false), (false, true)]);
    assert!(open(&plain, &urls[0]).await.is_err());
    for app in [tls_consumer, plain, provider] {
        app.shutdown().await;
    }
}
