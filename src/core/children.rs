//! [`Children`]: which of our requests were sent for which of the peer's requests — the
//! nested requests (an elicitation, a sampling request) a handler sends while it handles
//! the peer's request, its parent — so that the parent's cancel cancels them too.
//!
//! Invariants:
//! 1. A pair is made only for a child in flight and a parent in flight at that moment
//!    ([`Session::relate`](super::Session::relate) checks both); each child is in at most
//!    one pair.
//! 2. A parent's pairs go when the parent ends, by a cancel ([`Children::take_parent`]: its
//!    children in flight are cancelled) or by our response, or when it is forgotten
//!    ([`Children::forget_parent`]).
//! 3. A pair whose child settled is kept until its parent ends, a new request of ours takes
//!    the child's id ([`Children::forget_child`]), or the next pair finds the list at its
//!    bound: then every such pair goes. So a pair's child, when in flight, is the request it
//!    was made for, and the list never holds more than `2 × (children in flight) + 16` pairs.
//!
//! Spec: every revision §Cancellation "Behavior Requirements": the receiver of a cancel
//! SHOULD stop processing the request and free its resources; a nested request it sent
//! for the request is part of that processing.

use crate::prelude::*;

use super::id::{IdRef, RequestId};
use super::keys::Key;

/// The pairs (parent, child) of the nested requests in flight: the peer's request a
/// request of ours was sent for, and that request.
#[derive(Clone, Debug, Default)]
pub(crate) struct Children {
    pairs: Vec<(RequestId, RequestId)>,
    /// The length at which the next pair first drops the pairs of settled children.
    bound: usize,
}

/// Which end of a pair [`Children::take`] matches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Parent,
    Child,
}

/// The fewest pairs kept before the settled ones are dropped.
const MIN_BOUND: usize = 16;

impl Children {
    /// Whether no pair is kept: every other method is then a no-op (the common session's
    /// every response pays only this).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// How many pairs are kept (for tests of the bound).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Makes `child` a child of `parent` (invariant 1 is the caller's); at the bound, the
    /// pairs whose child `in_flight` says is no longer in flight go first (invariant 3).
    pub(crate) fn relate(&mut self, child: IdRef<'_>, parent: IdRef<'_>, in_flight: impl Fn(Key<'_>) -> bool) {
        let key = Key::of_ref(child);
        if self.pairs.iter().any(|(_, c)| Key::of(c) == key) {
            return;
        }
        if self.pairs.len() >= self.bound.max(MIN_BOUND) {
            self.pairs.retain(|(_, c)| in_flight(Key::of(c)));
            self.bound = 2 * self.pairs.len();
        }
        self.pairs.push((parent.to_request_id(), child.to_request_id()));
    }

    /// The children of `parent`, its pairs gone (invariant 2): the parent was cancelled.
    pub(crate) fn take_parent(&mut self, parent: Key<'_>) -> Vec<RequestId> {
        self.take(Side::Parent, parent)
    }

    /// `parent` ended otherwise (our response, or forgotten): its pairs go, its children are
    /// not touched.
    pub(crate) fn forget_parent(&mut self, parent: Key<'_>) {
        self.take(Side::Parent, parent);
    }

    /// `child`'s pair goes: a new request of ours takes its id, and is nobody's child (yet).
    pub(crate) fn forget_child(&mut self, child: Key<'_>) {
        self.take(Side::Child, child);
    }

    /// Takes out the pairs whose `side` is `key`: their children, oldest first. One loop for
    /// every removal (each `retain` of its own is another copy in the `.wasm`).
    #[inline(never)]
    fn take(&mut self, side: Side, key: Key<'_>) -> Vec<RequestId> {
        let mut taken = Vec::new();
        self.pairs.retain_mut(|(p, c)| {
            let hit = Key::of(if side == Side::Parent { p } else { c }) == key;
            if hit {
                // Moved out of the pair that goes (no copy of a string id).
                taken.push(::core::mem::replace(c, RequestId::Number(0)));
            }
            !hit
        });
        taken
    }

    /// Every pair goes (the connection closed).
    pub(crate) fn clear(&mut self) {
        self.pairs.clear();
        self.bound = 0;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn n(i: i64) -> RequestId {
        RequestId::Number(i)
    }

    #[test]
    fn a_cancelled_parent_gives_its_children_once_and_keeps_the_others() {
        let mut c = Children::default();
        c.relate(IdRef::from(&n(10)), IdRef::from(&n(1)), |_| true);
        c.relate(IdRef::from(&n(11)), IdRef::from(&n(1)), |_| true);
        c.relate(IdRef::from(&n(20)), IdRef::from(&n(2)), |_| true);
        assert_eq!(c.take_parent(Key::of(&n(1))), vec![n(10), n(11)]);
        assert!(c.take_parent(Key::of(&n(1))).is_empty(), "a parent ending twice gives nothing the second time");
        c.forget_parent(Key::of(&n(2)));
        assert!(c.is_empty());
    }

    #[test]
    fn a_child_is_related_once() {
        let mut c = Children::default();
        c.relate(IdRef::from(&n(10)), IdRef::from(&n(1)), |_| true);
        c.relate(IdRef::from(&n(10)), IdRef::from(&n(2)), |_| true);
        assert_eq!(c.len(), 1);
        assert!(c.take_parent(Key::of(&n(2))).is_empty(), "the first parent given is its parent");
        assert_eq!(c.take_parent(Key::of(&n(1))), vec![n(10)]);
    }

    #[test]
    fn settled_children_of_a_long_lived_parent_do_not_grow_the_list() {
        let mut c = Children::default();
        // One parent that sends 10,000 nested requests one after another, each answered
        // before the next: at most one child is in flight at a time.
        for i in 0..10_000 {
            let live = i;
            c.relate(IdRef::from(&n(i)), IdRef::from(&n(-1)), |k| k == Key::of(&n(live)));
            assert!(c.len() <= 2 + MIN_BOUND, "{} pairs after {i}", c.len());
        }
    }
}
