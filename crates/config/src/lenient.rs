//! Scalar readers that take a value in any of the forms Java Dubbo takes it in.
//!
//! Java reads every setting as text, so `version: 1.0` (a YAML number), `weight: "100"` (a YAML
//! string) and `DUBBO_PROVIDER_VERSION=1.0` (an environment variable) all work there. These
//! readers do the same for the typed configuration tree:
//!
//! - where text is expected, a number or a boolean is taken and rendered as Java renders it
//!   (`1.0` stays `1.0`, `100` stays `100`, `true` stays `true`);
//! - where a number is expected, a string holding one is taken (`"100"`);
//! - where a boolean is expected, the strings `true` and `false` are taken.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Renders a float as Java's `Double.toString` does: `1.0`, `0.5`, `1.0E7`, `1.5E-4`.
fn java_double(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_owned();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let abs = v.abs();
    if abs == 0.0 || (1e-3..1e7).contains(&abs) {
        // Debug prints the shortest round-trip form and always keeps a fractional part.
        return format!("{v:?}");
    }
    let sci = format!("{v:e}");
    match sci.split_once('e') {
        Some((mantissa, exp)) if mantissa.contains('.') => format!("{mantissa}E{exp}"),
        Some((mantissa, exp)) => format!("{mantissa}.0E{exp}"),
        None => sci,
    }
}

/// Text from a string, a number or a boolean.
struct TextVisitor;

impl Visitor<'_> for TextVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, a number or a boolean")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(java_double(v))
    }
}

/// A scalar as text (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Text(String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor).map(Text)
    }
}

/// `Option<String>` that also takes numbers and booleans.
pub(super) fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<Text>::deserialize(d)?.map(|t| t.0))
}

/// A map of text values (`parameters: { weight: 100 }`).
pub(super) fn text_map<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    let map = Option::<BTreeMap<Text, Text>>::deserialize(d)?.unwrap_or_default();
    Ok(map.into_iter().map(|(k, v)| (k.0, v.0)).collect())
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

/// A list of text values: a sequence, or one string separated by commas (`dubbo,tri`).
pub(super) fn text_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct ListVisitor;

    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list, or names separated by commas")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<String>, E> {
            Ok(v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect())
        }

        fn visit_unit<E: de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut out = Vec::new();
            while let Some(Text(t)) = seq.next_element::<Text>()? {
                out.push(t);
            }
            Ok(out)
        }

        fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<Vec<String>, A::Error> {
            Err(de::Error::invalid_type(de::Unexpected::Map, &self))
        }
    }

    d.deserialize_any(ListVisitor)
}

/// A number, or a string holding one.
struct NumberVisitor<T>(PhantomData<T>);

impl<T> Visitor<'_> for NumberVisitor<T>
where
    T: FromStr + TryFrom<i64> + TryFrom<u64>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer, or a string holding one")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::custom(format!("{v} is out of range")))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::custom(format!("{v} is out of range")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(E::custom(format!("{} is not an integer", java_double(v))))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        let t = v.trim();
        if let Ok(n) = t.parse::<i64>() {
            return self.visit_i64(n);
        }
        if let Ok(n) = t.parse::<u64>() {
            return self.visit_u64(n);
        }
        T::from_str(t).map_err(|_| E::custom(format!("{v:?} is not an integer")))
    }
}

/// An integer that may also be written as a string (`"100"`).
struct Number<T>(T);

impl<'de, T> Deserialize<'de> for Number<T>
where
    T: FromStr + TryFrom<i64> + TryFrom<u64>,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumberVisitor(PhantomData)).map(Number)
    }
}

/// `Option<integer>` that also takes a string holding one.
pub(super) fn number<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr + TryFrom<i64> + TryFrom<u64>,
{
    Ok(Option::<Number<T>>::deserialize(d)?.map(|n| n.0))
}

/// A boolean, or the string `true` or `false`.
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FlagVisitor;

        impl Visitor<'_> for FlagVisitor {
            type Value = bool;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true or false")
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
                Ok(v)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
                match v.trim().to_ascii_lowercase().as_str() {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    _ => Err(E::custom(format!("{v:?} is not true or false"))),
                }
            }
        }

        d.deserialize_any(FlagVisitor).map(Flag)
    }
}

/// `Option<bool>` that also takes the strings `true` and `false`.
pub(super) fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(Option::<Flag>::deserialize(d)?.map(|f| f.0))
}

#[cfg(test)]
mod tests {
    use super::java_double;

    #[test]
    fn doubles_render_as_java() {
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(2.5), "2.5");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(1.5e-4), "1.5E-4");
        assert_eq!(java_double(-3.25), "-3.25");
    }
}
