//! [`Slots`]: everything the session keeps by id, in one table — our requests that are not
//! in the window of counter ids, tombstones, the peer's requests and the ones it cancelled,
//! progress tokens, tasks — as slots of one slab, found through one index (for the `.wasm`'s
//! size: one copy of the hash table's code for every kind of id and record, where each map of
//! its own would be one more copy).
//!
//! A slot is 28 bytes in wasm: its key (an id packed into 12 bytes, or a longer string's
//! text), the namespace it is in ([`Ns`]), a method code, flags, and two numbers whose
//! meaning the namespace gives (`link`, `extra`). An entry of the index is 16 bytes and a
//! control byte: the packed key (of a text key, its hash), the namespace, and the slot — or,
//! for a record that is a method code and flags only (our plain requests out of the window),
//! the record itself, with no slot ([`Found::Inline`]). So a probe compares keys in the index
//! and reads no slot for a packed key, and the hot path of string ids is one probe (bench
//! scenario 1b: as fast as a table of its own for those requests, without a second copy of
//! the table's code). What a record has beyond that (a method's name the method table does not
//! know, a task id, a progress token, a timer) is an `Extra` (`requests`), in a slab of its
//! own, by `extra`.
//!
//! [`Fifo`]: the order in which the entries of a bounded namespace were put in (tombstones,
//! the peer's requests, the peer's cancelled requests), for forgetting the oldest first.
//!
//! Slot numbers are this module's (below 2^27, which 28-byte slots in a 4 GiB memory never
//! reach: an index entry keeps the namespace and the inline flag above them): a caller holds
//! one only while the slot is in the namespace it found it in. A number that is not a slot's
//! (a bug) reads a free slot and writes to a spare one: nothing traps.

use crate::prelude::*;
use alloc::collections::VecDeque;
use core::hash::{BuildHasher, Hasher};

use foldhash::fast::FixedState;

use super::keys::{Key, OwnedKey, Packed};

/// No slot (a `link` or an `extra` that points nowhere).
pub(crate) const NONE: u32 = u32::MAX;

/// What a slot holds. Each namespace is a map of its own: the same id may be in several.
/// They come in pairs (`2k` and `2k + 1`) that hash alike ([`hash_class`]) — a record and
/// what it becomes when it ends (our request and its tombstone, the peer's request and its
/// cancelled one, a progress token and a dead one), and a task by its id and by its request
/// — so that a slot moves to the other of its pair by changing its index entry in place
/// ([`Slots::rename`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Ns {
    /// Our request in flight that is not in the window. `extra`: its extra or [`NONE`].
    Outbound = 0,
    /// Our cancelled request, whose late messages are dropped. `link`: its stamp in the
    /// tombstones' [`Fifo`]; `extra`: its extra (a method's name, a progress token) or [`NONE`].
    Tombstone = 1,
    /// The peer's request in flight. `link`: its stamp; `extra`: a method's name or [`NONE`].
    Inbound = 2,
    /// The peer's request it cancelled, until our response to it. `link`: its stamp; `extra`
    /// as [`Ns::Inbound`].
    PeerCancelled = 3,
    /// A progress token of our request in flight. `link`: the request's slot.
    Token = 4,
    /// A progress token of a tombstone (its late progress is dropped). `link`: the tombstone's slot.
    DeadToken = 5,
    /// A task of ours (by task id). `link`: its [`Ns::TaskOf`] slot, or [`NONE`] when its
    /// request id names another request now; `extra`: a method's name or [`NONE`].
    Task = 6,
    /// The task of our request (by request id). `link`: the task's slot.
    TaskOf = 7,
    /// A free slot (on the free list; never in the index).
    Free = 8,
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

/// What the index finds for a key: a slot, or a record kept in the index itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    Slot(u32),
    /// A record with a packed key and nothing but a method code and flags (our plain
    /// requests out of the window: [`Slots::insert_new`] with `inline`).
    Inline {
        method: u8,
        flags: u16,
    },
}

/// An entry of the index (16 bytes in wasm): a key, its namespace, and the slot it is in or
/// the record itself. A packed key is compared here, with no slot to read through (bench
/// scenario 1b with string ids: as fast as a table of its own for our plain requests).
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The packed key; of a text key, [`TEXT`] and the key's hash (the text is the slot's).
    key: Packed,
    /// `ns << NS_SHIFT`, then [`INLINE`] with `method << 16 | flags`, or the slot.
    v: u32,
}

const NS_SHIFT: u32 = 28;
/// An [`Entry`] whose record is in the index.
const INLINE: u32 = 1 << 27;
/// The slot of an [`Entry`] (or its inline record).
const PAYLOAD: u32 = INLINE - 1;
/// The third word of the [`Entry::key`] of a text key, the hash in the first two (a packed
/// key's high byte is its length, at most 11, or 0xff for an integer).
const TEXT: u32 = 0xfe00_0000;

impl Entry {
    #[inline]
    fn ns(self) -> u32 {
        self.v >> NS_SHIFT
    }

    #[inline]
    fn found(self) -> Found {
        if self.v & INLINE == 0 {
            Found::Slot(self.v & PAYLOAD)
        } else {
            Found::Inline { method: (self.v >> 16) as u8, flags: self.v as u16 }
        }
    }
}

/// The [`Entry::key`] of `key` with hash `h`.
#[inline]
fn entry_key(key: Key<'_>, h: u64) -> Packed {
    match key {
        Key::Packed(p) => p,
        Key::Text(_) => Packed::new([h as u32, (h >> 32) as u32, TEXT]),
    }
}

/// The slab and its index.
#[derive(Debug)]
pub(crate) struct Slots {
    slots: Vec<Slot>,
    /// The first free slot ([`NONE`]: none); a free slot's `link` is the next.
    free: u32,
    index: hashbrown::HashTable<Entry>,
    counts: [u32; NAMESPACES],
    hasher: FixedState,
    /// What [`Self::slot_mut`] gives for a number that is no slot's.
    spare: Slot,
}

/// A free slot.
const FREE: Slot =
    Slot { key: OwnedKey::Packed(Packed::ZERO), ns: Ns::Free, method: 0, flags: 0, link: NONE, extra: NONE };

/// Puts `slot` (not in the index yet) in the first free slot of `slots` (`free`, the free
/// list's head), or a new one: its number.
#[inline]
fn put(slots: &mut Vec<Slot>, free: &mut u32, slot: Slot) -> u32 {
    let s = *free;
    match slots.get_mut(s as usize) {
        Some(at) => {
            *free = at.link;
            *at = slot;
            s
        }
        None => {
            slots.push(slot);
            (slots.len() - 1) as u32
        }
    }
}

/// The hash class of namespace `ns`: its pair's ([`Ns`]). Entries still compare their
/// namespace, so the two of a pair stay maps of their own; a pair's namespaces hold few
/// keys in common (the peer's request and its cancelled ones none: a new request takes its
/// id out of the cancelled ones).
#[inline]
fn hash_class(ns: u32) -> u32 {
    ns >> 1
}

/// The hash of an entry, for the index when it grows: from the entry alone (a text key's is
/// in it); one function for every caller (one copy of the index's resize code, for size).
#[inline]
fn rehasher(hasher: &FixedState) -> impl Fn(&Entry) -> u64 + Copy + '_ {
    move |e| {
        if e.key.words()[2] == TEXT {
            e.key.low()
        } else {
            hash_packed(hasher, e.ns(), e.key)
        }
    }
}

/// The bucket of `key` in `ns` in the index: the one probe of every lookup and change but an
/// insertion's ([`Slots::insert_new`], [`Slots::insert`]), written once (for size: each
/// of hashbrown's ways to find an entry is a probe loop of its own in the `.wasm`).
#[inline(never)]
fn bucket(
    index: &hashbrown::HashTable<Entry>,
    slots: &[Slot],
    hasher: &FixedState,
    ns: Ns,
    key: Key<'_>,
) -> Option<usize> {
    let h = hash(hasher, ns, key);
    let k = entry_key(key, h);
    index.find_bucket_index(h, |e| is(slots, e, ns, key, k))
}

/// The entry of `key` in `ns`, to change or remove ([`bucket`]).
#[inline]
fn probe<'t>(
    index: &'t mut hashbrown::HashTable<Entry>,
    slots: &[Slot],
    hasher: &FixedState,
    ns: Ns,
    key: Key<'_>,
) -> Option<hashbrown::hash_table::OccupiedEntry<'t, Entry>> {
    let i = bucket(index, slots, hasher, ns, key)?;
    index.get_bucket_entry(i).ok()
}

/// Whether entry `e` is of `key` in `ns` (`k`: `entry_key(key, …)`): the index's comparison.
/// A text key's text is compared in its slot, when its hash is the same.
#[inline]
fn is(slots: &[Slot], e: &Entry, ns: Ns, key: Key<'_>, k: Packed) -> bool {
    e.key == k
        && e.ns() == ns as u32
        && match key {
            Key::Packed(_) => true,
            Key::Text(text) => slots
                .get((e.v & PAYLOAD) as usize)
                .is_some_and(|slot| matches!(&slot.key, OwnedKey::Text(held) if **held == *text)),
        }
}

/// The hash of `key` in namespace `ns` (foldhash, seeded per session: see `core::IdMap` for
/// the flooding trade-off, which is this table's).
#[inline]
fn hash(hasher: &FixedState, ns: Ns, key: Key<'_>) -> u64 {
    match key {
        Key::Packed(p) => hash_packed(hasher, ns as u32, p),
        Key::Text(text) => hash_text(hasher, ns as u32, text),
    }
}

/// [`hash`] of a packed key: one write of 128 bits (the key takes 96, the namespace the 32
/// above them), one multiply.
#[inline]
fn hash_packed(hasher: &FixedState, ns: u32, p: Packed) -> u64 {
    let mut h = hasher.build_hasher();
    let high = u64::from(p.words()[2]) | u64::from(hash_class(ns)) << 32;
    h.write_u128(u128::from(p.low()) | u128::from(high) << 64);
    h.finish()
}

/// [`hash`] of a string longer than a packed key: 8 bytes per write (foldhash's own `write`
/// of a byte string is ~1.5 KB of wasm, for ids that are rare).
#[inline(never)]
fn hash_text(hasher: &FixedState, ns: u32, text: &str) -> u64 {
    let mut h = hasher.build_hasher();
    h.write_u64(u64::from(hash_class(ns)) | (text.len() as u64) << 8);
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
    /// Out of line: a session has a table per part, each made here.
    #[inline(never)]
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            slots: Vec::new(),
            free: NONE,
            index: hashbrown::HashTable::new(),
            counts: [0; NAMESPACES],
            hasher: FixedState::with_seed(seed),
            spare: FREE,
        }
    }

    /// How many keys namespace `ns` holds (in slots and inline).
    #[inline]
    pub(crate) fn count(&self, ns: Ns) -> usize {
        self.counts.get(ns as usize).map_or(0, |&c| c as usize)
    }

    fn add_count(&mut self, ns: Ns, by: i32) {
        if let Some(c) = self.counts.get_mut(ns as usize) {
            *c = c.wrapping_add_signed(by);
        }
    }

    /// The slot of `key` in `ns` (`None` also for an inline record: see [`Self::lookup`]).
    #[inline(never)]
    pub(crate) fn find(&self, ns: Ns, key: Key<'_>) -> Option<u32> {
        match self.lookup(ns, key)? {
            Found::Slot(s) => Some(s),
            Found::Inline { .. } => None,
        }
    }

    /// What `ns` holds for `key`.
    #[inline]
    pub(crate) fn lookup(&self, ns: Ns, key: Key<'_>) -> Option<Found> {
        if self.count(ns) == 0 {
            return None;
        }
        self.find_in_index(ns, key)
    }

    /// [`Self::lookup`] in a namespace with keys: the probe, written once (not inlined into
    /// its ~20 callers, for size).
    #[inline(never)]
    fn find_in_index(&self, ns: Ns, key: Key<'_>) -> Option<Found> {
        let i = bucket(&self.index, &self.slots, &self.hasher, ns, key)?;
        self.index.get_bucket(i).map(|e| e.found())
    }

    #[inline]
    pub(crate) fn contains(&self, ns: Ns, key: Key<'_>) -> bool {
        self.count(ns) > 0 && self.find_in_index(ns, key).is_some()
    }

    #[inline(never)]
    pub(crate) fn slot(&self, s: u32) -> &Slot {
        self.slots.get(s as usize).unwrap_or(&FREE)
    }

    #[inline(never)]
    pub(crate) fn slot_mut(&mut self, s: u32) -> &mut Slot {
        match self.slots.get_mut(s as usize) {
            Some(slot) => slot,
            None => &mut self.spare,
        }
    }

    /// Puts `key` in `ns` (it must not be there): its slot ([`NONE`] when it was there: the
    /// table is unchanged).
    #[inline]
    pub(crate) fn insert(&mut self, ns: Ns, key: Key<'_>, method: u8, flags: u16, extra: u32) -> u32 {
        self.put_new(ns, key, method, flags, extra, false).unwrap_or(NONE)
    }

    /// Puts `key` in `ns` unless it is there, with no extra: as a slot, or (`inline`, a packed
    /// key only) in the index itself. Whether it was put.
    #[inline]
    pub(crate) fn insert_new(&mut self, ns: Ns, key: Key<'_>, method: u8, flags: u16, inline: bool) -> bool {
        self.put_new(ns, key, method, flags, NONE, inline).is_some()
    }

    /// [`Self::insert`] and [`Self::insert_new`]: puts `key` in `ns` unless it is there, as a
    /// slot with `extra`, or (`inline`, a packed key with no extra) in the index itself; its
    /// slot (of an inline record: its entry's bits, [`INLINE`] set), `None` when it was there.
    /// One probe of the index, written once (not inlined into its callers, for size).
    #[inline(never)]
    fn put_new(&mut self, ns: Ns, key: Key<'_>, method: u8, flags: u16, extra: u32, inline: bool) -> Option<u32> {
        let (slots, hasher) = (&self.slots, &self.hasher);
        let h = hash(hasher, ns, key);
        let k = entry_key(key, h);
        let entry = self.index.entry(h, |e| is(slots, e, ns, key, k), rehasher(hasher));
        let hashbrown::hash_table::Entry::Vacant(vacant) = entry else { return None };
        let v = if inline && extra == NONE && matches!(key, Key::Packed(_)) {
            INLINE | u32::from(method) << 16 | u32::from(flags)
        } else {
            put(&mut self.slots, &mut self.free, Slot { key: key.to_owned(), ns, method, flags, link: NONE, extra })
        };
        vacant.insert(Entry { key: k, v: (ns as u32) << NS_SHIFT | v });
        self.add_count(ns, 1);
        Some(v)
    }

    /// Takes what `ns` holds for `key` out when `take` accepts its method code, flags and
    /// whether it has an extra (an inline record has none): its method code and flags (a slot
    /// is freed). One probe of the index; `take` a function, not a closure, so that every
    /// caller shares one copy of this (for size).
    #[inline(never)]
    pub(crate) fn remove_if(&mut self, ns: Ns, key: Key<'_>, take: fn(u8, u16, bool) -> bool) -> Option<(u8, u16)> {
        if self.count(ns) == 0 {
            return None;
        }
        let entry = probe(&mut self.index, &self.slots, &self.hasher, ns, key)?;
        let taken = match entry.get().found() {
            Found::Inline { method, flags } => {
                if !take(method, flags, false) {
                    return None;
                }
                entry.remove();
                (method, flags)
            }
            Found::Slot(s) => {
                let slot = self.slots.get_mut(s as usize)?;
                if !take(slot.method, slot.flags, slot.extra != NONE) {
                    return None;
                }
                entry.remove();
                let taken = (slot.method, slot.flags);
                // Freed in place: only a text key has something to drop.
                if let OwnedKey::Text(_) = slot.key {
                    slot.key = FREE.key;
                }
                slot.ns = Ns::Free;
                slot.extra = NONE;
                slot.link = self.free;
                self.free = s;
                taken
            }
        };
        self.add_count(ns, -1);
        Some(taken)
    }

    /// Takes the inline record of packed key `p` out of `ns`: its method code and flags;
    /// `None` when `ns` has none for `p` (nothing, or a slot). The hot path of a response
    /// (bench scenario 1b): one probe, no slot read.
    #[inline(never)]
    pub(crate) fn take_inline(&mut self, ns: Ns, p: Packed) -> Option<(u8, u16)> {
        if self.count(ns) == 0 {
            return None;
        }
        // Its own probe, for a packed key only: the hot path (bench scenario 1b with string
        // ids: [`bucket`]'s makes it 4% slower).
        let h = hash_packed(&self.hasher, ns as u32, p);
        let entry = self.index.find_entry(h, |e| e.key == p && e.ns() == ns as u32).ok()?;
        let v = entry.get().v;
        if v & INLINE == 0 {
            return None;
        }
        entry.remove();
        self.add_count(ns, -1);
        Some(((v >> 16) as u8, v as u16))
    }

    /// Sets the flags of the inline record of `key` in `ns` (nothing when there is none).
    pub(crate) fn set_inline_flags(&mut self, ns: Ns, key: Packed, flags: u16) {
        if let Some(mut entry) = probe(&mut self.index, &self.slots, &self.hasher, ns, Key::Packed(key)) {
            let e = entry.get_mut();
            if e.v & INLINE != 0 {
                e.v = (e.v & !0xffff) | u32::from(flags);
            }
        }
    }

    /// The inline records of `ns`: their keys, method codes and flags (in no order).
    pub(crate) fn inline(&self, ns: Ns) -> impl Iterator<Item = (Packed, u8, u16)> + '_ {
        let any = self.count(ns) > 0;
        self.index.iter().filter(move |e| any && e.ns() == ns as u32).filter_map(|e| match e.found() {
            Found::Inline { method, flags } => Some((e.key, method, flags)),
            Found::Slot(_) => None,
        })
    }

    /// Takes slot `s` out of its namespace: its key, method, flags and extra (the slot is free).
    pub(crate) fn remove(&mut self, s: u32) -> Slot {
        let Some(slot) = self.slots.get(s as usize).filter(|slot| slot.ns != Ns::Free) else { return FREE };
        let ns = slot.ns;
        // A namespace holds a key once: the entry of the slot's key in its namespace is the slot's.
        if let Some(entry) = probe(&mut self.index, &self.slots, &self.hasher, ns, slot.key.as_key()) {
            entry.remove();
        }
        self.add_count(ns, -1);
        let free = Slot { link: self.free, ..FREE };
        self.free = s;
        ::core::mem::replace(self.slot_mut(s), free)
    }

    /// Moves slot `s` to namespace `ns`, same key: the other of its namespace's pair ([`Ns`]:
    /// the peer's request to its cancelled ones), which must not hold the key. Its index
    /// entry is changed in place: one probe, where a removal and an insertion would be
    /// two (bench scenario 3).
    pub(crate) fn rename(&mut self, s: u32, ns: Ns) {
        let Some(slot) = self.slots.get(s as usize).filter(|slot| slot.ns != Ns::Free) else { return };
        let old = slot.ns;
        debug_assert_eq!(hash_class(old as u32), hash_class(ns as u32), "{old:?} and {ns:?} hash alike");
        let Some(i) = bucket(&self.index, &self.slots, &self.hasher, old, slot.key.as_key()) else { return };
        if let Some(e) = self.index.get_bucket_mut(i) {
            e.v = (ns as u32) << NS_SHIFT | (e.v & !(u32::MAX << NS_SHIFT));
        }
        self.add_count(old, -1);
        self.add_count(ns, 1);
        self.slot_mut(s).ns = ns;
    }

    /// The slots of namespace `ns`, in slab order (not its inline records: [`Self::inline`]).
    pub(crate) fn iter(&self, ns: Ns) -> impl Iterator<Item = (u32, &Slot)> {
        let any = self.count(ns) > 0;
        self.slots.iter().enumerate().filter(move |(_, slot)| any && slot.ns == ns).map(|(s, slot)| (s as u32, slot))
    }

    /// Empties the table.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.free = NONE;
        self.index.clear();
        self.counts = [0; NAMESPACES];
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
            // Each pair once round, the live ones back in order: `VecDeque::retain`'s own
            // code is ~0.5 KB of the `.wasm`.
            for _ in 0..self.order.len() {
                if let Some((s, stamp)) = self.order.pop_front() {
                    if is_live(slots, ns, s, stamp) {
                        self.order.push_back((s, stamp));
                    }
                }
            }
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

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }
}

fn is_live(slots: &Slots, ns: Ns, s: u32, stamp: u32) -> bool {
    let slot = slots.slot(s);
    slot.ns == ns && slot.link == stamp
}

#[cfg(test)]
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
    fn a_record_kept_inline_is_found_changed_and_taken_by_its_key_alone() {
        use crate::core::keys::{number_packed, str_key};
        let mut slots = Slots::new(7);
        let p = number_packed(5);
        assert!(slots.insert_new(Ns::Outbound, Key::Packed(p), 3, 0, true));
        assert!(!slots.insert_new(Ns::Outbound, Key::Packed(p), 4, 0, true), "held already");
        assert!(!slots.insert_new(Ns::Outbound, Key::Packed(p), 4, 0, false), "held already, inline");
        assert_eq!(slots.lookup(Ns::Outbound, Key::Packed(p)), Some(Found::Inline { method: 3, flags: 0 }));
        assert_eq!(slots.find(Ns::Outbound, Key::Packed(p)), None, "no slot");
        assert_eq!(slots.lookup(Ns::Tombstone, Key::Packed(p)), None, "another namespace");
        slots.set_inline_flags(Ns::Outbound, p, 8);
        assert_eq!(slots.inline(Ns::Outbound).collect::<Vec<_>>(), vec![(p, 3, 8)]);
        assert_eq!(slots.count(Ns::Outbound), 1);
        // A slot with the same key in another namespace, and a text key: neither is inline.
        let s = slots.insert(Ns::Tombstone, Key::Packed(p), 1, 0, NONE);
        let long = "a string id longer than twelve bytes";
        assert!(slots.insert_new(Ns::Outbound, str_key(long), 2, 0, true), "a text key takes a slot");
        assert!(matches!(slots.lookup(Ns::Outbound, str_key(long)), Some(Found::Slot(_))));
        assert_eq!(slots.take_inline(Ns::Outbound, p), Some((3, 8)));
        assert_eq!(slots.take_inline(Ns::Outbound, p), None);
        assert_eq!(slots.find(Ns::Tombstone, Key::Packed(p)), Some(s));
        assert_eq!(slots.remove_if(Ns::Outbound, str_key(long), |_, _, _| false), None, "refused: kept");
        assert_eq!(slots.remove_if(Ns::Outbound, str_key(long), |m, _, extra| m == 2 && !extra), Some((2, 0)));
        assert_eq!(slots.count(Ns::Outbound), 0);
        // The index grows (and rehashes every entry from the entry alone) with all kinds held.
        for n in 0..1000 {
            assert!(slots.insert_new(Ns::Outbound, number_key(n), 1, 0, n % 2 == 0));
            slots.insert(Ns::Inbound, str_key(&format!("{long}-{n}")), 0, 0, NONE);
        }
        for n in 0..1000 {
            let want = if n % 2 == 0 { Some(Found::Inline { method: 1, flags: 0 }) } else { None };
            let found = slots.lookup(Ns::Outbound, number_key(n));
            assert!(want.map_or(matches!(found, Some(Found::Slot(_))), |w| found == Some(w)), "{n}");
            assert!(slots.contains(Ns::Inbound, str_key(&format!("{long}-{n}"))));
        }
    }

    /// A renamed entry keeps its place in the index (its pair's hash): it is found in its new
    /// namespace only, also after the index grew and rehashed every entry from the entry alone.
    #[test]
    fn a_renamed_slot_is_found_in_its_new_namespace_across_growth() {
        use crate::core::keys::str_key;
        let mut slots = Slots::new(11);
        let long = |n: i64| format!("a string id longer than twelve bytes {n}");
        let mut held = Vec::new();
        for n in 0..64 {
            let s = slots.insert(Ns::Inbound, number_key(n), 1, 0, NONE);
            let t = slots.insert(Ns::Inbound, str_key(&long(n)), 1, 0, NONE);
            if n % 2 == 0 {
                slots.rename(s, Ns::PeerCancelled);
                slots.rename(t, Ns::PeerCancelled);
            }
            held.push((n, s, t));
        }
        // Growth: the index rehashes the renamed entries too.
        for n in 1000..3000 {
            slots.insert(Ns::Outbound, number_key(n), 1, 0, NONE);
        }
        for (n, s, t) in held {
            let (now, not) =
                if n % 2 == 0 { (Ns::PeerCancelled, Ns::Inbound) } else { (Ns::Inbound, Ns::PeerCancelled) };
            assert_eq!(slots.find(now, number_key(n)), Some(s), "{n}");
            assert_eq!(slots.find(now, str_key(&long(n))), Some(t), "{n}");
            assert_eq!(slots.find(not, number_key(n)), None, "{n}");
            assert_eq!(slots.find(not, str_key(&long(n))), None, "{n}");
        }
        assert_eq!((slots.count(Ns::Inbound), slots.count(Ns::PeerCancelled)), (64, 64));
        // Removed from its new namespace, it is gone from both.
        let s = slots.find(Ns::PeerCancelled, number_key(0)).unwrap_or(NONE);
        assert_eq!(slots.remove(s).ns, Ns::PeerCancelled);
        assert!(!slots.contains(Ns::PeerCancelled, number_key(0)) && !slots.contains(Ns::Inbound, number_key(0)));
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
        let c = slots.insert(Ns::Inbound, number_key(5), 3, 0, NONE);
        slots.rename(c, Ns::PeerCancelled);
        assert_eq!(slots.find(Ns::Inbound, number_key(5)), None);
        assert_eq!(slots.find(Ns::PeerCancelled, number_key(5)), Some(c));
        assert_eq!((slots.count(Ns::Inbound), slots.count(Ns::PeerCancelled)), (0, 1));
        assert_eq!(slots.remove(c).method, 3);
        assert_eq!(slots.find(Ns::PeerCancelled, number_key(5)), None);
        slots.remove(a);
        assert_eq!(slots.find(Ns::Tombstone, number_key(5)), Some(b));
        // A freed slot is taken again.
        assert_eq!(slots.insert(Ns::Inbound, number_key(6), 0, 0, NONE), a);
        // A key that is there already is not put twice.
        assert_eq!(slots.insert(Ns::Inbound, number_key(6), 9, 0, NONE), NONE);
        assert_eq!(slots.count(Ns::Inbound), 1);
        assert_eq!(slots.slot(a).method, 0, "the first record stays");
    }
}
