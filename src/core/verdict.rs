//! The answers of the rules: what the host does with a message ([`Verdict`]), a response
//! ([`ResponseVerdict`]), a progress notification ([`ProgressVerdict`]), the peer's cancel
//! ([`InboundCancelVerdict`]) and our response to the peer ([`OutgoingResponseVerdict`]).
//! Types only: the rules that give them are in `message`, `outbound` and `inbound`.

use super::id::RequestId;
use super::method::Fields;
use crate::prelude::*;

/// What to do with a message, from [`Session::handle_incoming`](super::Session::handle_incoming) or
/// [`Session::handle_outgoing`](super::Session::handle_outgoing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum Verdict {
    /// Pass it on (to the application, or to the wire).
    Pass,
    /// Drop it: a late response or progress, our own `tasks/cancel`'s answer, an invalid
    /// cancel from the peer, our response to a request the peer cancelled, or a cancel of
    /// ours that must not go out (or that the session sends itself, in the form the
    /// revision requires: it is in [`Session::poll_output`](super::Session::poll_output)).
    Drop,
    /// Nothing was done: read these members too and call again with the same message.
    NeedFields(Fields),
}

/// What to do with a response (result or error) that arrived from the peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum ResponseVerdict {
    /// It answers a request in flight, which is now complete: deliver it.
    Deliver,
    /// It answers a request we cancelled: drop it (spec: the sender of the cancellation
    /// SHOULD ignore any response that arrives afterward).
    Late,
    /// It answers a request the session sent itself (`tasks/cancel`): do not deliver it.
    Consumed,
    /// No request of ours has this id (never sent, or its tombstone was evicted): the
    /// host decides, as it would without this library.
    Unknown,
}

/// What to do with a `notifications/progress` that arrived from the peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum ProgressVerdict {
    /// Its token belongs to a request in flight: deliver it.
    Deliver,
    /// Its token belongs to a request we cancelled: drop it.
    Late,
    /// The token is not known: the host decides.
    Unknown,
}

/// What to do with a `notifications/cancelled` that arrived from the peer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum InboundCancelVerdict {
    /// A valid cancel of a request the peer sent us: abort its work, and let its
    /// response be suppressed ([`Session::handle_outgoing_response`](super::Session::handle_outgoing_response)). `reason` is capped.
    Abort {
        /// The cancelled request.
        request_id: RequestId,
        /// The peer's reason, capped to [`ReasonPolicy::max_bytes`](super::ReasonPolicy::max_bytes).
        reason: Option<String>,
    },
    /// The peer ended our `subscriptions/listen` request (2026-07-28): that stream is
    /// over; pass the notification on.
    ListenEnded {
        /// Our `subscriptions/listen` request.
        request_id: RequestId,
    },
    /// Invalid (malformed, unknown, finished, wrong direction, duplicate, handshake, or not
    /// allowed in this revision): ignore it; an [`EventKind::CancelIgnored`](super::EventKind::CancelIgnored) says why.
    Ignore,
}

/// What to do with a response we are about to send to one of the peer's requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum OutgoingResponseVerdict {
    /// Send it.
    Send,
    /// The peer cancelled that request: do not send it (spec: the receiver of a cancel
    /// SHOULD NOT send a response for the cancelled request).
    Suppress,
}
