//! Requests the peer sends us: recording them (bounded), honouring its cancels, and
//! suppressing our responses to the ones it cancelled.
//!
//! Spec: every revision §Cancellation "Behavior Requirements" and "Error Handling";
//! 2026-07-28: only the client cancels (a server only ends `subscriptions/listen`).

use super::event::{EventKindOf, EventRef, Ignored};
use super::id::{IdRef, RequestId};
use super::keys::Key;
use super::method::Method;
use super::output::Sink;
use super::peer_requests::PeerRequest;
use super::records::{TASK, WATCHED};
use super::revision::PeerCancels;
use super::session::{emit, Session};
use super::verdict::{InboundCancelVerdict, OutgoingResponseVerdict};
use super::wire::{cap_utf8, CancelledParams};
use crate::prelude::*;

impl<S: Sink> Session<S> {
    /// Number of the peer's requests we are working on and it has not cancelled.
    #[must_use]
    pub fn inbound_in_flight(&self) -> usize {
        self.peer_requests.len()
    }

    /// Number of the peer's requests it cancelled whose response we have not handled yet
    /// (at most [`Config::tombstone_capacity`](super::Config::tombstone_capacity)).
    #[must_use]
    pub fn inbound_cancelled(&self) -> usize {
        self.peer_requests.cancelled_len()
    }

    /// Marks the peer's request `id` as watched: the host keeps resources for it and gets
    /// [`Output::PeerCancelled`](super::Output::PeerCancelled) or
    /// [`Output::InboundSettled`](super::Output::InboundSettled) when it ends. Returns `false`
    /// when the peer has no request `id` in flight.
    pub fn watch_inbound<'i>(&mut self, id: impl Into<IdRef<'i>>) -> bool {
        self.peer_requests.flag(Key::of_ref(id.into()), WATCHED)
    }

    /// Whether the peer has validly cancelled its request `id`.
    #[must_use]
    pub fn is_cancelled_by_peer<'i>(&self, id: impl Into<IdRef<'i>>) -> bool {
        self.peer_requests.is_cancelled(Key::of_ref(id.into()))
    }

    /// Records a request the peer sent us. A second request with an id already in flight
    /// is reported ([`EventKind::DuplicateRequestId`](super::EventKind::DuplicateRequestId)) and
    /// the first one kept; returns
    /// `false` then. An id the peer cancelled before is a new request now.
    pub fn handle_request(&mut self, id: RequestId, method: &str) -> bool {
        self.record_request(Key::of(&id), Method::from_name(method), method, false)
    }

    /// The one place a peer's request is recorded (nothing allocated for an id of up to 11
    /// bytes, or an integer).
    pub(super) fn record_request(&mut self, id: Key<'_>, method: Option<Method>, name: &str, task: bool) -> bool {
        if self.peer_requests.contains(id) {
            emit!(
                self,
                EventRef::inbound(EventKindOf::DuplicateRequestId { request_id: id.as_id_ref(), method: name })
            );
            return false;
        }
        let other = if method.is_none() { Some(name.into()) } else { None };
        if let Some((old, request)) = self.peer_requests.insert(id, method, other, task) {
            if request.watched {
                self.out.settled(old.as_id_ref(), true);
            }
            if !self.children.is_empty() {
                self.children.forget_parent(Key::of(&old));
            }
            let method = &request.method;
            emit!(self, EventRef::inbound(EventKindOf::InboundForgotten { request_id: old.as_id_ref(), method }));
        }
        true
    }

    /// Records that the peer's request `id` (in flight) is task-augmented (`params.task`):
    /// a `notifications/cancelled` for it is then ignored ([`Ignored::TaskAugmented`]) in a
    /// revision with tasks. [`Self::handle_incoming`] does this for a request read with
    /// [`MessageFields::TASK`](super::MessageFields::TASK).
    pub fn mark_inbound_task<'i>(&mut self, id: impl Into<IdRef<'i>>) {
        self.peer_requests.flag(Key::of_ref(id.into()), TASK);
    }

    /// Classifies a `notifications/cancelled` from the peer.
    ///
    /// Up to 2025-11-25: valid only for a request the peer sent us that is in flight, not
    /// yet cancelled and not the handshake. In 2026-07-28: valid only to end our own
    /// `subscriptions/listen` request. Anything else is ignored and reported
    /// ([`EventKind::CancelIgnored`](super::EventKind::CancelIgnored)), never an error. A peer's cancel never creates a
    /// tombstone.
    ///
    /// Spec: every revision §Cancellation "Behavior Requirements" and "Error Handling".
    pub fn handle_cancelled(&mut self, params: &CancelledParams<'_>) -> InboundCancelVerdict {
        match self.peer_cancel(params) {
            PeerCancel::Abort { request_id, reason } => {
                InboundCancelVerdict::Abort { request_id: request_id.to_request_id(), reason: reason.map(str::owned) }
            }
            PeerCancel::ListenEnded { request_id } => {
                InboundCancelVerdict::ListenEnded { request_id: request_id.to_request_id() }
            }
            PeerCancel::Ignore => InboundCancelVerdict::Ignore,
        }
    }

    /// The one path of a peer's `notifications/cancelled` ([`Self::handle_cancelled`],
    /// [`Self::handle_incoming`]): what it decided, borrowing the id and the (capped) reason
    /// from `params` (nothing allocated for them).
    pub(super) fn peer_cancel<'p>(&mut self, params: &CancelledParams<'p>) -> PeerCancel<'p> {
        let max = self.config.reason.max_bytes;
        let (id, reason) = match params.validate_ref() {
            Ok((id, reason)) => (id, reason.map(|r| cap_utf8(r, max))),
            Err(malformed) => {
                if self.config.events {
                    let request_id = params.request_id.to_id_ref().ok();
                    let reason = match &params.reason {
                        super::wire::PeerValue::String(s) => Some(cap_utf8(s, max)),
                        _ => None,
                    };
                    let detail = malformed.message();
                    self.out.event(EventRef::inbound(EventKindOf::CancelIgnored {
                        request_id,
                        why: Ignored::Malformed,
                        detail: Some(&detail),
                        reason,
                    }));
                }
                return PeerCancel::Ignore;
            }
        };
        let request_id = id;
        let key = Key::of_ref(id);
        if self.rules_peer_cancels() == PeerCancels::OnlyListenStreams {
            let is_listen = self.requests.outbound(key).is_some_and(|(_, o)| o.is(Method::SubscriptionsListen));
            if is_listen {
                if let Some(listen) = self.take_outbound(key) {
                    self.settle(id, listen.watched);
                }
                emit!(self, EventRef::outbound(EventKindOf::ListenEnded { request_id, reason }));
                return PeerCancel::ListenEnded { request_id: id };
            }
            emit!(
                self,
                EventRef::inbound(EventKindOf::CancelIgnored {
                    request_id: Some(request_id),
                    why: Ignored::PeerMayNotCancel,
                    detail: Some("in 2026-07-28 a server may only cancel the client's subscriptions/listen"),
                    reason,
                })
            );
            return PeerCancel::Ignore;
        }
        match self.take_cancelled(key) {
            Ok(request) => {
                let method = &request.method;
                emit!(self, EventRef::inbound(EventKindOf::CancelReceived { request_id, method, reason }));
                self.out.peer_cancelled(request_id, reason, request.watched);
                if !self.children.is_empty() {
                    self.cascade(key);
                }
                PeerCancel::Abort { request_id: id, reason }
            }
            Err(why) => {
                emit!(
                    self,
                    EventRef::inbound(EventKindOf::CancelIgnored {
                        request_id: Some(request_id),
                        why,
                        detail: None,
                        reason
                    })
                );
                PeerCancel::Ignore
            }
        }
    }

    /// The peer's valid cancel of its request `id` in flight: the request, now forgotten,
    /// with a tombstone so that our response is suppressed; or why the cancel is ignored.
    /// A peer's cancel never creates a tombstone of ours.
    fn take_cancelled(&mut self, id: Key<'_>) -> Result<PeerRequest, Ignored> {
        let why = match self.peer_requests.get(id) {
            None if self.peer_requests.is_cancelled(id) => Ignored::AlreadyCancelled,
            None if self.requests.has_tombstone(id) || self.requests.has_outbound(id) => Ignored::WrongDirection,
            None => Ignored::NotInFlight,
            // The handshake is `initialize` in every revision that has one (its code: no
            // name compared, on bench scenario 3's path).
            Some((_, Some(Method::Initialize), _)) if self.handshake_method().is_some() => Ignored::Handshake,
            Some((_, _, task)) if task && self.rules().is_some_and(|r| r.tasks != super::TaskCancel::None) => {
                Ignored::TaskAugmented
            }
            Some((s, ..)) => return Ok(self.peer_requests.cancel(s, self.config.events)),
        };
        Err(why)
    }

    /// Classifies the response we are about to send to the peer's request `id`, and
    /// forgets that request (a watched one gets its
    /// [`Output::InboundSettled`](super::Output::InboundSettled)). Ids we do not know are
    /// [`OutgoingResponseVerdict::Send`].
    ///
    /// Spec: every revision §Cancellation "Behavior Requirements" (the receiver of a cancel
    /// SHOULD NOT send a response for the cancelled request).
    pub fn handle_outgoing_response<'i>(&mut self, id: impl Into<IdRef<'i>>) -> OutgoingResponseVerdict {
        let id = id.into();
        let key = Key::of_ref(id);
        if let Some(request) = self.peer_requests.remove(key) {
            if request.watched {
                self.out.settled(id, true);
            }
            if !self.children.is_empty() {
                self.children.forget_parent(key);
            }
            return OutgoingResponseVerdict::Send;
        }
        if self.peer_requests.cancelled_len() == 0 {
            return OutgoingResponseVerdict::Send;
        }
        match self.peer_requests.remove_cancelled(key, self.config.events) {
            Some(method) => {
                emit!(self, EventRef::inbound(EventKindOf::ResponseSuppressed { request_id: id, method: &method }));
                OutgoingResponseVerdict::Suppress
            }
            None => OutgoingResponseVerdict::Send,
        }
    }

    /// What the peer may cancel: the revision's rule for a peer that is a server; a client
    /// (we are the server) may always cancel its own requests.
    pub(super) fn rules_peer_cancels(&self) -> PeerCancels {
        if self.config.role == super::Role::Server {
            return PeerCancels::OwnRequests;
        }
        self.rules().map_or(PeerCancels::OwnRequests, |r| r.peer_cancels)
    }
}

/// What the peer's `notifications/cancelled` did ([`Session::peer_cancel`]): an
/// [`InboundCancelVerdict`] that borrows its id and reason from the cancel's params.
pub(super) enum PeerCancel<'p> {
    /// As [`InboundCancelVerdict::Abort`].
    Abort { request_id: IdRef<'p>, reason: Option<&'p str> },
    /// As [`InboundCancelVerdict::ListenEnded`].
    ListenEnded { request_id: IdRef<'p> },
    /// As [`InboundCancelVerdict::Ignore`].
    Ignore,
}
