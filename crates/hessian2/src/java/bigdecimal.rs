//! `java.math.BigDecimal` and `java.math.BigInteger`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::value::Value;

macro_rules! string_valued {
    ($(#[$doc:meta])* $name:ident, $class:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub String);

        impl $name {
            /// The Java class name.
            pub const CLASS: &'static str = $class;

            /// Wraps the decimal text (Java's `toString()` form).
            pub fn new(s: impl Into<String>) -> Self {
                $name(s.into())
            }

            /// The Hessian [`Value`] form: an object with the single field `value`.
            pub fn to_value(&self) -> Value {
                Value::object($class, [("value", Value::String(self.0.clone()))])
            }

            /// Reads the `value` field of an object (or a map, or a plain string or number).
            pub fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::String(s) => Some($name(s.clone())),
                    Value::Int(i) => Some($name(i.to_string())),
                    Value::Long(l) => Some($name(l.to_string())),
                    Value::Object(_) | Value::Map(_) => v.get("value").and_then(Value::as_str).map(|s| $name(s.to_owned())),
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut st = s.serialize_struct($class, 1)?;
                st.serialize_field("value", &self.0)?;
                st.end()
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = Value::deserialize(d)?;
                $name::from_value(&v).ok_or_else(|| {
                    serde::de::Error::custom(concat!("expected a ", $class))
                })
            }
        }

        impl super::JavaType for $name {
            fn java_type_name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed($class)
            }
        }
    };
}

string_valued!(
    /// `java.math.BigDecimal`, carried as its `toString()` text (e.g. `"12.34"`,
    /// `"1E+3"`). hessian-lite writes it as an object with one field, `value`:
    /// `43 14 "java.math.BigDecimal" 91 05 "value" 60 05 "12.34"`.
    BigDecimal,
    "java.math.BigDecimal"
);

/// `java.math.BigInteger`, carried as its decimal text (e.g. `"-123"`).
///
/// hessian-lite has no special serializer for `BigInteger`: Java writes it as a plain
/// object with the JDK's fields, in class-definition order
/// `mag, firstNonzeroIntNumPlusTwo, lowestSetBitPlusTwo, bitLengthPlusOne, bitCountPlusOne, signum`
/// (`mag` a `[int` big-endian magnitude, the caches 0). This type writes exactly that
/// and reads it back (and also accepts a `value` string field, a string, or a number).
/// Through human-readable serde formats it is a plain string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct BigInteger(pub String);

impl BigInteger {
    /// The Java class name.
    pub const CLASS: &'static str = "java.math.BigInteger";

    /// Wraps the decimal text.
    pub fn new(s: impl Into<String>) -> Self {
        BigInteger(s.into())
    }

    /// The Hessian [`Value`] form Java writes (see the type docs). Text that is not a
    /// decimal integer is written as zero.
    pub fn to_value(&self) -> Value {
        let (signum, mag) = parse_decimal(&self.0).unwrap_or((0, Vec::new()));
        Value::object(
            Self::CLASS,
            [
                (
                    "mag",
                    Value::typed_list(
                        "[int",
                        mag.into_iter().map(|w| Value::Int(w as i32)).collect(),
                    ),
                ),
                ("firstNonzeroIntNumPlusTwo", Value::Int(0)),
                ("lowestSetBitPlusTwo", Value::Int(0)),
                ("bitLengthPlusOne", Value::Int(0)),
                ("bitCountPlusOne", Value::Int(0)),
                ("signum", Value::Int(signum)),
            ],
        )
    }

    /// Reads the JDK field form (`signum` + `mag`), a `value` field, a string or a number.
    pub fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::String(s) => Some(BigInteger(s.clone())),
            Value::Int(i) => Some(BigInteger(i.to_string())),
            Value::Long(l) => Some(BigInteger(l.to_string())),
            Value::Object(_) | Value::Map(_) => {
                if let Some(s) = v.get("value").and_then(Value::as_str) {
                    return Some(BigInteger(s.to_owned()));
                }
                let signum = v.get("signum")?.as_i64()?;
                let mag: Vec<u32> = match v.get("mag")? {
                    Value::List(l) => l
                        .items
                        .iter()
                        .map(|w| w.as_i64().map(|x| x as u32))
                        .collect::<Option<_>>()?,
                    _ => return None,
                };
                Some(BigInteger(format_decimal(signum, &mag)))
            }
            _ => None,
        }
    }
}

/// Parses decimal text into (signum, big-endian 32-bit magnitude without leading zeros).
fn parse_decimal(s: &str) -> Option<(i32, Vec<u32>)> {
    let s = s.trim();
    let (neg, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // little-endian limbs
    let mut limbs: Vec<u32> = Vec::new();
    for chunk in digits.as_bytes().chunks(9) {
        let mut mul: u64 = 1;
        let mut add: u64 = 0;
        for &d in chunk {
            mul *= 10;
            add = add * 10 + u64::from(d - b'0');
        }
        let mut carry = add;
        for l in limbs.iter_mut() {
            let v = u64::from(*l) * mul + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            limbs.push(carry as u32);
        }
    }
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
    if limbs.is_empty() {
        return Some((0, Vec::new()));
    }
    limbs.reverse();
    Some((if neg { -1 } else { 1 }, limbs))
}

/// Formats a signum and big-endian magnitude as decimal text.
fn format_decimal(signum: i64, mag: &[u32]) -> String {
    let mut limbs: Vec<u32> = mag.iter().rev().copied().collect();
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
    if limbs.is_empty() || signum == 0 {
        return "0".to_owned();
    }
    let mut parts: Vec<u32> = Vec::new();
    while !limbs.is_empty() {
        let mut rem: u64 = 0;
        for l in limbs.iter_mut().rev() {
            let v = (rem << 32) | u64::from(*l);
            *l = (v / 1_000_000_000) as u32;
            rem = v % 1_000_000_000;
        }
        parts.push(rem as u32);
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
    }
    let mut out = String::new();
    if signum < 0 {
        out.push('-');
    }
    let mut it = parts.iter().rev();
    if let Some(first) = it.next() {
        out.push_str(&first.to_string());
    }
    for p in it {
        out.push_str(&format!("{p:09}"));
    }
    out
}

impl std::fmt::Display for BigInteger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for BigInteger {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.serialize_str(&self.0);
        }
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for BigInteger {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        BigInteger::from_value(&v)
            .ok_or_else(|| serde::de::Error::custom("expected a java.math.BigInteger"))
    }
}

impl super::JavaType for BigInteger {
    fn java_type_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("java.math.BigInteger")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_roundtrip() {
        for s in [
            "0",
            "1",
            "-1",
            "4294967295",
            "4294967296",
            "123456789012345678901234567890",
            "-98765432109876543210",
        ] {
            let (sig, mag) = parse_decimal(s).unwrap();
            assert_eq!(format_decimal(i64::from(sig), &mag), s);
        }
        let (_, mag) = parse_decimal("123456789012345678901234567890").unwrap();
        assert_eq!(
            mag.iter().map(|&w| w as i32).collect::<Vec<_>>(),
            vec![1, -1897328650, -1015815954, 1312754386]
        );
    }
}
