//! [`Requests`]: our requests in flight (the window of counter ids, `window`, then the
//! table, `slots`), their progress tokens and deadlines, and the tombstones of the cancelled
//! ones with their progress tokens. Which request is in flight, cancelled or settled is the
//! rules' (`outbound`, `timer`, `tasks`); this part keeps the records.
//!
//! Invariants:
//! 1. A request id is in flight at most once, in exactly one place: the window, the index
//!    (a plain request with a packed key) or a slot; every integer id in the table is below
//!    `slot_ints_top`, so the window takes the counter's next id without a look at the table.
//! 2. A request with an [`Extra`] is never in the window or the index, so it is never taken as
//!    plain; an extra leaves with its record.
//! 3. At most `tombstones` tombstones: the oldest goes first; a tombstone's progress token is
//!    the newest tombstone's that has it, and leaves with it.
//! 4. A request in flight's progress token is indexed, and its timer scheduled, from when it
//!    goes in until it is taken out; a deadline never names a request that is gone (stale
//!    entries are dropped after every change, so the next deadline is exact).

use crate::prelude::*;

use super::deadlines::{Deadlines, Millis, TimeoutKind};
use super::id::{IdRef, RequestId, StrId};
use super::keys::{number_key, number_packed, str_key, text_key, Key, OwnedKey, Packed};
use super::method::Method;
use super::pool::Pool;
use super::records::{code_of, name_of, slot_name, Extra, Outbound, Taken, WATCHED};
use super::slots::{Fifo, Found, Ns, Slots, NONE};
use super::window::Window;

/// Where our request in flight is: in the window (by its id), in the index (a plain request
/// with a packed key, by its key: `Slots::insert_new`'s inline records), or in a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum At {
    Window(i64),
    Plain(Packed),
    Slot(u32),
}

#[derive(Debug)]
pub(crate) struct Requests {
    slots: Slots,
    extras: Pool<Extra>,
    window: Window<Outbound>,
    /// Above every integer id of our requests in the table, in slots or inline (none at or
    /// past it): the window takes the counter's next id without a look at the table.
    slot_ints_top: i64,
    tombstones: Fifo,
    /// The deadlines of the timers in the extras of our requests in slots.
    deadlines: Deadlines,
}

impl Requests {
    /// `tombstones` bounds the tombstones; `seed` seeds the table's hasher.
    pub(crate) fn new(tombstones: usize, seed: u64) -> Self {
        Self {
            slots: Slots::new(seed),
            extras: Pool::default(),
            window: Window::new(),
            slot_ints_top: 0,
            tombstones: Fifo::new(tombstones),
            deadlines: Deadlines::default(),
        }
    }

    /// Forgets every record.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.extras.clear();
        self.window.clear();
        self.slot_ints_top = 0;
        self.deadlines.clear();
        self.tombstones.clear();
    }

    fn slot_name(&self, s: u32) -> &str {
        slot_name(&self.slots, &self.extras, s)
    }

    // ----- our requests in flight -----

    /// How many of our requests are in flight.
    pub(crate) fn outbound_len(&self) -> usize {
        self.window.len() + self.slots.count(Ns::Outbound)
    }

    /// Our request in flight with `key`.
    #[inline]
    pub(crate) fn outbound(&self, key: Key<'_>) -> Option<(At, Outbound)> {
        if let Some(n) = number_of(key) {
            if let Some(request) = self.window.get(n) {
                return Some((At::Window(n), request));
            }
        }
        match (self.slots.lookup(Ns::Outbound, key)?, key) {
            (Found::Slot(s), _) => Some((At::Slot(s), self.outbound_at(s))),
            (Found::Inline { method, flags }, Key::Packed(p)) => {
                Some((At::Plain(p), Outbound::from_slot(method, flags, false)))
            }
            (Found::Inline { .. }, Key::Text(_)) => None,
        }
    }

    fn outbound_at(&self, s: u32) -> Outbound {
        let slot = self.slots.slot(s);
        Outbound::from_slot(slot.method, slot.flags, slot.extra != NONE)
    }

    #[inline]
    pub(crate) fn has_outbound(&self, key: Key<'_>) -> bool {
        self.outbound(key).is_some()
    }

    /// Its method's name.
    pub(crate) fn outbound_name(&self, at: At) -> &str {
        match at {
            At::Window(n) => name_of(self.window.get(n).and_then(|r| r.method), None),
            At::Plain(p) => name_of(self.plain_get(p).and_then(|r| r.method), None),
            At::Slot(s) => self.slot_name(s),
        }
    }

    /// Its extra (only a request in a slot has one).
    pub(crate) fn outbound_extra(&self, at: At) -> Option<&Extra> {
        match at {
            At::Window(_) | At::Plain(_) => None,
            At::Slot(s) => self.extras.get(self.slots.slot(s).extra),
        }
    }

    pub(crate) fn outbound_extra_mut(&mut self, at: At) -> Option<&mut Extra> {
        match at {
            At::Window(_) | At::Plain(_) => None,
            At::Slot(s) => {
                let i = self.slots.slot(s).extra;
                self.extras.get_mut(i)
            }
        }
    }

    /// Marks it watched.
    pub(crate) fn watch_outbound(&mut self, at: At) {
        match at {
            At::Window(n) => {
                if let Some(request) = self.window.get_mut(n) {
                    request.watched = true;
                }
            }
            At::Plain(p) => {
                if let Some(request) = self.plain_get(p) {
                    self.slots.set_inline_flags(Ns::Outbound, p, request.flags() | WATCHED);
                }
            }
            At::Slot(s) => self.slots.slot_mut(s).flags |= WATCHED,
        }
    }

    /// Changes its kind (a task's request: always in a slot).
    pub(crate) fn set_outbound_kind(&mut self, at: At, kind: super::records::Kind) {
        if let At::Slot(s) = at {
            let slot = self.slots.slot_mut(s);
            slot.flags = (slot.flags & !super::records::KIND_BITS) | kind.bits();
        }
    }

    /// Puts our request (in no place yet): a plain one with a counter id in the window, one
    /// with another packed id in the index itself, any other in a slot. Returns its slot,
    /// `None` for the window or the index.
    pub(crate) fn insert_outbound(&mut self, key: Key<'_>, mut request: Outbound, extra: Option<Extra>) -> Option<u32> {
        request.extra = extra.is_some();
        if request.is_plain() {
            if let Key::Packed(p) = key {
                if p.number().is_some_and(|n| self.put_in_window(n, request)) {
                    return None;
                }
                self.note_slot_key(key);
                self.slots.insert_new(Ns::Outbound, key, code_of(request.method), request.flags(), true);
                return None;
            }
        }
        let extra = self.extras.put(extra);
        self.note_slot_key(key);
        let s = self.slots.insert(Ns::Outbound, key, code_of(request.method), request.flags(), extra);
        self.arm(s);
        Some(s)
    }

    /// Indexes the progress token of our request in slot `s` and schedules its timer
    /// (invariant 4).
    #[inline(never)]
    fn arm(&mut self, s: u32) {
        let Some(extra) = self.extras.get_mut(self.slots.slot(s).extra) else { return };
        if let Some(token) = &extra.progress_token {
            let t = self.slots.insert(Ns::Token, token.as_key(), 0, 0, NONE);
            self.slots.slot_mut(t).link = s;
        }
        if let Some(timer) = extra.timer.as_mut() {
            self.deadlines.schedule(s, timer);
            self.tidy();
        }
    }

    /// Keeps [`Self::slot_ints_top`] above the integer `key` going to the table.
    #[inline]
    fn note_slot_key(&mut self, key: Key<'_>) {
        if let Some(n) = number_of(key) {
            raise_top(&self.slots, &mut self.slot_ints_top, n);
        }
    }

    /// The window's `put`, what it slides past going to the table (inline: plain records).
    #[inline]
    fn put_in_window(&mut self, n: i64, request: Outbound) -> bool {
        let (slots, top) = (&mut self.slots, &mut self.slot_ints_top);
        self.window.put(n, request, |id, r| {
            raise_top(slots, top, id);
            slots.insert_new(Ns::Outbound, number_key(id), code_of(r.method), r.flags(), true);
        })
    }

    /// Puts our plain request unless one with its id is in flight (then `false`): the hot
    /// path of `track`. A counter's id goes in the window when the table does not have it
    /// (inlined into the caller: the hot path of all); any other id costs one index probe,
    /// and a packed one is kept in the index itself.
    #[inline(always)]
    pub(crate) fn insert_plain(&mut self, id: IdRef<'_>, request: Outbound) -> bool {
        match id {
            IdRef::Number(n) => {
                let in_no_slot = n >= self.slot_ints_top || self.slots.count(Ns::Outbound) == 0;
                if in_no_slot && self.window.get(n).is_none() && self.put_in_window(n, request) {
                    return true;
                }
            }
            // The hot path of string ids: one probe, the record in the index (bench
            // scenario 1b with string ids).
            IdRef::Str(StrId::Packed(p)) => {
                let key = Key::Packed(Packed::new(p.words()));
                return self.slots.insert_new(Ns::Outbound, key, code_of(request.method), request.flags(), true);
            }
            IdRef::Str(StrId::Text(_)) => {}
        }
        self.insert_plain_slow(id, request)
    }

    /// [`Self::insert_plain`] past the window's fast path.
    #[inline(never)]
    fn insert_plain_slow(&mut self, id: IdRef<'_>, request: Outbound) -> bool {
        let key = match id {
            IdRef::Number(n) => {
                if self.window.get(n).is_some() {
                    return false;
                }
                // The window only takes an id that the table does not have.
                if self.slots.contains(Ns::Outbound, number_key(n)) {
                    return false;
                }
                if self.put_in_window(n, request) {
                    return true;
                }
                number_key(n)
            }
            IdRef::Str(s) => text_key(s),
        };
        self.note_slot_key(key);
        self.slots.insert_new(Ns::Outbound, key, code_of(request.method), request.flags(), true)
    }

    /// The plain request with packed id `p` kept in the index.
    fn plain_get(&self, p: Packed) -> Option<Outbound> {
        match self.slots.lookup(Ns::Outbound, Key::Packed(p))? {
            Found::Inline { method, flags } => Some(Outbound::from_slot(method, flags, false)),
            Found::Slot(_) => None,
        }
    }

    /// Takes our request with `key` out, with its extra.
    pub(crate) fn remove_outbound(&mut self, key: Key<'_>) -> Option<Taken> {
        if let Some(n) = number_of(key) {
            if let Some(request) = self.window.take_if(n, |_| true) {
                return Some(Taken { request, extra: None });
            }
        }
        // A record in the index, or a slot without an extra.
        if let Some((method, flags)) = self.slots.remove_if(Ns::Outbound, key, |_, _, extra| !extra) {
            return Some(Taken { request: Outbound::from_slot(method, flags, false), extra: None });
        }
        let s = self.slots.find(Ns::Outbound, key)?;
        let request = self.outbound_at(s);
        let slot = self.slots.remove(s);
        let mut extra = self.extras.take(slot.extra);
        if let Some(extra) = extra.as_mut() {
            self.disarm(extra);
        }
        Some(Taken { request, extra })
    }

    /// Forgets the progress token and unschedules the timer of `extra`, our request's taken
    /// out (invariant 4).
    #[inline(never)]
    fn disarm(&mut self, extra: &mut Extra) {
        if let Some(token) = &extra.progress_token {
            if let Some(t) = self.slots.find(Ns::Token, token.as_key()) {
                self.slots.remove(t);
            }
        }
        if let Some(timer) = extra.timer.as_mut() {
            self.deadlines.unschedule(timer);
            self.tidy();
        }
    }

    /// Takes our request `id` out when it is plain ([`Outbound::is_plain`]): the hot path of
    /// a response (the window's part inlined into the caller; any other id costs one index
    /// probe). A plain request with a packed id is in the window or in the index itself,
    /// never in a slot ([`Self::insert_outbound`], [`Self::insert_plain`]).
    #[inline(always)]
    pub(crate) fn remove_plain(&mut self, id: IdRef<'_>) -> Option<Outbound> {
        let p = match id {
            IdRef::Number(n) => {
                if let Some(request) = self.window.take_if(n, Outbound::is_plain) {
                    return Some(request);
                }
                number_packed(n)
            }
            IdRef::Str(StrId::Packed(p)) => Packed::new(p.words()),
            IdRef::Str(StrId::Text(text)) => return self.remove_plain_text(text),
        };
        let (method, flags) = self.slots.take_inline(Ns::Outbound, p)?;
        Some(Outbound::from_slot(method, flags, false))
    }

    /// [`Self::remove_plain`] of a string id given as text.
    #[inline(never)]
    fn remove_plain_text(&mut self, text: &str) -> Option<Outbound> {
        let (method, flags) = self.slots.remove_if(Ns::Outbound, str_key(text), Outbound::slot_is_plain)?;
        Some(Outbound::from_slot(method, flags, false))
    }

    /// How many of our requests can still be cancelled: those in flight that are
    /// ([`Outbound::is_cancellable`]: every plain one, so all of the window's and the index's).
    /// One pass over the slots, nothing allocated.
    pub(crate) fn cancellable(&self) -> usize {
        let mut n = self.outbound_len();
        for (s, _) in self.slots.iter(Ns::Outbound) {
            n -= usize::from(!self.outbound_at(s).is_cancellable());
        }
        n
    }

    /// Calls `each` with the id of every watched record, in this order: our requests in
    /// flight: the window's, the index's, the slots'. The ids are borrowed: nothing is
    /// allocated.
    ///
    /// Loops over each table, not a chain of iterators: the chain, its `collect` and the
    /// ids of every record made on the way are 1.9 KB of the `.wasm`'s gzip for
    /// [`Session::close`](super::Session::close), its only caller.
    pub(crate) fn each_watched(&self, mut each: impl FnMut(IdRef<'_>)) {
        for (n, r) in self.window.iter() {
            if r.watched {
                each(IdRef::Number(n));
            }
        }
        for (p, _, flags) in self.slots.inline(Ns::Outbound) {
            if flags & WATCHED != 0 {
                each(Key::Packed(p).as_id_ref());
            }
        }
        for (s, slot) in self.slots.iter(Ns::Outbound) {
            if self.outbound_at(s).watched {
                each(slot.key.as_key().as_id_ref());
            }
        }
    }

    /// Our requests in flight, with their ids.
    #[cfg(all(test, panic = "unwind"))]
    pub(crate) fn outbounds(&self) -> impl Iterator<Item = (RequestId, Outbound)> + '_ {
        let window = self.window.iter().map(|(n, r)| (RequestId::Number(n), *r));
        let plain = self
            .slots
            .inline(Ns::Outbound)
            .map(|(p, method, flags)| (Key::Packed(p).to_request_id(), Outbound::from_slot(method, flags, false)));
        window.chain(plain).chain(
            self.slots.iter(Ns::Outbound).map(|(s, slot)| (slot.key.as_key().to_request_id(), self.outbound_at(s))),
        )
    }

    // ----- progress tokens of our requests in flight -----

    /// The slot of the request in flight whose progress token is `token`.
    pub(crate) fn token_owner(&self, token: Key<'_>) -> Option<u32> {
        self.slots.find(Ns::Token, token).map(|t| self.slots.slot(t).link)
    }

    // ----- tombstones -----

    pub(crate) fn tombstones_len(&self) -> usize {
        self.slots.count(Ns::Tombstone)
    }

    pub(crate) fn has_tombstone(&self, key: Key<'_>) -> bool {
        self.slots.contains(Ns::Tombstone, key)
    }

    /// The method's name of the tombstone of `key`.
    pub(crate) fn tombstone_method(&self, key: Key<'_>) -> Option<&str> {
        self.slots.find(Ns::Tombstone, key).map(|s| self.slot_name(s))
    }

    /// Tombstones our request `key` (replacing a tombstone of the same id): its method, and
    /// its progress token, whose late progress is then dropped. The oldest tombstone is
    /// forgotten past the capacity.
    pub(crate) fn insert_tombstone(
        &mut self,
        key: Key<'_>,
        method: Option<Method>,
        name: Option<Box<str>>,
        token: Option<OwnedKey>,
    ) {
        self.remove_tombstone(key);
        let dead = token.as_ref().map(|t| (t.as_key(), self.slots.find(Ns::DeadToken, t.as_key())));
        let dead_key = dead.map(|(k, _)| k.to_owned());
        let extra =
            (name.is_some() || token.is_some()).then(|| Extra { name, progress_token: token, ..Extra::default() });
        let extra = self.extras.put(extra);
        let s = self.slots.insert(Ns::Tombstone, key, code_of(method), 0, extra);
        if let Some(dead_key) = dead_key {
            let d = match self.slots.find(Ns::DeadToken, dead_key.as_key()) {
                Some(d) => d,
                None => self.slots.insert(Ns::DeadToken, dead_key.as_key(), 0, 0, NONE),
            };
            self.slots.slot_mut(d).link = s;
        }
        if let Some(oldest) = self.tombstones.push(&mut self.slots, Ns::Tombstone, s) {
            self.forget_tombstone(oldest);
        }
    }

    /// Takes the tombstone of `key` out: its method and name.
    pub(crate) fn remove_tombstone(&mut self, key: Key<'_>) -> Option<(Option<Method>, String)> {
        let s = self.slots.find(Ns::Tombstone, key)?;
        let name = self.slot_name(s).owned();
        let method = Method::from_code(u32::from(self.slots.slot(s).method));
        self.forget_tombstone(s);
        Some((method, name))
    }

    /// Removes tombstone `s`, and its progress token when it is still the token's.
    fn forget_tombstone(&mut self, s: u32) {
        let slot = self.slots.remove(s);
        let token = self.extras.take(slot.extra).and_then(|e| e.progress_token);
        if let Some(token) = token {
            if let Some(d) = self.slots.find(Ns::DeadToken, token.as_key()) {
                if self.slots.slot(d).link == s {
                    self.slots.remove(d);
                }
            }
        }
    }

    /// The slot of the tombstone whose progress token is `token`.
    pub(crate) fn tombstone_of_token(&self, token: Key<'_>) -> Option<u32> {
        let s = self.slots.slot(self.slots.find(Ns::DeadToken, token)?).link;
        (self.slots.slot(s).ns == Ns::Tombstone).then_some(s)
    }

    /// Tombstone `s`'s id and its method's name.
    pub(crate) fn tombstone_at(&self, s: u32) -> (IdRef<'_>, &str) {
        (self.slots.slot(s).key.as_key().as_id_ref(), self.slot_name(s))
    }

    // ----- deadlines -----

    /// When the next deadline is due; `None` when no request has a timer.
    #[inline]
    pub(crate) fn next_deadline(&self) -> Option<Millis> {
        self.deadlines.next()
    }

    /// The next request in a slot whose deadline is at or before `now`, its timer taken out
    /// (it fires once) and why it expired; `None` when no more are due.
    pub(crate) fn pop_expired(&mut self, now: Millis) -> Option<(u32, TimeoutKind)> {
        while let Some((key, s)) = self.deadlines.pop_due(now) {
            // A stale entry: the timer was rescheduled or unscheduled since.
            if timer_key(&self.slots, &self.extras, s) != Some(key) {
                continue;
            }
            let Some(mut timer) = self.outbound_extra_mut(At::Slot(s)).and_then(|e| e.timer.take()) else { continue };
            self.deadlines.unschedule(&mut timer);
            // `None` is unreachable (its key was due, so one of its deadlines is): never loop on it.
            if let Some(kind) = timer.expired(now) {
                return Some((s, kind));
            }
        }
        self.tidy();
        None
    }

    /// Drops the timer of our request at `at`: no deadline, and progress does not arm it again.
    pub(crate) fn drop_timer(&mut self, at: At) {
        if let Some(mut timer) = self.outbound_extra_mut(at).and_then(|e| e.timer.take()) {
            self.deadlines.unschedule(&mut timer);
            self.tidy();
        }
    }

    /// Progress for our request in slot `owner` at `now`: its timer restarts when it resets on
    /// progress.
    pub(crate) fn progress(&mut self, owner: u32, now: Millis) {
        let i = self.slots.slot(owner).extra;
        if let Some(timer) = self.extras.get_mut(i).and_then(|e| e.timer.as_mut()) {
            self.deadlines.on_progress(owner, timer, now);
            self.tidy();
        }
    }

    /// Drops stale deadlines (see [`Deadlines::tidy`]): after every schedule or unschedule, so
    /// [`Self::next_deadline`] is exact and memory stays bounded under progress resets.
    fn tidy(&mut self) {
        let (slots, extras) = (&self.slots, &self.extras);
        self.deadlines.tidy(|s, key| timer_key(slots, extras, s) == Some(key));
    }

    /// The id of our request in slot `s`.
    pub(crate) fn slot_id(&self, s: u32) -> RequestId {
        self.slots.slot(s).key.as_key().to_request_id()
    }
}

/// The deadline key of the timer of our request in slot `s`, if it is one in flight with one.
fn timer_key(slots: &Slots, extras: &Pool<Extra>, s: u32) -> Option<(u64, u64)> {
    let slot = slots.slot(s);
    if slot.ns != Ns::Outbound {
        return None;
    }
    extras.get(slot.extra)?.timer.as_ref()?.key
}

/// Raises `top` (the part's `slot_ints_top`) above integer id `n` going to a slot of ours;
/// with none there yet, it starts again from `n`.
#[inline]
fn raise_top(slots: &Slots, top: &mut i64, n: i64) {
    if slots.count(Ns::Outbound) == 0 {
        *top = 0;
    }
    *top = (*top).max(n.saturating_add(1));
}

/// The integer of an integer's key.
#[inline]
fn number_of(key: Key<'_>) -> Option<i64> {
    match key {
        Key::Packed(p) => p.number(),
        Key::Text(_) => None,
    }
}

// proptest catches a failing case's panic to shrink it: these tests build where panics
// unwind (natively), not in the wasm test build, which aborts on a panic and has no proptest.
#[cfg(all(test, panic = "unwind"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use std::collections::{HashMap, VecDeque};

    use proptest::prelude::*;

    use super::*;
    use crate::core::deadlines::{RequestTimer, Timeout};
    use crate::core::records::Kind;

    /// An id the tables see often: small counter integers (the window), negatives and large
    /// ones (slots), short strings (packed) and long ones (text).
    fn id() -> impl Strategy<Value = RequestId> {
        prop_oneof![
            6 => (0i64..40).prop_map(RequestId::Number),
            1 => (-3i64..0).prop_map(RequestId::Number),
            1 => (2000i64..2004).prop_map(RequestId::Number),
            2 => (0u8..5).prop_map(|n| RequestId::String(format!("r{n}"))),
            1 => (0u8..3).prop_map(|n| RequestId::String(format!("a-request-id-longer-than-packed-{n}"))),
        ]
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// Our request: plain (`None`) or with an extra holding task id `"t<n>"`, progress
        /// token `"q<n>"` (when no request in flight has it) and a timeout of `10 + n` ms.
        Track(RequestId, Option<u8>),
        Remove(RequestId),
        RemovePlain(RequestId),
        Watch(RequestId),
        /// A tombstone, with progress token `p<n>`.
        Tombstone(RequestId, Option<u8>),
        Untomb(RequestId),
        /// The requests whose deadline is at or before this time expire.
        Expire(u64),
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            5 => (id(), prop::option::of(0u8..4)).prop_map(|(id, t)| Op::Track(id, t)),
            2 => id().prop_map(Op::Remove),
            2 => id().prop_map(Op::RemovePlain),
            1 => id().prop_map(Op::Watch),
            2 => (id(), prop::option::of(0u8..3)).prop_map(|(id, t)| Op::Tombstone(id, t)),
            1 => id().prop_map(Op::Untomb),
            1 => (5u64..16).prop_map(Op::Expire),
            1 => Just(Op::Clear),
        ]
    }

    /// What the part should hold, in plain maps.
    #[derive(Default)]
    struct Model {
        /// Our requests: (watched, task id of the extra).
        outbound: HashMap<RequestId, (bool, Option<u8>)>,
        /// Tombstones, oldest first, with their progress tokens; and the tokens' tombstones.
        tombstones: VecDeque<(RequestId, Option<u8>)>,
        dead_tokens: HashMap<u8, RequestId>,
        /// Progress tokens of our requests in flight, and their deadlines.
        tokens: HashMap<u8, RequestId>,
        deadlines: HashMap<RequestId, u64>,
    }

    const CAPACITY: usize = 3;

    impl Model {
        fn forget_tombstone(&mut self, id: &RequestId) {
            if let Some(at) = self.tombstones.iter().position(|(t, _)| t == id) {
                let (_, token) = self.tombstones.remove(at).unwrap();
                if let Some(token) = token {
                    if self.dead_tokens.get(&token) == Some(id) {
                        self.dead_tokens.remove(&token);
                    }
                }
            }
        }
    }

    fn check(requests: &Requests, model: &Model) -> Result<(), TestCaseError> {
        prop_assert_eq!(requests.outbound_len(), model.outbound.len());
        for (id, (watched, t)) in &model.outbound {
            let (at, request) = requests.outbound(Key::of(id)).unwrap();
            prop_assert_eq!(request.watched, *watched);
            prop_assert_eq!(requests.outbound_name(at), "tools/call");
            let task = requests.outbound_extra(at).and_then(|e| e.task_id.clone());
            prop_assert_eq!(task, t.map(|t| format!("t{t}")));
        }
        let listed: HashMap<RequestId, bool> = requests.outbounds().map(|(id, r)| (id, r.watched)).collect();
        prop_assert_eq!(listed.len(), model.outbound.len());
        prop_assert_eq!(requests.tombstones_len(), model.tombstones.len());
        for (id, _) in &model.tombstones {
            prop_assert_eq!(requests.tombstone_method(Key::of(id)), Some("tools/call"));
        }
        for token in 0..3u8 {
            let key = RequestId::String(format!("p{token}"));
            let got = requests.tombstone_of_token(Key::of(&key)).map(|s| requests.tombstone_at(s).0.to_request_id());
            prop_assert_eq!(got.as_ref(), model.dead_tokens.get(&token));
        }
        // Invariant 4: a request's token and deadline are there while it is in flight.
        for token in 0..4u8 {
            let key = RequestId::String(format!("q{token}"));
            let got = requests.token_owner(Key::of(&key)).map(|s| requests.slot_id(s));
            prop_assert_eq!(got.as_ref(), model.tokens.get(&token));
        }
        prop_assert_eq!(requests.next_deadline(), model.deadlines.values().min().copied());
        // Nothing is kept that no record holds: every extra in use belongs to a live slot.
        prop_assert!(requests.extras.live() <= requests.outbound_len() + requests.tombstones_len());
        Ok(())
    }

    proptest! {
        /// Against plain maps: every record is found by its id, in the window or a slot; an
        /// extra leaves with its record; a request with an extra is never taken as plain;
        /// bounded namespaces forget their oldest first; a tombstone's progress token is the
        /// newest tombstone's that has it, and leaves with it; a request's progress token and
        /// deadline are there from its insertion to its removal, and a deadline fires once.
        #[test]
        fn the_requests_keep_what_they_are_given(ops in prop::collection::vec(op(), 1..200)) {
            let mut requests = Requests::new(CAPACITY, 7);
            let mut model = Model::default();
            let plain = Outbound::new(Some(Method::ToolsCall), Kind::Plain, false);
            for op in ops {
                match op {
                    Op::Track(id, t) => {
                        if model.outbound.contains_key(&id) {
                            prop_assert!(requests.has_outbound(Key::of(&id)));
                            if t.is_none() {
                                prop_assert!(!requests.insert_plain(id.as_id_ref(), plain));
                            }
                            continue;
                        }
                        match t {
                            None => prop_assert!(requests.insert_plain(id.as_id_ref(), plain)),
                            Some(t) => {
                                let token = (!model.tokens.contains_key(&t)).then(|| {
                                    model.tokens.insert(t, id.clone());
                                    Key::of(&RequestId::String(format!("q{t}"))).to_owned()
                                });
                                let timeout = Timeout { timeout_ms: Some(10 + u64::from(t)), ..Timeout::NONE };
                                model.deadlines.insert(id.clone(), 10 + u64::from(t));
                                let extra = Extra {
                                    task_id: Some(format!("t{t}")),
                                    progress_token: token,
                                    timer: Some(RequestTimer::start(timeout, 0)),
                                    ..Extra::default()
                                };
                                requests.insert_outbound(Key::of(&id), plain, Some(extra));
                            }
                        }
                        model.outbound.insert(id, (false, t));
                    }
                    Op::Remove(id) => {
                        let got = requests.remove_outbound(Key::of(&id));
                        let want = model.outbound.remove(&id);
                        model.tokens.retain(|_, owner| *owner != id);
                        model.deadlines.remove(&id);
                        prop_assert_eq!(got.is_some(), want.is_some());
                        if let (Some(got), Some((watched, t))) = (got, want) {
                            prop_assert_eq!(got.watched, watched);
                            prop_assert_eq!(got.task_id(), t.map(|t| format!("t{t}")).unwrap_or_default());
                        }
                    }
                    Op::RemovePlain(id) => {
                        let got = requests.remove_plain(id.as_id_ref()).is_some();
                        let want = model.outbound.get(&id).is_some_and(|(_, t)| t.is_none());
                        prop_assert_eq!(got, want);
                        if want {
                            model.outbound.remove(&id);
                        }
                    }
                    Op::Watch(id) => {
                        if let Some((at, _)) = requests.outbound(Key::of(&id)) {
                            requests.watch_outbound(at);
                        }
                        if let Some((watched, _)) = model.outbound.get_mut(&id) {
                            *watched = true;
                        }
                    }
                    Op::Tombstone(id, token) => {
                        let key = token.map(|t| Key::of(&RequestId::String(format!("p{t}"))).to_owned());
                        requests.insert_tombstone(Key::of(&id), Some(Method::ToolsCall), None, key);
                        model.forget_tombstone(&id);
                        model.tombstones.push_back((id.clone(), token));
                        if let Some(t) = token {
                            model.dead_tokens.insert(t, id);
                        }
                        if model.tombstones.len() > CAPACITY {
                            let (oldest, _) = model.tombstones.front().cloned().unwrap();
                            model.forget_tombstone(&oldest);
                        }
                    }
                    Op::Untomb(id) => {
                        let got = requests.remove_tombstone(Key::of(&id)).is_some();
                        prop_assert_eq!(got, model.tombstones.iter().any(|(t, _)| *t == id));
                        model.forget_tombstone(&id);
                    }
                    Op::Expire(now) => {
                        let mut expired = Vec::new();
                        while let Some((s, _)) = requests.pop_expired(now) {
                            expired.push(requests.slot_id(s));
                        }
                        expired.sort_by_key(|id| format!("{id:?}"));
                        let mut want: Vec<RequestId> =
                            model.deadlines.iter().filter(|(_, at)| **at <= now).map(|(id, _)| id.clone()).collect();
                        want.sort_by_key(|id| format!("{id:?}"));
                        prop_assert_eq!(&expired, &want, "each deadline fires once");
                        for id in want {
                            model.deadlines.remove(&id);
                        }
                    }
                    Op::Clear => {
                        requests.clear();
                        model = Model::default();
                    }
                }
                check(&requests, &model)?;
            }
        }
    }
}
