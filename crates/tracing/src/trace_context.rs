//! W3C Trace Context: the ids of a span and the `traceparent` header that carries them.

use std::fmt;
use std::sync::Arc;

use crate::error::TracingError;

/// The attachment (and Triple header) that carries the caller's span: W3C's `traceparent`.
pub const TRACEPARENT: &str = "traceparent";
/// The attachment that carries vendor trace state: W3C's `tracestate`, passed on untouched.
pub const TRACESTATE: &str = "tracestate";

/// A 16-byte trace id; never all zeros.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceId(pub [u8; 16]);

/// An 8-byte span id; never all zeros.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpanId(pub [u8; 8]);

impl TraceId {
    /// A random, non-zero trace id.
    pub fn random() -> Self {
        let mut id = [0u8; 16];
        while id == [0; 16] {
            id[..8].copy_from_slice(&fastrand::u64(..).to_be_bytes());
            id[8..].copy_from_slice(&fastrand::u64(..).to_be_bytes());
        }
        TraceId(id)
    }

    /// The lower eight bytes, the part W3C recommends be random, as a number.
    pub(crate) fn low_u64(&self) -> u64 {
        let mut low = [0u8; 8];
        low.copy_from_slice(&self.0[8..]);
        u64::from_be_bytes(low)
    }
}

impl SpanId {
    /// A random, non-zero span id.
    pub fn random() -> Self {
        SpanId(fastrand::u64(1..).to_be_bytes())
    }
}

impl fmt::Display for TraceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for TraceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TraceId({self})")
    }
}

impl fmt::Display for SpanId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for SpanId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SpanId({self})")
    }
}

fn write_hex(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
}

/// The identity of one span as it travels between processes: trace id, span id, whether it is
/// sampled, and the `tracestate` that came with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanContext {
    /// The trace the span belongs to.
    pub trace_id: TraceId,
    /// The span itself.
    pub span_id: SpanId,
    /// Whether the trace is recorded (the `sampled` trace flag).
    pub sampled: bool,
    /// The caller's `tracestate`, forwarded unchanged; `None` when there was none.
    pub trace_state: Option<Arc<str>>,
}

impl SpanContext {
    /// The `traceparent` value for this span: `00-{trace id}-{span id}-{flags}`.
    pub fn traceparent(&self) -> String {
        let flags = if self.sampled { "01" } else { "00" };
        format!("00-{}-{}-{flags}", self.trace_id, self.span_id)
    }

    /// Reads a `traceparent` value (and the `tracestate` that came with it, if any).
    ///
    /// Follows the W3C rules: lower-case hex only, all-zero ids and version `ff` refused; a
    /// future version may carry more fields after the four known ones.
    pub fn from_traceparent(value: &str, trace_state: Option<&str>) -> Result<Self, TracingError> {
        let bad = |why: &'static str| TracingError::BadTraceparent {
            value: value.chars().take(64).collect(),
            why,
        };
        let mut parts = value.trim().split('-');
        let (Some(version), Some(trace), Some(span), Some(flags)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("fewer than four fields"));
        };
        let version =
            hex_bytes::<1>(version).ok_or_else(|| bad("version is not two hex digits"))?;
        if version[0] == 0xff {
            return Err(bad("version ff is invalid"));
        }
        if version[0] == 0 && parts.next().is_some() {
            return Err(bad("version 00 has exactly four fields"));
        }
        let trace_id =
            hex_bytes::<16>(trace).ok_or_else(|| bad("trace id is not 32 hex digits"))?;
        let span_id = hex_bytes::<8>(span).ok_or_else(|| bad("span id is not 16 hex digits"))?;
        let flags = hex_bytes::<1>(flags).ok_or_else(|| bad("flags are not two hex digits"))?;
        if trace_id == [0; 16] {
            return Err(bad("trace id is all zeros"));
        }
        if span_id == [0; 8] {
            return Err(bad("span id is all zeros"));
        }
        Ok(SpanContext {
            trace_id: TraceId(trace_id),
            span_id: SpanId(span_id),
            sampled: flags[0] & 1 == 1,
            trace_state: trace_state
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(Arc::from),
        })
    }
}

/// `N` bytes from exactly `2 * N` lower-case hex digits.
fn hex_bytes<const N: usize>(text: &str) -> Option<[u8; N]> {
    let digits = text.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; N];
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        out[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn parses_and_formats_the_spec_example() {
        let ctx = SpanContext::from_traceparent(SAMPLE, Some("rojo=00f067aa0ba902b7")).unwrap();
        assert_eq!(ctx.trace_id.to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(ctx.span_id.to_string(), "00f067aa0ba902b7");
        assert!(ctx.sampled);
        assert_eq!(ctx.trace_state.as_deref(), Some("rojo=00f067aa0ba902b7"));
        assert_eq!(ctx.traceparent(), SAMPLE);
    }

    #[test]
    fn unsampled_flag_and_future_versions() {
        let ctx = SpanContext::from_traceparent(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
            Some("  "),
        )
        .unwrap();
        assert!(!ctx.sampled);
        assert_eq!(ctx.trace_state, None);
        let future = SpanContext::from_traceparent(
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-extra",
            None,
        )
        .unwrap();
        assert!(future.sampled);
    }

    #[test]
    fn refuses_bad_input() {
        for bad in [
            "",
            "00",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        ] {
            let err = SpanContext::from_traceparent(bad, None).unwrap_err();
            assert_eq!(err.code(), "tracing_bad_traceparent", "{bad:?}");
        }
    }

    #[test]
    fn random_ids_are_not_zero_and_differ() {
        let (a, b) = (TraceId::random(), TraceId::random());
        assert_ne!(a, b);
        assert_ne!(a.0, [0; 16]);
        assert_ne!(SpanId::random().0, [0; 8]);
    }
}
