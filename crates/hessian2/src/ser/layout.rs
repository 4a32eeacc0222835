//! hessian-lite's field order of a class (its class definition), learnt from the Rust
//! field types of the first instance and cached per thread.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::fxhash::FxBuildHasher;

/// hessian-lite's field order for a class, computed from the Rust declaration order.
#[derive(Debug)]
pub(crate) struct Layout {
    pub(super) names: Vec<&'static str>,
    /// Declared index -> wire position.
    pub(super) wire_pos: Vec<usize>,
    /// Field names in wire order.
    pub(crate) wire_names: Vec<&'static str>,
    /// Declared index -> the field's Rust type is exactly `f32`.
    pub(super) f32_prim: Vec<bool>,
}

thread_local! {
    static LAYOUTS: RefCell<HashMap<&'static str, Rc<Layout>, FxBuildHasher>> = RefCell::new(HashMap::default());
}

pub(super) fn cached_layout(class: &'static str) -> Option<Rc<Layout>> {
    LAYOUTS.with(|l| l.borrow().get(class).cloned())
}

pub(super) fn compute_layout(
    class: &'static str,
    names: Vec<&'static str>,
    prim: &[bool],
    f32_prim: Vec<bool>,
) -> Rc<Layout> {
    let n = names.len();
    let mut order: Vec<usize> = (0..n)
        .filter(|&i| prim[i])
        .chain((0..n).filter(|&i| !prim[i]))
        .collect();
    order.reverse();
    let mut wire_pos = vec![0; n];
    for (p, &i) in order.iter().enumerate() {
        wire_pos[i] = p;
    }
    let wire_names = order.iter().map(|&i| names[i]).collect();
    let layout = Rc::new(Layout {
        names,
        wire_pos,
        wire_names,
        f32_prim,
    });
    LAYOUTS.with(|l| l.borrow_mut().insert(class, layout.clone()));
    layout
}

/// Whether a Rust field type maps to a Java primitive or a `java.lang.*` class other
/// than `Object` — the first group of hessian-lite's field order.
pub(crate) fn is_java_lang_field(type_name: &str) -> bool {
    let mut t = type_name.trim();
    loop {
        let before = t;
        for prefix in ["&mut ", "&"] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest.trim_start();
            }
        }
        for wrapper in [
            "core::option::Option<",
            "std::option::Option<",
            "alloc::boxed::Box<",
            "std::boxed::Box<",
            "alloc::rc::Rc<",
            "alloc::sync::Arc<",
            "std::rc::Rc<",
            "std::sync::Arc<",
        ] {
            if let Some(rest) = t.strip_prefix(wrapper) {
                if let Some(inner) = rest.strip_suffix('>') {
                    t = inner.trim();
                }
            }
        }
        if t == before {
            break;
        }
    }
    matches!(
        t,
        "bool"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "f32"
            | "f64"
            | "char"
            | "str"
            | "alloc::string::String"
            | "std::string::String"
            | "alloc::borrow::Cow<str>"
            | "alloc::borrow::Cow<'_, str>"
            | "std::borrow::Cow<str>"
    )
}
