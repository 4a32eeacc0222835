//! `java.util.Date`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ser::MAGIC_DATE;

/// `java.util.Date`: milliseconds since the Unix epoch. Serializes as a Hessian date
/// (`K` minutes or `J` millis); through other serde formats it is a plain `i64`.
///
/// Converts from and to [`SystemTime`]; for `SystemTime` fields use
/// `#[serde(with = "dubbo_hessian2::java::system_time")]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date(pub i64);

impl Date {
    /// The current time.
    pub fn now() -> Self {
        Date::from(SystemTime::now())
    }

    /// Milliseconds since the epoch.
    pub fn millis(self) -> i64 {
        self.0
    }

    /// As a [`SystemTime`].
    pub fn to_system_time(self) -> SystemTime {
        if self.0 >= 0 {
            UNIX_EPOCH + Duration::from_millis(self.0 as u64)
        } else {
            UNIX_EPOCH - Duration::from_millis(self.0.unsigned_abs())
        }
    }
}

impl From<SystemTime> for Date {
    fn from(t: SystemTime) -> Self {
        match t.duration_since(UNIX_EPOCH) {
            Ok(d) => Date(i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
            Err(e) => Date(-i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX)),
        }
    }
}

impl From<Date> for SystemTime {
    fn from(d: Date) -> Self {
        d.to_system_time()
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(MAGIC_DATE, &self.0)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Date;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a date (epoch millis)")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Date, E> {
                Ok(Date(v))
            }
            fn visit_i32<E>(self, v: i32) -> Result<Date, E> {
                Ok(Date(i64::from(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Date, E> {
                i64::try_from(v).map(Date).map_err(E::custom)
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Date, D::Error> {
                i64::deserialize(d).map(Date)
            }
        }
        d.deserialize_newtype_struct(MAGIC_DATE, V)
    }
}

/// `#[serde(with = "dubbo_hessian2::java::system_time")]` for [`SystemTime`] fields:
/// written as `java.util.Date` (millisecond precision).
pub mod system_time {
    use super::Date;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::time::SystemTime;

    /// Serializes a `SystemTime` as a Java date.
    pub fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
        Date::from(*t).serialize(s)
    }

    /// Deserializes a Java date into a `SystemTime`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
        Date::deserialize(d).map(SystemTime::from)
    }
}
