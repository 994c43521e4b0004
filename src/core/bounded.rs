//! A map of request ids with a capacity: the oldest entry is forgotten first.
//!
//! For what the peer controls (its requests in flight), so memory stays flat whether or not
//! the host ever reports our responses.

use alloc::collections::VecDeque;

use super::id::RequestId;
use super::keys::{Hashed, Key, OwnedKey};

/// Insertion-ordered map, at most `capacity` entries, keyed as [`Key`]s: an id of up to 11
/// bytes (or an integer) is stored and looked up without an allocation.
///
/// # Invariants
/// 1. `map.len() <= capacity`.
/// 2. Every entry of `map` has exactly one entry in `order` with its sequence number;
///    `order` also holds stale entries (removed ids), at most `capacity + SLACK` in all.
#[derive(Debug)]
pub(crate) struct Bounded<V> {
    capacity: usize,
    map: Hashed<(u64, V)>,
    order: VecDeque<(OwnedKey, u64)>,
    next_seq: u64,
}

pub(crate) const SLACK: usize = 64;

impl<V> Bounded<V> {
    pub fn new(capacity: usize, seed: u64) -> Self {
        Self { capacity, map: Hashed::new(seed), order: VecDeque::new(), next_seq: 0 }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn contains(&self, key: Key<'_>) -> bool {
        self.map.contains(key)
    }

    pub fn get(&self, key: Key<'_>) -> Option<&V> {
        self.map.get(key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: Key<'_>) -> Option<&mut V> {
        self.map.get_mut(key).map(|(_, v)| v)
    }

    /// Every entry, in no order (each id made again: allocates a string's text).
    pub fn iter(&self) -> impl Iterator<Item = (RequestId, &V)> {
        self.map.iter().map(|(id, (_, v))| (id, v))
    }

    /// Inserts `key` (replacing an entry with the same key); returns the entry forgotten to
    /// make room, if any.
    pub fn insert(&mut self, key: Key<'_>, value: V) -> Option<(RequestId, V)> {
        if self.capacity == 0 {
            return Some((key.to_request_id(), value));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        // Replaces the value of an entry with this key: its old place in `order` goes stale.
        self.map.insert(key, (seq, value));
        self.order.push_back((key.to_owned(), seq));
        let evicted = if self.map.len() > self.capacity { self.pop_oldest() } else { None };
        if self.order.len() > self.capacity + SLACK {
            let map = &self.map;
            self.order.retain(|(key, seq)| map.get(key.as_key()).is_some_and(|(s, _)| s == seq));
        }
        evicted
    }

    pub fn remove(&mut self, key: Key<'_>) -> Option<V> {
        self.map.remove(key).map(|(_, v)| v)
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
        while let Some((key, seq)) = self.order.pop_front() {
            let key = key.as_key();
            if self.map.get(key).is_some_and(|(s, _)| *s == seq) {
                return self.map.remove(key).map(|(_, v)| (key.to_request_id(), v));
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
        assert!(m.insert(Key::of(&RequestId::Number(1)), 'a').is_none());
        assert!(m.insert(Key::of(&RequestId::from("req-2")), 'b').is_none());
        assert_eq!(m.insert(Key::of(&RequestId::from("a-long-request-id")), 'c'), Some((RequestId::Number(1), 'a')));
        assert_eq!(m.insert(Key::of(&RequestId::Number(4)), 'd'), Some((RequestId::from("req-2"), 'b')));
        assert_eq!(m.get(Key::of(&RequestId::from("a-long-request-id"))), Some(&'c'));
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn removed_entries_do_not_grow_the_order_queue() {
        let mut m = Bounded::new(4, 0);
        for i in 0..10_000 {
            m.insert(Key::of(&RequestId::Number(i)), ());
            m.remove(Key::of(&RequestId::Number(i)));
        }
        assert!(m.order.len() <= 4 + SLACK);
    }
}
