//! Struct fields written out of wire order (see `ser/structs.rs`): each field a segment
//! at the end of the buffer, moved into wire order when the struct ends.

use std::rc::Rc;

use super::{FieldMark, Hessian2Writer, SegState, Slot};
use crate::constants::JAVA_BUFFER_SIZE;
use crate::error::Error;
use crate::ser::layout::Layout;
use crate::value::Value;

impl Hessian2Writer {
    /// The cached layout and class index for struct name `name`.
    #[inline]
    pub(crate) fn struct_entry(&self, name: &'static str) -> Option<(&Rc<Layout>, Option<usize>)> {
        self.t
            .structs
            .get(&(name.as_ptr() as usize, name.len()))
            .map(|(l, i)| (l, *i))
    }

    pub(crate) fn set_struct_entry(
        &mut self,
        name: &'static str,
        layout: Rc<Layout>,
        idx: Option<usize>,
    ) {
        self.t
            .structs
            .insert((name.as_ptr() as usize, name.len()), (layout, idx));
    }

    /// Starts writing the fields of a struct with `n` wire positions out of order:
    /// from here on, fields are written as segments at the end of the buffer.
    pub(crate) fn seg_begin(&mut self, n: usize) -> SegState {
        let st = SegState {
            base: self.buf.len(),
            jbase: self.jbase,
            slots: self.t.slots.len(),
            spec: self.spec,
            spec_ref_base: self.spec_ref_base,
        };
        self.t.slots.resize_with(st.slots + n, Slot::default);
        if !self.spec {
            self.spec = true;
            self.spec_ref_base = self.ref_count;
        }
        st
    }

    /// Starts one segment.
    #[inline]
    pub(crate) fn seg_field_begin(&mut self) -> FieldMark {
        let m = FieldMark {
            start: self.buf.len(),
            jbase: self.jbase,
            refs: self.ref_count,
            ref_stack: self.t.ref_stack.len(),
            failed: self.spec_failed,
        };
        self.spec_failed = false;
        m
    }

    /// Ends one segment: `true` if its bytes are kept for wire slot `slot`; `false`
    /// if it depended on the order (its bytes are dropped: write it as a value).
    #[inline]
    pub(crate) fn seg_field_end(&mut self, st: &SegState, m: FieldMark, slot: usize) -> bool {
        let ok = !self.spec_failed;
        if ok {
            let refs = self.ref_count.wrapping_sub(m.refs);
            if let Some(s) = self.t.slots.get_mut(st.slots + slot) {
                *s = Slot::Bytes {
                    start: m.start,
                    end: self.buf.len(),
                    refs,
                };
            }
        } else {
            self.buf.truncate(m.start);
            self.t.ref_stack.truncate(m.ref_stack);
            self.jbase = m.jbase;
        }
        // References are counted when the bytes reach their wire position.
        self.ref_count = m.refs;
        self.spec_failed = m.failed;
        ok
    }

    /// Sets wire slot `slot` to a buffered value.
    pub(crate) fn seg_value(&mut self, st: &SegState, slot: usize, v: Value) {
        if let Some(s) = self.t.slots.get_mut(st.slots + slot) {
            *s = Slot::Value(Box::new(v));
        }
    }

    /// Ends segment mode: writes wire slots `from..n` in order (segments moved into
    /// place, buffered values written, missing ones as `N`).
    pub(crate) fn seg_finish(&mut self, st: SegState, from: usize, n: usize) -> Result<(), Error> {
        self.spec = st.spec;
        self.spec_ref_base = st.spec_ref_base;
        let mut scratch = std::mem::take(&mut self.t.scratch);
        scratch.clear();
        crate::copy::extend(&mut scratch, self.buf.get(st.base..).unwrap_or_default());
        self.buf.truncate(st.base);
        self.jbase = st.jbase;
        self.buf.reserve(scratch.len());
        // No struct starts while the slots are written: take them out.
        let mut slots = std::mem::take(&mut self.t.slots);
        let mut res = Ok(());
        for slot in slots.get(st.slots + from..st.slots + n).unwrap_or_default() {
            match slot {
                Slot::Empty => self.write_null(),
                Slot::Bytes { start, end, refs } => {
                    let bytes = scratch
                        .get(start - st.base..end - st.base)
                        .unwrap_or_default();
                    self.flush_le(16);
                    let o = self.jo();
                    if o + bytes.len() <= JAVA_BUFFER_SIZE - 16 {
                        crate::copy::extend(&mut self.buf, bytes);
                    } else {
                        self.print_ascii(bytes);
                    }
                    self.ref_count = self.ref_count.wrapping_add(*refs);
                }
                Slot::Value(v) => {
                    if let Err(e) = self.write_value_at_depth(v) {
                        res = Err(e);
                        break;
                    }
                }
            }
        }
        slots.truncate(st.slots);
        self.t.slots = slots;
        if scratch.capacity() <= 1 << 20 {
            self.t.scratch = scratch;
        }
        res
    }

    /// Clears segment state after a failed `serialize`.
    pub(crate) fn seg_reset(&mut self) {
        self.spec = false;
        self.spec_failed = false;
        self.t.slots.clear();
    }

    /// Pushes a container's reference on the stack used to resolve [`Value::Ref`].
    pub(crate) fn push_ref_scope(&mut self, r: u32) {
        self.t.ref_stack.push(r);
    }

    pub(crate) fn pop_ref_scope(&mut self) {
        self.t.ref_stack.pop();
    }

    pub(crate) fn write_value_at_depth(&mut self, v: &Value) -> Result<(), Error> {
        let depth = self.t.ref_stack.len();
        self.write_value_inner(v, depth, true)
    }
}
