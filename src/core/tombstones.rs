//! Bounded memory of requests we cancelled, so their late messages can be told apart
//! from messages for ids we never sent.

use super::bounded::Bounded;
use super::id::{ProgressToken, RequestId};
use super::keys::Key;

/// What is remembered of a cancelled request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tombstone {
    pub method: super::method::Name,
    pub progress_token: Option<ProgressToken>,
}

/// First-in, first-out set of tombstones, at most `capacity` of them ([`Bounded`]), with
/// the progress tokens they carry.
///
/// # Invariants
/// 1. At most `capacity` tombstones (the [`Bounded`] invariants).
/// 2. `late_progress` maps a token to an id iff that id's tombstone carries the token.
#[derive(Debug)]
pub(crate) struct Tombstones {
    cancelled: Bounded<Tombstone>,
    late_progress: super::IdMap<RequestId>,
}

impl Tombstones {
    pub fn new(capacity: usize, seed: u64) -> Self {
        Self { cancelled: Bounded::new(capacity, seed), late_progress: super::seeded(seed) }
    }

    pub fn len(&self) -> usize {
        self.cancelled.len()
    }

    pub fn contains(&self, id: &RequestId) -> bool {
        self.cancelled.contains(Key::of(id))
    }

    /// [`Self::contains`] by key (nothing allocated).
    pub fn contains_key(&self, key: Key<'_>) -> bool {
        self.cancelled.contains(key)
    }

    pub fn method(&self, id: &RequestId) -> Option<&str> {
        self.cancelled.get(Key::of(id)).map(|t| &*t.method)
    }

    /// Remembers `id`, forgetting the oldest tombstone when full.
    pub fn insert(&mut self, id: &RequestId, tombstone: Tombstone) {
        self.insert_key(Key::of(id), tombstone);
    }

    /// [`Self::insert`] by key (nothing allocated for a packed key without a progress token).
    pub fn insert_key(&mut self, key: Key<'_>, tombstone: Tombstone) {
        self.remove_key(key);
        if let Some(token) = &tombstone.progress_token {
            self.late_progress.insert(token.clone(), key.to_request_id());
        }
        if let Some((old, evicted)) = self.cancelled.insert(key, tombstone) {
            self.forget_token(&old, &evicted);
        }
    }

    /// Forgets `id` (its late response arrived, or the id is used again).
    pub fn remove(&mut self, id: &RequestId) -> Option<Tombstone> {
        self.remove_key(Key::of(id))
    }

    /// [`Self::remove`] by key (nothing allocated unless the tombstone has a progress token).
    pub fn remove_key(&mut self, key: Key<'_>) -> Option<Tombstone> {
        let tombstone = self.cancelled.remove(key)?;
        if tombstone.progress_token.is_some() {
            self.forget_token(&key.to_request_id(), &tombstone);
        }
        Some(tombstone)
    }

    /// The cancelled request a late progress token belongs to.
    pub fn by_progress_token(&self, token: &ProgressToken) -> Option<(&RequestId, &str)> {
        let id = self.late_progress.get(token)?;
        self.cancelled.get(Key::of(id)).map(|t| (id, &*t.method))
    }

    pub fn clear(&mut self) {
        self.cancelled.clear();
        self.late_progress.clear();
    }

    fn forget_token(&mut self, id: &RequestId, tombstone: &Tombstone) {
        if let Some(token) = &tombstone.progress_token {
            if self.late_progress.get(token) == Some(id) {
                self.late_progress.remove(token);
            }
        }
    }

    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn order_len(&self) -> usize {
        self.cancelled.order_len()
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn t(token: Option<i64>) -> Tombstone {
        Tombstone { method: "tools/call".into(), progress_token: token.map(RequestId::Number) }
    }

    #[test]
    fn oldest_tombstone_is_evicted_first() {
        let mut ts = Tombstones::new(2, 0);
        ts.insert(&RequestId::Number(1), t(Some(101)));
        ts.insert(&RequestId::Number(2), t(None));
        ts.insert(&RequestId::Number(3), t(None));
        assert!(!ts.contains(&RequestId::Number(1)));
        assert!(ts.by_progress_token(&RequestId::Number(101)).is_none());
        assert!(ts.contains(&RequestId::Number(2)) && ts.contains(&RequestId::Number(3)));
    }

    #[test]
    fn zero_capacity_remembers_nothing() {
        let mut ts = Tombstones::new(0, 0);
        ts.insert(&RequestId::Number(1), t(None));
        assert_eq!(ts.len(), 0);
    }

    #[test]
    fn removed_entries_do_not_grow_the_order_queue_without_bound() {
        let mut ts = Tombstones::new(8, 0);
        for i in 0..100_000 {
            ts.insert(&RequestId::Number(i), t(Some(i)));
            ts.remove(&RequestId::Number(i));
        }
        assert_eq!(ts.len(), 0);
        assert!(ts.order_len() <= 8 + crate::core::bounded::SLACK);
        assert!(ts.late_progress.is_empty());
    }

    #[test]
    fn reinserting_an_id_keeps_one_live_entry() {
        let mut ts = Tombstones::new(2, 0);
        ts.insert(&RequestId::Number(1), t(None));
        ts.insert(&RequestId::Number(1), t(None));
        ts.insert(&RequestId::Number(2), t(None));
        assert_eq!(ts.len(), 2);
        ts.insert(&RequestId::Number(3), t(None));
        assert!(!ts.contains(&RequestId::Number(1)));
        assert_eq!(ts.len(), 2);
    }
}
