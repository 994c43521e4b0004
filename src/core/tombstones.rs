//! Bounded memory of requests we cancelled, so their late messages can be told apart
//! from messages for ids we never sent.

use std::collections::VecDeque;

use super::id::{ProgressToken, RequestId};

/// What is remembered of a cancelled request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tombstone {
    pub method: super::message::Name,
    pub progress_token: Option<ProgressToken>,
}

/// First-in, first-out set of tombstones, at most `capacity` of them.
///
/// # Invariants
/// 1. `map.len() <= capacity`.
/// 2. Every entry of `map` has exactly one entry in `order` with the same sequence number;
///    `order` may also hold stale entries (removed or replaced ids), at most
///    `capacity + COMPACT_SLACK` entries in all.
/// 3. `late_progress` maps a token to an id iff that id's tombstone carries the token.
#[derive(Debug)]
pub(crate) struct Tombstones {
    capacity: usize,
    map: super::IdMap<(u64, Tombstone)>,
    order: VecDeque<(RequestId, u64)>,
    late_progress: super::IdMap<RequestId>,
    next_seq: u64,
}

const COMPACT_SLACK: usize = 64;

impl Tombstones {
    pub fn new(capacity: usize, seed: u64) -> Self {
        let (map, late_progress) = (super::seeded(seed), super::seeded(seed));
        Self { capacity, map, order: VecDeque::new(), late_progress, next_seq: 0 }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn contains(&self, id: &RequestId) -> bool {
        self.map.contains_key(id)
    }

    pub fn method(&self, id: &RequestId) -> Option<&str> {
        self.map.get(id).map(|(_, t)| &*t.method)
    }

    /// Remembers `id`, evicting the oldest tombstone when full.
    pub fn insert(&mut self, id: RequestId, tombstone: Tombstone) {
        if self.capacity == 0 {
            return;
        }
        self.remove(&id);
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(token) = &tombstone.progress_token {
            self.late_progress.insert(token.clone(), id.clone());
        }
        self.map.insert(id.clone(), (seq, tombstone));
        self.order.push_back((id, seq));
        while self.map.len() > self.capacity {
            self.evict_oldest();
        }
        if self.order.len() > self.capacity + COMPACT_SLACK {
            let map = &self.map;
            self.order.retain(|(id, seq)| map.get(id).is_some_and(|(s, _)| s == seq));
        }
    }

    /// Forgets `id` (its late response arrived, or the id is used again).
    pub fn remove(&mut self, id: &RequestId) -> Option<Tombstone> {
        let (_, tombstone) = self.map.remove(id)?;
        if let Some(token) = &tombstone.progress_token {
            if self.late_progress.get(token) == Some(id) {
                self.late_progress.remove(token);
            }
        }
        Some(tombstone)
    }

    /// The cancelled request a late progress token belongs to.
    pub fn by_progress_token(&self, token: &ProgressToken) -> Option<(&RequestId, &str)> {
        let id = self.late_progress.get(token)?;
        self.map.get(id).map(|(_, t)| (id, &*t.method))
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
        self.late_progress.clear();
    }

    fn evict_oldest(&mut self) {
        while let Some((id, seq)) = self.order.pop_front() {
            if self.map.get(&id).is_some_and(|(s, _)| *s == seq) {
                self.remove(&id);
                return;
            }
        }
    }

    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn order_len(&self) -> usize {
        self.order.len()
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
        ts.insert(RequestId::Number(1), t(Some(101)));
        ts.insert(RequestId::Number(2), t(None));
        ts.insert(RequestId::Number(3), t(None));
        assert!(!ts.contains(&RequestId::Number(1)));
        assert!(ts.by_progress_token(&RequestId::Number(101)).is_none());
        assert!(ts.contains(&RequestId::Number(2)) && ts.contains(&RequestId::Number(3)));
    }

    #[test]
    fn zero_capacity_remembers_nothing() {
        let mut ts = Tombstones::new(0, 0);
        ts.insert(RequestId::Number(1), t(None));
        assert_eq!(ts.len(), 0);
    }

    #[test]
    fn removed_entries_do_not_grow_the_order_queue_without_bound() {
        let mut ts = Tombstones::new(8, 0);
        for i in 0..100_000 {
            ts.insert(RequestId::Number(i), t(Some(i)));
            ts.remove(&RequestId::Number(i));
        }
        assert_eq!(ts.len(), 0);
        assert!(ts.order_len() <= 8 + COMPACT_SLACK);
        assert!(ts.late_progress.is_empty());
    }

    #[test]
    fn reinserting_an_id_keeps_one_live_entry() {
        let mut ts = Tombstones::new(2, 0);
        ts.insert(RequestId::Number(1), t(None));
        ts.insert(RequestId::Number(1), t(None));
        ts.insert(RequestId::Number(2), t(None));
        assert_eq!(ts.len(), 2);
        ts.insert(RequestId::Number(3), t(None));
        assert!(!ts.contains(&RequestId::Number(1)));
        assert_eq!(ts.len(), 2);
    }
}
