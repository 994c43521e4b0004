//! The shared handshake: the upstream's `initialize` (up to 2025-11-25), made once for every
//! client of the relay. The first client's goes through; while it is pending the others'
//! wait for it ([`Forward::Hold`](crate::core::Forward::Hold)); once answered, every later
//! one is answered from its result ([`Forward::AnswerHandshake`](crate::core::Forward::AnswerHandshake)),
//! and `notifications/initialized` goes up once.
//!
//! [`SharedHandshake`] keeps where the handshake is; the relay sends, answers and fails.

use crate::prelude::*;

use super::super::id::RequestId;
use super::super::method::Method;
use super::http::http_session_revisions;
use super::ids::Link;

/// Where the upstream handshake is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum State {
    /// Not made yet (or to be made again: it failed, or the upstream connection closed).
    #[default]
    None,
    /// Sent upstream as this id; these clients' `initialize` wait for it.
    Pending { upstream_id: u64, waiting: Vec<(Link, RequestId)> },
    /// Answered; `initialized` tells whether `notifications/initialized` went up.
    Done { initialized: bool },
}

/// The upstream handshake, made once for every client.
///
/// Invariants:
/// - at most one `initialize` is upstream at a time ([`Self::pending`]): the others are
///   held until it is answered, then answered from its result or failed with it;
/// - the pending `initialize` is never cancelled (2024-11-05 .. 2025-11-25: `initialize`
///   MUST NOT be), so the relay asks [`Self::pending`] before it cancels or counts a request;
/// - the held requests are those of clients still connected ([`Self::forget`]);
/// - `notifications/initialized` goes up at most once per handshake answered.
#[derive(Debug, Default)]
pub(super) struct SharedHandshake {
    state: State,
}

impl SharedHandshake {
    /// Whether the handshake is answered: a client's `initialize` is answered from its result.
    pub(super) fn is_done(&self) -> bool {
        matches!(self.state, State::Done { .. })
    }

    /// The upstream id of the `initialize` the handshake waits for.
    pub(super) fn pending(&self) -> Option<u64> {
        match self.state {
            State::Pending { upstream_id, .. } => Some(upstream_id),
            _ => None,
        }
    }

    /// Client `link`'s `initialize` requests held for the pending handshake: how many, and
    /// whether `id` is one of them.
    pub(super) fn held(&self, link: Link, id: &RequestId) -> (usize, bool) {
        let State::Pending { waiting, .. } = &self.state else { return (0, false) };
        waiting.iter().filter(|(l, _)| *l == link).fold((0, false), |(n, seen), (_, w)| (n + 1, seen || w == id))
    }

    /// Holds client `link`'s `initialize` `id` when the handshake is pending (`true`); else
    /// nothing (`false`).
    pub(super) fn hold(&mut self, link: Link, id: RequestId) -> bool {
        let State::Pending { waiting, .. } = &mut self.state else { return false };
        waiting.push((link, id));
        true
    }

    /// The `initialize` went upstream as `upstream_id`: the handshake is pending.
    pub(super) fn start(&mut self, upstream_id: u64) {
        self.state = State::Pending { upstream_id, waiting: Vec::new() };
    }

    /// The server answered `up`. When that is the pending `initialize`: the requests held
    /// for it, to answer from its result (`succeeded`: the handshake is done) or to fail (it
    /// is to be made again). `None` for any other request.
    pub(super) fn complete(&mut self, up: u64, succeeded: bool) -> Option<Vec<(Link, RequestId)>> {
        if self.pending() != Some(up) {
            return None;
        }
        let State::Pending { waiting, .. } = ::core::mem::take(&mut self.state) else { return None };
        if succeeded {
            self.state = State::Done { initialized: false };
        }
        Some(waiting)
    }

    /// The handshake is to be made again (the upstream connection closed, or the pending
    /// `initialize` could not be sent): the requests held for it, to fail.
    pub(super) fn reset(&mut self) -> Vec<(Link, RequestId)> {
        match ::core::mem::take(&mut self.state) {
            State::Pending { waiting, .. } => waiting,
            _ => Vec::new(),
        }
    }

    /// A client's `notifications/initialized`: whether it goes upstream (the first after the
    /// handshake is answered, or any while the relay makes none; not while it is pending).
    pub(super) fn pass_initialized(&mut self) -> bool {
        match &mut self.state {
            State::Done { initialized } if !*initialized => {
                *initialized = true;
                true
            }
            State::Done { .. } | State::Pending { .. } => false,
            State::None => true,
        }
    }

    /// Client `link` is gone: its held requests are forgotten (the pending `initialize`
    /// itself stays, for the others).
    pub(super) fn forget(&mut self, link: Link) {
        if let State::Pending { waiting, .. } = &mut self.state {
            waiting.retain(|(l, _)| *l != link);
        }
    }
}

/// The `initialize` a relay sends upstream itself when a client of a revision
/// without a handshake (2026-07-28) comes before any client that makes one: the newest
/// revision with a handshake, no client capabilities (the relay cannot promise any on behalf
/// of clients it has not seen), and `client_info` (`{ name, version }`). Spec 2025-11-25
/// Lifecycle §Initialization.
///
/// Returns the two messages to send, in order: the `initialize` request (id 0), and once it
/// is answered, `notifications/initialized`.
#[must_use]
pub fn relay_handshake(client_info: serde_json::Value) -> [serde_json::Value; 2] {
    let version = http_session_revisions().last().copied().unwrap_or("2025-11-25");
    [
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": Method::Initialize.name(),
            "params": { "protocolVersion": version, "capabilities": {}, "clientInfo": client_info },
        }),
        serde_json::json!({ "jsonrpc": "2.0", "method": Method::Initialized.name() }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: i64) -> RequestId {
        RequestId::Number(i)
    }

    #[test]
    fn while_the_handshake_is_pending_later_initialize_requests_are_held_and_answered_with_it() {
        let mut h = SharedHandshake::default();
        assert!(!h.hold(Link(0), n(0)), "nothing to wait for yet");
        h.start(1);
        assert_eq!(h.pending(), Some(1));
        assert!(h.hold(Link(1), n(0)) && h.hold(Link(1), n(5)) && h.hold(Link(2), n(0)));
        assert_eq!(h.held(Link(1), &n(5)), (2, true));
        assert_eq!(h.held(Link(1), &n(6)), (2, false));
        assert_eq!(h.complete(2, true), None, "another request's answer");
        h.forget(Link(2));
        assert_eq!(h.complete(1, true), Some(vec![(Link(1), n(0)), (Link(1), n(5))]));
        assert!(h.is_done());
        assert_eq!((h.pending(), h.held(Link(1), &n(0))), (None, (0, false)));
        assert!(!h.hold(Link(3), n(0)), "answered from the result, not held");
    }

    #[test]
    fn a_failed_handshake_fails_the_held_requests_and_is_made_again() {
        let mut h = SharedHandshake::default();
        h.start(1);
        assert!(h.hold(Link(1), n(0)));
        assert_eq!(h.complete(1, false), Some(vec![(Link(1), n(0))]));
        assert!(!h.is_done() && h.pending().is_none());
        h.start(2);
        assert!(h.hold(Link(2), n(0)));
        assert_eq!(h.reset(), vec![(Link(2), n(0))]);
        assert_eq!(h.pending(), None);
        // A handshake answered is made again after the upstream closes.
        h.start(3);
        assert_eq!(h.complete(3, true), Some(Vec::new()));
        assert_eq!(h.reset(), Vec::new());
        assert!(!h.is_done());
    }

    #[test]
    fn notifications_initialized_goes_up_once_per_handshake_and_never_while_it_is_pending() {
        let mut h = SharedHandshake::default();
        assert!(h.pass_initialized() && h.pass_initialized(), "the relay makes no handshake: each goes up");
        h.start(1);
        assert!(!h.pass_initialized());
        assert_eq!(h.complete(1, true), Some(Vec::new()));
        assert!(h.pass_initialized());
        assert!(!h.pass_initialized());
        let _ = h.reset();
        h.start(2);
        assert_eq!(h.complete(2, true), Some(Vec::new()));
        assert!(h.pass_initialized(), "once again for the handshake made again");
    }

    #[test]
    fn the_relays_own_handshake_is_the_newest_revision_with_one_and_then_initialized() {
        let [initialize, initialized] = relay_handshake(serde_json::json!({ "name": "r", "version": "1" }));
        assert_eq!(initialize["method"], "initialize");
        assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
        assert_eq!(initialize["params"]["clientInfo"]["name"], "r");
        assert_eq!(initialized["method"], "notifications/initialized");
    }
}
