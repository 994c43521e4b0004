//! Clients that vanish without a word (their process killed, their machine asleep): the
//! policy per client ([`Vanish`]), what the relay reports of it ([`ClientEvent`],
//! [`StreamClosed`]), and the relay's own deadlines for it ([`Vanishing`]): the resume
//! grace of a request whose response stream closed, and each client's idle time to live.
//!
//! [`Vanishing`] keeps the deadlines and says which fell due; the relay cancels, fails and
//! ends.

use crate::prelude::*;
use ::core::cmp::Reverse;
use alloc::collections::BinaryHeap;

// The relay's items these docs link to; the relay uses this part, never the other way.
#[cfg(doc)]
use crate::core::{Failure, Relay, RelayOutput};

use super::super::deadlines::Millis;
use super::super::id::RequestId;
use super::super::{seeded, IdMap};
use super::ids::Link;

/// How the relay treats a client that may vanish without a word (its process killed, its
/// machine asleep): set per client with [`Relay::connect_with`]; both off by default, as
/// for [`Relay::connect`].
///
/// Spec, Streamable HTTP (2025-03-26 .. 2025-11-25, "Sending Messages to the Server" and
/// "Resumability and Redelivery"): a closed response stream "SHOULD NOT be interpreted as
/// the client cancelling its request", and the server may let the client resume it with
/// `Last-Event-ID`; "Session Management": the server MAY terminate a session at any time,
/// and then answers its requests with 404. A relay that waits for a vanished client's
/// cancel forever keeps its work running upstream, and its answers go nowhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vanish {
    /// In revisions where a closed response stream is not a cancel (before 2026-07-28), how
    /// long, in ms, a request whose stream closed waits for a stream of its client to
    /// resume it ([`Relay::handle_downstream_stream_resumed`]) before the relay cancels it
    /// upstream with the reason "Client vanished: its response stream closed and was not
    /// resumed within `<grace>` ms". `Some(0)`: at once. `None`: never (the request runs on).
    pub resume_grace: Option<Millis>,
    /// How long, in ms, the client may stay silent (no message, no [`Relay::heard`])
    /// before the relay ends it: its requests in flight get [`Failure::SessionExpired`] and
    /// are cancelled upstream ("Client session expired: no request for `<ttl>` ms"), the
    /// server's requests to it are refused, and [`RelayOutput::EndClient`] tells the host to
    /// close its connection. A request in flight does not keep the client alive. `None`:
    /// never.
    pub idle_ttl: Option<Millis>,
}

/// What happened to a client that may have vanished ([`RelayOutput::ClientEvent`]). Ids
/// are the client's own (`id`) and the relay's upstream ones (`upstream_id`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientEvent {
    /// The response stream of request `id` closed with the request in flight: it is
    /// cancelled upstream after `grace` ms unless a stream of the client resumes it.
    StreamLost {
        /// The client's request.
        id: RequestId,
        /// Its upstream id.
        upstream_id: u64,
        /// The resume grace, ms.
        grace: Millis,
    },
    /// A stream of the client resumed request `id` within the grace.
    StreamResumed {
        /// The client's request.
        id: RequestId,
        /// Its upstream id, while it is in flight (`None`: it was answered meanwhile).
        upstream_id: Option<u64>,
    },
    /// No stream resumed request `id` within `grace` ms: it is cancelled upstream with
    /// `reason`, and its client gets no answer.
    NotResumed {
        /// The client's request.
        id: RequestId,
        /// Its upstream id.
        upstream_id: u64,
        /// The resume grace, ms.
        grace: Millis,
        /// The reason of the upstream cancel.
        reason: String,
    },
    /// The client was not heard from for `ttl` ms: it is ended ([`RelayOutput::EndClient`]);
    /// `requests` (its id, the upstream id) were in flight: each is answered with
    /// [`Failure::SessionExpired`] and cancelled upstream with `reason`.
    SessionExpired {
        /// The idle time to live, ms.
        ttl: Millis,
        /// Its requests in flight, by upstream id.
        requests: Vec<(RequestId, u64)>,
        /// The reason of the upstream cancels.
        reason: String,
    },
}

/// What closing a request's response stream did ([`Relay::handle_downstream_stream_closed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum StreamClosed {
    /// Nothing: an unknown client, a request not in flight, the handshake, or a close that
    /// is not a cancel in the client's revision and no [`Vanish::resume_grace`].
    Ignored,
    /// The request is cancelled upstream now: the client's cancel (2026-07-28 over
    /// Streamable HTTP), or a resume grace of 0.
    Cancelled,
    /// The request is cancelled upstream at `until` (ms, the clock of `now`) unless a stream
    /// of the client resumes it first.
    AwaitingResume {
        /// When the grace ends.
        until: Millis,
    },
}

/// A deadline of the relay's own, in a heap apart from the clients it is for; checked
/// against them when it falls due (a client may have moved on meanwhile).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Due {
    at: Millis,
    link: Link,
    what: DueWhat,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum DueWhat {
    /// The client's idle time to live, counted from when it was last heard from: one per
    /// client with an [`Vanish::idle_ttl`], pushed again when it falls due early.
    Idle,
    /// The resume grace of the client's request whose stream closed.
    Resume(RequestId),
}

/// What the relay knows of a client with a [`Vanish`] policy.
#[derive(Debug)]
struct Watch {
    vanish: Vanish,
    /// When the client was last heard from (ms).
    heard: Millis,
    /// Its requests whose response stream closed, waiting to be resumed → when the grace
    /// ends, and the upstream id they had then (an id the client reuses later is another
    /// request).
    lost: IdMap<(Millis, u64)>,
}

/// A deadline of [`Vanishing`] that fell due.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Fell {
    /// Client `link` was not heard from for its idle time to live `ttl` (ms).
    Idle { link: Link, ttl: Millis },
    /// No stream resumed client `link`'s request `id` within `grace` ms; it was in flight
    /// upstream as `up` when its stream closed (the relay checks that it still is).
    NotResumed { link: Link, id: RequestId, up: u64, grace: Millis },
}

/// The clients with a [`Vanish`] policy, and their deadlines.
///
/// Invariants:
/// - only a client with a policy (not [`Vanish::default`]) is watched, and a client
///   forgotten ([`Self::forget`]) leaves no deadline behind;
/// - a watched client with an idle time to live has one idle deadline, never later than
///   its last word plus its time to live; falling due early, it is pushed again;
/// - a deadline is checked against its client when it falls due: one that no longer holds
///   (the client heard from since, the stream resumed or lost again since) does nothing,
///   so nothing needs to be taken out of the heap when a client moves on.
#[derive(Debug)]
pub(super) struct Vanishing {
    clients: hashbrown::HashMap<Link, Watch, foldhash::fast::FixedState>,
    /// The deadlines, earliest first.
    due: BinaryHeap<Reverse<Due>>,
    /// The seed of the clients' maps: client `link`'s is this plus `link`, rotated.
    seed: u64,
}

impl Vanishing {
    /// No client watched; `seed` seeds the clients' maps.
    pub(super) fn new(seed: u64) -> Self {
        Self { clients: seeded(seed.rotate_left(13)), due: BinaryHeap::new(), seed }
    }

    /// Client `link` connected at `now` (ms) with policy `vanish`: watched when it has one,
    /// its idle time to live counted from `now`.
    pub(super) fn watch(&mut self, link: Link, vanish: Vanish, now: Millis) {
        if vanish == Vanish::default() {
            return;
        }
        let seed = self.seed.wrapping_add(u64::from(link.0)).rotate_left(7);
        self.clients.insert(link, Watch { vanish, heard: now, lost: seeded(seed) });
        if let Some(ttl) = vanish.idle_ttl {
            self.due.push(Reverse(Due { at: now.saturating_add(ttl), link, what: DueWhat::Idle }));
        }
    }

    /// Client `link` was heard from at `now` (ms).
    pub(super) fn heard(&mut self, link: Link, now: Millis) {
        if let Some(w) = self.clients.get_mut(&link) {
            w.heard = w.heard.max(now);
        }
    }

    /// Client `link`'s resume grace (ms), when it has one.
    pub(super) fn resume_grace(&self, link: Link) -> Option<Millis> {
        self.clients.get(&link).and_then(|w| w.vanish.resume_grace)
    }

    /// Client `link`'s request `id`, in flight upstream as `up`, lost its stream: it waits
    /// to be resumed until `until` (ms).
    pub(super) fn lose(&mut self, link: Link, id: &RequestId, up: u64, until: Millis) {
        let Some(w) = self.clients.get_mut(&link) else { return };
        w.lost.insert(id.clone(), (until, up));
        self.due.push(Reverse(Due { at: until, link, what: DueWhat::Resume(id.clone()) }));
    }

    /// A stream of client `link` resumed its request `id`: whether it was waiting to be.
    pub(super) fn resume(&mut self, link: Link, id: &RequestId) -> bool {
        self.clients.get_mut(&link).is_some_and(|w| w.lost.remove(id).is_some())
    }

    /// When the next deadline falls due (ms; it may fall due early, and do nothing).
    pub(super) fn next_deadline(&self) -> Option<Millis> {
        self.due.peek().map(|Reverse(due)| due.at)
    }

    /// The next deadline due by `now` (ms) that holds, if any: call again until `None`.
    pub(super) fn fall_due(&mut self, now: Millis) -> Option<Fell> {
        while let Some(Reverse(due)) = self.due.peek() {
            if due.at > now {
                return None;
            }
            let Reverse(due) = self.due.pop()?;
            let Some(w) = self.clients.get_mut(&due.link) else { continue };
            match due.what {
                DueWhat::Idle => {
                    let Some(ttl) = w.vanish.idle_ttl else { continue };
                    let end = w.heard.saturating_add(ttl);
                    if end > now {
                        self.due.push(Reverse(Due { at: end, link: due.link, what: DueWhat::Idle }));
                        continue;
                    }
                    return Some(Fell::Idle { link: due.link, ttl });
                }
                DueWhat::Resume(id) => {
                    // Still waiting for this very grace (not resumed, not lost again since)?
                    let Some(&(until, up)) = w.lost.get(&id) else { continue };
                    if until != due.at {
                        continue;
                    }
                    w.lost.remove(&id);
                    let grace = w.vanish.resume_grace.unwrap_or(0);
                    return Some(Fell::NotResumed { link: due.link, id, up, grace });
                }
            }
        }
        None
    }

    /// Client `link` is gone: it is no longer watched, and its deadlines are dropped.
    pub(super) fn forget(&mut self, link: Link) {
        if self.clients.remove(&link).is_some() {
            self.due.retain(|Reverse(due)| due.link != link);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: i64) -> RequestId {
        RequestId::Number(i)
    }

    fn all_due(v: &mut Vanishing, now: Millis) -> Vec<Fell> {
        core::iter::from_fn(|| v.fall_due(now)).collect()
    }

    #[test]
    fn a_client_without_a_policy_is_not_watched() {
        let mut v = Vanishing::new(0);
        v.watch(Link(0), Vanish::default(), 0);
        v.lose(Link(0), &n(1), 1, 10);
        assert_eq!((v.next_deadline(), v.resume_grace(Link(0)), v.resume(Link(0), &n(1))), (None, None, false));
        assert_eq!(all_due(&mut v, u64::MAX), Vec::new());
    }

    #[test]
    fn the_idle_deadline_counts_from_the_clients_last_word_and_falls_due_early_without_effect() {
        let mut v = Vanishing::new(0);
        v.watch(Link(0), Vanish { resume_grace: None, idle_ttl: Some(100) }, 10);
        assert_eq!(v.next_deadline(), Some(110));
        v.heard(Link(0), 60);
        v.heard(Link(0), 50);
        assert_eq!(all_due(&mut v, 110), Vec::new(), "heard from at 60: not idle yet");
        assert_eq!(v.next_deadline(), Some(160));
        assert_eq!(all_due(&mut v, 160), vec![Fell::Idle { link: Link(0), ttl: 100 }]);
        v.forget(Link(0));
        assert_eq!(v.next_deadline(), None, "a client forgotten leaves no deadline");
    }

    #[test]
    fn a_lost_request_falls_due_once_for_its_latest_grace_unless_resumed() {
        let mut v = Vanishing::new(0);
        v.watch(Link(1), Vanish { resume_grace: Some(50), idle_ttl: None }, 0);
        assert_eq!(v.resume_grace(Link(1)), Some(50));
        v.lose(Link(1), &n(1), 7, 50);
        v.lose(Link(1), &n(2), 8, 60);
        assert!(v.resume(Link(1), &n(2)));
        assert!(!v.resume(Link(1), &n(2)), "resumed already");
        // Lost again later: only the later grace counts.
        v.lose(Link(1), &n(1), 7, 80);
        assert_eq!(all_due(&mut v, 70), Vec::new());
        assert_eq!(all_due(&mut v, 80), vec![Fell::NotResumed { link: Link(1), id: n(1), up: 7, grace: 50 }]);
        assert_eq!((v.next_deadline(), v.resume(Link(1), &n(1))), (None, false));
    }
}
