//! Reading any value into a [`Value`] tree.

use super::{is_binary_tag, is_string_tag, Hessian2Reader};
use crate::constants::*;
use crate::error::Error;
use crate::value::{List, Map, Object, Value};

impl<'de> Hessian2Reader<'de> {
    /// Reads the next value of any type into a [`Value`].
    pub fn read_value(&mut self) -> Result<Value, Error> {
        self.top_level(Self::value)
    }

    /// Runs one top-level read: after an error deep inside a value, the nesting state is
    /// back where it was, so the reader's tables stay usable for what follows.
    pub(crate) fn top_level<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let depth = self.depth;
        let building = self.building.len();
        let res = read(self);
        self.depth = depth;
        self.building.truncate(building);
        res
    }

    pub(crate) fn value(&mut self) -> Result<Value, Error> {
        loop {
            let start = self.pos;
            let tag = self.byte()?;
            return Ok(match tag {
                BC_NULL => Value::Null,
                BC_TRUE => Value::Bool(true),
                BC_FALSE => Value::Bool(false),
                0x80..=0xbf | 0xc0..=0xcf | 0xd0..=0xd7 | BC_INT => {
                    match self.int_after_tag(tag)? {
                        Some(v) => Value::Int(v),
                        None => return Err(self.unexpected(tag, "int")),
                    }
                }
                0xd8..=0xef | 0xf0..=0xff | 0x38..=0x3f | BC_LONG_INT | BC_LONG => {
                    match self.long_after_tag(tag)? {
                        Some(v) => Value::Long(v),
                        None => return Err(self.unexpected(tag, "long")),
                    }
                }
                BC_DOUBLE_ZERO..=BC_DOUBLE_MILL | BC_DOUBLE => match self.double_after_tag(tag)? {
                    Some(v) => Value::Double(v),
                    None => return Err(self.unexpected(tag, "double")),
                },
                BC_DATE | BC_DATE_MINUTE => match self.date_after_tag(tag)? {
                    Some(v) => Value::Date(v),
                    None => return Err(self.unexpected(tag, "date")),
                },
                t if is_string_tag(t) => Value::String(self.string_after_tag(t)?),
                t if is_binary_tag(t) => Value::Binary(self.binary_after_tag(t)?),
                BC_CLASS_DEF => {
                    self.read_class_def()?;
                    continue;
                }
                BC_REF => {
                    let idx = self.read_int()?;
                    match self.resolve_ref(idx, start)? {
                        Err(k) => Value::Ref(k),
                        Ok(pos) => self.replay_at(pos, idx as u32, |r| r.value())?,
                    }
                }
                BC_MAP_UNTYPED => self.map_body(start, None)?,
                BC_MAP => {
                    let t = self.read_type()?;
                    self.map_body(start, type_opt(&t))?
                }
                0x70..=0x77 => {
                    let t = self.read_type()?;
                    self.fixed_list(start, type_opt(&t), i64::from(tag - 0x70))?
                }
                0x78..=0x7f => self.fixed_list(start, None, i64::from(tag - 0x78))?,
                BC_LIST_FIXED => {
                    let t = self.read_type()?;
                    let n = self.read_int()?;
                    self.fixed_list(start, type_opt(&t), i64::from(n))?
                }
                BC_LIST_FIXED_UNTYPED => {
                    let n = self.read_int()?;
                    self.fixed_list(start, None, i64::from(n))?
                }
                BC_LIST_VARIABLE => {
                    let t = self.read_type()?;
                    self.variable_list(start, type_opt(&t))?
                }
                BC_LIST_VARIABLE_UNTYPED => self.variable_list(start, None)?,
                0x60..=0x6f => self.object_body(start, i64::from(tag - 0x60))?,
                BC_OBJECT => {
                    let idx = self.read_int()?;
                    self.object_body(start, i64::from(idx))?
                }
                t => return Err(self.unexpected(t, "value")),
            });
        }
    }

    pub(super) fn map_body(
        &mut self,
        start: usize,
        type_name: Option<String>,
    ) -> Result<Value, Error> {
        self.enter()?;
        self.begin_ref(start);
        let mut entries = Vec::new();
        loop {
            match self.peek() {
                Some(BC_END) => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.truncated()),
                Some(_) => {}
            }
            if entries.len() >= self.limits.max_collection_len {
                return Err(Error::LengthLimit {
                    what: "map",
                    len: entries.len() as i64 + 1,
                    limit: self.limits.max_collection_len,
                });
            }
            let k = self.value()?;
            let v = self.value()?;
            entries.push((k, v));
        }
        self.end_ref();
        self.leave();
        Ok(Value::Map(Map { type_name, entries }))
    }

    pub(super) fn fixed_list(
        &mut self,
        start: usize,
        type_name: Option<String>,
        len: i64,
    ) -> Result<Value, Error> {
        let len = self.check_len("list", len, 1)?;
        self.enter()?;
        self.begin_ref(start);
        let mut items = Vec::with_capacity(len);
        for _ in 0..len {
            items.push(self.value()?);
        }
        self.end_ref();
        self.leave();
        Ok(Value::List(List { type_name, items }))
    }

    pub(super) fn variable_list(
        &mut self,
        start: usize,
        type_name: Option<String>,
    ) -> Result<Value, Error> {
        self.enter()?;
        self.begin_ref(start);
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some(BC_END) => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.truncated()),
                Some(_) => {}
            }
            if items.len() >= self.limits.max_collection_len {
                return Err(Error::LengthLimit {
                    what: "list",
                    len: items.len() as i64 + 1,
                    limit: self.limits.max_collection_len,
                });
            }
            items.push(self.value()?);
        }
        self.end_ref();
        self.leave();
        Ok(Value::List(List { type_name, items }))
    }

    pub(super) fn object_body(&mut self, start: usize, def: i64) -> Result<Value, Error> {
        let def = self.class_def(def, start)?;
        self.enter()?;
        self.begin_ref(start);
        let mut fields = Vec::with_capacity(def.fields.len().min(self.remaining()));
        for name in &def.fields {
            let v = self.value()?;
            fields.push((name.clone(), v));
        }
        self.end_ref();
        self.leave();
        Ok(Value::Object(Object {
            class: def.name.clone(),
            fields,
        }))
    }
}

/// A wire type as an optional name (an empty type means untyped).
#[inline]
fn type_opt(t: &str) -> Option<String> {
    if t.is_empty() {
        None
    } else {
        Some(t.to_owned())
    }
}
