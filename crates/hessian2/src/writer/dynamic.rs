//! Writing a [`Value`] tree.

use super::{Hessian2Writer, ENUM_MARK, MAX_WRITE_DEPTH};
use crate::error::Error;
use crate::value::{List, Map, Object, Value};

impl Hessian2Writer {
    /// Writes a [`Value`] tree. Lists with `type_name: None` use the untyped fixed
    /// form, typed lists the typed fixed form; maps use `H` or `M type`; objects get
    /// their class definition on first use. [`Value::Ref`]`(k)` becomes a `Q` to the
    /// k-th enclosing container (0 = innermost) and is an error outside one.
    pub fn write_value(&mut self, v: &Value) -> Result<(), Error> {
        let base = self.t.ref_stack.len();
        let res = self.write_value_inner(v, 0, false);
        self.t.ref_stack.truncate(base);
        res
    }

    pub(super) fn write_value_inner(
        &mut self,
        v: &Value,
        depth: usize,
        marks: bool,
    ) -> Result<(), Error> {
        if depth > MAX_WRITE_DEPTH {
            return Err(Error::DepthExceeded {
                limit: MAX_WRITE_DEPTH,
            });
        }
        match v {
            Value::Null => self.write_null(),
            Value::Bool(b) => self.write_bool(*b),
            Value::Int(i) => self.write_int(*i),
            Value::Long(l) => self.write_long(*l),
            Value::Double(d) => self.write_double(*d),
            Value::String(s) => self.write_string(s),
            Value::Binary(b) => self.write_binary(b),
            Value::Date(d) => self.write_date(*d),
            Value::List(List { type_name, items }) => {
                if items.is_empty() {
                    if let Some(t) = type_name.as_deref().and_then(singleton_type) {
                        if let Some(&r) = self.t.singletons.get(t) {
                            self.write_ref(r);
                            return Ok(());
                        }
                        if self.spec {
                            self.spec_failed = true;
                            return Ok(());
                        }
                        let r = self.write_list_begin(0, Some(t));
                        self.t.singletons.insert(t, r);
                        return Ok(());
                    }
                }
                let r = self.write_list_begin(items.len(), type_name.as_deref());
                self.t.ref_stack.push(r);
                for item in items {
                    self.write_value_inner(item, depth + 1, marks)?;
                }
                self.t.ref_stack.pop();
            }
            Value::Map(Map { type_name, entries }) => {
                if entries.is_empty() {
                    if let Some(t) = type_name.as_deref().and_then(singleton_type) {
                        if let Some(&r) = self.t.singletons.get(t) {
                            self.write_ref(r);
                            return Ok(());
                        }
                        if self.spec {
                            self.spec_failed = true;
                            return Ok(());
                        }
                        let r = self.write_map_begin(Some(t));
                        self.write_map_end();
                        self.t.singletons.insert(t, r);
                        return Ok(());
                    }
                }
                let r = self.write_map_begin(type_name.as_deref());
                self.t.ref_stack.push(r);
                for (k, val) in entries {
                    self.write_value_inner(k, depth + 1, marks)?;
                    self.write_value_inner(val, depth + 1, marks)?;
                }
                self.t.ref_stack.pop();
                self.write_map_end();
            }
            Value::Object(Object { class, fields }) => {
                if marks && fields.len() == 1 && fields[0].0 == ENUM_MARK {
                    if let Value::String(name) = &fields[0].1 {
                        self.write_enum(class, name);
                        return Ok(());
                    }
                }
                let r = self.alloc_ref();
                self.object_header(class, fields.len(), || {
                    fields.iter().map(|(k, _)| k.as_str())
                });
                self.t.ref_stack.push(r);
                for (_, val) in fields {
                    self.write_value_inner(val, depth + 1, marks)?;
                }
                self.t.ref_stack.pop();
            }
            Value::Ref(k) => {
                let k = *k as usize;
                let n = self.t.ref_stack.len();
                if k >= n {
                    return Err(Error::InvalidRef {
                        index: k as i64,
                        position: self.buf.len(),
                    });
                }
                let r = self.t.ref_stack[n - 1 - k];
                self.write_ref(r);
            }
        }
        Ok(())
    }
}

/// JDK empty-collection singletons, which Java writes once per stream and then as `Q`
/// (e.g. `Throwable.suppressedExceptions`' sentinel `Collections.emptyList()`).
fn singleton_type(t: &str) -> Option<&'static str> {
    match t {
        "java.util.Collections$EmptyList" => Some("java.util.Collections$EmptyList"),
        "java.util.Collections$EmptySet" => Some("java.util.Collections$EmptySet"),
        "java.util.Collections$EmptyMap" => Some("java.util.Collections$EmptyMap"),
        _ => None,
    }
}
