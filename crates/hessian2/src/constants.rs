//! Hessian 2 byte codes, as defined by `Hessian2Constants.java` in hessian-lite.
//!
//! Only the constants the codec needs are listed; names follow the Java source.

#![allow(missing_docs)]

pub const BC_BINARY: u8 = b'B';
pub const BC_BINARY_CHUNK: u8 = b'A';
pub const BC_BINARY_DIRECT: u8 = 0x20;
pub const BINARY_DIRECT_MAX: usize = 0x0f;
pub const BC_BINARY_SHORT: u8 = 0x34;
pub const BINARY_SHORT_MAX: usize = 0x3ff;

pub const BC_CLASS_DEF: u8 = b'C';

pub const BC_DATE: u8 = 0x4a;
pub const BC_DATE_MINUTE: u8 = 0x4b;

pub const BC_DOUBLE: u8 = b'D';
pub const BC_DOUBLE_ZERO: u8 = 0x5b;
pub const BC_DOUBLE_ONE: u8 = 0x5c;
pub const BC_DOUBLE_BYTE: u8 = 0x5d;
pub const BC_DOUBLE_SHORT: u8 = 0x5e;
pub const BC_DOUBLE_MILL: u8 = 0x5f;

pub const BC_FALSE: u8 = b'F';
pub const BC_TRUE: u8 = b'T';
pub const BC_NULL: u8 = b'N';

pub const BC_INT: u8 = b'I';
pub const INT_DIRECT_MIN: i32 = -0x10;
pub const INT_DIRECT_MAX: i32 = 0x2f;
pub const BC_INT_ZERO: u8 = 0x90;
pub const INT_BYTE_MIN: i32 = -0x800;
pub const INT_BYTE_MAX: i32 = 0x7ff;
pub const BC_INT_BYTE_ZERO: u8 = 0xc8;
pub const INT_SHORT_MIN: i32 = -0x40000;
pub const INT_SHORT_MAX: i32 = 0x3ffff;
pub const BC_INT_SHORT_ZERO: u8 = 0xd4;

pub const BC_LONG: u8 = b'L';
pub const LONG_DIRECT_MIN: i64 = -0x08;
pub const LONG_DIRECT_MAX: i64 = 0x0f;
pub const BC_LONG_ZERO: u8 = 0xe0;
pub const LONG_BYTE_MIN: i64 = -0x800;
pub const LONG_BYTE_MAX: i64 = 0x7ff;
pub const BC_LONG_BYTE_ZERO: u8 = 0xf8;
pub const LONG_SHORT_MIN: i64 = -0x40000;
pub const LONG_SHORT_MAX: i64 = 0x3ffff;
pub const BC_LONG_SHORT_ZERO: u8 = 0x3c;
pub const BC_LONG_INT: u8 = 0x59;

pub const BC_END: u8 = b'Z';

pub const BC_LIST_VARIABLE: u8 = 0x55;
pub const BC_LIST_FIXED: u8 = b'V';
pub const BC_LIST_VARIABLE_UNTYPED: u8 = 0x57;
pub const BC_LIST_FIXED_UNTYPED: u8 = 0x58;
pub const BC_LIST_DIRECT: u8 = 0x70;
pub const BC_LIST_DIRECT_UNTYPED: u8 = 0x78;
pub const LIST_DIRECT_MAX: usize = 0x7;

pub const BC_MAP: u8 = b'M';
pub const BC_MAP_UNTYPED: u8 = b'H';

pub const BC_OBJECT: u8 = b'O';
pub const BC_OBJECT_DIRECT: u8 = 0x60;
pub const OBJECT_DIRECT_MAX: usize = 0x0f;

pub const BC_REF: u8 = 0x51;

pub const BC_STRING: u8 = b'S';
pub const BC_STRING_CHUNK: u8 = b'R';
pub const BC_STRING_DIRECT: u8 = 0x00;
pub const STRING_DIRECT_MAX: usize = 0x1f;
pub const BC_STRING_SHORT: u8 = 0x30;
pub const STRING_SHORT_MAX: usize = 0x3ff;

/// Maximum UTF-16 units in one string chunk, as hessian-lite writes them.
pub const STRING_CHUNK_MAX: usize = 0x8000;

/// hessian-lite's `Hessian2Output.SIZE`: the internal buffer whose flushes decide
/// where binary chunks are split.
pub const JAVA_BUFFER_SIZE: usize = 8 * 1024;
