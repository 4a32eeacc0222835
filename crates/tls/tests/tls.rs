//! The TLS crate against itself over loopback: handshakes, mutual TLS, port unification,
//! refused peers, reloading, key formats. Certificates are made here with rcgen.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dubbo_tls::{Accepted, ClientTls, ClientTlsSettings, ServerTls, ServerTlsSettings, TlsError};
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
}

fn ca(name: &str) -> Ca {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.distinguished_name.push(rcgen::DnType::CommonName, name);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let key = KeyPair::generate().unwrap();
    let cert = p.self_signed(&key).unwrap();
    Ca { cert, key }
}

fn leaf(ca: &Ca, cn: &str, not_after_days: i64) -> (String, String) {
    let mut p =
        CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    p.distinguished_name.push(rcgen::DnType::CommonName, cn);
    let now = time_now();
    p.not_before = now - time_days(1);
    p.not_after = now + time_days(not_after_days);
    let key = KeyPair::generate().unwrap();
    let cert = p.signed_by(&key, &ca.cert, &ca.key).unwrap();
    (cert.pem(), key.serialize_pem())
}

fn time_now() -> time::OffsetDateTime {
    time::OffsetDateTime::now_utc()
}

fn time_days(d: i64) -> time::Duration {
    time::Duration::days(d)
}

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("dubbo-tls-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Setup {
    dir: Dir,
    ca: Ca,
    ca_path: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
    client_cert: PathBuf,
    client_key: PathBuf,
}

fn setup(tag: &str) -> Setup {
    let dir = Dir::new(tag);
    let ca = ca("test-ca");
    let ca_path = dir.write("ca.pem", &ca.cert.pem());
    let (sc, sk) = leaf(&ca, "server", 30);
    let (cc, ck) = leaf(&ca, "client", 30);
    Setup {
        server_cert: dir.write("server.pem", &sc),
        server_key: dir.write("server.key", &sk),
        client_cert: dir.write("client.pem", &cc),
        client_key: dir.write("client.key", &ck),
        ca_path,
        ca,
        dir,
    }
}

/// An echo server over `tls`: reads a line, answers "echo: " + line. Returns its address.
async fn serve(tls: ServerTls) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, peer)) = listener.accept().await else {
                return;
            };
            let tls = tls.clone();
            tokio::spawn(async move {
                match tls.accept(tcp, peer).await {
                    Some(Accepted::Plain(s)) => echo(s, "plain").await,
                    Some(Accepted::Tls(s)) => echo(*s, "tls").await,
                    None => {}
                }
            });
        }
    });
    addr
}

async fn echo<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(mut s: S, kind: &str) {
    let mut buf = [0u8; 64];
    if let Ok(n) = s.read(&mut buf).await {
        let reply = format!("{kind}: {}", String::from_utf8_lossy(&buf[..n]));
        let _ = s.write_all(reply.as_bytes()).await;
        let _ = s.shutdown().await;
    }
}

async fn call_tls(client: &ClientTls, addr: SocketAddr) -> std::io::Result<String> {
    let tcp = TcpStream::connect(addr).await?;
    let mut s = client.connect(&addr.to_string(), tcp).await?;
    s.write_all(b"hi").await?;
    let mut out = String::new();
    s.read_to_string(&mut out).await?;
    Ok(out)
}

async fn call_plain(addr: SocketAddr, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(bytes).await.unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn tls_served_and_plaintext_refused_unless_allowed() {
    let s = setup("basic");
    let settings = ServerTlsSettings::new(&s.server_cert, &s.server_key);
    let addr = serve(ServerTls::new(&settings, &[]).unwrap()).await;
    let client = ClientTls::new(&ClientTlsSettings::new(&s.ca_path), &[]).unwrap();
    assert_eq!(call_tls(&client, addr).await.unwrap(), "tls: hi");
    // Plaintext and garbage are closed without an answer; TLS still works afterwards.
    assert_eq!(call_plain(addr, b"hello").await, "");
    // Garbage that looks like a handshake record gets a TLS alert (0x15) and the close.
    let answer = call_plain(addr, &[0x16, 0, 0, 0, 0, 0]).await;
    assert!(
        answer.is_empty() || answer.starts_with('\u{15}'),
        "{answer:?}"
    );
    assert_eq!(call_tls(&client, addr).await.unwrap(), "tls: hi");

    let optional = settings.clone().with_plaintext_allowed(true);
    let addr = serve(ServerTls::new(&optional, &[]).unwrap()).await;
    assert_eq!(call_plain(addr, b"hello").await, "plain: hello");
    assert_eq!(call_tls(&client, addr).await.unwrap(), "tls: hi");
}

#[tokio::test]
async fn mutual_tls_requires_a_client_certificate_and_refuses_plaintext() {
    let s = setup("mtls");
    let settings = ServerTlsSettings::new(&s.server_cert, &s.server_key)
        .with_client_auth(&s.ca_path)
        .with_plaintext_allowed(true);
    let server = ServerTls::new(&settings, &[]).unwrap();
    assert!(server.is_mutual() && !server.allows_plaintext());
    let addr = serve(server).await;
    let with_cert = ClientTls::new(
        &ClientTlsSettings::new(&s.ca_path).with_identity(&s.client_cert, &s.client_key),
        &[],
    )
    .unwrap();
    assert_eq!(call_tls(&with_cert, addr).await.unwrap(), "tls: hi");
    let without = ClientTls::new(&ClientTlsSettings::new(&s.ca_path), &[]).unwrap();
    assert!(call_tls(&without, addr).await.is_err());
    // A certificate from another CA is refused too.
    let other = ca("other-ca");
    let (oc, ok) = leaf(&other, "intruder", 30);
    let intruder = ClientTls::new(
        &ClientTlsSettings::new(&s.ca_path)
            .with_identity(s.dir.write("o.pem", &oc), s.dir.write("o.key", &ok)),
        &[],
    )
    .unwrap();
    assert!(call_tls(&intruder, addr).await.is_err());
    assert_eq!(call_plain(addr, b"hello").await, "");
    assert_eq!(call_tls(&with_cert, addr).await.unwrap(), "tls: hi");
}

#[tokio::test]
async fn client_checks_the_server_certificate() {
    let s = setup("verify");
    let settings = ServerTlsSettings::new(&s.server_cert, &s.server_key);
    let addr = serve(ServerTls::new(&settings, &[]).unwrap()).await;
    let other = ca("other-ca");
    let other_path = s.dir.write("other-ca.pem", &other.cert.pem());
    let client = ClientTls::new(&ClientTlsSettings::new(other_path), &[]).unwrap();
    let err = call_tls(&client, addr).await.unwrap_err().to_string();
    assert!(err.contains("TLS handshake with"), "{err}");
}

#[tokio::test]
async fn alpn_is_negotiated() {
    let s = setup("alpn");
    let server = ServerTls::new(
        &ServerTlsSettings::new(&s.server_cert, &s.server_key),
        &[dubbo_tls::ALPN_H2, dubbo_tls::ALPN_HTTP1],
    )
    .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let (tcp, peer) = listener.accept().await.unwrap();
        match server.accept(tcp, peer).await {
            Some(Accepted::Tls(t)) => t.get_ref().1.alpn_protocol().map(|p| p.to_vec()),
            _ => None,
        }
    });
    let client = ClientTls::new(
        &ClientTlsSettings::new(&s.ca_path),
        &[dubbo_tls::ALPN_HTTP1],
    )
    .unwrap();
    let tcp = TcpStream::connect(addr).await.unwrap();
    let t = client.connect(&addr.to_string(), tcp).await.unwrap();
    assert_eq!(t.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    assert_eq!(task.await.unwrap(), Some(b"http/1.1".to_vec()));
}

fn serial_of(pem_text: &str) -> Vec<u8> {
    use rustls_pki_types::pem::PemObject;
    rustls_pki_types::CertificateDer::from_pem_slice(pem_text.as_bytes())
        .unwrap()
        .to_vec()
}

#[tokio::test]
async fn rotated_certificate_is_used_by_new_connections_only() {
    let s = setup("rotate");
    let mut settings = ServerTlsSettings::new(&s.server_cert, &s.server_key);
    settings.reload_interval = Duration::from_millis(50);
    let server = ServerTls::new(&settings, &[]).unwrap();
    let addr = serve(server.clone()).await;
    let client = ClientTls::new(&ClientTlsSettings::new(&s.ca_path), &[]).unwrap();
    let seen = |t: &dubbo_tls::ClientTlsStream<TcpStream>| {
        t.get_ref().1.peer_certificates().unwrap()[0].to_vec()
    };
    let first = client
        .connect(&addr.to_string(), TcpStream::connect(addr).await.unwrap())
        .await
        .unwrap();
    let old = std::fs::read_to_string(&s.server_cert).unwrap();
    assert_eq!(seen(&first), serial_of(&old));

    // A half-written pair (new certificate, old key) is refused and the old pair kept.
    let (new_cert, new_key) = leaf(&s.ca, "server-2", 60);
    std::fs::write(&s.server_cert, &new_cert).unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    let mid = client
        .connect(&addr.to_string(), TcpStream::connect(addr).await.unwrap())
        .await
        .unwrap();
    assert_eq!(seen(&mid), serial_of(&old));
    assert_eq!(server.reloads(), 0);

    std::fs::write(&s.server_key, &new_key).unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    let second = client
        .connect(&addr.to_string(), TcpStream::connect(addr).await.unwrap())
        .await
        .unwrap();
    assert_eq!(seen(&second), serial_of(&new_cert));
    assert_eq!(server.reloads(), 1);
    // The connection opened before the change still works, on its old session.
    let mut first = first;
    first.write_all(b"still").await.unwrap();
    let mut out = String::new();
    first.read_to_string(&mut out).await.unwrap();
    assert_eq!(out, "tls: still");
}

#[test]
fn validity_is_read_and_judged() {
    let s = setup("validity");
    let (c, _) = leaf(&s.ca, "short", 2);
    let certs = dubbo_tls::pem::certs_from_pem(c.as_bytes(), Path::new("x"), "k").unwrap();
    let v = dubbo_tls::Validity::of(&certs[0]).unwrap();
    let now = std::time::SystemTime::now();
    assert_eq!(v.state_at(now), dubbo_tls::ValidityState::Valid);
    let later = now + Duration::from_secs(5 * 86400);
    assert_eq!(v.state_at(later), dubbo_tls::ValidityState::Expired);
    let earlier = now - Duration::from_secs(5 * 86400);
    assert_eq!(v.state_at(earlier), dubbo_tls::ValidityState::NotYetValid);
    let left = v.seconds_left(now);
    assert!(left > 86400 && left <= 2 * 86400, "{left}");
    assert!(v.subject.contains("CN=short"), "{}", v.subject);
}

#[test]
fn bad_files_name_their_key() {
    let s = setup("bad");
    let missing = ServerTlsSettings::new(s.dir.0.join("nope.pem"), &s.server_key);
    let e = ServerTls::new(&missing, &[]).unwrap_err();
    assert_eq!(e.code(), "tls.read");
    assert!(e.to_string().contains("server-key-cert-chain-path"), "{e}");

    let not_pem = s.dir.write("junk.pem", "hello");
    let e = ServerTls::new(&ServerTlsSettings::new(&not_pem, &s.server_key), &[]).unwrap_err();
    assert_eq!(e.code(), "tls.no-certificate");
    let e = ServerTls::new(&ServerTlsSettings::new(&s.server_cert, &not_pem), &[]).unwrap_err();
    assert_eq!(e.code(), "tls.no-private-key");
    assert!(e.to_string().contains("server-private-key-path"), "{e}");

    // A key that belongs to another certificate.
    let e =
        ServerTls::new(&ServerTlsSettings::new(&s.server_cert, &s.client_key), &[]).unwrap_err();
    assert_eq!(e.code(), "tls.invalid");

    let e = ClientTls::new(&ClientTlsSettings::default(), &[]).unwrap_err();
    assert!(matches!(e, TlsError::Invalid { .. }));
    assert!(
        e.to_string().contains("client-trust-cert-collection-path"),
        "{e}"
    );
}

#[tokio::test]
async fn encrypted_pkcs8_key_needs_its_password() {
    use pkcs8::der::pem::LineEnding;
    use pkcs8::der::Decode;
    let s = setup("encrypted");
    let pem_key = std::fs::read_to_string(&s.server_key).unwrap();
    let (_, doc) = pkcs8::der::Document::from_pem(&pem_key).unwrap();
    let info = pkcs8::PrivateKeyInfo::from_der(doc.as_bytes()).unwrap();
    let params =
        pkcs8::pkcs5::pbes2::Parameters::pbkdf2_sha256_aes256cbc(2048, b"saltsalt", &[7u8; 16])
            .unwrap();
    let encrypted = info.encrypt_with_params(params, "s3cret").unwrap();
    let text = encrypted
        .to_pem("ENCRYPTED PRIVATE KEY", LineEnding::LF)
        .unwrap();
    let enc_path = s.dir.write("enc.key", &text);

    let no_password = ServerTlsSettings::new(&s.server_cert, &enc_path);
    let e = ServerTls::new(&no_password, &[]).unwrap_err();
    assert_eq!(e.code(), "tls.decrypt");
    assert!(e.to_string().contains("server-key-password"), "{e}");
    let wrong = no_password.clone().with_key_password("nope");
    assert_eq!(
        ServerTls::new(&wrong, &[]).unwrap_err().code(),
        "tls.decrypt"
    );

    let right = no_password.with_key_password("s3cret");
    let addr = serve(ServerTls::new(&right, &[]).unwrap()).await;
    let client = ClientTls::new(&ClientTlsSettings::new(&s.ca_path), &[]).unwrap();
    assert_eq!(call_tls(&client, addr).await.unwrap(), "tls: hi");
}

#[test]
fn hosts_are_taken_from_addresses() {
    use dubbo_tls::client::host_of;
    assert_eq!(host_of("127.0.0.1:20880"), "127.0.0.1");
    assert_eq!(host_of("[::ffff:127.0.0.1]:20880"), "127.0.0.1");
    assert_eq!(host_of("[::1]:50051"), "::1");
    assert_eq!(host_of("localhost:1"), "localhost");
    assert_eq!(host_of("localhost"), "localhost");
    assert_eq!(dubbo_tls::sniff(0x16), dubbo_tls::FirstByte::Tls);
    assert_eq!(dubbo_tls::sniff(0xda), dubbo_tls::FirstByte::Plain);
    assert_eq!(dubbo_tls::sniff(b'P'), dubbo_tls::FirstByte::Plain);
}

/// Settings with a short reload interval, so the tests see changes quickly.
const QUICK: Duration = Duration::from_millis(50);

/// Waits past the reload interval, so the next connection looks at the files.
async fn after_interval() {
    tokio::time::sleep(QUICK + Duration::from_millis(30)).await;
}

/// Replaces a file the way certificate tools do: written beside it, renamed over.
fn replace(path: &Path, text: &str) {
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[tokio::test]
async fn server_trust_collection_is_reloaded_for_new_connections() {
    let s = setup("server-trust");
    let trust = s.dir.write("server-trust.pem", &s.ca.cert.pem());
    let mut settings =
        ServerTlsSettings::new(&s.server_cert, &s.server_key).with_client_auth(&trust);
    settings.reload_interval = QUICK;
    let server = ServerTls::new(&settings, &[]).unwrap();
    let addr = serve(server.clone()).await;
    // A client whose certificate a second CA signed: refused until the server trusts that CA.
    let ca2 = ca("second-ca");
    let (c2, k2) = leaf(&ca2, "client-2", 30);
    let client2 = ClientTls::new(
        &ClientTlsSettings::new(&s.ca_path)
            .with_identity(s.dir.write("c2.pem", &c2), s.dir.write("c2.key", &k2)),
        &[],
    )
    .unwrap();
    let client1 = ClientTls::new(
        &ClientTlsSettings::new(&s.ca_path).with_identity(&s.client_cert, &s.client_key),
        &[],
    )
    .unwrap();
    assert!(call_tls(&client2, addr).await.is_err());
    assert_eq!(call_tls(&client1, addr).await.unwrap(), "tls: hi");
    // An open connection of the first client, made before any change.
    let mut open = client1
        .connect(&addr.to_string(), TcpStream::connect(addr).await.unwrap())
        .await
        .unwrap();

    // Both CAs (the middle of a CA rotation): both clients are served.
    replace(&trust, &format!("{}{}", s.ca.cert.pem(), ca2.cert.pem()));
    after_interval().await;
    assert_eq!(call_tls(&client2, addr).await.unwrap(), "tls: hi");
    assert_eq!(call_tls(&client1, addr).await.unwrap(), "tls: hi");

    // A broken file keeps the previous collection.
    replace(&trust, "-----BEGIN CERTIFICATE-----\nnot base64\n");
    after_interval().await;
    assert_eq!(call_tls(&client2, addr).await.unwrap(), "tls: hi");
    assert_eq!(call_tls(&client1, addr).await.unwrap(), "tls: hi");

    // The second CA alone: the first client's new connections are refused, its open one
    // keeps working.
    replace(&trust, &ca2.cert.pem());
    after_interval().await;
    assert_eq!(call_tls(&client2, addr).await.unwrap(), "tls: hi");
    assert!(call_tls(&client1, addr).await.is_err());
    open.write_all(b"open").await.unwrap();
    let mut out = String::new();
    open.read_to_string(&mut out).await.unwrap();
    assert_eq!(out, "tls: open");
}

#[tokio::test]
async fn client_trust_collection_and_certificate_are_reloaded_for_new_connections() {
    let s = setup("client-reload");
    // The server's certificate and trusted client CA both move to a second CA.
    let ca2 = ca("second-ca");
    let (sc2, sk2) = leaf(&ca2, "server-2", 30);
    let server_trust = s.dir.write("ca2.pem", &ca2.cert.pem());
    let server = ServerTls::new(
        &ServerTlsSettings::new(s.dir.write("s2.pem", &sc2), s.dir.write("s2.key", &sk2))
            .with_client_auth(&server_trust),
        &[],
    )
    .unwrap();
    let addr = serve(server).await;
    // The client starts with the first CA's trust and certificate: both wrong for this server.
    let trust = s.dir.write("client-trust.pem", &s.ca.cert.pem());
    let mut settings = ClientTlsSettings::new(&trust).with_identity(&s.client_cert, &s.client_key);
    settings.reload_interval = QUICK;
    let client = ClientTls::new(&settings, &[]).unwrap();
    let first = client.certificate_validity().unwrap();
    assert!(first.subject.contains("client"), "{}", first.subject);
    let err = call_tls(&client, addr).await.unwrap_err().to_string();
    assert!(err.contains("UnknownIssuer"), "{err}");

    // New trust: the server's certificate is accepted, but the client's own is still the
    // first CA's, which the server refuses.
    replace(&trust, &format!("{}{}", s.ca.cert.pem(), ca2.cert.pem()));
    after_interval().await;
    assert!(call_tls(&client, addr).await.is_err());

    // A key that does not go with the certificate (the key replaced first): the previous pair
    // is kept and reported.
    let (cc2, ck2) = leaf(&ca2, "client-2", 90);
    replace(&s.client_key, &ck2);
    after_interval().await;
    assert!(call_tls(&client, addr).await.is_err());
    assert_eq!(client.reloads(), 0);
    assert_eq!(client.certificate_validity().unwrap(), first);

    // Then the certificate: the pair fits, new connections present it and are served.
    replace(&s.client_cert, &cc2);
    after_interval().await;
    assert_eq!(call_tls(&client, addr).await.unwrap(), "tls: hi");
    assert_eq!(client.reloads(), 1);
    let now = client.certificate_validity().unwrap();
    assert!(now.subject.contains("client-2"), "{}", now.subject);
    assert!(now.not_after > first.not_after);
}

#[tokio::test]
async fn zero_interval_never_reloads() {
    let s = setup("no-reload");
    let trust = s.dir.write("client-trust.pem", &s.ca.cert.pem());
    let mut settings = ClientTlsSettings::new(&trust);
    settings.reload_interval = Duration::ZERO;
    let client = ClientTls::new(&settings, &[]).unwrap();
    let addr =
        serve(ServerTls::new(&ServerTlsSettings::new(&s.server_cert, &s.server_key), &[]).unwrap())
            .await;
    replace(&trust, &ca("other").cert.pem());
    after_interval().await;
    assert_eq!(call_tls(&client, addr).await.unwrap(), "tls: hi");
}
