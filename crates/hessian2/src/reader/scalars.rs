//! Reading numbers, booleans, null, dates, and the typed `read_*` entry points.

use super::{is_binary_tag, is_string_tag, Hessian2Reader};
use crate::constants::*;
use crate::error::Error;

impl<'de> Hessian2Reader<'de> {
    pub(crate) fn int_after_tag(&mut self, tag: u8) -> Result<Option<i32>, Error> {
        Ok(Some(match tag {
            0x80..=0xbf => i32::from(tag) - i32::from(BC_INT_ZERO),
            0xc0..=0xcf => {
                ((i32::from(tag) - i32::from(BC_INT_BYTE_ZERO)) << 8) + i32::from(self.byte()?)
            }
            0xd0..=0xd7 => {
                let [b1, b0] = self.array::<2>()?;
                ((i32::from(tag) - i32::from(BC_INT_SHORT_ZERO)) << 16)
                    + (i32::from(b1) << 8)
                    + i32::from(b0)
            }
            BC_INT => i32::from_be_bytes(self.array::<4>()?),
            _ => return Ok(None),
        }))
    }

    pub(crate) fn long_after_tag(&mut self, tag: u8) -> Result<Option<i64>, Error> {
        Ok(Some(match tag {
            0xd8..=0xef => i64::from(tag) - i64::from(BC_LONG_ZERO),
            0xf0..=0xff => {
                ((i64::from(tag) - i64::from(BC_LONG_BYTE_ZERO)) << 8) + i64::from(self.byte()?)
            }
            0x38..=0x3f => {
                let [b1, b0] = self.array::<2>()?;
                ((i64::from(tag) - i64::from(BC_LONG_SHORT_ZERO)) << 16)
                    + (i64::from(b1) << 8)
                    + i64::from(b0)
            }
            BC_LONG_INT => i64::from(i32::from_be_bytes(self.array::<4>()?)),
            BC_LONG => i64::from_be_bytes(self.array::<8>()?),
            _ => return Ok(None),
        }))
    }

    pub(crate) fn double_after_tag(&mut self, tag: u8) -> Result<Option<f64>, Error> {
        Ok(Some(match tag {
            BC_DOUBLE_ZERO => 0.0,
            BC_DOUBLE_ONE => 1.0,
            BC_DOUBLE_BYTE => f64::from(self.byte()? as i8),
            BC_DOUBLE_SHORT => f64::from(i16::from_be_bytes(self.array::<2>()?)),
            BC_DOUBLE_MILL => 0.001 * f64::from(i32::from_be_bytes(self.array::<4>()?)),
            BC_DOUBLE => f64::from_bits(u64::from_be_bytes(self.array::<8>()?)),
            _ => return Ok(None),
        }))
    }

    pub(crate) fn date_after_tag(&mut self, tag: u8) -> Result<Option<i64>, Error> {
        Ok(Some(match tag {
            BC_DATE => i64::from_be_bytes(self.array::<8>()?),
            BC_DATE_MINUTE => i64::from(i32::from_be_bytes(self.array::<4>()?)) * 60000,
            _ => return Ok(None),
        }))
    }

    /// Reads an int (any int form; long forms in `i32` range are accepted too).
    pub fn read_int(&mut self) -> Result<i32, Error> {
        let tag = self.byte()?;
        if let Some(v) = self.int_after_tag(tag)? {
            return Ok(v);
        }
        if let Some(v) = self.long_after_tag(tag)? {
            return i32::try_from(v).map_err(|_| Error::OutOfRange {
                value: v.to_string(),
                target: "int",
            });
        }
        Err(self.unexpected(tag, "int"))
    }

    /// Reads a long (any long or int form).
    pub fn read_long(&mut self) -> Result<i64, Error> {
        let tag = self.byte()?;
        if let Some(v) = self.long_after_tag(tag)? {
            return Ok(v);
        }
        if let Some(v) = self.int_after_tag(tag)? {
            return Ok(i64::from(v));
        }
        Err(self.unexpected(tag, "long"))
    }

    /// Reads a double (any double form; int and long forms are converted).
    pub fn read_double(&mut self) -> Result<f64, Error> {
        let tag = self.byte()?;
        if let Some(v) = self.double_after_tag(tag)? {
            return Ok(v);
        }
        if let Some(v) = self.int_after_tag(tag)? {
            return Ok(f64::from(v));
        }
        if let Some(v) = self.long_after_tag(tag)? {
            return Ok(v as f64);
        }
        Err(self.unexpected(tag, "double"))
    }

    /// Reads a boolean (`T` or `F`).
    pub fn read_bool(&mut self) -> Result<bool, Error> {
        match self.byte()? {
            BC_TRUE => Ok(true),
            BC_FALSE => Ok(false),
            t => Err(self.unexpected(t, "boolean")),
        }
    }

    /// Reads `N`; errors on anything else.
    pub fn read_null(&mut self) -> Result<(), Error> {
        match self.byte()? {
            BC_NULL => Ok(()),
            t => Err(self.unexpected(t, "null")),
        }
    }

    /// Reads a date, as milliseconds since the epoch.
    pub fn read_date(&mut self) -> Result<i64, Error> {
        let tag = self.byte()?;
        self.date_after_tag(tag)?
            .ok_or_else(|| self.unexpected(tag, "date"))
    }

    /// Reads a non-null string; `N` is an error.
    pub fn read_string(&mut self) -> Result<String, Error> {
        let tag = self.byte()?;
        if is_string_tag(tag) {
            self.string_after_tag(tag)
        } else {
            Err(self.unexpected(tag, "string"))
        }
    }

    /// Reads a string or `N`.
    pub fn read_nullable_string(&mut self) -> Result<Option<String>, Error> {
        match self.peek() {
            Some(BC_NULL) => {
                self.pos += 1;
                Ok(None)
            }
            _ => self.read_string().map(Some),
        }
    }

    /// Reads a `byte[]`, or `N` as `None`.
    pub fn read_nullable_binary(&mut self) -> Result<Option<Vec<u8>>, Error> {
        match self.byte()? {
            BC_NULL => Ok(None),
            t if is_binary_tag(t) => self.binary_after_tag(t).map(Some),
            t => Err(self.unexpected(t, "binary")),
        }
    }

    /// Reads a non-null `byte[]`.
    pub fn read_binary(&mut self) -> Result<Vec<u8>, Error> {
        let t = self.byte()?;
        if is_binary_tag(t) {
            self.binary_after_tag(t)
        } else {
            Err(self.unexpected(t, "binary"))
        }
    }
}
