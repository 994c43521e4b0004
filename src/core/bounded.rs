//! A map of request ids with a capacity: the oldest entry is forgotten first.
//!
//! For what the peer controls (its requests in flight), so memory stays flat whether or not
//! the host ever reports our responses.

use std::collections::VecDeque;

use super::id::RequestId;
use super::IdMap;

/// Insertion-ordered map, at most `capacity` entries.
///
/// # Invariants
/// 1. `map.len() <= capacity`.
/// 2. Every entry of `map` has exactly one entry in `order` with its sequence number;
///    `order` also holds stale entries (removed ids), at most `capacity + SLACK` in all.
#[derive(Debug)]
pub(crate) struct Bounded<V> {
    capacity: usize,
    map: IdMap<(u64, V)>,
    order: VecDeque<(RequestId, u64)>,
    next_seq: u64,
}

pub(crate) const SLACK: usize = 64;

impl<V> Bounded<V> {
    pub fn new(capacity: usize, seed: u64) -> Self {
        Self { capacity, map: super::seeded(seed), order: VecDeque::new(), next_seq: 0 }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn contains_key(&self, id: &RequestId) -> bool {
        self.map.contains_key(id)
    }

    pub fn get(&self, id: &RequestId) -> Option<&V> {
        self.map.get(id).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, id: &RequestId) -> Option<&mut V> {
        self.map.get_mut(id).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&RequestId, &V)> {
        self.map.iter().map(|(id, (_, v))| (id, v))
    }

    /// Inserts `id` (replacing an entry with the same id); returns the entry forgotten to
    /// make room, if any.
    pub fn insert(&mut self, id: RequestId, value: V) -> Option<(RequestId, V)> {
        if self.capacity == 0 {
            return Some((id, value));
        }
        self.map.remove(&id);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.map.insert(id.clone(), (seq, value));
        self.order.push_back((id, seq));
        let evicted = if self.map.len() > self.capacity { self.pop_oldest() } else { None };
        if self.order.len() > self.capacity + SLACK {
            let map = &self.map;
            self.order.retain(|(id, seq)| map.get(id).is_some_and(|(s, _)| s == seq));
        }
        evicted
    }

    pub fn remove(&mut self, id: &RequestId) -> Option<V> {
        self.map.remove(id).map(|(_, v)| v)
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
    }

    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn order_len(&self) -> usize {
        self.order.len()
    }

    fn pop_oldest(&mut self) -> Option<(RequestId, V)> {
        while let Some((id, seq)) = self.order.pop_front() {
            if self.map.get(&id).is_some_and(|(s, _)| *s == seq) {
                return self.map.remove(&id).map(|(_, v)| (id, v));
            }
        }
        None
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_entry_is_forgotten_first() {
        let mut m = Bounded::new(2, 0);
        assert!(m.insert(RequestId::Number(1), 'a').is_none());
        assert!(m.insert(RequestId::Number(2), 'b').is_none());
        assert_eq!(m.insert(RequestId::Number(3), 'c'), Some((RequestId::Number(1), 'a')));
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn removed_entries_do_not_grow_the_order_queue() {
        let mut m = Bounded::new(4, 0);
        for i in 0..10_000 {
            m.insert(RequestId::Number(i), ());
            m.remove(&RequestId::Number(i));
        }
        assert!(m.order.len() <= 4 + SLACK);
    }
}
