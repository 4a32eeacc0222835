//! Reading type names, class definitions (through a per-thread cache of parsed ones) and
//! back-references.

use std::rc::Rc;

use super::{is_string_tag, ClassDef, Hessian2Reader};
use crate::constants::*;
use crate::error::Error;

impl<'de> Hessian2Reader<'de> {
    /// Reads a type (string, or int index into the type table).
    pub(crate) fn read_type(&mut self) -> Result<Rc<str>, Error> {
        let tag = self.byte()?;
        if is_string_tag(tag) {
            let s: Rc<str> = Rc::from(self.string_after_tag(tag)?);
            // An empty type means "untyped" (Java refuses to write one).
            if self.replay == 0 {
                self.types.push(s.clone());
            }
            return Ok(s);
        }
        let start = self.pos - 1;
        self.back_refs.set(self.back_refs.get() + 1);
        match self.int_after_tag(tag)? {
            Some(i) => self
                .types
                .get(i as usize)
                .filter(|_| i >= 0)
                .cloned()
                .ok_or(Error::InvalidTypeRef {
                    index: i64::from(i),
                    position: start,
                }),
            None => Err(self.unexpected(tag, "type")),
        }
    }

    /// Reads a class definition after its `C` tag.
    pub(crate) fn read_class_def(&mut self) -> Result<(), Error> {
        // A stream per message repeats the same definitions over and over: look the
        // definition's bytes up before parsing (and allocating) its strings again.
        let start = self.pos;
        let input: &'de [u8] = self.input;
        // The definition's bytes, found (at most once) when the recent ones do not match.
        let mut key = None;
        let hit = class_def_cache::recent(input.get(start..).unwrap_or_default()).or_else(|| {
            let k = self
                .class_def_end(start)
                .and_then(|end| input.get(start..end))?;
            key = Some(k);
            class_def_cache::get(k).map(|def| (k.len(), def))
        });
        if let Some((len, def)) = hit {
            self.pos = start + len;
            if self.replay == 0 {
                self.classes.push(def);
            }
            return Ok(());
        }
        let def = Rc::new(self.parse_class_def()?);
        if let Some(key) = key {
            class_def_cache::put(key, &def);
        }
        if self.replay == 0 {
            self.classes.push(def);
        }
        Ok(())
    }

    /// The end of the class definition starting at `start` (after its `C`), if every
    /// part of it is a one-chunk string or an int and it is small enough to cache.
    pub(super) fn class_def_end(&self, start: usize) -> Option<usize> {
        let string_end = |p: usize| match self.input.get(p) {
            Some(&t) if is_string_tag(t) && t != BC_STRING_CHUNK => self.skip_scalar(p),
            _ => None,
        };
        let mut p = string_end(start)?;
        let n = match *self.input.get(p)? {
            t @ 0x80..=0xbf => {
                p += 1;
                i32::from(t) - 0x90
            }
            _ => return None,
        };
        if !(0..=class_def_cache::MAX_FIELDS).contains(&n) {
            return None;
        }
        for _ in 0..n {
            p = string_end(p)?;
        }
        (p - start <= class_def_cache::MAX_BYTES).then_some(p)
    }

    pub(super) fn parse_class_def(&mut self) -> Result<ClassDef, Error> {
        let name = self.read_string()?;
        let n = self.read_int()?;
        let n = self.check_len("class fields", i64::from(n), 1)?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            fields.push(self.read_string()?);
        }
        Ok(ClassDef { name, fields })
    }

    pub(crate) fn class_def(&self, idx: i64, position: usize) -> Result<Rc<ClassDef>, Error> {
        self.instances.set(self.instances.get() + 1);
        usize::try_from(idx)
            .ok()
            .and_then(|i| self.classes.get(i))
            .cloned()
            .ok_or(Error::InvalidClassRef {
                index: idx,
                position,
            })
    }

    /// Resolves a `Q` index: `Ok(Err(k))` for a container still being built (k levels
    /// out), `Ok(Ok(pos))` for a completed container starting at `pos`.
    pub(crate) fn resolve_ref(
        &self,
        idx: i32,
        position: usize,
    ) -> Result<Result<usize, u32>, Error> {
        self.back_refs.set(self.back_refs.get() + 1);
        if idx >= 0 {
            let u = idx as u32;
            if let Some(p) = self.building.iter().rposition(|&b| b == u) {
                return Ok(Err((self.building.len() - 1 - p) as u32));
            }
            if let Some(&start) = self.refs.get(idx as usize) {
                return Ok(Ok(start));
            }
        }
        Err(Error::InvalidRef {
            index: i64::from(idx),
            position,
        })
    }

    /// Runs `f` positioned at `start` in replay mode (re-reading a completed
    /// referenced value), then restores the position.
    pub(crate) fn replay_at<T>(
        &mut self,
        start: usize,
        ref_idx: u32,
        f: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        if self.replay_spent > self.limits.max_ref_replay {
            return Err(Error::RefExpansion {
                limit: self.limits.max_ref_replay,
            });
        }
        let saved_pos = self.pos;
        let saved_next = self.replay_next;
        self.pos = start;
        self.replay += 1;
        self.replay_next = ref_idx;
        let res = f(self);
        self.replay -= 1;
        self.replay_next = saved_next;
        let spent = self.pos.saturating_sub(start).max(1);
        self.replay_spent = self.replay_spent.saturating_add(spent);
        self.pos = saved_pos;
        if res.is_ok() && self.replay_spent > self.limits.max_ref_replay {
            return Err(Error::RefExpansion {
                limit: self.limits.max_ref_replay,
            });
        }
        res
    }
}

/// Parsed class definitions of this thread, by their encoded bytes. Bounded in entries
/// and key size; it holds no state that changes what a stream decodes to.
mod class_def_cache {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;

    use crate::fxhash::FxBuildHasher;
    use crate::reader::ClassDef;

    /// Definitions with more fields than this are parsed every time.
    pub(super) const MAX_FIELDS: i32 = 47;
    /// Definitions longer than this (in bytes) are parsed every time.
    pub(super) const MAX_BYTES: usize = 2048;
    /// At this many entries the cache starts over (a stream of ever-new class names
    /// cannot grow it).
    const MAX_ENTRIES: usize = 256;

    thread_local! {
        static CACHE: RefCell<HashMap<Box<[u8]>, Rc<ClassDef>, FxBuildHasher>> =
            RefCell::new(HashMap::default());
    }

    /// How many definitions [`recent`] tries before hashing.
    const RECENT: usize = 4;

    /// A definition's bytes (after its `C`) and the definition.
    type Known = (Rc<[u8]>, Rc<ClassDef>);

    thread_local! {
        /// The definitions met last, newest first.
        static LAST: RefCell<Vec<Known>> = const { RefCell::new(Vec::new()) };
    }

    /// A definition met lately whose bytes start `input`, with its length. A definition
    /// delimits itself, so bytes equal to one already parsed parse to the same thing:
    /// this needs neither finding the end first nor hashing.
    pub(super) fn recent(input: &[u8]) -> Option<(usize, Rc<ClassDef>)> {
        LAST.try_with(|l| {
            let l = l.try_borrow().ok()?;
            l.iter()
                .find(|(key, _)| input.starts_with(key))
                .map(|(key, def)| (key.len(), Rc::clone(def)))
        })
        .ok()
        .flatten()
    }

    fn remember(key: &[u8], def: &Rc<ClassDef>) {
        let _ = LAST.try_with(|l| {
            if let Ok(mut l) = l.try_borrow_mut() {
                l.retain(|(k, _)| **k != *key);
                if l.len() >= RECENT {
                    l.pop();
                }
                l.insert(0, (Rc::from(key), Rc::clone(def)));
            }
        });
    }

    pub(super) fn get(key: &[u8]) -> Option<Rc<ClassDef>> {
        let def = CACHE
            .try_with(|c| c.try_borrow().ok().and_then(|c| c.get(key).cloned()))
            .ok()
            .flatten()?;
        remember(key, &def);
        Some(def)
    }

    pub(super) fn put(key: &[u8], def: &Rc<ClassDef>) {
        let _ = CACHE.try_with(|c| {
            if let Ok(mut c) = c.try_borrow_mut() {
                if c.len() >= MAX_ENTRIES {
                    c.clear();
                }
                c.insert(key.into(), Rc::clone(def));
            }
        });
        remember(key, def);
    }
}
