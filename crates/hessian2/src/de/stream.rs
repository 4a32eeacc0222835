//! The streaming deserializer: serde types decoded straight from a [`Hessian2Reader`],
//! with its list, map and object accessors.

use std::rc::Rc;

use serde::de::{self, DeserializeSeed, Visitor};
use serde::Deserialize;

use super::from_value::{EnumDe, ValueDeserializer};
use super::stash::visit_stashed;
use crate::constants::*;
use crate::error::Error;
use crate::reader::{is_binary_tag, is_string_tag, ClassDef, Hessian2Reader};
use crate::ser::{MAGIC_TYPED_LIST, MAGIC_TYPED_MAP, MAGIC_VALUE};
use crate::value::Value;

impl<'de> Hessian2Reader<'de> {
    /// Skips one value without building it (see `deserialize_ignored_any`).
    pub(crate) fn skip_value_inner(&mut self) -> Result<(), Error> {
        de::IgnoredAny::deserialize(&mut *self).map(drop)
    }

    fn expect_more(&self) -> Result<u8, Error> {
        self.peek().ok_or_else(|| self.truncated())
    }
}

/// Sequence access over a list body.
struct SeqAcc<'a, 'de> {
    r: &'a mut Hessian2Reader<'de>,
    /// `Some(n)`: fixed list with `n` items left; `None`: variable list until `Z`.
    left: Option<usize>,
    done: bool,
}

impl<'de> de::SeqAccess<'de> for SeqAcc<'_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match &mut self.left {
            Some(0) => Ok(None),
            Some(n) => {
                *n -= 1;
                seed.deserialize(&mut *self.r).map(Some)
            }
            None => {
                if self.done {
                    return Ok(None);
                }
                if self.r.expect_more()? == BC_END {
                    self.r.pos += 1;
                    self.done = true;
                    return Ok(None);
                }
                seed.deserialize(&mut *self.r).map(Some)
            }
        }
    }
    fn size_hint(&self) -> Option<usize> {
        self.left.map(|n| n.min(4096))
    }
}

impl SeqAcc<'_, '_> {
    fn finish(self) -> Result<(), Error> {
        match self.left {
            Some(n) => {
                for _ in 0..n {
                    self.r.skip_value_inner()?;
                }
            }
            None if !self.done => loop {
                if self.r.expect_more()? == BC_END {
                    self.r.pos += 1;
                    break;
                }
                self.r.skip_value_inner()?;
            },
            None => {}
        }
        Ok(())
    }
}

/// Map access over an `H`/`M` body.
struct MapAcc<'a, 'de> {
    r: &'a mut Hessian2Reader<'de>,
    done: bool,
}

impl<'de> de::MapAccess<'de> for MapAcc<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.done {
            return Ok(None);
        }
        if self.r.expect_more()? == BC_END {
            self.r.pos += 1;
            self.done = true;
            return Ok(None);
        }
        seed.deserialize(&mut *self.r).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(&mut *self.r)
    }
    /// `H`/`M` maps carry no length: count the entries ahead as far as they are
    /// scalars (a lower bound otherwise), so that a `HashMap` is allocated once
    /// instead of growing (and rehashing) as it fills.
    fn size_hint(&self) -> Option<usize> {
        if self.done {
            return Some(0);
        }
        Some(self.r.count_map_entries())
    }
}

impl MapAcc<'_, '_> {
    fn finish(self) -> Result<(), Error> {
        if !self.done {
            loop {
                if self.r.expect_more()? == BC_END {
                    self.r.pos += 1;
                    break;
                }
                self.r.skip_value_inner()?;
                self.r.skip_value_inner()?;
            }
        }
        Ok(())
    }
}

/// Map access over an object instance: keys are the class definition's field names.
struct ObjAcc<'a, 'de> {
    r: &'a mut Hessian2Reader<'de>,
    def: Rc<ClassDef>,
    i: usize,
    value_pending: bool,
}

impl<'de> de::MapAccess<'de> for ObjAcc<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.value_pending {
            self.r.skip_value_inner()?;
            self.value_pending = false;
        }
        match self.def.fields.get(self.i) {
            Some(name) => {
                self.i += 1;
                self.value_pending = true;
                seed.deserialize(de::value::StrDeserializer::<Error>::new(name))
                    .map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        self.value_pending = false;
        seed.deserialize(&mut *self.r)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.def.fields.len() - self.i.min(self.def.fields.len()))
    }
}

impl ObjAcc<'_, '_> {
    fn finish(self) -> Result<(), Error> {
        let mut left = self.def.fields.len().saturating_sub(self.i);
        if self.value_pending {
            left += 1;
        }
        for _ in 0..left {
            self.r.skip_value_inner()?;
        }
        Ok(())
    }
}

impl<'de> Hessian2Reader<'de> {
    fn visit_list<V: Visitor<'de>>(
        &mut self,
        start: usize,
        left: Option<usize>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.enter()?;
        self.begin_ref(start);
        let mut acc = SeqAcc {
            r: self,
            left,
            done: false,
        };
        let v = visitor.visit_seq(&mut acc)?;
        acc.finish()?;
        self.end_ref();
        self.leave();
        Ok(v)
    }

    fn visit_hmap<V: Visitor<'de>>(&mut self, start: usize, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        self.begin_ref(start);
        let mut acc = MapAcc {
            r: self,
            done: false,
        };
        let v = visitor.visit_map(&mut acc)?;
        acc.finish()?;
        self.end_ref();
        self.leave();
        Ok(v)
    }

    fn visit_object<V: Visitor<'de>>(
        &mut self,
        start: usize,
        def: i64,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let def = self.class_def(def, start)?;
        self.enter()?;
        self.begin_ref(start);
        let mut acc = ObjAcc {
            r: self,
            def,
            i: 0,
            value_pending: false,
        };
        let v = visitor.visit_map(&mut acc)?;
        acc.finish()?;
        self.end_ref();
        self.leave();
        Ok(v)
    }

    /// Whether the next value is a `Q` to a container still being built (a cycle).
    fn next_is_cycle(&mut self) -> Result<bool, Error> {
        if self.peek() != Some(BC_REF) {
            return Ok(false);
        }
        let save = self.pos;
        self.pos += 1;
        let idx = self.read_int()?;
        let res = self.resolve_ref(idx, save)?;
        if res.is_err() {
            Ok(true)
        } else {
            self.pos = save;
            Ok(false)
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Hessian2Reader<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        loop {
            let start = self.pos;
            let tag = self.byte()?;
            return match tag {
                BC_NULL => visitor.visit_unit(),
                BC_TRUE => visitor.visit_bool(true),
                BC_FALSE => visitor.visit_bool(false),
                0x80..=0xbf | 0xc0..=0xcf | 0xd0..=0xd7 | BC_INT => {
                    match self.int_after_tag(tag)? {
                        Some(v) => visitor.visit_i32(v),
                        None => Err(self.unexpected(tag, "int")),
                    }
                }
                0xd8..=0xef | 0xf0..=0xff | 0x38..=0x3f | BC_LONG_INT | BC_LONG => {
                    match self.long_after_tag(tag)? {
                        Some(v) => visitor.visit_i64(v),
                        None => Err(self.unexpected(tag, "long")),
                    }
                }
                BC_DOUBLE_ZERO..=BC_DOUBLE_MILL | BC_DOUBLE => match self.double_after_tag(tag)? {
                    Some(v) => visitor.visit_f64(v),
                    None => Err(self.unexpected(tag, "double")),
                },
                BC_DATE | BC_DATE_MINUTE => match self.date_after_tag(tag)? {
                    Some(v) => visitor.visit_i64(v),
                    None => Err(self.unexpected(tag, "date")),
                },
                t if is_string_tag(t) => visitor.visit_string(self.string_after_tag(t)?),
                t if is_binary_tag(t) => visitor.visit_byte_buf(self.binary_after_tag(t)?),
                BC_CLASS_DEF => {
                    self.read_class_def()?;
                    continue;
                }
                BC_REF => {
                    let idx = self.read_int()?;
                    match self.resolve_ref(idx, start)? {
                        Err(_) => visitor.visit_unit(),
                        Ok(pos) => self.replay_at(pos, idx as u32, |r| r.deserialize_any(visitor)),
                    }
                }
                BC_MAP_UNTYPED => self.visit_hmap(start, visitor),
                BC_MAP => {
                    self.read_type()?;
                    self.visit_hmap(start, visitor)
                }
                0x70..=0x77 => {
                    self.read_type()?;
                    self.visit_list(start, Some(usize::from(tag - 0x70)), visitor)
                }
                0x78..=0x7f => self.visit_list(start, Some(usize::from(tag - 0x78)), visitor),
                BC_LIST_FIXED | BC_LIST_FIXED_UNTYPED => {
                    if tag == BC_LIST_FIXED {
                        self.read_type()?;
                    }
                    let n = self.read_int()?;
                    let n = self.check_len("list", i64::from(n), 1)?;
                    self.visit_list(start, Some(n), visitor)
                }
                BC_LIST_VARIABLE => {
                    self.read_type()?;
                    self.visit_list(start, None, visitor)
                }
                BC_LIST_VARIABLE_UNTYPED => self.visit_list(start, None, visitor),
                0x60..=0x6f => self.visit_object(start, i64::from(tag - 0x60), visitor),
                BC_OBJECT => {
                    let idx = self.read_int()?;
                    self.visit_object(start, i64::from(idx), visitor)
                }
                t => Err(self.unexpected(t, "value")),
            };
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.peek() == Some(BC_NULL) {
            self.pos += 1;
            return visitor.visit_none();
        }
        if self.next_is_cycle()? {
            return visitor.visit_none();
        }
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match name {
            MAGIC_VALUE => {
                let v = self.value()?;
                visit_stashed(v, visitor)
            }
            MAGIC_TYPED_LIST | MAGIC_TYPED_MAP => {
                let v = self.value()?;
                de::Deserializer::deserialize_newtype_struct(ValueDeserializer(v), name, visitor)
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let tag = self.expect_more()?;
        if is_string_tag(tag) {
            self.pos += 1;
            let s = self.string_after_tag(tag)?;
            return visitor.visit_enum(EnumDe {
                variant: Value::String(s),
                content: None,
            });
        }
        let v = self.value()?;
        de::Deserializer::deserialize_enum(ValueDeserializer(v), name, variants, visitor)
    }

    /// Skips the next value without building it: scalars by their length, containers by
    /// visiting them with the same visitor (serde's `IgnoredAny` ignores each part in turn),
    /// which keeps the reference and class tables as a decode would.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Some(end) = self.skip_scalar(self.pos) {
            self.pos = end;
            return visitor.visit_unit();
        }
        // A reference needs checking, not re-reading: skipping never replays (so a stream
        // of references to one big value is as cheap to skip as it is short).
        if self.peek() == Some(BC_REF) {
            let start = self.pos;
            self.pos += 1;
            let idx = self.read_int()?;
            // Valid whether it points to an enclosing container or a completed one.
            let _enclosing_or_complete = self.resolve_ref(idx, start)?;
            return visitor.visit_unit();
        }
        self.deserialize_any(visitor)
    }

    /// Borrows the string from the input when it is one chunk of valid UTF-8, so that
    /// `&str` and `#[serde(borrow)] Cow<str>` fields copy nothing.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek() {
            Some(t) if is_string_tag(t) => {
                self.pos += 1;
                match self.borrow_str_after_tag(t) {
                    Some(s) => visitor.visit_borrowed_str(s),
                    None => visitor.visit_string(self.string_after_tag_general(t)?),
                }
            }
            // Text visitors may take UTF-8 bytes too: offer them borrowed as well.
            Some(t) if is_binary_tag(t) => self.deserialize_bytes(visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek() {
            Some(t) if is_string_tag(t) => {
                self.pos += 1;
                visitor.visit_string(self.string_after_tag(t)?)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    /// Borrows a binary sent in one chunk from the input (`&[u8]` fields copy nothing).
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek() {
            Some(t) if is_binary_tag(t) => {
                self.pos += 1;
                match self.borrow_binary_after_tag(t) {
                    Some(b) => visitor.visit_borrowed_bytes(b),
                    None => visitor.visit_byte_buf(self.binary_after_tag(t)?),
                }
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char
        byte_buf unit unit_struct seq tuple
        tuple_struct map struct
    }
}
