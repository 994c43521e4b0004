//! Events: every cancel sent, received, ignored, and every late message dropped.
//!
//! Spec (every revision, §Cancellation "Implementation Notes"): both parties SHOULD log
//! cancellation reasons for debugging; UIs SHOULD indicate that cancellation was requested.

use crate::prelude::*;
use serde::Serialize;

use super::deadlines::TimeoutKind;
use super::id::{IdRef, RequestId};
use super::revision::Revision;

/// Which request an event is about: one we sent (`outbound`) or one the peer sent us
/// (`inbound`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Direction {
    /// A request we issued; cancels for it go from us to the peer.
    Outbound,
    /// A request the peer issued; cancels for it come from the peer.
    Inbound,
    /// The session itself (e.g. the negotiated revision).
    Session,
}

/// One cancellation event: an [`Output::Event`](super::Output::Event) of
/// [`Session::poll_output`](super::Session::poll_output) (with [`Config::events`](super::Config::events)).
///
/// Serialized for JS as `{ type, direction, requestId, method, reason, … }` with
/// kebab-case `type` (e.g. `"cancel-sent"`).
pub type Event = EventOf<String, RequestId>;

/// What happened, with the request it concerns: see [`EventKindOf`].
pub type EventKind = EventKindOf<String, RequestId>;

/// An event borrowed from the session while it is made (texts `&str`, ids [`IdRef`]): what
/// a [`Sink`](super::Sink) is given. [`Event`] is its owned copy ([`EventRef::to_event`]).
pub type EventRef<'a> = EventOf<&'a str, IdRef<'a>>;

/// An event over its text type `S` and id type `I`: [`Event`] (owned, what
/// [`Session::poll_output`](super::Session::poll_output) gives) or [`EventRef`] (borrowed). One
/// definition for both, so the two cannot drift apart.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EventOf<S, I> {
    /// Outbound or inbound request.
    pub direction: Direction,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKindOf<S, I>,
}

/// What happened, with the request it concerns.
///
/// Reasons in events are capped to [`ReasonPolicy::max_bytes`](super::ReasonPolicy::max_bytes).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case", rename_all_fields = "camelCase")]
#[non_exhaustive]
pub enum EventKindOf<S, I> {
    /// We cancelled a request in flight. `via` says how: a `notifications/cancelled`
    /// (`reason` is what went on the wire), closing the request's stream (2026-07-28,
    /// Streamable HTTP), or `tasks/cancel` for its task (`task_id`).
    CancelSent {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
        /// How the cancel went out.
        via: Via,
        /// The reason, capped to `ReasonPolicy::max_bytes`.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<S>,
        /// The task's id.
        #[serde(skip_serializing_if = "Option::is_none")]
        task_id: Option<S>,
    },
    /// The peer cancelled its request `parent_id`, and our request, sent for it
    /// ([`Session::relate`](super::Session::relate)), is cancelled too: its `cancel-sent`
    /// follows.
    CancelCascaded {
        /// Our request (a nested request: an elicitation, a sampling request).
        request_id: I,
        /// Its method.
        method: S,
        /// The peer's request it was sent for.
        parent_id: I,
    },
    /// The request is task-augmented and its `taskId` is not known yet: `tasks/cancel` will
    /// be sent as soon as the `CreateTaskResult` arrives (2025-11-25 §Tasks).
    CancelDeferred {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
    },
    /// A request's timeout expired; its cancel (if any) is reported separately.
    TimedOut {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
        /// Which timeout expired.
        kind: TimeoutKind,
    },
    /// Our `tasks/cancel` was answered. `outcome`: the task was cancelled, or was already
    /// terminal (-32602 in 2025-11-25: a normal outcome), or another error `code`.
    TaskCancelAnswered {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The task's id.
        task_id: S,
        /// How the `tasks/cancel` ended.
        outcome: TaskCancelOutcome,
        /// The JSON-RPC error code of the answer, if it was an error.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<i64>,
    },
    /// The peer ended our `subscriptions/listen` request (2026-07-28 §Cancellation).
    ListenEnded {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The reason, capped to `ReasonPolicy::max_bytes`.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<S>,
    },
    /// The protocol revision was set or negotiated. `known` is false for a version string
    /// mcp-cancel does not know; `revision` is then the rules it follows.
    RevisionNegotiated {
        /// The version string as given (at most 64 bytes).
        version: S,
        /// The revision whose rules are followed from now on.
        revision: Revision,
        /// Whether `version` names a revision mcp-cancel knows.
        known: bool,
    },
    /// A cancel of ours was not sent: see [`NotSent`].
    CancelNotSent {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<S>,
        /// Why.
        why: NotSent,
    },
    /// The peer validly cancelled a request it sent us: its work is to be aborted.
    CancelReceived {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
        /// The reason, capped to `ReasonPolicy::max_bytes`.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<S>,
    },
    /// The peer's cancel was ignored: see [`Ignored`]. `detail` says what was malformed.
    CancelIgnored {
        /// The request (ours for outbound events, the peer's for inbound ones).
        #[serde(skip_serializing_if = "Option::is_none")]
        request_id: Option<I>,
        /// Why.
        why: Ignored,
        /// What is malformed, for `Ignored::Malformed`.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<S>,
        /// The reason, capped to `ReasonPolicy::max_bytes`.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<S>,
    },
    /// A response (result or error) for a request we cancelled was dropped.
    LateResponseDropped {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
    },
    /// A `notifications/progress` for a request we cancelled was dropped.
    LateProgressDropped {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
        /// The progress token of the dropped notification.
        progress_token: I,
    },
    /// Our response to a request the peer cancelled was not sent.
    ResponseSuppressed {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
    },
    /// The peer sent a request with an id it already has in flight; the first one is kept.
    DuplicateRequestId {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
    },
    /// The peer has more requests in flight than `inboundCapacity`: its oldest one is
    /// forgotten (its cancel will be ignored as unknown, our response passes).
    InboundForgotten {
        /// The request (ours for outbound events, the peer's for inbound ones).
        request_id: I,
        /// The request's method.
        method: S,
    },
}

/// How a cancel went out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Via {
    /// A `notifications/cancelled`.
    Notification,
    /// Closing the request's response stream (2026-07-28, Streamable HTTP).
    StreamClose,
    /// A `tasks/cancel` request for the request's task.
    TasksCancel,
}

/// How our `tasks/cancel` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum TaskCancelOutcome {
    /// The server accepted it (the task is `cancelled`, or the 2026-07-28 ack).
    Cancelled,
    /// The task was already terminal (-32602, 2025-11-25 §Tasks).
    AlreadyTerminal,
    /// Another error.
    Error,
}

/// Why a cancel of ours was not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum NotSent {
    /// The request is not in flight: it completed, was already cancelled (the first reason
    /// wins), or was never sent. Spec: a cancel MUST only reference a request believed
    /// to be in progress.
    NotInFlight,
    /// The request is the handshake (`initialize`), which MUST NOT be cancelled
    /// (2024-11-05 .. 2025-11-25 §Cancellation).
    Handshake,
    /// The request's task is already terminal, or its `tasks/cancel` was already sent:
    /// exactly one `tasks/cancel` per task (2025-11-25 §Tasks).
    TaskSettled,
}

/// Why the peer's cancel was ignored (spec, every revision: invalid cancellation
/// notifications SHOULD be ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
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
    /// In this revision the peer may not send this cancel (2026-07-28: a server may only
    /// end our `subscriptions/listen`): a protocol violation by the peer.
    PeerMayNotCancel,
    /// The request is task-augmented (`params.task`): it is cancelled with `tasks/cancel`,
    /// never with `notifications/cancelled` (2025-11-25 §Cancellation: "MUST NOT" for tasks;
    /// the `io.modelcontextprotocol/tasks` extension of 2026-07-28 alike).
    TaskAugmented,
}

// Not inlined, for size: inlined, the copy of the event's kind into the event is made at each
// of ~40 places an event is emitted; events are built only when the host asked for them.
impl<S, I> EventOf<S, I> {
    #[inline(never)]
    pub(crate) fn outbound(kind: EventKindOf<S, I>) -> Self {
        Self { direction: Direction::Outbound, kind }
    }

    #[inline(never)]
    pub(crate) fn inbound(kind: EventKindOf<S, I>) -> Self {
        Self { direction: Direction::Inbound, kind }
    }

    pub(crate) fn session(kind: EventKindOf<S, I>) -> Self {
        Self { direction: Direction::Session, kind }
    }
}

impl EventRef<'_> {
    /// The owned copy of the event (its texts and ids copied): what
    /// [`Session::poll_output`](super::Session::poll_output) gives.
    #[must_use]
    pub fn to_event(&self) -> Event {
        self.map(|s| (*s).owned(), |id| id.to_request_id())
    }
}

impl Event {
    /// The event borrowed ([`EventRef`]): what a [`Sink`](super::Sink) writes.
    #[must_use]
    pub fn as_event_ref(&self) -> EventRef<'_> {
        self.map(String::as_str, RequestId::as_id_ref)
    }
}

impl<S, I> EventOf<S, I> {
    /// The same event with each text made by `text` and each id by `id`: the one conversion
    /// between [`Event`] and [`EventRef`], both ways.
    fn map<'a, T, J>(&'a self, text: impl Fn(&'a S) -> T, id: impl Fn(&'a I) -> J) -> EventOf<T, J> {
        use EventKindOf as K;
        let kind = match &self.kind {
            K::CancelSent { request_id, method, via, reason, task_id } => K::CancelSent {
                request_id: id(request_id),
                method: text(method),
                via: *via,
                reason: reason.as_ref().map(&text),
                task_id: task_id.as_ref().map(&text),
            },
            K::CancelCascaded { request_id, method, parent_id } => {
                K::CancelCascaded { request_id: id(request_id), method: text(method), parent_id: id(parent_id) }
            }
            K::CancelDeferred { request_id, method } => {
                K::CancelDeferred { request_id: id(request_id), method: text(method) }
            }
            K::TimedOut { request_id, method, kind } => {
                K::TimedOut { request_id: id(request_id), method: text(method), kind: *kind }
            }
            K::TaskCancelAnswered { request_id, task_id, outcome, code } => K::TaskCancelAnswered {
                request_id: id(request_id),
                task_id: text(task_id),
                outcome: *outcome,
                code: *code,
            },
            K::ListenEnded { request_id, reason } => {
                K::ListenEnded { request_id: id(request_id), reason: reason.as_ref().map(&text) }
            }
            K::RevisionNegotiated { version, revision, known } => {
                K::RevisionNegotiated { version: text(version), revision: *revision, known: *known }
            }
            K::CancelNotSent { request_id, method, why } => {
                K::CancelNotSent { request_id: id(request_id), method: method.as_ref().map(&text), why: *why }
            }
            K::CancelReceived { request_id, method, reason } => K::CancelReceived {
                request_id: id(request_id),
                method: text(method),
                reason: reason.as_ref().map(&text),
            },
            K::CancelIgnored { request_id, why, detail, reason } => K::CancelIgnored {
                request_id: request_id.as_ref().map(&id),
                why: *why,
                detail: detail.as_ref().map(&text),
                reason: reason.as_ref().map(&text),
            },
            K::LateResponseDropped { request_id, method } => {
                K::LateResponseDropped { request_id: id(request_id), method: text(method) }
            }
            K::LateProgressDropped { request_id, method, progress_token } => K::LateProgressDropped {
                request_id: id(request_id),
                method: text(method),
                progress_token: id(progress_token),
            },
            K::ResponseSuppressed { request_id, method } => {
                K::ResponseSuppressed { request_id: id(request_id), method: text(method) }
            }
            K::DuplicateRequestId { request_id, method } => {
                K::DuplicateRequestId { request_id: id(request_id), method: text(method) }
            }
            K::InboundForgotten { request_id, method } => {
                K::InboundForgotten { request_id: id(request_id), method: text(method) }
            }
        };
        EventOf { direction: self.direction, kind }
    }
}

/// The names the events serialize with (`#[serde(rename_all = "kebab-case")]`), for hosts
/// that build the event object themselves (the wasm layer does, without serde).
impl Direction {
    /// Every direction, in declaration order.
    pub const ALL: [Direction; 3] = [Direction::Outbound, Direction::Inbound, Direction::Session];

    /// `"outbound"`, `"inbound"` or `"session"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Outbound => "outbound",
            Self::Inbound => "inbound",
            Self::Session => "session",
        }
    }
}

impl<S, I> EventKindOf<S, I> {
    /// The event's `type`, e.g. `"cancel-sent"`.
    #[must_use]
    pub const fn type_name(&self) -> &'static str {
        match self {
            Self::CancelSent { .. } => "cancel-sent",
            Self::CancelCascaded { .. } => "cancel-cascaded",
            Self::CancelDeferred { .. } => "cancel-deferred",
            Self::TimedOut { .. } => "timed-out",
            Self::TaskCancelAnswered { .. } => "task-cancel-answered",
            Self::ListenEnded { .. } => "listen-ended",
            Self::RevisionNegotiated { .. } => "revision-negotiated",
            Self::CancelNotSent { .. } => "cancel-not-sent",
            Self::CancelReceived { .. } => "cancel-received",
            Self::CancelIgnored { .. } => "cancel-ignored",
            Self::LateResponseDropped { .. } => "late-response-dropped",
            Self::LateProgressDropped { .. } => "late-progress-dropped",
            Self::ResponseSuppressed { .. } => "response-suppressed",
            Self::DuplicateRequestId { .. } => "duplicate-request-id",
            Self::InboundForgotten { .. } => "inbound-forgotten",
        }
    }
}

impl Via {
    /// Every way, in declaration order.
    pub const ALL: [Via; 3] = [Via::Notification, Via::StreamClose, Via::TasksCancel];

    /// `"notification"`, `"stream-close"` or `"tasks-cancel"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Notification => "notification",
            Self::StreamClose => "stream-close",
            Self::TasksCancel => "tasks-cancel",
        }
    }
}

impl TaskCancelOutcome {
    /// Every outcome, in declaration order.
    pub const ALL: [TaskCancelOutcome; 3] =
        [TaskCancelOutcome::Cancelled, TaskCancelOutcome::AlreadyTerminal, TaskCancelOutcome::Error];

    /// `"cancelled"`, `"already-terminal"` or `"error"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Cancelled => "cancelled",
            Self::AlreadyTerminal => "already-terminal",
            Self::Error => "error",
        }
    }
}

impl NotSent {
    /// Every reason, in declaration order.
    pub const ALL: [NotSent; 3] = [NotSent::NotInFlight, NotSent::Handshake, NotSent::TaskSettled];

    /// `"not-in-flight"`, `"handshake"` or `"task-settled"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotInFlight => "not-in-flight",
            Self::Handshake => "handshake",
            Self::TaskSettled => "task-settled",
        }
    }
}

impl Ignored {
    /// Every reason, in declaration order (for hosts and tests that list them).
    pub const ALL: [Ignored; 7] = [
        Ignored::Malformed,
        Ignored::NotInFlight,
        Ignored::WrongDirection,
        Ignored::AlreadyCancelled,
        Ignored::Handshake,
        Ignored::PeerMayNotCancel,
        Ignored::TaskAugmented,
    ];

    /// `"malformed"`, `"not-in-flight"`, `"wrong-direction"`, `"already-cancelled"`,
    /// `"handshake"`, `"peer-may-not-cancel"` or `"task-augmented"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Malformed => "malformed",
            Self::NotInFlight => "not-in-flight",
            Self::WrongDirection => "wrong-direction",
            Self::AlreadyCancelled => "already-cancelled",
            Self::Handshake => "handshake",
            Self::PeerMayNotCancel => "peer-may-not-cancel",
            Self::TaskAugmented => "task-augmented",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written names are the ones serde writes.
    #[test]
    fn names_match_the_serialized_ones() {
        let name = |v: serde_json::Value| v.as_str().map(str::to_owned).unwrap_or_default();
        let json = |v: &dyn erased::Ser| v.json();
        for d in [Direction::Outbound, Direction::Inbound, Direction::Session] {
            assert_eq!(name(json(&d)), d.as_str());
        }
        for v in [Via::Notification, Via::StreamClose, Via::TasksCancel] {
            assert_eq!(name(json(&v)), v.as_str());
        }
        for o in [TaskCancelOutcome::Cancelled, TaskCancelOutcome::AlreadyTerminal, TaskCancelOutcome::Error] {
            assert_eq!(name(json(&o)), o.as_str());
        }
        for n in NotSent::ALL {
            assert_eq!(name(json(&n)), n.as_str());
        }
        for i in Ignored::ALL {
            assert_eq!(name(json(&i)), i.as_str());
        }
        for k in [TimeoutKind::Timeout, TimeoutKind::MaxTotal] {
            assert_eq!(name(json(&k)), k.as_str());
        }
        let id = RequestId::Number(1);
        let m = String::new();
        let kinds = [
            EventKind::CancelSent {
                request_id: id.clone(),
                method: m.clone(),
                via: Via::Notification,
                reason: None,
                task_id: None,
            },
            EventKind::CancelCascaded { request_id: id.clone(), method: m.clone(), parent_id: id.clone() },
            EventKind::CancelDeferred { request_id: id.clone(), method: m.clone() },
            EventKind::TimedOut { request_id: id.clone(), method: m.clone(), kind: TimeoutKind::Timeout },
            EventKind::TaskCancelAnswered {
                request_id: id.clone(),
                task_id: m.clone(),
                outcome: TaskCancelOutcome::Error,
                code: None,
            },
            EventKind::ListenEnded { request_id: id.clone(), reason: None },
            EventKind::RevisionNegotiated { version: m.clone(), revision: Revision::V2025_06_18, known: true },
            EventKind::CancelNotSent { request_id: id.clone(), method: None, why: NotSent::Handshake },
            EventKind::CancelReceived { request_id: id.clone(), method: m.clone(), reason: None },
            EventKind::CancelIgnored { request_id: None, why: Ignored::Malformed, detail: None, reason: None },
            EventKind::LateResponseDropped { request_id: id.clone(), method: m.clone() },
            EventKind::LateProgressDropped { request_id: id.clone(), method: m.clone(), progress_token: id.clone() },
            EventKind::ResponseSuppressed { request_id: id.clone(), method: m.clone() },
            EventKind::DuplicateRequestId { request_id: id.clone(), method: m.clone() },
            EventKind::InboundForgotten { request_id: id, method: m },
        ];
        for kind in kinds {
            let v = serde_json::to_value(&kind).unwrap_or_default();
            assert_eq!(v.get("type").and_then(|t| t.as_str()), Some(kind.type_name()));
        }
    }

    mod erased {
        pub trait Ser {
            fn json(&self) -> serde_json::Value;
        }
        impl<T: serde::Serialize> Ser for T {
            fn json(&self) -> serde_json::Value {
                serde_json::to_value(self).unwrap_or_default()
            }
        }
    }
}
