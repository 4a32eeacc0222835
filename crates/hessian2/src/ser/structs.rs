//! Struct (Java object) state of the streaming serializer: fields written in
//! hessian-lite's class-definition order.

use std::rc::Rc;

use serde::ser::{self, Serialize};

use super::layout::{cached_layout, compute_layout, is_java_lang_field, Layout};
use super::stream::Ser;
use super::value_ser::ValueSer;
use crate::error::Error;
use crate::value::Value;
use crate::writer::{Hessian2Writer, SegState};

/// Struct (Java object) state of [`Ser`].
///
/// hessian-lite writes fields in its class-definition order, which is rarely the
/// Rust declaration order serde hands them in (usually its reverse). Fields whose wire
/// turn has come are written directly. From the first field that is early, every field
/// is written as a *segment* at the end of the buffer, in segment mode: anything whose
/// bytes would depend on the order (a new class definition or type name, a first enum
/// constant, a back-reference into the struct, a binary) fails the segment, and that
/// field is kept as a [`Value`] instead. When the struct ends, the segments are moved
/// into wire order (one copy of the struct's bytes) and the values written in turn.
pub(crate) struct StructSer<'a> {
    w: &'a mut Hessian2Writer,
    class: &'static str,
    mode: StructMode,
}

enum StructMode {
    /// Layout known.
    Known {
        layout: Rc<Layout>,
        next_decl: usize,
        /// Wire positions `0..next_wire` are written (directly, before any segment).
        next_wire: usize,
        seg: Option<SegState>,
    },
    /// First instance of the class in this thread: buffer everything, then learn the layout.
    Learn {
        names: Vec<&'static str>,
        prim: Vec<bool>,
        f32_prim: Vec<bool>,
        values: Vec<Value>,
    },
}

impl<'a> StructSer<'a> {
    pub(super) fn start(
        w: &'a mut Hessian2Writer,
        class: &'static str,
        len: usize,
    ) -> Result<Self, Error> {
        let known = match w.struct_entry(class) {
            Some((l, idx)) if l.names.len() == len => Some((l.clone(), idx)),
            _ => cached_layout(class)
                .filter(|l| l.names.len() == len)
                .map(|l| (l, None)),
        };
        let mode = match known {
            Some((layout, idx)) => {
                let r = w.alloc_ref();
                match idx {
                    Some(idx) => w.object_tag(idx),
                    None => {
                        let idx = w.object_header_layout(class, &layout);
                        if idx.is_some() {
                            w.set_struct_entry(class, layout.clone(), idx);
                        }
                    }
                }
                w.push_ref_scope(r);
                StructMode::Known {
                    layout,
                    next_decl: 0,
                    next_wire: 0,
                    seg: None,
                }
            }
            None => StructMode::Learn {
                names: Vec::with_capacity(len),
                prim: Vec::with_capacity(len),
                f32_prim: Vec::with_capacity(len),
                values: Vec::with_capacity(len),
            },
        };
        Ok(StructSer { w, class, mode })
    }

    fn field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: Option<&T>,
    ) -> Result<(), Error> {
        let class = self.class;
        match &mut self.mode {
            StructMode::Known {
                layout,
                next_decl,
                next_wire,
                seg,
            } => {
                let names = &layout.names;
                let decl = match names.get(*next_decl) {
                    // serde hands the same `&'static str`s every time: compare addresses first.
                    Some(n) if std::ptr::eq(n.as_ptr(), key.as_ptr()) && n.len() == key.len() => {
                        *next_decl
                    }
                    Some(n) if *n == key => *next_decl,
                    _ => match names.iter().position(|n| *n == key) {
                        Some(i) => i,
                        None => {
                            return Err(Error::Custom(format!(
                                "class {class}: field {key} is not in the layout learned for this class name \
                                 (two Rust types serialize with the same class name?)"
                            )))
                        }
                    },
                };
                *next_decl = decl + 1;
                let p = layout.wire_pos[decl];
                let prim_f32 = layout.f32_prim[decl];
                if seg.is_none() && p == *next_wire {
                    write_field(self.w, value, prim_f32)?;
                    *next_wire += 1;
                    return Ok(());
                }
                let st = *seg.get_or_insert_with(|| self.w.seg_begin(layout.names.len()));
                let mark = self.w.seg_field_begin();
                write_field(self.w, value, prim_f32)?;
                if !self.w.seg_field_end(&st, mark, p) {
                    let v = match value {
                        Some(v) => v.serialize(ValueSer::buffer(prim_f32))?,
                        None => Value::Null,
                    };
                    self.w.seg_value(&st, p, v);
                }
                Ok(())
            }
            StructMode::Learn {
                names,
                prim,
                f32_prim,
                values,
            } => {
                let tn = std::any::type_name::<T>();
                let is_f32 = value.is_some() && tn == "f32";
                names.push(key);
                prim.push(value.is_some() && is_java_lang_field(tn));
                f32_prim.push(is_f32);
                values.push(match value {
                    Some(v) => v.serialize(ValueSer::buffer(is_f32))?,
                    None => Value::Null,
                });
                Ok(())
            }
        }
    }

    fn finish(self) -> Result<(), Error> {
        let StructSer { w, class, mode } = self;
        match mode {
            StructMode::Known {
                layout,
                mut next_wire,
                seg,
                ..
            } => {
                let n = layout.names.len();
                match seg {
                    Some(st) => w.seg_finish(st, next_wire, n)?,
                    None => {
                        while next_wire < n {
                            w.write_null();
                            next_wire += 1;
                        }
                    }
                }
                w.pop_ref_scope();
                Ok(())
            }
            StructMode::Learn {
                names,
                prim,
                f32_prim,
                values,
            } => {
                let layout = compute_layout(class, names, &prim, f32_prim);
                let r = w.alloc_ref();
                let idx = w.object_header_layout(class, &layout);
                if idx.is_some() {
                    w.set_struct_entry(class, layout.clone(), idx);
                }
                w.push_ref_scope(r);
                let mut ordered: Vec<Option<Value>> = vec![None; values.len()];
                for (i, v) in values.into_iter().enumerate() {
                    ordered[layout.wire_pos[i]] = Some(v);
                }
                for v in ordered {
                    match v {
                        Some(v) => w.write_value_at_depth(&v)?,
                        None => w.write_null(),
                    }
                }
                w.pop_ref_scope();
                Ok(())
            }
        }
    }
}

/// Writes one struct field's value (`None`: a skipped field, written as null).
fn write_field<T: ?Sized + Serialize>(
    w: &mut Hessian2Writer,
    value: Option<&T>,
    prim_f32: bool,
) -> Result<(), Error> {
    match value {
        Some(v) => v.serialize(Ser {
            w,
            prim_f32,
            type_hint: None,
        }),
        None => {
            w.write_null();
            Ok(())
        }
    }
}

impl ser::SerializeStruct for StructSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, Some(value))
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), Error> {
        self.field::<()>(key, None)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}
