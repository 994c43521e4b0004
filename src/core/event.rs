//! Events: every cancel sent, received, ignored, and every late message dropped.
//!
//! Spec (every revision, §Cancellation "Implementation Notes"): both parties SHOULD log
//! cancellation reasons for debugging; UIs SHOULD indicate that cancellation was requested.

use serde::Serialize;

use super::id::{ProgressToken, RequestId};

/// Which request an event is about: one we sent (`outbound`) or one the peer sent us
/// (`inbound`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// A request we issued; cancels for it go from us to the peer.
    Outbound,
    /// A request the peer issued; cancels for it come from the peer.
    Inbound,
}

/// One cancellation event, drained with [`Session::poll_event`](super::Session::poll_event).
///
/// Serialized for JS as `{ type, direction, requestId, method, reason, … }` with
/// kebab-case `type` (e.g. `"cancel-sent"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// Outbound or inbound request.
    pub direction: Direction,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened, with the request it concerns.
///
/// Reasons in events are capped to [`ReasonPolicy::max_bytes`](super::ReasonPolicy::max_bytes).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum EventKind {
    /// We cancelled a request in flight; `reason` is what went on the wire.
    CancelSent { request_id: RequestId, method: String, reason: Option<String> },
    /// A cancel of ours was not sent: see [`NotSent`].
    CancelNotSent { request_id: RequestId, method: Option<String>, why: NotSent },
    /// The peer validly cancelled a request it sent us: its work is to be aborted.
    CancelReceived { request_id: RequestId, method: String, reason: Option<String> },
    /// The peer's cancel was ignored: see [`Ignored`]. `detail` says what was malformed.
    CancelIgnored { request_id: Option<RequestId>, why: Ignored, detail: Option<String>, reason: Option<String> },
    /// A response (result or error) for a request we cancelled was dropped.
    LateResponseDropped { request_id: RequestId, method: String },
    /// A `notifications/progress` for a request we cancelled was dropped.
    LateProgressDropped { request_id: RequestId, method: String, progress_token: ProgressToken },
    /// Our response to a request the peer cancelled was not sent.
    ResponseSuppressed { request_id: RequestId, method: String },
    /// The peer sent a request with an id it already has in flight; the first one is kept.
    DuplicateRequestId { request_id: RequestId, method: String },
}

/// Why a cancel of ours was not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NotSent {
    /// The request is not in flight: it completed, was already cancelled (the first reason
    /// wins), or was never sent. Spec: a cancel MUST only reference a request believed
    /// to be in progress.
    NotInFlight,
    /// The request is the handshake (`initialize`), which MUST NOT be cancelled
    /// (2024-11-05 .. 2025-11-25 §Cancellation).
    Handshake,
}

/// Why the peer's cancel was ignored (spec, every revision: invalid cancellation
/// notifications SHOULD be ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ignored {
    /// The notification is malformed (the event's `detail` says how).
    Malformed,
    /// No request of the peer's with this id is in flight (unknown or finished).
    NotInFlight,
    /// The id is one of *our* requests: a peer may only cancel requests it issued.
    WrongDirection,
    /// The peer already cancelled this request.
    AlreadyCancelled,
    /// The request is the handshake (`initialize`), which MUST NOT be cancelled.
    Handshake,
}

impl Event {
    pub(crate) fn outbound(kind: EventKind) -> Self {
        Self { direction: Direction::Outbound, kind }
    }

    pub(crate) fn inbound(kind: EventKind) -> Self {
        Self { direction: Direction::Inbound, kind }
    }
}
