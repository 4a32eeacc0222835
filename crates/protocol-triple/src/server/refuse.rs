//! Refusing a connection in HTTP/2's words: the refusals the server makes before a connection
//! reaches `h2` (too many connections open, plaintext on a port that requires TLS) tell an
//! HTTP/2 client why, with a GOAWAY whose debug data is a sentence, as grpc-java and Java
//! Dubbo put a reason (`app_requested`, `too_many_pings`) in theirs.
//!
//! The refused connection gets a moment ([`PREFACE_WAIT`]) to show what it speaks: the
//! HTTP/2 client preface is answered with the server's preface (an empty SETTINGS frame) and a
//! GOAWAY with last stream id 0 (nothing was processed, so a client may retry elsewhere) and
//! the reason; anything else (HTTP/1.1, a TLS handshake, silence) is closed as before. GOAWAYs that `h2`
//! itself sends (graceful shutdown, protocol errors) carry what `h2` puts in them: its API
//! (`graceful_shutdown`, `abrupt_shutdown`) takes no debug data.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::H2_PREFACE;

/// How long a refused connection may take to send the HTTP/2 client preface. An HTTP/2
/// client sends it as soon as it is connected, so it is there by the time the server has
/// accepted; a silent connection is closed after this, still promptly.
pub(crate) const PREFACE_WAIT: Duration = Duration::from_millis(250);

/// Most refused connections waiting for their preface at once; more are closed at once.
pub(crate) const MAX_PENDING_REFUSALS: usize = 64;

/// Why a connection is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `accepts` connections are already open.
    TooManyConnections {
        /// The limit.
        accepts: usize,
    },
    /// The port requires TLS and the connection is plaintext.
    TlsRequired,
}

impl Refusal {
    /// The HTTP/2 error code of the GOAWAY: REFUSED_STREAM for a full server (nothing was
    /// processed, another provider may take the call), INADEQUATE_SECURITY for plaintext.
    pub(crate) fn error_code(self) -> u32 {
        match self {
            Refusal::TooManyConnections { .. } => 0x7,
            Refusal::TlsRequired => 0xc,
        }
    }

    /// The GOAWAY's debug data.
    pub(crate) fn reason(self) -> String {
        match self {
            Refusal::TooManyConnections { accepts } => format!(
                "connection refused: this server has reached its limit of {accepts} open connections (accepts={accepts})"
            ),
            Refusal::TlsRequired => {
                "connection refused: this port requires TLS; connect with TLS (https, --tls-ca)"
                    .to_owned()
            }
        }
    }
}

/// The server's preface and the GOAWAY that refuses the connection.
pub(crate) fn goaway_frames(refusal: Refusal) -> Vec<u8> {
    let reason = refusal.reason();
    let mut out = Vec::with_capacity(9 + 9 + 8 + reason.len());
    // SETTINGS, no parameters, stream 0.
    frame_header(&mut out, 0, 0x4);
    // GOAWAY: last stream id 0, the error code, the reason.
    frame_header(&mut out, 8 + reason.len(), 0x7);
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&refusal.error_code().to_be_bytes());
    out.extend_from_slice(reason.as_bytes());
    out
}

fn frame_header(out: &mut Vec<u8>, len: usize, kind: u8) {
    let len = u32::try_from(len).unwrap_or(u32::MAX).min(0x00ff_ffff);
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.push(kind);
    out.push(0); // flags
    out.extend_from_slice(&0u32.to_be_bytes()); // stream 0
}

/// Reads what the refused connection sends first (at most the preface's length, for at most
/// [`PREFACE_WAIT`]); answers the HTTP/2 preface with the refusing GOAWAY; then closes.
/// Returns whether the GOAWAY was sent.
pub(crate) async fn refuse<S>(mut stream: S, refusal: Refusal, remote: SocketAddr) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut head = [0u8; 24];
    let mut read = 0;
    let is_h2 = tokio::time::timeout(PREFACE_WAIT, async {
        while read < head.len() {
            match stream.read(&mut head[read..]).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => read += n,
            }
            if !H2_PREFACE.starts_with(&head[..read]) {
                return false;
            }
        }
        true
    })
    .await
    .unwrap_or(false);
    let mut sent = false;
    if is_h2 {
        sent =
            stream.write_all(&goaway_frames(refusal)).await.is_ok() && stream.flush().await.is_ok();
        tracing::debug!(consumer = %remote, sent, "refused HTTP/2 connection told why with GOAWAY");
    }
    let _ = stream.shutdown().await;
    if sent {
        // Closing with the client's frames unread would reset the connection, and a reset
        // can discard the GOAWAY before the client reads it: wait (briefly) for its close.
        let mut sink = [0u8; 4096];
        let _ = tokio::time::timeout(LINGER_WAIT, async {
            let mut left = LINGER_BYTES;
            while left > 0 {
                match stream.read(&mut sink).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => left = left.saturating_sub(n),
                }
            }
        })
        .await;
    }
    sent
}

/// How long a refused HTTP/2 client has to take in the GOAWAY and close.
const LINGER_WAIT: Duration = Duration::from_secs(1);

/// Most bytes read (and dropped) from a refused client while it takes in the GOAWAY.
const LINGER_BYTES: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_a_settings_then_a_goaway_with_the_reason() {
        let refusal = Refusal::TooManyConnections { accepts: 2 };
        let f = goaway_frames(refusal);
        // SETTINGS: length 0, type 4, flags 0, stream 0.
        assert_eq!(&f[..9], &[0, 0, 0, 4, 0, 0, 0, 0, 0]);
        let goaway = &f[9..];
        let reason = refusal.reason();
        let len = 8 + reason.len();
        assert_eq!(&goaway[..3], &(len as u32).to_be_bytes()[1..]);
        assert_eq!(&goaway[3..9], &[7, 0, 0, 0, 0, 0]);
        assert_eq!(&goaway[9..13], &[0, 0, 0, 0], "last stream id");
        assert_eq!(&goaway[13..17], &[0, 0, 0, 7], "REFUSED_STREAM");
        assert_eq!(&goaway[17..], reason.as_bytes());
        assert!(reason.contains("accepts=2"), "{reason}");
        let tls = goaway_frames(Refusal::TlsRequired);
        assert_eq!(&tls[9 + 13..9 + 17], &[0, 0, 0, 0xc], "INADEQUATE_SECURITY");
    }

    #[tokio::test]
    async fn only_an_http2_preface_gets_the_goaway() {
        let remote: SocketAddr = ([127, 0, 0, 1], 1).into();
        let refusal = Refusal::TlsRequired;
        let (mut client, server) = tokio::io::duplex(1024);
        client.write_all(H2_PREFACE).await.unwrap_or_default();
        assert!(refuse(server, refusal, remote).await);
        let mut got = Vec::new();
        client.read_to_end(&mut got).await.unwrap_or_default();
        assert_eq!(got, goaway_frames(refusal));

        let (mut client, server) = tokio::io::duplex(1024);
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap_or_default();
        assert!(!refuse(server, refusal, remote).await);
        let mut got = Vec::new();
        client.read_to_end(&mut got).await.unwrap_or_default();
        assert!(got.is_empty(), "HTTP/1.1 is closed without a word");
    }
}
