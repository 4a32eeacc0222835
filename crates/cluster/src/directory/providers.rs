//! [`Providers`]: what a dynamic directory's writer knows of the last notification.

use std::sync::Arc;

use dubbo_core::{Invoker, InvokerList};
use dubbo_url::Url;

use super::provider_key::KeyIndex;
use crate::configurator::Configurators;

/// The writer's view: the last notification as given, the rules it was applied under, where
/// each provider's invoker is, and the published snapshot.
#[derive(Default)]
pub(super) struct Providers {
    /// The last notification as given (without `empty://`), shared with whoever handed it
    /// over, and kept to re-apply rules to.
    pub(super) raw: Arc<[Url]>,
    /// The override rules of each [`ConfiguratorSource`](crate::ConfiguratorSource), in the
    /// order they apply.
    pub(super) rules: [Configurators; 3],
    pub(super) layout: Layout,
    /// Positions of the providers (into `raw` when [`Layout::Aligned`], into the slots
    /// otherwise) by identity.
    pub(super) keys: KeyIndex,
    /// The snapshot calls read, as last published.
    pub(super) snapshot: InvokerList,
    /// Snapshots published before `snapshot`, oldest first, kept to be patched into the next
    /// one (see [`Spare`]); only while the layout is aligned.
    pub(super) spares: Vec<Spare>,
}

/// How the providers of `raw` map to invokers.
#[derive(Default)]
pub(super) enum Layout {
    /// Provider `i` is `raw[i]` itself and its invoker is `snapshot[i]`: no override rule and
    /// no consumer merging in force, no provider disabled or listed twice, every invoker
    /// built. The common case, and the one that costs nothing per provider beyond the
    /// snapshot; a push of the same `Url`s with a few changed is patched by position.
    #[default]
    Aligned,
    /// Anything else: one slot per distinct enabled provider, in notification order.
    Listed(Vec<Slot>),
}

/// One provider under [`Layout::Listed`].
pub(super) struct Slot {
    /// The provider's position in `raw`.
    pub(super) src: u32,
    /// The URL its invoker is built from, when it is not `raw[src]` itself (rules applied, or
    /// the consumer's parameters merged).
    pub(super) url: Option<Url>,
    /// `None` when it could not be built (it is built again on the next notification).
    pub(super) invoker: Option<Arc<dyn Invoker>>,
}

/// A snapshot no longer published, patched into the next one instead of copying all of its
/// reference counts: once every reader has let go of it, only the positions that differ
/// from the current snapshot are rewritten.
pub(super) struct Spare {
    pub(super) list: InvokerList,
    /// The positions where `list` differs from the current snapshot.
    pub(super) stale: Vec<usize>,
}

impl Providers {
    /// How many distinct providers the directory knows (with or without an invoker).
    pub(super) fn len(&self) -> usize {
        match &self.layout {
            Layout::Aligned => self.raw.len(),
            Layout::Listed(slots) => slots.len(),
        }
    }

    /// The URL the invoker at `position` is built from.
    pub(super) fn url_of(&self, position: u32) -> Option<&Url> {
        slot_url(&self.layout, &self.raw, position)
    }

    /// The invoker at `position`, if it was built.
    pub(super) fn invoker_of(&self, position: u32) -> Option<&Arc<dyn Invoker>> {
        match &self.layout {
            Layout::Aligned => self.snapshot.get(position as usize),
            Layout::Listed(slots) => slots
                .get(position as usize)
                .and_then(|s| s.invoker.as_ref()),
        }
    }

    /// The position of the provider with `url`'s identity, `hash` its [`KeyIndex::hash`].
    pub(super) fn find(&self, hash: u64, url: &Url) -> Option<u32> {
        self.keys.find(hash, url, |i| self.url_of(i))
    }
}

/// The URL at `position` of `layout` over `raw`.
pub(super) fn slot_url<'a>(layout: &'a Layout, raw: &'a [Url], position: u32) -> Option<&'a Url> {
    match layout {
        Layout::Aligned => raw.get(position as usize),
        Layout::Listed(slots) => listed_url(slots, raw, position),
    }
}

/// The URL of slot `position` of `slots` over `raw`.
pub(super) fn listed_url<'a>(slots: &'a [Slot], raw: &'a [Url], position: u32) -> Option<&'a Url> {
    let slot = slots.get(position as usize)?;
    slot.url.as_ref().or_else(|| raw.get(slot.src as usize))
}
