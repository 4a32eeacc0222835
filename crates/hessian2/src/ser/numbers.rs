//! Java's conversions of Rust numbers that have no Hessian type of their own.

use crate::error::Error;

/// Java's `Double.parseDouble(String.valueOf(float))`, which hessian-lite applies to
/// boxed `Float` values.
pub(crate) fn float_box(v: f32) -> f64 {
    if !v.is_finite() {
        return f64::from(v);
    }
    let s = v.to_string();
    s.parse::<f64>().unwrap_or(f64::from(v))
}

pub(super) fn u64_to_i64(v: u64) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::OutOfRange {
        value: v.to_string(),
        target: "long",
    })
}
