//! [`ChildListing`]: the provider URLs of one registry directory, kept current from a change
//! feed (this child was created, that one deleted) instead of from a full listing per change.
//!
//! A registry that can only list a directory (ZooKeeper's one-shot child watches) reads every
//! name again on each change: for 100,000 Java providers that is about 75 MB of names to fetch
//! and digest for one restarted provider. A registry told of each created and deleted child
//! (ZooKeeper's persistent recursive watches) applies just those. The list keeps its order
//! from one change to the next, and a provider that comes back under a new name (a restart:
//! new `timestamp` and `pid`) takes the place its old name had, so the directory fed from it
//! matches the new list to the last one by position and pointer and patches one entry.

use std::collections::HashMap;
use std::sync::Arc;

use dubbo_url::Url;

use crate::error::RegistryError;
use crate::url_cache::ParsedUrlCache;

/// Above this many deletions in one batch, the positions are found through a hash set
/// rather than by comparing every entry with each deleted URL.
const LINEAR_DELETES: usize = 8;

/// One change of a directory's children, by the child's (percent-encoded) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildChange<'a> {
    /// A child was created.
    Created(&'a str),
    /// A child was deleted.
    Deleted(&'a str),
}

/// The URLs of a directory's children that a subscriber receives, in a stable order.
///
/// Parsed through a [`ParsedUrlCache`], so a URL is the same `Url` (one allocation) from one
/// notification to the next until its child is deleted.
///
/// The list is handed out shared ([`list`](Self::list)): listeners and the consumer's
/// directory keep it with no copy. A change that keeps the length (a provider restarted,
/// replaced) is written into the list published the time before, once nobody holds it any
/// more, at the positions where it differs: no reference count of the unchanged URLs is
/// touched, which for 100,000 providers is most of what a change would otherwise cost. A
/// change of length builds a new list. The spare list costs 8 bytes per URL.
#[derive(Debug)]
pub struct ChildListing {
    cache: ParsedUrlCache,
    current: Arc<[Url]>,
    /// The list published before `current`, and where it differs from it.
    spare: Option<(Arc<[Url]>, Vec<usize>)>,
}

/// What one [`ChildListing::apply`] did.
#[derive(Debug, Default)]
pub struct ListingChange {
    /// Whether the kept list changed (an entry added, removed or replaced).
    pub changed: bool,
    /// Names that did not parse, skipped (each error names its child).
    pub errors: Vec<RegistryError>,
}

impl ChildListing {
    /// An empty listing parsing through `cache`.
    pub fn new(cache: ParsedUrlCache) -> Self {
        Self {
            cache,
            current: Arc::from(Vec::new()),
            spare: None,
        }
    }

    /// The cache URLs are parsed through.
    pub fn cache(&self) -> &ParsedUrlCache {
        &self.cache
    }

    /// The kept URLs, in order.
    pub fn urls(&self) -> &[Url] {
        &self.current
    }

    /// The kept URLs as a shared list, to notify.
    pub fn list(&self) -> Arc<[Url]> {
        Arc::clone(&self.current)
    }

    /// Replaces the listing with a full one (the first read, or a re-read after the feed may
    /// have missed events): the URLs of `names` that `keep` accepts, in the order listed. The
    /// cache forgets names no longer listed. Returns the names that did not parse.
    pub fn relist<'a, I>(&mut self, names: I, keep: impl Fn(&Url) -> bool) -> Vec<RegistryError>
    where
        I: IntoIterator<Item = &'a str>,
    {
        let mut errors = Vec::new();
        let mut urls = Vec::new();
        for url in self.cache.parse_listing(names) {
            match url {
                Ok(url) if keep(&url) => urls.push(url),
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
        }
        // The list to write the first change into, made now: a listing reads every child
        // anyway, so a change made after it costs what it changes from the first one on.
        self.spare = Some((Arc::from(urls.clone()), Vec::new()));
        self.current = urls.into();
        errors
    }

    /// Applies a batch of changes, in order, keeping the created URLs that `keep` accepts.
    ///
    /// A created URL with the same endpoint (protocol, host, port and path) as a URL deleted
    /// in the same batch takes its position; other new URLs fill the other vacated positions,
    /// then go at the end; positions left vacant are filled from the end of the list. A
    /// child reported created that is listed already, or deleted that is not, changes nothing.
    pub fn apply<'a, I>(&mut self, changes: I, keep: impl Fn(&Url) -> bool) -> ListingChange
    where
        I: IntoIterator<Item = ChildChange<'a>>,
    {
        let mut out = ListingChange::default();
        let mut added: Vec<Url> = Vec::new();
        let mut deleted: Vec<Url> = Vec::new();
        for change in changes {
            match change {
                ChildChange::Created(name) => match self.cache.lookup(name) {
                    Ok((url, true)) if keep(&url) => added.push(url),
                    Ok(_) => {}
                    Err(e) => out.errors.push(e),
                },
                ChildChange::Deleted(name) => {
                    let Some(url) = self.cache.forget(name) else {
                        continue;
                    };
                    // Created and deleted within the batch: it never reaches the list.
                    match added.iter().position(|a| Url::ptr_eq(a, &url)) {
                        Some(i) => {
                            added.remove(i);
                        }
                        None => deleted.push(url),
                    }
                }
            }
        }
        let mut vacant = self.positions_of(&deleted);
        out.changed = !vacant.is_empty() || !added.is_empty();
        if !out.changed {
            return out;
        }

        // A restarted provider goes where it was.
        let mut edits: Vec<(usize, Url)> = Vec::new();
        let mut rest: Vec<Url> = Vec::new();
        for url in added {
            let same = vacant
                .iter()
                .position(|&(_, old)| deleted.get(old).is_some_and(|d| same_endpoint(d, &url)));
            match same {
                Some(v) => edits.push((vacant.swap_remove(v).0, url)),
                None => rest.push(url),
            }
        }
        vacant.sort_unstable_by_key(|&(at, _)| at);
        let mut rest = rest.into_iter();
        let mut open: Vec<usize> = Vec::new();
        for (at, _) in vacant {
            match rest.next() {
                Some(url) => edits.push((at, url)),
                None => open.push(at),
            }
        }
        let rest: Vec<Url> = rest.collect();
        if open.is_empty() && rest.is_empty() {
            self.publish_edits(edits);
            return out;
        }
        let mut urls = self.current.to_vec();
        for (at, url) in edits {
            if let Some(slot) = urls.get_mut(at) {
                *slot = url;
            }
        }
        // Highest first, so the entry moved in from the end is never itself vacant.
        for at in open.into_iter().rev() {
            urls.swap_remove(at);
        }
        urls.extend(rest);
        self.current = urls.into();
        self.spare = None;
        out
    }

    /// Publishes the current list with `edits` (positions and their new URLs), into the spare
    /// list when nobody else holds it.
    fn publish_edits(&mut self, edits: Vec<(usize, Url)>) {
        let positions: Vec<usize> = edits.iter().map(|&(at, _)| at).collect();
        let n = self.current.len();
        let reused = self.spare.take().and_then(|(mut list, stale)| {
            let slots = Arc::get_mut(&mut list).filter(|slots| slots.len() == n)?;
            for at in stale {
                if let (Some(slot), Some(url)) = (slots.get_mut(at), self.current.get(at)) {
                    *slot = url.clone();
                }
            }
            Some(list)
        });
        // Still held (a listener has not let go of it yet): copy.
        let mut next = reused.unwrap_or_else(|| Arc::from(self.current.to_vec()));
        if let Some(slots) = Arc::get_mut(&mut next) {
            for (at, url) in edits {
                if let Some(slot) = slots.get_mut(at) {
                    *slot = url;
                }
            }
        }
        let previous = std::mem::replace(&mut self.current, next);
        self.spare = Some((previous, positions));
    }

    /// The positions in the list of `deleted` (with each one's index into `deleted`); URLs not
    /// listed (not kept) have none.
    fn positions_of(&self, deleted: &[Url]) -> Vec<(usize, usize)> {
        if deleted.is_empty() {
            return Vec::new();
        }
        // Few deletions (the usual batch) are compared with every entry; many go through a
        // set of their allocations.
        let index: Option<HashMap<*const (), usize>> =
            (deleted.len() > LINEAR_DELETES).then(|| {
                deleted
                    .iter()
                    .enumerate()
                    .map(|(d, url)| (url.as_ptr(), d))
                    .collect()
            });
        let find = |url: &Url| match &index {
            Some(index) => index.get(&url.as_ptr()).copied(),
            None => deleted.iter().position(|d| Url::ptr_eq(d, url)),
        };
        let mut found = Vec::with_capacity(deleted.len());
        for (at, url) in self.current.iter().enumerate() {
            if let Some(d) = find(url) {
                found.push((at, d));
            }
        }
        found
    }
}

/// Whether `a` and `b` name the same provider endpoint: a restart of it re-registers under
/// a new name (new `timestamp`, `pid`) at the same protocol, address and path.
fn same_endpoint(a: &Url, b: &Url) -> bool {
    a.protocol() == b.protocol()
        && a.host() == b.host()
        && a.port() == b.port()
        && a.path() == b.path()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(port: u16, timestamp: u64) -> String {
        let url = format!(
            "dubbo://10.0.0.1:{port}/org.Echo?application=p&interface=org.Echo&side=provider&timestamp={timestamp}"
        );
        dubbo_url::encode(&url)
    }

    fn ports(listing: &ChildListing) -> Vec<u16> {
        listing.urls().iter().map(Url::port).collect()
    }

    fn listed(ports: &[u16]) -> (ChildListing, Vec<String>) {
        let names: Vec<String> = ports.iter().map(|&p| name(p, 1)).collect();
        let mut listing = ChildListing::new(ParsedUrlCache::new());
        let errors = listing.relist(names.iter().map(String::as_str), |_| true);
        assert!(errors.is_empty());
        (listing, names)
    }

    #[test]
    fn a_restarted_provider_takes_its_old_place_as_a_new_url() {
        let (mut listing, names) = listed(&[1, 2, 3, 4]);
        let before: Vec<Url> = listing.urls().to_vec();
        let new = name(2, 2);
        let change = listing.apply(
            [ChildChange::Deleted(&names[1]), ChildChange::Created(&new)],
            |_| true,
        );
        assert!(change.changed && change.errors.is_empty());
        assert_eq!(ports(&listing), [1, 2, 3, 4]);
        let after = listing.urls();
        assert!(Url::ptr_eq(&after[0], &before[0]));
        assert!(!Url::ptr_eq(&after[1], &before[1]));
        assert_eq!(after[1].parameter("timestamp"), Some("2"));
        assert!(Url::ptr_eq(&after[3], &before[3]));
        assert_eq!(listing.cache().len(), 4, "the old name is forgotten");
    }

    #[test]
    fn a_list_nobody_holds_is_written_into_again() {
        let (mut listing, names) = listed(&[1, 2, 3]);
        let first = listing.list();
        let made_at_listing = Arc::as_ptr(&listing.spare.as_ref().unwrap().0);
        let restart = |listing: &mut ChildListing, old: &str, port: u16, ts: u64| {
            let new = name(port, ts);
            listing.apply(
                [ChildChange::Deleted(old), ChildChange::Created(&new)],
                |_| true,
            );
            new
        };
        let b2 = restart(&mut listing, &names[1], 2, 2);
        let second = listing.list();
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(
            Arc::as_ptr(&second),
            made_at_listing,
            "the first change writes too"
        );
        drop(first);
        // The first list is free again: the next change is written into it.
        let first_ptr = Arc::as_ptr(&listing.spare.as_ref().unwrap().0);
        restart(&mut listing, &names[2], 3, 2);
        let third = listing.list();
        assert_eq!(Arc::as_ptr(&third), first_ptr);
        let timestamps: Vec<_> = third.iter().map(|u| u.parameter("timestamp")).collect();
        assert_eq!(timestamps, [Some("1"), Some("2"), Some("2")]);
        assert!(
            Url::ptr_eq(&third[1], &second[1]),
            "the restart before is carried over"
        );
        // The second list is still held here: the next change copies instead.
        restart(&mut listing, &b2, 2, 3);
        let fourth = listing.list();
        assert!(!Arc::ptr_eq(&fourth, &second));
        let timestamps: Vec<_> = fourth.iter().map(|u| u.parameter("timestamp")).collect();
        assert_eq!(timestamps, [Some("1"), Some("3"), Some("2")]);
        assert_eq!(
            second[1].parameter("timestamp"),
            Some("2"),
            "a held list never changes"
        );
        assert_eq!(third[1].parameter("timestamp"), Some("2"));
    }

    #[test]
    fn deletions_are_filled_from_the_end_and_additions_go_last() {
        let (mut listing, names) = listed(&[1, 2, 3, 4, 5]);
        listing.apply([ChildChange::Deleted(&names[1])], |_| true);
        assert_eq!(ports(&listing), [1, 5, 3, 4]);
        listing.apply(
            [
                ChildChange::Deleted(&names[3]),
                ChildChange::Deleted(&names[4]),
            ],
            |_| true,
        );
        assert_eq!(ports(&listing), [1, 3]);
        let six = name(6, 1);
        listing.apply([ChildChange::Created(&six)], |_| true);
        assert_eq!(ports(&listing), [1, 3, 6]);
        // A new provider fills a vacated place that no restart took.
        let seven = name(7, 1);
        listing.apply(
            [
                ChildChange::Deleted(&names[0]),
                ChildChange::Created(&seven),
            ],
            |_| true,
        );
        assert_eq!(ports(&listing), [7, 3, 6]);
    }

    #[test]
    fn repeated_unknown_and_transient_children_change_nothing() {
        let (mut listing, names) = listed(&[1, 2]);
        let gone = name(9, 1);
        let change = listing.apply(
            [
                ChildChange::Created(&names[0]),
                ChildChange::Deleted(&gone),
                ChildChange::Created(&gone),
                ChildChange::Deleted(&gone),
            ],
            |_| true,
        );
        assert!(!change.changed);
        assert_eq!(ports(&listing), [1, 2]);
        assert_eq!(listing.cache().len(), 2);
    }

    #[test]
    fn children_not_kept_are_remembered_but_not_listed() {
        let mut listing = ChildListing::new(ParsedUrlCache::new());
        let names = [name(1, 1), name(2, 1)];
        listing.relist(names.iter().map(String::as_str), |u| u.port() != 2);
        assert_eq!(ports(&listing), [1]);
        let change = listing.apply([ChildChange::Deleted(&names[1])], |u| u.port() != 2);
        assert!(!change.changed);
        assert_eq!(listing.cache().len(), 1);
    }

    #[test]
    fn a_bad_name_is_reported_and_the_rest_applies() {
        let (mut listing, _) = listed(&[1]);
        let good = name(2, 1);
        let change = listing.apply(
            [
                ChildChange::Created("dubbo%3A%2F%2Fh%3A1%2Fx%3Fa%3D%ZZ"),
                ChildChange::Created(&good),
            ],
            |_| true,
        );
        assert_eq!(change.errors.len(), 1);
        assert_eq!(ports(&listing), [1, 2]);
    }

    #[test]
    fn many_deletions_in_one_batch_find_their_places() {
        let all: Vec<u16> = (1..=40).collect();
        let (mut listing, names) = listed(&all);
        let changes: Vec<ChildChange<'_>> = names
            .iter()
            .step_by(2)
            .map(|n| ChildChange::Deleted(n))
            .collect();
        listing.apply(changes, |_| true);
        let mut left = ports(&listing);
        left.sort_unstable();
        assert_eq!(left, (1..=40).filter(|p| p % 2 == 0).collect::<Vec<u16>>());
    }
}
