//! Which traces are recorded: `dubbo.tracing.sampling.probability`, parent first.

use crate::trace_context::{SpanContext, TraceId};

/// A parent-based, trace-id-ratio sampler (OpenTelemetry's default shape, as Java Dubbo's
/// Micrometer bridge builds it): a span with a parent follows the parent's `sampled` flag, so
/// a trace is recorded everywhere or nowhere; a new trace is sampled when its id falls in the
/// configured share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler {
    /// Traces whose id's lower 63 bits are below this are sampled.
    threshold: u64,
}

impl Sampler {
    /// Samples `probability` of new traces (clamped to 0..=1; not a number counts as 0).
    pub fn new(probability: f64) -> Self {
        let p = if probability.is_nan() {
            0.0
        } else {
            probability.clamp(0.0, 1.0)
        };
        // The decision uses 63 bits so that 1.0 maps to a threshold above every id.
        let threshold = if p >= 1.0 {
            u64::MAX
        } else {
            (p * (1u64 << 63) as f64) as u64
        };
        Self { threshold }
    }

    /// Whether a span of trace `trace_id` with parent `parent` is recorded.
    pub fn should_sample(&self, parent: Option<&SpanContext>, trace_id: TraceId) -> bool {
        match parent {
            Some(p) => p.sampled,
            None => (trace_id.low_u64() >> 1) < self.threshold,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace_context::SpanId;

    fn parent(sampled: bool) -> SpanContext {
        SpanContext {
            trace_id: TraceId::random(),
            span_id: SpanId::random(),
            sampled,
            trace_state: None,
        }
    }

    #[test]
    fn a_parent_decides() {
        let never = Sampler::new(0.0);
        let always = Sampler::new(1.0);
        assert!(never.should_sample(Some(&parent(true)), TraceId::random()));
        assert!(!always.should_sample(Some(&parent(false)), TraceId::random()));
    }

    #[test]
    fn new_traces_follow_the_probability() {
        let count = |s: Sampler| {
            (0..10_000)
                .filter(|_| s.should_sample(None, TraceId::random()))
                .count()
        };
        assert_eq!(count(Sampler::new(0.0)), 0);
        assert_eq!(count(Sampler::new(1.0)), 10_000);
        assert_eq!(count(Sampler::new(7.0)), 10_000);
        assert_eq!(count(Sampler::new(f64::NAN)), 0);
        let quarter = count(Sampler::new(0.25));
        assert!((2_000..3_000).contains(&quarter), "{quarter}");
    }

    #[test]
    fn the_decision_is_the_same_for_one_trace_id() {
        let s = Sampler::new(0.5);
        let id = TraceId::random();
        let first = s.should_sample(None, id);
        assert!((0..100).all(|_| s.should_sample(None, id) == first));
    }
}
