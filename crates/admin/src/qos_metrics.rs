//! An instance's metrics, read from its QoS port's `/metrics` (Prometheus text format, as Java
//! Dubbo 3.3 and dubbo-rs serve it) and parsed into samples for the console.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::error::AdminError;

/// How long reading one instance's metrics may take.
const TIMEOUT: Duration = Duration::from_secs(3);

/// The most of a `/metrics` answer read.
const LIMIT: u64 = 8 << 20;

/// One sample.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Sample {
    /// The metric name.
    pub name: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// Its value.
    pub value: f64,
}

/// `GET http://{address}/metrics` over HTTP/1.0 (so the answer comes whole, not chunked).
pub async fn fetch(address: &str) -> Result<String, AdminError> {
    http_get(address, "/metrics", "text/plain").await
}

/// `GET http://{address}{target}` over HTTP/1.0, accepting `accept`: the body of a 200 answer
/// (at most 8 MiB, within 3 s).
pub async fn http_get(address: &str, target: &str, accept: &str) -> Result<String, AdminError> {
    let fail = |e: &dyn std::fmt::Display| AdminError::io(format!("http://{address}{target}"), e);
    let read = async {
        let mut stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| fail(&e))?;
        let request =
            format!("GET {target} HTTP/1.0\r\nHost: {address}\r\nAccept: {accept}\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| fail(&e))?;
        let mut bytes = Vec::new();
        stream
            .take(LIMIT)
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| fail(&e))?;
        Ok::<_, AdminError>(bytes)
    };
    let bytes = tokio::time::timeout(TIMEOUT, read)
        .await
        .map_err(|_| fail(&"no answer within 3 s"))??;
    let text = String::from_utf8_lossy(&bytes);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| fail(&"not an HTTP answer"))?;
    let status = head.split_whitespace().nth(1).unwrap_or_default();
    if status != "200" {
        return Err(fail(&format!("HTTP status {status}")));
    }
    Ok(body.to_owned())
}

/// The samples of `text` whose name starts with `prefix`.
pub fn parse(text: &str, prefix: &str) -> Vec<Sample> {
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .filter_map(parse_line)
        .collect()
}

fn parse_line(line: &str) -> Option<Sample> {
    let (name, labels, rest) = match line.find('{') {
        Some(open) => {
            let close = line.rfind('}')?;
            (
                &line[..open],
                parse_labels(line.get(open + 1..close)?),
                &line[close + 1..],
            )
        }
        None => {
            let (name, rest) = line.split_once(' ')?;
            (name, BTreeMap::new(), rest)
        }
    };
    let value = rest.split_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().ok()?,
    };
    Some(Sample {
        name: name.to_owned(),
        labels,
        value,
    })
}

fn parse_labels(text: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let name: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if name.is_empty() || chars.next() != Some('"') {
            break;
        }
        let mut value = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some(other) => value.push(other),
                    None => break,
                },
                '"' => break,
                c => value.push(c),
            }
        }
        labels.insert(name.trim().to_owned(), value);
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_text_parses() {
        let text = "# HELP x\n# TYPE dubbo_provider_requests_total counter\n\
dubbo_provider_requests_total{application_name=\"a\",method=\"sayHello\",interface=\"I\\\"q\",} 42.0\n\
dubbo_up 1\nother_total 3\n";
        let s = parse(text, "dubbo_");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].labels["method"], "sayHello");
        assert_eq!(s[0].labels["interface"], "I\"q");
        assert_eq!(s[0].value, 42.0);
        assert_eq!(s[1].name, "dubbo_up");
    }
}
