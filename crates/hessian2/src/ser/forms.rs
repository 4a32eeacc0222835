//! The newtype-struct names through which serde hands Hessian's special forms (dates,
//! typed collections, [`Value`](crate::Value)s) to the serializers and deserializers.

/// Newtype-struct name of [`java::Date`](crate::java::Date): the inner `i64` is epoch millis.
pub(crate) const MAGIC_DATE: &str = "$hessian2::Date";
/// Newtype-struct name used by `impl Serialize/Deserialize for Value`.
pub(crate) const MAGIC_VALUE: &str = "$hessian2::Value";
/// Newtype-struct name of typed lists: the inner value is a 2-tuple `(type_name, seq)`.
pub(crate) const MAGIC_TYPED_LIST: &str = "$hessian2::TypedList";
/// Newtype-struct name of typed maps: the inner value is a 2-tuple `(type_name, map)`.
pub(crate) const MAGIC_TYPED_MAP: &str = "$hessian2::TypedMap";
