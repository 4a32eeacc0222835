//! Sends one export request: `POST /v1/traces` with a protobuf body over HTTP/1.1.

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HOST};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::config::{ExportTarget, OtlpConfig};
use crate::error::TracingError;

/// An OTLP/HTTP client for one receiver.
#[derive(Debug, Clone)]
pub(crate) struct OtlpHttpClient {
    target: ExportTarget,
    config: OtlpConfig,
}

impl OtlpHttpClient {
    pub(crate) fn new(config: OtlpConfig) -> Result<Self, TracingError> {
        Ok(Self {
            target: ExportTarget::parse(&config.endpoint)?,
            config,
        })
    }

    /// Posts `body` (an encoded `ExportTraceServiceRequest`) within the configured timeout.
    pub(crate) async fn post(&self, body: Vec<u8>) -> Result<(), TracingError> {
        tokio::time::timeout(self.config.timeout, self.post_unbounded(body))
            .await
            .map_err(|_| {
                TracingError::ExportFailed(format!(
                    "{} did not answer within {:?}",
                    self.target.uri, self.config.timeout
                ))
            })?
    }

    async fn post_unbounded(&self, body: Vec<u8>) -> Result<(), TracingError> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            TracingError::ExportFailed(format!("{what} {}: {e}", self.target.uri))
        };
        // One connection per batch: batches are at least a second apart unless spans come in
        // faster than a batch holds, and a fresh connection never finds a stale keep-alive.
        let stream = TcpStream::connect(&self.target.authority)
            .await
            .map_err(|e| failed("cannot connect to", &e))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| failed("handshake with", &e))?;
        let driver = tokio::spawn(connection);
        let mut request = http::Request::post(self.target.path.clone())
            .header(HOST, &self.target.authority)
            .header(CONTENT_TYPE, "application/x-protobuf");
        for (name, value) in &self.config.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| failed("cannot build a request for", &e))?;
        let outcome = async {
            let response = sender
                .send_request(request)
                .await
                .map_err(|e| failed("cannot post to", &e))?;
            let status = response.status();
            // The answer is read to its end so the receiver sees a complete exchange.
            let _ = response.into_body().collect().await;
            if status.is_success() {
                Ok(())
            } else {
                Err(failed("refused by", &status))
            }
        }
        .await;
        driver.abort();
        outcome
    }
}
