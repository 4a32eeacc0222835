//! JSONB byte codes (type tags) and the numeric ranges of their compact forms, as fastjson2's
//! `JSONB.Constants` defines them. A tag is one signed byte; most tags also carry a small
//! value in the tag itself.

/// `char`: followed by an int (the UTF-16 code unit).
pub const BC_CHAR: i8 = -112;
/// `byte[]`: followed by an int length and the bytes.
pub const BC_BINARY: i8 = -111;
/// A type name (`WriteClassName`) before the value it types: a string and its symbol id, or a
/// symbol id alone when the name was defined earlier in the stream.
pub const BC_TYPED_ANY: i8 = -110;
/// A reference (`ReferenceDetection`) to a value written earlier: a JSONPath string such as
/// `$`, `$[0]` or `$.name`; `#-1` repeats the previous reference.
pub const BC_REFERENCE: i8 = -109;
/// First of the arrays whose length (0..=15) is in the tag.
pub const BC_ARRAY_FIX_MIN: i8 = -108;
/// Last of the arrays whose length is in the tag.
pub const BC_ARRAY_FIX_MAX: i8 = -93;
/// An array with an int length after the tag.
pub const BC_ARRAY: i8 = -92;
/// Ends an object.
pub const BC_OBJECT_END: i8 = -91;
/// Starts an object (a map or a bean): name/value pairs until [`BC_OBJECT_END`].
pub const BC_OBJECT: i8 = -90;
/// `java.time.LocalTime`: hour, minute, second bytes and an int of nanoseconds.
pub const BC_LOCAL_TIME: i8 = -89;
/// `java.time.LocalDateTime`: year (2 bytes), month, day, hour, minute, second, int nanos.
pub const BC_LOCAL_DATETIME: i8 = -88;
/// `java.time.LocalDate`: year (2 bytes), month, day.
pub const BC_LOCAL_DATE: i8 = -87;
/// A zoned timestamp: epoch seconds (long), nanos (int), zone id (string).
pub const BC_TIMESTAMP_WITH_TIMEZONE: i8 = -86;
/// Epoch milliseconds, 8 bytes big-endian (`java.util.Date`).
pub const BC_TIMESTAMP_MILLIS: i8 = -85;
/// Epoch seconds, 4 bytes big-endian.
pub const BC_TIMESTAMP_SECONDS: i8 = -84;
/// Epoch minutes, 4 bytes big-endian.
pub const BC_TIMESTAMP_MINUTES: i8 = -83;
/// Epoch seconds (long) and nanos (int).
pub const BC_TIMESTAMP: i8 = -82;
/// `null`.
pub const BC_NULL: i8 = -81;
/// `false`.
pub const BC_FALSE: i8 = -80;
/// `true`.
pub const BC_TRUE: i8 = -79;
/// The double `0.0`.
pub const BC_DOUBLE_NUM_0: i8 = -78;
/// The double `1.0`.
pub const BC_DOUBLE_NUM_1: i8 = -77;
/// A double with an integral value, as a long after the tag.
pub const BC_DOUBLE_LONG: i8 = -76;
/// A double, 8 bytes big-endian IEEE 754.
pub const BC_DOUBLE: i8 = -75;
/// A float with an integral value, as an int after the tag.
pub const BC_FLOAT_INT: i8 = -74;
/// A float, 4 bytes big-endian IEEE 754.
pub const BC_FLOAT: i8 = -73;
/// A `BigDecimal` of scale 0, as a long after the tag.
pub const BC_DECIMAL_LONG: i8 = -72;
/// A `BigDecimal`: scale (int), then the unscaled value as an int, long or big integer.
pub const BC_DECIMAL: i8 = -71;
/// A `BigInteger` that fits a long, as a long after the tag.
pub const BC_BIGINT_LONG: i8 = -70;
/// A `BigInteger`: int length, then the two's-complement big-endian bytes.
pub const BC_BIGINT: i8 = -69;
/// A `short`, 2 bytes big-endian.
pub const BC_INT16: i8 = -68;
/// A `byte`, 1 byte.
pub const BC_INT8: i8 = -67;
/// A long, 8 bytes big-endian.
pub const BC_INT64: i8 = -66;
/// A long that fits an int, 4 bytes big-endian.
pub const BC_INT64_INT: i8 = -65;
/// First tag of the 3-byte longs (−262144..=262143).
pub const BC_INT64_SHORT_MIN: i8 = -64;
/// The 3-byte long tag whose high bits are zero.
pub const BC_INT64_SHORT_ZERO: i8 = -60;
/// Last tag of the 3-byte longs.
pub const BC_INT64_SHORT_MAX: i8 = -57;
/// First tag of the 2-byte longs (−2048..=2047).
pub const BC_INT64_BYTE_MIN: i8 = -56;
/// The 2-byte long tag whose high bits are zero.
pub const BC_INT64_BYTE_ZERO: i8 = -48;
/// Last tag of the 2-byte longs.
pub const BC_INT64_BYTE_MAX: i8 = -41;
/// First of the longs whose value (−8..=15) is in the tag.
pub const BC_INT64_NUM_MIN: i8 = -40;
/// Last of the longs whose value is in the tag.
pub const BC_INT64_NUM_MAX: i8 = -17;
/// Smallest long carried in the tag.
pub const INT64_NUM_LOW_VALUE: i64 = -8;
/// Largest long carried in the tag.
pub const INT64_NUM_HIGH_VALUE: i64 = 15;
/// Smallest int whose value is the tag itself.
pub const BC_INT32_NUM_MIN: i8 = -16;
/// Largest int whose value is the tag itself.
pub const BC_INT32_NUM_MAX: i8 = 47;
/// First tag of the 2-byte ints (−2048..=2047).
pub const BC_INT32_BYTE_MIN: i8 = 48;
/// The 2-byte int tag whose high bits are zero.
pub const BC_INT32_BYTE_ZERO: i8 = 56;
/// Last tag of the 2-byte ints.
pub const BC_INT32_BYTE_MAX: i8 = 63;
/// First tag of the 3-byte ints (−262144..=262143).
pub const BC_INT32_SHORT_MIN: i8 = 64;
/// The 3-byte int tag whose high bits are zero.
pub const BC_INT32_SHORT_ZERO: i8 = 68;
/// Last tag of the 3-byte ints.
pub const BC_INT32_SHORT_MAX: i8 = 71;
/// An int, 4 bytes big-endian.
pub const BC_INT32: i8 = 72;
/// First of the ISO-8859-1 strings whose length (0..=47) is in the tag.
pub const BC_STR_ASCII_FIX_MIN: i8 = 73;
/// Last of the ISO-8859-1 strings whose length is in the tag.
pub const BC_STR_ASCII_FIX_MAX: i8 = 120;
/// Longest ISO-8859-1 string whose length is in the tag.
pub const STR_ASCII_FIX_LEN: usize = 47;
/// An ISO-8859-1 string with an int length.
pub const BC_STR_ASCII: i8 = 121;
/// A UTF-8 string with an int length (in bytes).
pub const BC_STR_UTF8: i8 = 122;
/// A UTF-16 string in the writer's native order, with an int length in bytes.
pub const BC_STR_UTF16: i8 = 123;
/// A UTF-16LE string with an int length in bytes.
pub const BC_STR_UTF16LE: i8 = 124;
/// A UTF-16BE string with an int length in bytes.
pub const BC_STR_UTF16BE: i8 = 125;
/// A GB18030 string with an int length in bytes.
pub const BC_STR_GB18030: i8 = 126;
/// A symbol (`WriteNameAsSymbol`): a string and its new symbol id, or an id alone that
/// refers to a symbol defined earlier (a negative id names an entry of a shared symbol
/// table agreed out of band, which Dubbo never uses).
pub const BC_SYMBOL: i8 = 127;
