//! [`Table`]: values keyed by request id, made for the ids MCP clients choose for their own
//! requests — every SDK numbers them with a counter (0, 1, 2, …).
//!
//! - **The window**: a non-negative integer id within `base .. base + len` lives in slot
//!   `id mod len` of a ring of `len` slots (a power of two, grown on demand up to
//!   [`WINDOW_MAX`]): no hash, no allocation per entry, one index per lookup.
//! - **The fallback**: every other id — strings, negatives, integers below `base` — lives in
//!   a hashed map, one for integers and one for strings (foldhash, seeded per session; the
//!   flooding trade-off is written where the hasher is chosen, `core/mod.rs`). A string id
//!   is looked up by its `&str`: a host that has the id as text (the wasm layer's scratch
//!   buffer) allocates nothing to find it.
//!
//! The window slides forward as the counter does: a new id beyond its end moves `base` up
//! to it (and an empty window moves to any id above the fallback's integers); an entry still in a slot that falls out of the window (a long-running request
//! among many short ones) moves to the fallback. So a pinned entry costs one hash insert,
//! once, and never holds the window back.
//!
//! # Invariants
//! 1. `len() == in_window + hashed.len()`; `in_window` counts the occupied slots.
//! 2. The window's length is 0 or a power of two ≤ max([`WINDOW_MAX`], 4 × the most entries
//!    it held at once).
//! 3. An id is in at most one place, and that place is found by the id alone: a
//!    non-negative integer id in `base .. base + window.len()` is only ever in its slot;
//!    the integers of the fallback are all below `fallback_top`, which is at most `base`.
//!    `base` only grows while the window holds an entry; an empty window moves to the next
//!    id that is above every integer of the fallback — forward as the counter goes, and
//!    back when a counter wraps around or starts again (`1_000_000 + k % 4096`).

use super::id::{RequestId, StrId};
use super::keys::{number_key, str_key, text_key, Hashed};
use crate::prelude::*;

/// The most slots a window grows to (a power of two) unless at least half of them are in
/// use: 1024, 4 KiB for our requests' 4-byte records. A burst of more requests in flight grows it further,
/// to at most twice their number (rounded up to a power of two): a slot per request costs
/// less than a hashed entry, and the window never exceeds 4 slots per request in flight at
/// its peak.
pub(crate) const WINDOW_MAX: usize = 1024;
/// The window's length when its first entry comes.
const WINDOW_MIN: usize = 16;

/// Values keyed by [`RequestId`]: a window for counter ids, a hashed map for the rest (see
/// the module's notes).
#[derive(Debug)]
pub(crate) struct Table<V> {
    /// Slot `i` holds the value of the id `base + ((i - base) mod len)`.
    window: Vec<Option<V>>,
    /// The smallest id the window holds.
    base: i64,
    /// Occupied slots.
    in_window: usize,
    /// Every id outside the window.
    hashed: Hashed<V>,
    /// How many integer ids the fallback holds.
    fallback_ints: usize,
    /// Above every integer id of the fallback (one more than the largest put there since it
    /// last held none; 0 when it holds none): an empty window may move to any id from here.
    fallback_top: i64,
}

impl<V> Table<V> {
    /// An empty table whose fallback map is seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Self { window: Vec::new(), base: 0, in_window: 0, hashed: Hashed::new(seed), fallback_ints: 0, fallback_top: 0 }
    }

    pub(crate) fn len(&self) -> usize {
        self.in_window + self.hashed.len()
    }

    /// The slot of `n` when the window covers it.
    #[inline]
    fn slot(&self, n: i64) -> Option<usize> {
        let len = self.window.len();
        // `n - base` cannot overflow: both are within ±2^53.
        let offset = usize::try_from(n - self.base).ok()?;
        (offset < len).then(|| index(n, len))
    }

    pub(crate) fn get(&self, id: &RequestId) -> Option<&V> {
        match id {
            RequestId::Number(n) => match self.slot(*n) {
                Some(i) => self.window.get(i).and_then(Option::as_ref),
                None => self.hashed.get(number_key(*n)),
            },
            RequestId::String(s) => self.hashed.get(str_key(s)),
        }
    }

    pub(crate) fn get_mut(&mut self, id: &RequestId) -> Option<&mut V> {
        match id {
            RequestId::Number(n) => match self.slot(*n) {
                Some(i) => self.window.get_mut(i).and_then(Option::as_mut),
                None => self.hashed.get_mut(number_key(*n)),
            },
            RequestId::String(s) => self.hashed.get_mut(str_key(s)),
        }
    }

    pub(crate) fn contains_key(&self, id: &RequestId) -> bool {
        self.get(id).is_some()
    }

    /// Puts `value` under `id`; returns the value it replaces, if any.
    pub(crate) fn insert(&mut self, id: RequestId, value: V) -> Option<V> {
        match id {
            RequestId::Number(n) => match self.make_room(n) {
                Some(i) => {
                    let old = self.window.get_mut(i).and_then(|slot| slot.replace(value));
                    if old.is_none() {
                        self.in_window += 1;
                    }
                    old
                }
                None => self.hash_number(n, value),
            },
            RequestId::String(s) => self.hashed.insert(str_key(&s), value),
        }
    }

    pub(crate) fn remove(&mut self, id: &RequestId) -> Option<V> {
        match id {
            RequestId::Number(n) => match self.slot(*n) {
                Some(i) => {
                    let old = self.window.get_mut(i).and_then(Option::take);
                    if old.is_some() {
                        self.in_window -= 1;
                    }
                    old
                }
                None => {
                    let old = self.hashed.remove(number_key(*n));
                    self.unhashed_number(old)
                }
            },
            RequestId::String(s) => self.hashed.remove(str_key(s)),
        }
    }

    /// The common case of [`Self::insert`] (a counter id, not in the table): puts `value`
    /// under the integer id `n` unless `n` is in the table already (then gives `value`
    /// back, and nothing changes).
    #[inline]
    pub(crate) fn insert_new(&mut self, n: i64, value: V) -> Result<(), V> {
        if let Some(i) = self.slot(n) {
            if let Some(slot @ None) = self.window.get_mut(i) {
                *slot = Some(value);
                self.in_window += 1;
                return Ok(());
            }
            return Err(value);
        }
        match self.make_room(n) {
            // Beyond the window, or where an empty one moved: in no place yet (invariant 3).
            Some(i) => match self.window.get_mut(i) {
                Some(slot @ None) => {
                    *slot = Some(value);
                    self.in_window += 1;
                    Ok(())
                }
                _ => Err(value),
            },
            None => {
                self.hashed.insert_new(number_key(n), value)?;
                self.fallback_ints += 1;
                self.fallback_top = self.fallback_top.max(n.saturating_add(1));
                Ok(())
            }
        }
    }

    /// [`Self::insert_new`] for a string id, packed or as text: no allocation for an id
    /// of up to 11 bytes; one (the key) for a longer one.
    #[inline]
    pub(crate) fn insert_new_str(&mut self, id: StrId<'_>, value: V) -> Result<(), V> {
        self.hashed.insert_new(text_key(id), value)
    }

    /// [`Self::remove_if`] for a string id, packed or as text (nothing allocated).
    #[inline]
    pub(crate) fn remove_str_if(&mut self, id: StrId<'_>, take: impl FnOnce(&V) -> bool) -> Option<V> {
        self.hashed.remove_if(text_key(id), take)
    }

    /// Removes the value of the integer id `n` when `take` says so of it.
    #[inline]
    pub(crate) fn remove_if(&mut self, n: i64, take: impl FnOnce(&V) -> bool) -> Option<V> {
        let Some(i) = self.slot(n) else {
            let old = self.hashed.remove_if(number_key(n), take);
            return self.unhashed_number(old);
        };
        let slot = self.window.get_mut(i)?;
        if !slot.as_ref().is_some_and(take) {
            return None;
        }
        self.in_window -= 1;
        slot.take()
    }

    /// Every entry: the window's (in slot order), then the fallback's (in no order).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (RequestId, &V)> {
        let (base, len) = (self.base, self.window.len());
        let window = self
            .window
            .iter()
            .enumerate()
            .filter_map(move |(i, slot)| slot.as_ref().map(|v| (RequestId::Number(id_at(base, len, i)), v)));
        window.chain(self.hashed.iter())
    }

    /// Every value (no id made: nothing allocated).
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.window.iter().filter_map(Option::as_ref).chain(self.hashed.values())
    }

    /// Forgets every entry (the window keeps its slots).
    pub(crate) fn clear(&mut self) {
        self.window.iter_mut().for_each(|slot| *slot = None);
        self.in_window = 0;
        self.hashed.clear();
        self.fallback_ints = 0;
        self.fallback_top = 0;
    }

    /// Puts the integer id `n` in the fallback (below the window: invariant 3).
    fn hash_number(&mut self, n: i64, value: V) -> Option<V> {
        let old = self.hashed.insert(number_key(n), value);
        if old.is_none() {
            self.fallback_ints += 1;
            self.fallback_top = self.fallback_top.max(n.saturating_add(1));
        }
        old
    }

    /// Counts out an integer id taken from the fallback (`removed`, given back).
    fn unhashed_number(&mut self, removed: Option<V>) -> Option<V> {
        if removed.is_some() {
            self.fallback_ints = self.fallback_ints.saturating_sub(1);
            if self.fallback_ints == 0 {
                self.fallback_top = 0;
            }
        }
        removed
    }

    /// The slot `n` goes in, after growing or sliding the window so that it covers `n`;
    /// `None` when `n` belongs in the fallback (negative, or below `base`).
    fn make_room(&mut self, n: i64) -> Option<usize> {
        if n < 0 {
            return None;
        }
        if self.in_window == 0 && n >= self.fallback_top {
            // An empty window moves to wherever the counter is, up or down (invariant 3
            // holds: the fallback's integers are below `fallback_top`, so below `n`).
            self.base = n;
        }
        if let Some(i) = self.slot(n) {
            return Some(i);
        }
        if n < self.base {
            return None;
        }
        // First slide over the free slots at the bottom (the counter's answered requests):
        // the window keeps its length while the requests in flight fit in it.
        let len = self.window.len() as i64;
        while self.base + len <= n {
            match self.window.get(index(self.base, self.window.len())) {
                Some(None) => self.base += 1,
                _ => break,
            }
        }
        if let Some(i) = self.slot(n) {
            return Some(i);
        }
        let span = usize::try_from(n - self.base).ok()?.saturating_add(1);
        let most = WINDOW_MAX.max(self.in_window.saturating_mul(2).next_power_of_two());
        if span <= most {
            self.grow(span.next_power_of_two().max(WINDOW_MIN));
        } else {
            self.grow(most);
            // `n` at the window's far end: what falls out of it moves to the fallback,
            // below the new base (invariant 3).
            self.slide_to(n - (self.window.len() as i64 - 1));
        }
        self.slot(n)
    }

    /// Grows the window to `len` slots (a power of two), moving each entry to its new slot.
    fn grow(&mut self, len: usize) {
        let old_len = self.window.len();
        if len <= old_len {
            return;
        }
        let old = ::core::mem::replace(&mut self.window, ::core::iter::repeat_with(|| None).take(len).collect());
        for (i, slot) in old.into_iter().enumerate() {
            if let Some(value) = slot {
                let n = id_at(self.base, old_len, i);
                if let Some(new) = self.window.get_mut(index(n, len)) {
                    *new = Some(value);
                }
            }
        }
    }

    /// Moves `base` up to `new_base`: the entries of the ids it passes go to the fallback.
    fn slide_to(&mut self, new_base: i64) {
        let len = self.window.len();
        if self.in_window > 0 {
            let passed = usize::try_from(new_base - self.base).unwrap_or(0).min(len);
            for k in 0..passed {
                let n = self.base + k as i64;
                if let Some(value) = self.window.get_mut(index(n, len)).and_then(Option::take) {
                    self.in_window -= 1;
                    self.hash_number(n, value);
                }
            }
        }
        self.base = new_base;
    }
}

/// The slot of the id `n` in a window of `len` slots (a power of two).
#[inline]
fn index(n: i64, len: usize) -> usize {
    // `len` ≤ WINDOW_MAX, so the mask keeps only low bits of `n` (non-negative).
    (n as usize) & (len.wrapping_sub(1))
}

/// The id slot `i` holds in a window of `len` slots starting at `base`.
fn id_at(base: i64, len: usize, i: usize) -> i64 {
    let offset = (i.wrapping_sub(index(base, len))) & len.wrapping_sub(1);
    base + offset as i64
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;
    use crate::core::id::PackedStr;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(RequestId),
        InsertNew(i64),
        RemoveIf(i64, bool),
        InsertNewStr(String),
        RemoveStrIf(String, bool),
        Remove(RequestId),
        Get(RequestId),
        Clear,
    }

    /// Ids around a counter that keeps going up — the window's case, with its edges: ids
    /// just inside and beyond its end, far jumps (a slide), old ids (below base),
    /// negatives, strings.
    fn ops() -> impl Strategy<Value = Vec<(u8, i64, Op)>> {
        let step = prop_oneof![
            8 => 0i64..3,
            2 => 14i64..18,
            1 => Just(WINDOW_MAX as i64 - 1),
            1 => Just(WINDOW_MAX as i64),
            1 => 1000i64..5000,
            // A counter that wraps around or starts again.
            1 => -5000i64..-1,
        ];
        let id = prop_oneof![
            10 => (-40i64..40).prop_map(|d| (0u8, d)),
            1 => (-3i64..3).prop_map(|n| (1u8, n)),
            1 => (0i64..3).prop_map(|n| (2u8, n)),
            1 => (0i64..3).prop_map(|n| (3u8, n)),
        ];
        let op = (0u8..10, id, step).prop_map(|(kind, (shape, n), step)| (kind, step, shape, n));
        prop::collection::vec(op, 1..300).prop_map(|raw| {
            let mut counter = 0i64;
            raw.into_iter()
                .map(|(kind, step, shape, n)| {
                    if kind < 4 {
                        counter += step;
                    }
                    let id = match shape {
                        0 => RequestId::Number((counter + n).max(0)),
                        1 => RequestId::Number(n),
                        2 => RequestId::String(n.to_string()),
                        // Longer than a packed key (11 bytes), and exactly 11 / 12 bytes.
                        _ => RequestId::String(match n {
                            0 => "exactly-11b".to_owned(),
                            1 => "exactly-12by".to_owned(),
                            _ => format!("a-long-request-id-{n}"),
                        }),
                    };
                    let number = match &id {
                        RequestId::Number(n) => Some(*n),
                        RequestId::String(_) => None,
                    };
                    let op = match (kind, number) {
                        (0 | 1, Some(n)) => Op::InsertNew(n),
                        (1, None) => Op::InsertNewStr(id_text(&id)),
                        (0..=4, _) => Op::Insert(id),
                        (5, Some(n)) => Op::RemoveIf(n, counter % 2 == 0),
                        (5, None) => Op::RemoveStrIf(id_text(&id), counter % 2 == 0),
                        (5..=7, _) => Op::Remove(id),
                        (8, _) => Op::Get(id),
                        _ => Op::Clear,
                    };
                    (kind, counter, op)
                })
                .collect()
        })
    }

    /// A string id as the session's fast paths take it: packed on every other step when it
    /// packs, else as text.
    fn str_id(text: &str, step: usize) -> StrId<'_> {
        match PackedStr::new(text) {
            Some(p) if step % 2 == 0 => StrId::Packed(p),
            _ => StrId::Text(text),
        }
    }

    fn id_text(id: &RequestId) -> String {
        match id {
            RequestId::String(s) => s.clone(),
            RequestId::Number(n) => n.to_string(),
        }
    }

    fn check<V: PartialEq + ::core::fmt::Debug + Copy>(table: &Table<V>, model: &HashMap<RequestId, V>, peak: usize) {
        assert_eq!(table.len(), model.len());
        assert!(table.window.is_empty() || table.window.len().is_power_of_two());
        assert!(table.window.len() <= WINDOW_MAX.max(4 * peak));
        assert_eq!(table.in_window, table.window.iter().filter(|s| s.is_some()).count());
        let mut seen: HashMap<RequestId, V> = HashMap::new();
        for (id, v) in table.iter() {
            assert!(seen.insert(id.clone(), *v).is_none(), "{id:?} twice");
        }
        assert_eq!(&seen, model);
        assert!(table.fallback_top <= table.base);
        let ints: Vec<i64> = table
            .hashed
            .iter()
            .filter_map(|(id, _)| if let RequestId::Number(n) = id { Some(n) } else { None })
            .collect();
        assert_eq!(table.fallback_ints, ints.len());
        for n in ints {
            assert!(n < table.fallback_top, "{n} is in the fallback but not below the window");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn same_as_a_hash_map(ops in ops()) {
            let mut table = Table::new(7);
            let mut model = HashMap::new();
            let mut peak = 0;
            for (step, (_, _, op)) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(id) => prop_assert_eq!(table.insert(id.clone(), step), model.insert(id, step)),
                    Op::Remove(id) => prop_assert_eq!(table.remove(&id), model.remove(&id)),
                    Op::InsertNew(n) => {
                        let id = RequestId::Number(n);
                        let expected = if let std::collections::hash_map::Entry::Vacant(e) = model.entry(id) {
                            e.insert(step);
                            Ok(())
                        } else {
                            Err(step)
                        };
                        prop_assert_eq!(table.insert_new(n, step), expected);
                    }
                    Op::InsertNewStr(text) => {
                        let id = RequestId::String(text.clone());
                        let expected = if let std::collections::hash_map::Entry::Vacant(e) = model.entry(id) {
                            e.insert(step);
                            Ok(())
                        } else {
                            Err(step)
                        };
                        prop_assert_eq!(table.insert_new_str(str_id(&text, step), step), expected);
                    }
                    Op::RemoveStrIf(text, even) => {
                        let id = RequestId::String(text.clone());
                        let take = |v: &usize| (v % 2 == 0) == even;
                        let expected = if model.get(&id).is_some_and(take) { model.remove(&id) } else { None };
                        prop_assert_eq!(table.remove_str_if(str_id(&text, step), take), expected);
                    }
                    Op::RemoveIf(n, even) => {
                        let id = RequestId::Number(n);
                        let take = |v: &usize| (v % 2 == 0) == even;
                        let expected = if model.get(&id).is_some_and(take) { model.remove(&id) } else { None };
                        prop_assert_eq!(table.remove_if(n, take), expected);
                    }
                    Op::Get(id) => {
                        prop_assert_eq!(table.get(&id), model.get(&id));
                        prop_assert_eq!(table.contains_key(&id), model.contains_key(&id));
                        if let Some(v) = table.get_mut(&id) {
                            *v += 1_000_000;
                            *model.get_mut(&id).unwrap() += 1_000_000;
                        }
                    }
                    Op::Clear => {
                        table.clear();
                        model.clear();
                    }
                }
                peak = peak.max(model.len());
                check(&table, &model, peak);
            }
        }
    }

    #[test]
    fn a_counter_stays_in_the_window_past_a_pinned_request() {
        let mut table = Table::new(0);
        table.insert(RequestId::Number(0), 0); // a long-running request
        for n in 1..5000 {
            table.insert(RequestId::Number(n), n);
            assert_eq!(table.remove(&RequestId::Number(n)), Some(n));
        }
        assert_eq!(table.hashed.len(), 1, "only the pinned request moved to the fallback");
        assert_eq!(table.window.len(), WINDOW_MAX);
        assert_eq!(table.get(&RequestId::Number(0)), Some(&0));
    }

    #[test]
    fn a_burst_of_requests_in_flight_stays_in_the_window() {
        // 5000 requests in flight at once (a client that fans out): all in slots, none
        // hashed, and the window at most 4 slots per request.
        let mut table = Table::new(0);
        for n in 0..5000 {
            assert!(table.insert_new(n, n).is_ok());
        }
        assert_eq!(table.hashed.len(), 0);
        assert!(table.window.len() <= 4 * 5000, "{} slots", table.window.len());
        for n in 0..5000 {
            assert_eq!(table.remove_if(n, |_| true), Some(n));
        }
        assert_eq!(table.len(), 0);
    }

    #[test]
    fn a_counter_that_wraps_around_comes_back_to_the_window() {
        // `1_000_000 + k % 4096`, 100 in flight: after each wrap the window waits for the
        // requests above it to be answered, then moves back down.
        let id = |k: i64| 1_000_000 + k % 4096;
        let mut table = Table::new(0);
        let mut hashed_inserts = 0;
        for k in 0..20_000 {
            let before = table.hashed.len();
            table.insert(RequestId::Number(id(k)), k);
            hashed_inserts += usize::from(table.hashed.len() > before);
            if k >= 100 {
                assert_eq!(table.remove(&RequestId::Number(id(k - 100))), Some(k - 100));
            }
        }
        // Four wraps of about 100 ids each.
        assert!(hashed_inserts <= 4 * 101, "{hashed_inserts} of 20000 went to the fallback");
        assert_eq!(table.len(), 100);
    }

    #[test]
    fn ids_at_the_edges() {
        let mut table = Table::new(0);
        let max = super::super::id::MAX_SAFE_INTEGER;
        for n in [max, max - 1, 0, -max, -1] {
            assert_eq!(table.insert(RequestId::Number(n), n), None);
        }
        for n in [max, max - 1, 0, -max, -1] {
            assert_eq!(table.get(&RequestId::Number(n)), Some(&n));
        }
        assert_eq!(table.len(), 5);
    }
}
