//! Requests the peer sends us: recording them (bounded), honouring its cancels, and
//! suppressing our responses to the ones it cancelled.
//!
//! Spec: every revision §Cancellation "Behavior Requirements" and "Error Handling";
//! 2026-07-28: only the client cancels (a server only ends `subscriptions/listen`).

use super::event::{Event, EventKind, Ignored};
use super::id::RequestId;
use super::method::{Method, Name};
use super::output::Output;
use super::requests::Inbound;
use super::revision::PeerCancels;
use super::session::Session;
use super::tombstones::Tombstone;
use super::verdict::{InboundCancelVerdict, OutgoingResponseVerdict};
use super::wire::{cap_utf8, CancelledParams};

impl Session {
    /// Number of the peer's requests we are working on and it has not cancelled.
    #[must_use]
    pub fn inbound_in_flight(&self) -> usize {
        self.inbound.len()
    }

    /// Number of the peer's requests it cancelled whose response we have not handled yet
    /// (at most [`Config::tombstone_capacity`](super::Config::tombstone_capacity)).
    #[must_use]
    pub fn inbound_cancelled(&self) -> usize {
        self.peer_cancelled.len()
    }

    /// Marks the peer's request `id` as watched: the host keeps resources for it and gets
    /// [`Output::PeerCancelled`] or [`Output::InboundSettled`] when it ends. Returns `false`
    /// when the peer has no request `id` in flight.
    pub fn watch_inbound(&mut self, id: &RequestId) -> bool {
        self.inbound.get_mut(id).is_some_and(|r| {
            r.watched = true;
            true
        })
    }

    /// Whether the peer has validly cancelled its request `id`.
    #[must_use]
    pub fn is_cancelled_by_peer(&self, id: &RequestId) -> bool {
        self.peer_cancelled.contains(id)
    }

    /// Records a request the peer sent us. A second request with an id already in flight
    /// is reported ([`EventKind::DuplicateRequestId`]) and the first one kept; returns
    /// `false` then. An id the peer cancelled before is a new request now.
    pub fn handle_request(&mut self, id: RequestId, method: &str) -> bool {
        if self.inbound.contains_key(&id) {
            self.emit(|| Event::inbound(EventKind::DuplicateRequestId { request_id: id, method: method.to_owned() }));
            return false;
        }
        self.peer_cancelled.remove(&id);
        if let Some((old, request)) =
            self.inbound.insert(id, Inbound { method: Name::from(method), watched: false, task: false })
        {
            if request.watched {
                self.outputs.push_back(Output::InboundSettled(old.clone()));
            }
            self.emit(|| {
                Event::inbound(EventKind::InboundForgotten { request_id: old, method: request.method.to_string() })
            });
        }
        true
    }

    /// Records that the peer's request `id` (in flight) is task-augmented (`params.task`):
    /// a `notifications/cancelled` for it is then ignored ([`Ignored::TaskAugmented`]) in a
    /// revision with tasks. [`Self::handle_incoming`] does this for a request read with
    /// [`MessageFields::TASK`](super::MessageFields::TASK).
    pub fn mark_inbound_task(&mut self, id: &RequestId) {
        if let Some(request) = self.inbound.get_mut(id) {
            request.task = true;
        }
    }

    /// Classifies a `notifications/cancelled` from the peer.
    ///
    /// Up to 2025-11-25: valid only for a request the peer sent us that is in flight, not
    /// yet cancelled and not the handshake. In 2026-07-28: valid only to end our own
    /// `subscriptions/listen` request. Anything else is ignored and reported
    /// ([`EventKind::CancelIgnored`]), never an error. A peer's cancel never creates a
    /// tombstone.
    ///
    /// Spec: every revision §Cancellation "Behavior Requirements" and "Error Handling".
    pub fn handle_cancelled(&mut self, params: &CancelledParams) -> InboundCancelVerdict {
        let max = self.config.reason.max_bytes;
        let (id, reason) = match params.validate() {
            Ok((id, reason)) => (id, reason.map(|r| cap_utf8(r, max).to_owned())),
            Err(malformed) => {
                let request_id = params.request_id.to_request_id().ok();
                let reason = match &params.reason {
                    super::wire::PeerValue::String(s) => Some(cap_utf8(s, max).to_owned()),
                    _ => None,
                };
                self.emit(|| {
                    Event::inbound(EventKind::CancelIgnored {
                        request_id,
                        why: Ignored::Malformed,
                        detail: Some(malformed.message()),
                        reason,
                    })
                });
                return InboundCancelVerdict::Ignore;
            }
        };
        if self.rules_peer_cancels() == PeerCancels::OnlyListenStreams {
            let is_listen = self.outbound.get(&id).is_some_and(|o| o.is(Method::SubscriptionsListen));
            if is_listen {
                if let Some(listen) = self.take_outbound(&id) {
                    self.settle(&id, listen.watched);
                }
                self.emit(|| Event::outbound(EventKind::ListenEnded { request_id: id.clone(), reason }));
                return InboundCancelVerdict::ListenEnded { request_id: id };
            }
            self.emit(|| {
                Event::inbound(EventKind::CancelIgnored {
                    request_id: Some(id),
                    why: Ignored::PeerMayNotCancel,
                    detail: Some("in 2026-07-28 a server may only cancel the client's subscriptions/listen".to_owned()),
                    reason,
                })
            });
            return InboundCancelVerdict::Ignore;
        }
        let handshake = self.handshake_method();
        let why = match self.inbound.get(&id) {
            None if self.peer_cancelled.contains(&id) => Ignored::AlreadyCancelled,
            None if self.outbound.contains_key(&id) || self.tombstones.contains(&id) => Ignored::WrongDirection,
            None => Ignored::NotInFlight,
            Some(request) if Some(&*request.method) == handshake => Ignored::Handshake,
            Some(request) if request.task && self.rules().is_some_and(|r| r.tasks != super::TaskCancel::None) => {
                Ignored::TaskAugmented
            }
            Some(_) => {
                let Some(request) = self.inbound.remove(&id) else { return InboundCancelVerdict::Ignore };
                self.emit(|| {
                    Event::inbound(EventKind::CancelReceived {
                        request_id: id.clone(),
                        method: request.method.to_string(),
                        reason: reason.clone(),
                    })
                });
                self.peer_cancelled.insert(id.clone(), Tombstone { method: request.method, progress_token: None });
                self.outputs.push_back(Output::PeerCancelled {
                    request_id: id.clone(),
                    reason: reason.clone(),
                    watched: request.watched,
                });
                return InboundCancelVerdict::Abort { request_id: id, reason };
            }
        };
        self.emit(|| Event::inbound(EventKind::CancelIgnored { request_id: Some(id), why, detail: None, reason }));
        InboundCancelVerdict::Ignore
    }

    /// Classifies the response we are about to send to the peer's request `id`, and
    /// forgets that request. Ids we do not know are [`OutgoingResponseVerdict::Send`].
    pub fn handle_outgoing_response(&mut self, id: &RequestId) -> OutgoingResponseVerdict {
        if let Some(request) = self.inbound.remove(id) {
            if request.watched {
                self.outputs.push_back(Output::InboundSettled(id.clone()));
            }
            return OutgoingResponseVerdict::Send;
        }
        match self.peer_cancelled.remove(id) {
            Some(request) => {
                self.emit(|| {
                    Event::inbound(EventKind::ResponseSuppressed {
                        request_id: id.clone(),
                        method: request.method.to_string(),
                    })
                });
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
