//! [`Window`]: the records of the ids MCP clients choose for their own requests — every SDK
//! numbers them with a counter (0, 1, 2, …) — in a ring indexed by `id - base`: no hash, no
//! allocation per entry, one index per lookup.
//!
//! The window holds some records, never all: a caller looks an id up here first and in its
//! table (`slots::Slots`) second, and puts a record here only when the id is
//! in neither. So an id is in at most one place, and the window may move freely:
//! - an empty window moves to wherever the counter is, up or down (a counter that wraps
//!   around or starts again);
//! - a new id beyond its end first slides it over the free entries at its bottom (the
//!   counter's answered requests), then grows it (a power of two, from [`MIN`] up to
//!   [`MAX`] or twice the records it holds), then slides it past the records at its bottom
//!   (a long-running request among many short ones), which the caller moves to its table:
//!   a pinned record costs one insert there, once, and never holds the window back;
//! - an id below the window's base, a negative one or one past 2^53 is not taken.

use crate::prelude::*;

/// The window's length grows up to this many entries, or twice the records it holds.
pub(crate) const MAX: usize = 1024;
/// Its first length.
const MIN: usize = 16;

#[derive(Debug)]
pub(crate) struct Window<V> {
    ring: Vec<Option<V>>,
    base: i64,
    live: usize,
}

impl<V: Copy> Window<V> {
    pub(crate) fn new() -> Self {
        Self { ring: Vec::new(), base: 0, live: 0 }
    }

    /// How many records the window holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// The ring's index of `n`, when `n` is within the window.
    #[inline]
    fn index(&self, n: i64) -> Option<usize> {
        let len = self.ring.len();
        // `n - base` cannot overflow: callers pass ids within ±2^53, and `base` is one.
        let offset = usize::try_from(n.wrapping_sub(self.base)).ok()?;
        (offset < len).then(|| (n as usize) & (len - 1))
    }

    #[inline]
    pub(crate) fn get(&self, n: i64) -> Option<V> {
        self.index(n).and_then(|i| self.ring.get(i).copied().flatten())
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, n: i64) -> Option<&mut V> {
        let i = self.index(n)?;
        self.ring.get_mut(i).and_then(Option::as_mut)
    }

    /// Takes the record of `n` out, when `take` accepts it.
    #[inline]
    pub(crate) fn take_if(&mut self, n: i64, take: impl FnOnce(&V) -> bool) -> Option<V> {
        let i = self.index(n)?;
        let entry = self.ring.get_mut(i)?;
        if !entry.as_ref().is_some_and(take) {
            return None;
        }
        self.live -= 1;
        entry.take()
    }

    /// Puts the record of `n` (in no place yet) in the window: `false` when the window does
    /// not take `n`. Records that the window slides past go to `evict`, with their ids.
    #[inline]
    pub(crate) fn put(&mut self, n: i64, value: V, evict: impl FnMut(i64, V)) -> bool {
        // An empty window moves to `n` (see `put_moving`).
        if self.live == 0 && (0..=super::id::MAX_SAFE_INTEGER).contains(&n) {
            self.base = n;
        }
        // The counter's next id, most often: within the window.
        if let Some(entry) = self.index(n).and_then(|i| self.ring.get_mut(i)) {
            if entry.is_some() {
                return false;
            }
            *entry = Some(value);
            self.live += 1;
            return true;
        }
        self.put_moving(n, value, evict)
    }

    /// [`Self::put`] for an `n` the window has to move or grow for.
    #[inline(never)]
    fn put_moving(&mut self, n: i64, value: V, mut evict: impl FnMut(i64, V)) -> bool {
        if !(0..=super::id::MAX_SAFE_INTEGER).contains(&n) {
            return false;
        }
        if self.live == 0 {
            self.base = n;
        }
        if n < self.base {
            return false;
        }
        if self.index(n).is_none() {
            self.make_room(n, &mut evict);
        }
        match self.index(n).and_then(|i| self.ring.get_mut(i)) {
            Some(entry @ None) => {
                *entry = Some(value);
                self.live += 1;
                true
            }
            _ => false,
        }
    }

    fn make_room(&mut self, n: i64, evict: &mut impl FnMut(i64, V)) {
        let len = self.ring.len();
        while len > 0 && self.base + len as i64 <= n && self.live > 0 {
            match self.ring.get((self.base as usize) & (len - 1)) {
                Some(None) => self.base += 1,
                _ => break,
            }
        }
        if self.index(n).is_some() {
            return;
        }
        let span = usize::try_from(n - self.base).unwrap_or(usize::MAX).saturating_add(1);
        let most = MAX.max(self.live.saturating_mul(2).next_power_of_two());
        self.grow(span.min(most).next_power_of_two().max(MIN));
        if self.index(n).is_none() {
            // `n` at the far end: the records below the new base leave.
            let len = self.ring.len();
            let new_base = n - (len as i64 - 1);
            let passed = usize::try_from(new_base - self.base).unwrap_or(0).min(len);
            for k in 0..passed {
                let id = self.base + k as i64;
                if let Some(value) = self.ring.get_mut((id as usize) & (len - 1)).and_then(Option::take) {
                    self.live -= 1;
                    evict(id, value);
                }
            }
            self.base = new_base;
        }
    }

    fn grow(&mut self, len: usize) {
        let old_len = self.ring.len();
        if len <= old_len {
            return;
        }
        let old = ::core::mem::replace(&mut self.ring, ::core::iter::repeat_with(|| None).take(len).collect());
        for (i, entry) in old.into_iter().enumerate() {
            if let Some(value) = entry {
                let n = id_at(self.base, old_len, i);
                if let Some(new) = self.ring.get_mut((n as usize) & (len - 1)) {
                    *new = Some(value);
                }
            }
        }
    }

    /// The records with their ids.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (i64, &V)> {
        let (base, len) = (self.base, self.ring.len());
        self.ring.iter().enumerate().filter_map(move |(i, entry)| entry.as_ref().map(|v| (id_at(base, len, i), v)))
    }

    pub(crate) fn clear(&mut self) {
        self.ring.iter_mut().for_each(|entry| *entry = None);
        self.live = 0;
    }
}

/// The id of ring index `i` of a window at `base` of length `len`.
fn id_at(base: i64, len: usize, i: usize) -> i64 {
    let offset = (i.wrapping_sub((base as usize) & (len - 1))) & (len - 1);
    base + offset as i64
}

// proptest catches a failing case's panic to shrink it: these tests build where panics
// unwind (natively), not in the wasm test build, which aborts on a panic and has no proptest.
#[cfg(all(test, panic = "unwind"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    /// The window beside a map of what it was given: every record is found where it was put
    /// (in the window or evicted), once.
    fn check(window: &Window<u32>, evicted: &HashMap<i64, u32>, model: &HashMap<i64, u32>, peak: usize) {
        let mut seen = HashMap::new();
        for (n, v) in window.iter() {
            assert!(seen.insert(n, *v).is_none());
            assert_eq!(window.get(n), Some(*v));
        }
        assert_eq!(seen.len(), window.len());
        for (n, v) in evicted {
            assert!(seen.insert(*n, *v).is_none(), "{n} is in the window and evicted");
        }
        assert_eq!(&seen, model);
        assert!(window.ring.len() <= MAX.max((2 * peak).next_power_of_two()));
    }

    proptest! {
        #[test]
        fn records_are_where_they_were_put(ops in prop::collection::vec((0u8..4, 0i64..3000, any::<u32>()), 1..300)) {
            let mut window = Window::new();
            let mut evicted: HashMap<i64, u32> = HashMap::new();
            let mut model: HashMap<i64, u32> = HashMap::new();
            let mut peak = 0;
            for (op, n, v) in ops {
                // A counter most of the time, any id at times.
                let n = if op == 3 { n } else { n / 3 };
                match op {
                    0 | 3 if !model.contains_key(&n) && window.put(n, v, |id, value| { evicted.insert(id, value); }) => {
                        model.insert(n, v);
                    }
                    1 => {
                        let got = window.take_if(n, |_| true).or_else(|| evicted.remove(&n));
                        prop_assert_eq!(got, model.remove(&n));
                    }
                    2 => {
                        window.clear();
                        evicted.clear();
                        model.clear();
                    }
                    _ => {}
                }
                peak = peak.max(window.len());
                check(&window, &evicted, &model, peak);
            }
        }
    }

    #[test]
    fn a_counter_stays_in_the_window_past_a_pinned_request() {
        let mut window = Window::new();
        let mut evicted = Vec::new();
        assert!(window.put(0, 0u32, |id, _| evicted.push(id)));
        for n in 1..5000 {
            assert!(window.put(n, 1, |id, _| evicted.push(id)));
            assert_eq!(window.take_if(n, |_| true), Some(1));
        }
        assert_eq!(evicted, [0]);
        assert!(window.ring.len() <= MAX);
    }

    #[test]
    fn a_burst_of_requests_in_flight_stays_in_the_window() {
        let mut window = Window::new();
        for n in 0..5000 {
            assert!(window.put(n, 0u32, |_, _| panic!("nothing leaves")));
        }
        assert_eq!(window.len(), 5000);
        assert!(window.ring.len() <= 8192);
    }

    #[test]
    fn a_counter_that_wraps_around_comes_back_to_the_window() {
        let mut window = Window::new();
        assert!(window.put(1_000_000, 0u32, |_, _| {}));
        assert!(!window.put(3, 0, |_, _| {}), "below the base of a window in use");
        assert_eq!(window.take_if(1_000_000, |_| true), Some(0));
        assert!(window.put(3, 0, |_, _| {}), "an empty window moves down");
        assert_eq!(window.get(3), Some(0));
    }

    #[test]
    fn ids_at_the_edges() {
        let mut window = Window::new();
        assert!(!window.put(-1, 0u32, |_, _| {}));
        assert!(!window.put(super::super::id::MAX_SAFE_INTEGER + 1, 0, |_, _| {}));
        assert!(window.put(super::super::id::MAX_SAFE_INTEGER, 0, |_, _| {}));
        assert_eq!(window.get(super::super::id::MAX_SAFE_INTEGER), Some(0));
        assert_eq!(window.get(-1), None);
        assert_eq!(window.get(i64::MIN), None);
    }
}
