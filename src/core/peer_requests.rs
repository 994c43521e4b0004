//! [`PeerRequests`]: the peer's requests we are working on, and the ones it cancelled until
//! our response to them — what its cancels are checked against and what our responses
//! are suppressed by. Which cancel is valid is the rules' (`inbound`); this part keeps the
//! records.
//!
//! Invariants:
//! 1. A request id is at most once in flight or cancelled, never both: recording a request
//!    forgets a cancelled one of its id (the id names a new request now), and a cancel moves
//!    the record from one to the other.
//! 2. At most `in_flight` requests are in flight and `cancelled` cancelled: past either bound
//!    the oldest goes first (an in-flight one is given back to be reported), so memory stays
//!    flat when the host never reports our responses.
//! 3. A method's name the method table does not know is kept beside its record and leaves
//!    with it.
//!
//! Spec: every revision §Cancellation "Behavior Requirements" (a cancel names a request the
//! peer sent that is in flight) and "Error Handling" (ignore a cancel for an unknown or
//! completed request).

use crate::prelude::*;

use super::id::{IdRef, RequestId};
use super::keys::Key;
use super::method::Method;
use super::pool::Pool;
use super::records::{code_of, slot_name, Extra, TASK, WATCHED};
use super::slots::{Fifo, Ns, Slots};

/// The peer's request as [`PeerRequests`] gives it back.
#[derive(Debug)]
pub(crate) struct PeerRequest {
    /// Its method's name (empty when the caller asked for none).
    pub(crate) method: String,
    pub(crate) watched: bool,
}

#[derive(Debug)]
pub(crate) struct PeerRequests {
    /// In flight in [`Ns::Inbound`], cancelled in [`Ns::PeerCancelled`].
    slots: Slots,
    /// The names of methods the table does not know (in [`Extra::name`]: our requests' kind of
    /// record, so that one pool's code serves both).
    names: Pool<Extra>,
    in_flight: Fifo,
    cancelled: Fifo,
}

impl PeerRequests {
    /// At most `in_flight` requests in flight and `cancelled` cancelled; `seed` seeds the
    /// table's hasher.
    pub(crate) fn new(in_flight: usize, cancelled: usize, seed: u64) -> Self {
        Self {
            slots: Slots::new(seed),
            names: Pool::default(),
            in_flight: Fifo::new(in_flight),
            cancelled: Fifo::new(cancelled),
        }
    }

    /// Forgets every record.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.names.clear();
        self.in_flight.clear();
        self.cancelled.clear();
    }

    /// How many are in flight.
    pub(crate) fn len(&self) -> usize {
        self.slots.count(Ns::Inbound)
    }

    /// How many are cancelled (and not yet answered).
    pub(crate) fn cancelled_len(&self) -> usize {
        self.slots.count(Ns::PeerCancelled)
    }

    pub(crate) fn contains(&self, key: Key<'_>) -> bool {
        self.slots.contains(Ns::Inbound, key)
    }

    pub(crate) fn is_cancelled(&self, key: Key<'_>) -> bool {
        self.slots.contains(Ns::PeerCancelled, key)
    }

    /// The request of `key` in flight: its slot, its method (`None`: one the method table does
    /// not know), and whether it is task-augmented.
    pub(crate) fn get(&self, key: Key<'_>) -> Option<(u32, Option<Method>, bool)> {
        let s = self.slots.find(Ns::Inbound, key)?;
        let slot = self.slots.slot(s);
        Some((s, Method::from_code(u32::from(slot.method)), slot.flags & TASK != 0))
    }

    /// Records the request of `key` (not in flight: the caller checks) of `method`, or of
    /// `name` when the table does not know it; a cancelled one of its id is forgotten
    /// (invariant 1). Past the bound, the oldest in flight is forgotten and given back with
    /// its id (invariant 2).
    pub(crate) fn insert(
        &mut self,
        key: Key<'_>,
        method: Option<Method>,
        name: Option<Box<str>>,
        task: bool,
    ) -> Option<(RequestId, PeerRequest)> {
        if self.cancelled_len() > 0 {
            self.remove_cancelled(key, false);
        }
        let name = self.names.put(name.map(|name| Extra { name: Some(name), ..Extra::default() }));
        let s = self.slots.insert(Ns::Inbound, key, code_of(method), if task { TASK } else { 0 }, name);
        let oldest = self.in_flight.push(&mut self.slots, Ns::Inbound, s)?;
        let id = self.slots.slot(oldest).key.as_key().to_request_id();
        Some((id, self.take(oldest, true)))
    }

    /// Sets a flag (`WATCHED`, `TASK`) of the request of `key`: `false` when it is not in flight.
    pub(crate) fn flag(&mut self, key: Key<'_>, flag: u16) -> bool {
        let Some(s) = self.slots.find(Ns::Inbound, key) else { return false };
        self.slots.slot_mut(s).flags |= flag;
        true
    }

    /// Takes the request of `key` in flight out (its method's name left empty: our response
    /// to it needs none).
    pub(crate) fn remove(&mut self, key: Key<'_>) -> Option<PeerRequest> {
        let s = self.slots.find(Ns::Inbound, key)?;
        Some(self.take(s, false))
    }

    /// Moves the request in slot `s` (found by [`Self::get`]) from in flight to cancelled and
    /// gives its record (its method's name copied when `named`). Past the bound, the oldest
    /// cancelled one is forgotten.
    pub(crate) fn cancel(&mut self, s: u32, named: bool) -> PeerRequest {
        let record = self.record(s, named);
        self.slots.rename(s, Ns::PeerCancelled);
        if let Some(oldest) = self.cancelled.push(&mut self.slots, Ns::PeerCancelled, s) {
            let slot = self.slots.remove(oldest);
            self.names.take(slot.extra);
        }
        record
    }

    /// Forgets the cancelled request of `key`: its method's name (copied when `named`).
    pub(crate) fn remove_cancelled(&mut self, key: Key<'_>, named: bool) -> Option<String> {
        let s = self.slots.find(Ns::PeerCancelled, key)?;
        Some(self.take(s, named).method)
    }

    /// Calls `each` with the id of every watched request in flight (borrowed).
    pub(crate) fn each_watched(&self, mut each: impl FnMut(IdRef<'_>)) {
        for (_, slot) in self.slots.iter(Ns::Inbound) {
            if slot.flags & WATCHED != 0 {
                each(slot.key.as_key().as_id_ref());
            }
        }
    }

    /// Takes slot `s` out; its method's name copied when `named`.
    fn take(&mut self, s: u32, named: bool) -> PeerRequest {
        let record = self.record(s, named);
        let slot = self.slots.remove(s);
        self.names.take(slot.extra);
        record
    }

    /// The record of slot `s`: its method's name copied when `named` (else left empty).
    fn record(&self, s: u32, named: bool) -> PeerRequest {
        let method = if named { slot_name(&self.slots, &self.names, s).owned() } else { String::new() };
        PeerRequest { method, watched: self.slots.slot(s).flags & WATCHED != 0 }
    }
}

// proptest catches a failing case's panic to shrink it: natively only (see `requests`' tests).
#[cfg(all(test, panic = "unwind"))]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::*;

    fn id() -> impl Strategy<Value = RequestId> {
        prop_oneof![
            3 => (0i64..8).prop_map(RequestId::Number),
            2 => (0u8..4).prop_map(|n| RequestId::String(format!("r{n}"))),
            1 => (0u8..2).prop_map(|n| RequestId::String(format!("a-request-id-longer-than-packed-{n}"))),
        ]
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// A request, of `tools/call` or (`true`) of a method the table does not know.
        Insert(RequestId, bool),
        Cancel(RequestId),
        Remove(RequestId),
        RemoveCancelled(RequestId),
        Watch(RequestId),
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (id(), any::<bool>()).prop_map(|(id, other)| Op::Insert(id, other)),
            2 => id().prop_map(Op::Cancel),
            2 => id().prop_map(Op::Remove),
            1 => id().prop_map(Op::RemoveCancelled),
            1 => id().prop_map(Op::Watch),
            1 => Just(Op::Clear),
        ]
    }

    const IN_FLIGHT: usize = 3;
    const CANCELLED: usize = 2;

    fn name(other: bool) -> &'static str {
        if other {
            "custom/run"
        } else {
            "tools/call"
        }
    }

    /// A model record: its id, whether its method is another one, whether it is watched.
    type Record = (RequestId, bool, bool);

    proptest! {
        /// Against two queues, oldest first: each invariant of the module's doc, and every
        /// record given back with its method's name and whether it was watched.
        #[test]
        fn the_peer_requests_keep_what_they_are_given(ops in prop::collection::vec(op(), 1..200)) {
            let mut peers = PeerRequests::new(IN_FLIGHT, CANCELLED, 3);
            let mut in_flight: VecDeque<Record> = VecDeque::new();
            let mut cancelled: VecDeque<Record> = VecDeque::new();
            for op in ops {
                match op {
                    Op::Insert(id, other) => {
                        if in_flight.iter().any(|r| r.0 == id) {
                            prop_assert!(peers.contains(Key::of(&id)));
                            continue;
                        }
                        let (method, named) = if other { (None, Some(name(true).into())) } else { (Some(Method::ToolsCall), None) };
                        let forgotten = peers.insert(Key::of(&id), method, named, false);
                        cancelled.retain(|r| r.0 != id);
                        in_flight.push_back((id, other, false));
                        let want = (in_flight.len() > IN_FLIGHT).then(|| in_flight.pop_front().unwrap());
                        prop_assert_eq!(
                            forgotten.map(|(id, r)| (id, r.method, r.watched)),
                            want.map(|(id, other, watched)| (id, name(other).to_owned(), watched))
                        );
                    }
                    Op::Cancel(id) => {
                        let got = peers.get(Key::of(&id)).map(|(s, ..)| peers.cancel(s, true));
                        let at = in_flight.iter().position(|r| r.0 == id);
                        prop_assert_eq!(got.is_some(), at.is_some());
                        if let (Some(got), Some(at)) = (got, at) {
                            let record = in_flight.remove(at).unwrap();
                            prop_assert_eq!((got.method.as_str(), got.watched), (name(record.1), record.2));
                            cancelled.push_back(record);
                            if cancelled.len() > CANCELLED {
                                cancelled.pop_front();
                            }
                        }
                    }
                    Op::Remove(id) => {
                        let got = peers.remove(Key::of(&id)).map(|r| r.watched);
                        let at = in_flight.iter().position(|r| r.0 == id);
                        prop_assert_eq!(got, at.map(|at| in_flight.remove(at).unwrap().2));
                    }
                    Op::RemoveCancelled(id) => {
                        let got = peers.remove_cancelled(Key::of(&id), true);
                        let at = cancelled.iter().position(|r| r.0 == id);
                        prop_assert_eq!(got, at.map(|at| name(cancelled.remove(at).unwrap().1).to_owned()));
                    }
                    Op::Watch(id) => {
                        let got = peers.flag(Key::of(&id), WATCHED);
                        let record = in_flight.iter_mut().find(|r| r.0 == id);
                        prop_assert_eq!(got, record.is_some());
                        if let Some(record) = record {
                            record.2 = true;
                        }
                    }
                    Op::Clear => {
                        peers.clear();
                        in_flight.clear();
                        cancelled.clear();
                    }
                }
                prop_assert_eq!(peers.len(), in_flight.len());
                prop_assert_eq!(peers.cancelled_len(), cancelled.len());
                for (id, other, _) in &in_flight {
                    prop_assert!(peers.contains(Key::of(id)) && !peers.is_cancelled(Key::of(id)));
                    let (_, method, _) = peers.get(Key::of(id)).unwrap();
                    prop_assert_eq!(method.is_none(), *other);
                }
                for (id, ..) in &cancelled {
                    prop_assert!(peers.is_cancelled(Key::of(id)) && !peers.contains(Key::of(id)));
                }
                let mut watched = Vec::new();
                peers.each_watched(|id| watched.push(id.to_request_id()));
                prop_assert_eq!(watched.len(), in_flight.iter().filter(|r| r.2).count());
                // Invariant 3: no name outlives its record.
                prop_assert!(peers.names.live() <= peers.len() + peers.cancelled_len());
            }
        }
    }
}
