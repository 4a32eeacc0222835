//! Writing references, lists, maps, objects with their class definitions, and enums.

use std::borrow::Cow;
use std::rc::Rc;

use super::{ClassEntry, ClassFields, Hessian2Writer};
use crate::constants::*;
use crate::ser::layout::Layout;

impl Hessian2Writer {
    /// Allocates the next reference index, as Java does at the start of every list,
    /// map, array, object, enum or `BigDecimal`.
    pub fn alloc_ref(&mut self) -> u32 {
        let r = self.ref_count;
        self.ref_count = self.ref_count.wrapping_add(1);
        r
    }

    /// Writes a back-reference `Q` to reference index `index`.
    pub fn write_ref(&mut self, index: u32) {
        if self.spec && index >= self.spec_ref_base {
            self.spec_failed = true;
            return;
        }
        self.flush_lt(16);
        self.buf.push(BC_REF);
        self.put_int(index as i32);
    }

    pub(super) fn write_type(&mut self, type_name: &str) {
        self.flush_lt(32);
        if let Some(&idx) = self.t.types.get(type_name) {
            self.write_int(idx as i32);
        } else if self.spec {
            self.spec_failed = true;
        } else {
            let idx = self.t.types.len();
            self.t.types.insert(type_name.to_owned(), idx);
            self.write_string(type_name);
        }
    }

    /// Starts a fixed-length list and allocates its reference: `0x78+len`/`X len`
    /// when `type_name` is `None` (an `ArrayList`), `0x70+len type`/`V type len`
    /// otherwise. The caller then writes exactly `len` values; there is no end marker.
    /// Returns the list's reference index. An empty `type_name` counts as `None`.
    pub fn write_list_begin(&mut self, len: usize, type_name: Option<&str>) -> u32 {
        let r = self.alloc_ref();
        self.flush_lt(32);
        let type_name = type_name.filter(|t| !t.is_empty());
        if len <= LIST_DIRECT_MAX {
            match type_name {
                Some(t) => {
                    self.buf.push(BC_LIST_DIRECT + len as u8);
                    self.write_type(t);
                }
                None => self.buf.push(BC_LIST_DIRECT_UNTYPED + len as u8),
            }
        } else {
            match type_name {
                Some(t) => {
                    self.buf.push(BC_LIST_FIXED);
                    self.write_type(t);
                }
                None => self.buf.push(BC_LIST_FIXED_UNTYPED),
            }
            self.write_int(len as i32);
        }
        r
    }

    /// Starts a variable-length list (`W`, or `U type`) and allocates its reference;
    /// finish it with [`write_list_end`](Self::write_list_end).
    pub fn write_variable_list_begin(&mut self, type_name: Option<&str>) -> u32 {
        let r = self.alloc_ref();
        self.flush_lt(32);
        match type_name.filter(|t| !t.is_empty()) {
            Some(t) => {
                self.buf.push(BC_LIST_VARIABLE);
                self.write_type(t);
            }
            None => self.buf.push(BC_LIST_VARIABLE_UNTYPED),
        }
        r
    }

    /// Ends a variable-length list (`Z`).
    pub fn write_list_end(&mut self) {
        self.flush_lt(32);
        self.buf.push(BC_END);
    }

    /// Starts a map and allocates its reference: `H` for `None` (a `HashMap`), `M type`
    /// otherwise. Write key, value pairs, then [`write_map_end`](Self::write_map_end).
    pub fn write_map_begin(&mut self, type_name: Option<&str>) -> u32 {
        let r = self.alloc_ref();
        self.flush_lt(32);
        match type_name.filter(|t| !t.is_empty()) {
            Some(t) => {
                self.buf.push(BC_MAP);
                self.write_type(t);
            }
            None => self.buf.push(BC_MAP_UNTYPED),
        }
        r
    }

    /// Ends a map (`Z`).
    pub fn write_map_end(&mut self) {
        self.flush_lt(32);
        self.buf.push(BC_END);
    }

    /// Starts an object instance and allocates its reference: writes the class
    /// definition `C` the first time `class` is used in this stream (or when it is
    /// used with a different field list), then the instance tag (`0x60+def` or
    /// `O def`). The caller then writes one value per field, in `fields` order.
    /// Returns the object's reference index.
    pub fn write_object_begin(&mut self, class: &str, fields: &[&str]) -> u32 {
        let r = self.alloc_ref();
        self.object_header(class, fields.len(), || fields.iter().copied());
        r
    }

    /// Writes the class definition (if needed) and the instance tag, without
    /// allocating a reference.
    /// Returns the class-definition index, or `None` in segment mode when the
    /// definition would have to be written (nothing is written then).
    pub(crate) fn object_header<'a, I, F>(
        &mut self,
        class: &str,
        n: usize,
        fields: F,
    ) -> Option<usize>
    where
        I: Iterator<Item = &'a str>,
        F: Fn() -> I,
    {
        let idx = match self.t.classes.get(class) {
            Some(e) if e.fields.eq(n, fields()) => e.index,
            _ if self.spec => {
                self.spec_failed = true;
                return None;
            }
            _ => {
                let names = fields().map(str::to_owned).collect();
                self.write_class_def(
                    Cow::Owned(class.to_owned()),
                    n,
                    fields(),
                    ClassFields::Owned(names),
                )
            }
        };
        self.object_tag(idx);
        Some(idx)
    }

    /// [`object_header`](Self::object_header) for a serde struct: the class
    /// definition keeps the name and the layout instead of copies of them.
    pub(crate) fn object_header_layout(
        &mut self,
        class: &'static str,
        layout: &Rc<Layout>,
    ) -> Option<usize> {
        let wire = &layout.wire_names;
        let idx = match self.t.classes.get(class) {
            Some(e)
                if matches!(&e.fields, ClassFields::Layout(l) if Rc::ptr_eq(l, layout))
                    || e.fields.eq(wire.len(), wire.iter().copied()) =>
            {
                e.index
            }
            _ if self.spec => {
                self.spec_failed = true;
                return None;
            }
            _ => self.write_class_def(
                Cow::Borrowed(class),
                wire.len(),
                wire.iter().copied(),
                ClassFields::Layout(layout.clone()),
            ),
        };
        self.object_tag(idx);
        Some(idx)
    }

    /// Writes a class definition `C` and registers it; returns its index.
    pub(super) fn write_class_def<'a>(
        &mut self,
        class: Cow<'static, str>,
        n: usize,
        names: impl Iterator<Item = &'a str>,
        fields: ClassFields,
    ) -> usize {
        let index = self.class_count;
        self.class_count += 1;
        self.flush_lt(32);
        self.buf.push(BC_CLASS_DEF);
        self.write_string(&class);
        self.write_int(n as i32);
        for f in names {
            self.write_string(f);
        }
        let old = self.t.classes.insert(class, ClassEntry { index, fields });
        if old.is_some() {
            // A class name redefined with other fields: forget cached indexes.
            self.t.structs.clear();
        }
        index
    }

    /// Writes the instance tag of class definition `idx` (`0x60+idx` or `O idx`).
    #[inline]
    pub(crate) fn object_tag(&mut self, idx: usize) {
        self.flush_lt(32);
        if idx <= OBJECT_DIRECT_MAX {
            self.buf.push(BC_OBJECT_DIRECT + idx as u8);
        } else {
            self.buf.push(BC_OBJECT);
            self.write_int(idx as i32);
        }
    }

    /// Writes a Java enum constant (`class` with the single field `name`). Like Java,
    /// which tracks enum constants by identity, the second write of the same
    /// (class, name) in a stream is a back-reference `Q`.
    pub fn write_enum(&mut self, class: &str, name: &str) {
        if let Some(&r) = self.t.enums.get(class).and_then(|m| m.get(name)) {
            self.write_ref(r);
            return;
        }
        if self.spec {
            self.spec_failed = true;
            return;
        }
        let r = self.alloc_ref();
        self.t
            .enums
            .entry(class.to_owned())
            .or_default()
            .insert(name.to_owned(), r);
        self.object_header(class, 1, || std::iter::once("name"));
        self.write_string(name);
    }
}
