//! [`Slots`]: everything the session keeps by id, in one table — our requests that are not
//! in the window of counter ids, tombstones, the peer's requests and the ones it cancelled,
//! progress tokens, tasks — as slots of one slab, found through one index (issue #24, size:
//! one copy of the hash table's code for every kind of id and record, where each map of its
//! own was one more copy).
//!
//! A slot is 28 bytes in wasm: its key (an id packed into 12 bytes, or a longer string's
//! text), the namespace it is in ([`Ns`]), a method code, flags, and two numbers whose
//! meaning the namespace gives (`link`, `extra`). The index holds slot numbers only (4 bytes
//! and a control byte per entry); a probe compares the namespace and the key of the slot.
//! What a record has beyond that (a method's name the method table does not know, a task id,
//! a progress token, a timer) is an `Extra` (`requests`), in a slab of its own,
//! by `extra`.
//!
//! [`Fifo`]: the order in which the entries of a bounded namespace were put in (tombstones,
//! the peer's requests, the peer's cancelled requests), for forgetting the oldest first.
//!
//! Slot numbers are this module's: a caller holds one only while the slot is in the
//! namespace it found it in. A number that is not a slot's (a bug) reads a free slot and
//! writes to a spare one: nothing traps.

use crate::prelude::*;
use alloc::collections::VecDeque;
use core::hash::{BuildHasher, Hasher};

use foldhash::fast::FixedState;

use super::keys::{Key, OwnedKey};

/// No slot (a `link` or an `extra` that points nowhere).
pub(crate) const NONE: u32 = u32::MAX;

/// What a slot holds. Each namespace is a map of its own: the same id may be in several.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Ns {
    /// A free slot (on the free list).
    Free,
    /// Our request in flight that is not in the window. `extra`: its extra or [`NONE`].
    Outbound,
    /// Our cancelled request, whose late messages are dropped. `link`: its stamp in the
    /// tombstones' [`Fifo`]; `extra`: its extra (a method's name, a progress token) or [`NONE`].
    Tombstone,
    /// The peer's request in flight. `link`: its stamp; `extra`: a method's name or [`NONE`].
    Inbound,
    /// The peer's request it cancelled, until our response to it. `link`: its stamp; `extra`
    /// as [`Ns::Inbound`].
    PeerCancelled,
    /// A progress token of our request in flight. `link`: the request's slot.
    Token,
    /// A progress token of a tombstone (its late progress is dropped). `link`: the tombstone's slot.
    DeadToken,
    /// A task of ours (by task id). `link`: its [`Ns::TaskOf`] slot, or [`NONE`] when its
    /// request id names another request now; `extra`: a method's name or [`NONE`].
    Task,
    /// The task of our request (by request id). `link`: the task's slot.
    TaskOf,
}

const NAMESPACES: usize = 9;

/// One record of the table.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) key: OwnedKey,
    pub(crate) ns: Ns,
    /// A [`Method`](super::Method) code (1..), or 0: another method (its name in the extra) or none.
    pub(crate) method: u8,
    /// The namespace's flags (`requests`).
    pub(crate) flags: u16,
    pub(crate) link: u32,
    pub(crate) extra: u32,
}

/// The slab and its index.
#[derive(Debug)]
pub(crate) struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
    index: hashbrown::HashTable<u32>,
    counts: [u32; NAMESPACES],
    hasher: FixedState,
    /// What [`Self::slot_mut`] gives for a number that is no slot's.
    spare: Slot,
}

/// A free slot.
const FREE: Slot = Slot {
    key: OwnedKey::Packed(super::keys::Packed::ZERO),
    ns: Ns::Free,
    method: 0,
    flags: 0,
    link: NONE,
    extra: NONE,
};

/// The hash of `key` in namespace `ns` (foldhash, seeded per session: see `core::IdMap` for
/// the flooding trade-off, which is this table's).
#[inline]
fn hash(hasher: &FixedState, ns: Ns, key: Key<'_>) -> u64 {
    match key {
        // One write of 128 bits (the packed key takes 96, the namespace goes above them):
        // one multiply, as for a map of packed keys alone.
        Key::Packed(p) => {
            let mut h = hasher.build_hasher();
            h.write_u128(p.get() | (ns as u128) << 120);
            h.finish()
        }
        Key::Text(text) => hash_text(hasher, ns, text),
    }
}

/// [`hash`] of a string longer than a packed key: 8 bytes per write (foldhash's own `write`
/// of a byte string is ~1.5 KB of wasm, for ids that are rare).
#[inline(never)]
fn hash_text(hasher: &FixedState, ns: Ns, text: &str) -> u64 {
    let mut h = hasher.build_hasher();
    h.write_u64(ns as u64 | (text.len() as u64) << 8);
    for chunk in text.as_bytes().chunks(8) {
        let mut word = [0u8; 8];
        if let Some(w) = word.get_mut(..chunk.len()) {
            w.copy_from_slice(chunk);
        }
        h.write_u64(u64::from_le_bytes(word));
    }
    h.finish()
}

impl Slots {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            index: hashbrown::HashTable::new(),
            counts: [0; NAMESPACES],
            hasher: FixedState::with_seed(seed),
            spare: FREE,
        }
    }

    /// How many slots namespace `ns` holds.
    #[inline]
    pub(crate) fn count(&self, ns: Ns) -> usize {
        self.counts.get(ns as usize).map_or(0, |&c| c as usize)
    }

    fn add_count(&mut self, ns: Ns, by: i32) {
        if let Some(c) = self.counts.get_mut(ns as usize) {
            *c = c.wrapping_add_signed(by);
        }
    }

    /// The hash of `key` in `ns`, for a table beside this one with the same hasher.
    #[inline]
    pub(crate) fn hash_of(&self, ns: Ns, key: Key<'_>) -> u64 {
        hash(&self.hasher, ns, key)
    }

    /// The slot of `key` in `ns`.
    #[inline]
    pub(crate) fn find(&self, ns: Ns, key: Key<'_>) -> Option<u32> {
        if self.count(ns) == 0 {
            return None;
        }
        self.find_in_index(ns, key)
    }

    /// [`Self::find`] in a namespace with keys: the probe, written once (not inlined into
    /// its ~20 callers: issue #24, size).
    #[inline(never)]
    fn find_in_index(&self, ns: Ns, key: Key<'_>) -> Option<u32> {
        let slots = &self.slots;
        let found = self.index.find(hash(&self.hasher, ns, key), |&s| {
            slots.get(s as usize).is_some_and(|slot| slot.ns == ns && slot.key.as_key() == key)
        });
        found.copied()
    }

    #[inline]
    pub(crate) fn contains(&self, ns: Ns, key: Key<'_>) -> bool {
        self.count(ns) > 0 && self.find(ns, key).is_some()
    }

    #[inline]
    pub(crate) fn slot(&self, s: u32) -> &Slot {
        self.slots.get(s as usize).unwrap_or(&FREE)
    }

    #[inline]
    pub(crate) fn slot_mut(&mut self, s: u32) -> &mut Slot {
        match self.slots.get_mut(s as usize) {
            Some(slot) => slot,
            None => &mut self.spare,
        }
    }

    /// Puts `key` in `ns` (it must not be there): its slot.
    pub(crate) fn insert(&mut self, ns: Ns, key: Key<'_>, method: u8, flags: u16, extra: u32) -> u32 {
        let slot = Slot { key: key.to_owned(), ns, method, flags, link: NONE, extra };
        let s = match self.free.pop() {
            Some(s) => {
                *self.slot_mut(s) = slot;
                s
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.add_count(ns, 1);
        self.link_index(s);
        s
    }

    /// Puts `key` in `ns` unless it is there: its slot, or `Err` with the slot that holds it.
    /// One probe of the index (written once, not inlined into its callers: issue #24, size).
    #[inline(never)]
    pub(crate) fn insert_new(&mut self, ns: Ns, key: Key<'_>, method: u8, flags: u16) -> Result<u32, u32> {
        let (slots, hasher) = (&self.slots, &self.hasher);
        let h = hash(hasher, ns, key);
        let entry = self.index.entry(
            h,
            |&s| slots.get(s as usize).is_some_and(|slot| slot.ns == ns && slot.key.as_key() == key),
            |&x| slots.get(x as usize).map_or(0, |slot| hash(hasher, slot.ns, slot.key.as_key())),
        );
        let vacant = match entry {
            hashbrown::hash_table::Entry::Occupied(held) => return Err(*held.get()),
            hashbrown::hash_table::Entry::Vacant(vacant) => vacant,
        };
        let slot = Slot { key: key.to_owned(), ns, method, flags, link: NONE, extra: NONE };
        let s = match self.free.pop() {
            Some(s) => {
                if let Some(free) = self.slots.get_mut(s as usize) {
                    *free = slot;
                }
                s
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        vacant.insert(s);
        self.add_count(ns, 1);
        Ok(s)
    }

    /// Takes the slot of `key` in `ns` out when `take` accepts it (see [`Self::remove`]).
    /// One probe of the index (not inlined into its callers: issue #24, size).
    #[inline(never)]
    pub(crate) fn remove_if(&mut self, ns: Ns, key: Key<'_>, take: impl FnOnce(&Slot) -> bool) -> Option<Slot> {
        if self.count(ns) == 0 {
            return None;
        }
        let slots = &self.slots;
        let h = hash(&self.hasher, ns, key);
        let entry = self
            .index
            .find_entry(h, |&s| slots.get(s as usize).is_some_and(|slot| slot.ns == ns && slot.key.as_key() == key))
            .ok()?;
        let s = *entry.get();
        if !take(self.slots.get(s as usize)?) {
            return None;
        }
        entry.remove();
        self.add_count(ns, -1);
        self.free.push(s);
        Some(::core::mem::replace(self.slot_mut(s), FREE))
    }

    /// Takes slot `s` out of its namespace: its key, method, flags and extra (the slot is free).
    pub(crate) fn remove(&mut self, s: u32) -> Slot {
        let Some(slot) = self.slots.get(s as usize).filter(|slot| slot.ns != Ns::Free) else { return FREE };
        let ns = slot.ns;
        self.unlink_index(s);
        self.add_count(ns, -1);
        self.free.push(s);
        ::core::mem::replace(self.slot_mut(s), FREE)
    }

    /// Moves slot `s` to namespace `ns` (same key; `ns` must not hold it).
    pub(crate) fn rename(&mut self, s: u32, ns: Ns) {
        let old = self.slot(s).ns;
        if old == Ns::Free {
            return;
        }
        self.unlink_index(s);
        self.add_count(old, -1);
        self.add_count(ns, 1);
        self.slot_mut(s).ns = ns;
        self.link_index(s);
    }

    /// The slots of namespace `ns`, in slab order.
    pub(crate) fn iter(&self, ns: Ns) -> impl Iterator<Item = (u32, &Slot)> {
        let any = self.count(ns) > 0;
        self.slots.iter().enumerate().filter(move |(_, slot)| any && slot.ns == ns).map(|(s, slot)| (s as u32, slot))
    }

    /// Empties the table.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.free.clear();
        self.index.clear();
        self.counts = [0; NAMESPACES];
    }

    fn link_index(&mut self, s: u32) {
        let (slots, hasher) = (&self.slots, &self.hasher);
        let rehash = |x: u32| slots.get(x as usize).map_or(0, |slot| hash(hasher, slot.ns, slot.key.as_key()));
        self.index.insert_unique(rehash(s), s, |&x| rehash(x));
    }

    fn unlink_index(&mut self, s: u32) {
        let slot = self.slot(s);
        let h = hash(&self.hasher, slot.ns, slot.key.as_key());
        if let Ok(entry) = self.index.find_entry(h, |&x| x == s) {
            entry.remove();
        }
    }
}

/// The order of a bounded namespace: `(slot, stamp)` pairs, oldest first; a slot's `link` is
/// its stamp while it is in the namespace, so a pair whose slot has moved on is stale and
/// skipped. At most `capacity` + [`SLACK`] pairs are kept (stale ones are dropped past that).
#[derive(Debug)]
pub(crate) struct Fifo {
    capacity: usize,
    order: VecDeque<(u32, u32)>,
    next: u32,
}

/// How many stale pairs a [`Fifo`] keeps before it drops them.
pub(crate) const SLACK: usize = 64;

impl Fifo {
    pub(crate) fn new(capacity: usize) -> Self {
        Self { capacity, order: VecDeque::new(), next: 0 }
    }

    /// Records slot `s` (just put in `ns`) as the newest, and stamps it; returns the oldest
    /// slot of `ns` when `ns` now holds more than the capacity (the caller removes it).
    pub(crate) fn push(&mut self, slots: &mut Slots, ns: Ns, s: u32) -> Option<u32> {
        let stamp = self.next;
        self.next = self.next.wrapping_add(1);
        slots.slot_mut(s).link = stamp;
        self.order.push_back((s, stamp));
        let oldest = if slots.count(ns) > self.capacity { self.pop_oldest(slots, ns) } else { None };
        if self.order.len() > self.capacity + SLACK {
            self.order.retain(|&(s, stamp)| is_live(slots, ns, s, stamp));
        }
        oldest
    }

    fn pop_oldest(&mut self, slots: &Slots, ns: Ns) -> Option<u32> {
        while let Some((s, stamp)) = self.order.pop_front() {
            if is_live(slots, ns, s, stamp) {
                return Some(s);
            }
        }
        None
    }

    pub(crate) fn clear(&mut self) {
        self.order.clear();
    }

    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }
}

fn is_live(slots: &Slots, ns: Ns, s: u32, stamp: u32) -> bool {
    let slot = slots.slot(s);
    slot.ns == ns && slot.link == stamp
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::core::keys::number_key;

    #[test]
    fn the_oldest_entry_is_forgotten_first_and_stale_pairs_do_not_pile_up() {
        let mut slots = Slots::new(0);
        let mut fifo = Fifo::new(2);
        let put = |slots: &mut Slots, fifo: &mut Fifo, n: i64| {
            let s = slots.insert(Ns::Inbound, number_key(n), 0, 0, NONE);
            fifo.push(slots, Ns::Inbound, s).map(|old| slots.remove(old).key)
        };
        assert_eq!(put(&mut slots, &mut fifo, 1), None);
        assert_eq!(put(&mut slots, &mut fifo, 2), None);
        assert_eq!(put(&mut slots, &mut fifo, 3), Some(number_key(1).to_owned()));
        // Entries removed by their id leave stale pairs, dropped past the slack.
        for n in 10..10 + 10 * SLACK as i64 {
            let evicted = put(&mut slots, &mut fifo, n);
            assert_eq!(evicted, (n == 10).then(|| number_key(2).to_owned()));
            let s = slots.find(Ns::Inbound, number_key(n)).unwrap_or(NONE);
            slots.remove(s);
        }
        assert!(fifo.len() <= 2 + SLACK);
        assert_eq!(slots.count(Ns::Inbound), 1, "3 stays");
    }

    #[test]
    fn zero_capacity_keeps_nothing() {
        let mut slots = Slots::new(0);
        let mut fifo = Fifo::new(0);
        let s = slots.insert(Ns::Tombstone, number_key(1), 0, 0, NONE);
        assert_eq!(fifo.push(&mut slots, Ns::Tombstone, s), Some(s));
    }

    #[test]
    fn a_namespace_is_a_map_of_its_own() {
        let mut slots = Slots::new(3);
        let a = slots.insert(Ns::Outbound, number_key(5), 1, 0, NONE);
        let b = slots.insert(Ns::Tombstone, number_key(5), 2, 0, NONE);
        assert_ne!(a, b);
        assert_eq!(slots.find(Ns::Outbound, number_key(5)), Some(a));
        assert_eq!(slots.find(Ns::Tombstone, number_key(5)), Some(b));
        assert_eq!(slots.find(Ns::Inbound, number_key(5)), None);
        slots.remove(a);
        slots.rename(b, Ns::Outbound);
        assert_eq!(slots.find(Ns::Outbound, number_key(5)), Some(b));
        assert_eq!(slots.count(Ns::Tombstone), 0);
        // A freed slot is taken again.
        assert_eq!(slots.insert(Ns::Inbound, number_key(6), 0, 0, NONE), a);
    }
}
