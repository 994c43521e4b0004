//! What the session asks the host to do: [`Output`], drained with
//! [`Session::poll_output`](super::Session::poll_output) — one queue for every cancel to put
//! on the wire ([`Transmit`], with the message types it carries), every local caller to
//! stop waiting, every watched request settled, every peer cancel to honour, and every
//! event — and the [`Sink`] the session gives each output to as it makes it ([`Queue`], that
//! queue, for the Rust API; the wasm layer's writes records for its JS class).

use super::deadlines::TimeoutKind;
use super::event::{Event, EventRef};
use super::id::{IdRef, RequestId};
use super::keys::Key;
use super::wire::TASKS_CANCEL_METHOD;
use crate::prelude::*;
use alloc::collections::VecDeque;

/// The `notifications/cancelled` to send for a request we cancelled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CancelNotification {
    /// `params.requestId`.
    pub request_id: RequestId,
    /// `params.reason`, after the [`ReasonPolicy`](super::ReasonPolicy); `None` leaves it out.
    pub reason: Option<String>,
}

impl CancelNotification {
    /// The whole JSON-RPC notification:
    /// `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":…,"reason":…}}`.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let mut params = serde_json::Map::new();
        params.insert("requestId".into(), self.request_id.to_json());
        if let Some(reason) = &self.reason {
            params.insert("reason".into(), reason.as_str().into());
        }
        serde_json::json!({ "jsonrpc": "2.0", "method": super::wire::CANCELLED_METHOD, "params": params })
    }
}

/// The `tasks/cancel` request to send for a task-augmented request we cancelled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskCancelRequest {
    /// The id of this `tasks/cancel` request (the session's own, see
    /// [`Config::internal_id_prefix`](super::Config::internal_id_prefix)); its response is [`ResponseVerdict::Consumed`](super::ResponseVerdict::Consumed).
    pub id: RequestId,
    /// `params.taskId`.
    pub task_id: String,
    /// The task-augmented request it cancels.
    pub cancels: RequestId,
}

impl TaskCancelRequest {
    /// `{"jsonrpc":"2.0","id":…,"method":"tasks/cancel","params":{"taskId":…}}`.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": self.id.to_json(),
            "method": TASKS_CANCEL_METHOD,
            "params": { "taskId": self.task_id },
        })
    }
}

/// What the host does to cancel a request, by revision and transport.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum CancelAction {
    /// Send this `notifications/cancelled`.
    Notify(CancelNotification),
    /// Close the response stream of this request (2026-07-28 over Streamable HTTP: that
    /// *is* the cancel; no notification).
    CloseStream(RequestId),
    /// Send this `tasks/cancel` request.
    CancelTask(TaskCancelRequest),
}

/// A cancel to put on the wire, from [`Session::poll_output`](super::Session::poll_output): every cancel — the
/// caller's, a timeout's, a deferred `tasks/cancel` — comes out this way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// The request being cancelled.
    pub request_id: RequestId,
    /// What to do on the wire.
    pub action: CancelAction,
}

/// Why one of our requests was cancelled, for its local caller ([`Output::Cancelled`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancelCause {
    /// The host cancelled it ([`Session::cancel`](super::Session::cancel)): the caller's own reason applies.
    Cancelled,
    /// Its timeout expired: the caller gets a `TimeoutError`.
    TimedOut(TimeoutKind),
    /// The peer cancelled the request it was sent for ([`Session::relate`](super::Session::relate)):
    /// the caller stops waiting with an error that says so.
    ParentCancelled,
}

/// Something the host must do, from [`Session::poll_output`](super::Session::poll_output), in the order it must be
/// done. After every `handle_*`, `track`, `cancel` or `close` call, poll until `None`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Output {
    /// Put this cancel on the wire (a `notifications/cancelled`, a stream close, or a
    /// `tasks/cancel`).
    Transmit(Transmit),
    /// Our request was cancelled (by the host, or by its timeout): its local caller stops
    /// waiting (a timeout: with a `TimeoutError`). Queued after the request's
    /// [`Output::Transmit`], so the cancel is on the wire before the caller hears of it.
    Cancelled {
        /// The request.
        request_id: RequestId,
        /// Why.
        cause: CancelCause,
    },
    /// A request tracked with [`TrackRequest::watch`](super::TrackRequest::watch) can no longer be cancelled
    /// (completed, cancelled, its task ended, or the connection closed): release what the
    /// host keeps for it.
    Settled(RequestId),
    /// A peer's request watched with [`Session::watch_inbound`](super::Session::watch_inbound) is over (our response went
    /// out, or the connection closed) without being cancelled: release what the host keeps
    /// for it.
    InboundSettled(RequestId),
    /// The peer validly cancelled its request: abort the work the host runs for it (and
    /// the request's signal). Its response will be suppressed.
    PeerCancelled {
        /// The peer's request.
        request_id: RequestId,
        /// The peer's reason, capped to [`ReasonPolicy::max_bytes`](super::ReasonPolicy::max_bytes).
        reason: Option<String>,
        /// The host watches it ([`Session::watch_inbound`](super::Session::watch_inbound)): it
        /// keeps resources for this request (e.g. an `AbortSignal`) that this releases.
        watched: bool,
    },
    /// An event (only with [`Config::events`](super::Config::events)).
    Event(Event),
}

/// Where a [`Session`](super::Session)'s output goes, record by record, in the order the
/// session makes it: [`Queue`] (the default: [`Session::poll_output`](super::Session::poll_output)
/// drains it), or the wasm layer's writer, which writes each record for its JS class as it
/// comes — no owned copy of an id or a text is made for it (for the `.wasm`'s size).
/// Every method but [`Self::is_empty`] and [`Self::take_settled`] is one [`Output`]; what
/// each means is said there. Sealed: implemented in this crate only.
pub trait Sink: sealed::Sealed {
    /// Whether no output waits.
    fn is_empty(&self) -> bool;
    /// [`CancelAction::Notify`]: send `notifications/cancelled` for `request_id`, with
    /// `reason` (`None`: no `reason` member).
    fn notify(&mut self, request_id: IdRef<'_>, reason: Option<&str>);
    /// [`CancelAction::CloseStream`]: close the response stream of `request_id`.
    fn close_stream(&mut self, request_id: IdRef<'_>);
    /// [`CancelAction::CancelTask`]: send `tasks/cancel { taskId: task_id }` with the id
    /// `id`, cancelling our request `request_id`.
    fn tasks_cancel(&mut self, request_id: IdRef<'_>, id: IdRef<'_>, task_id: &str);
    /// [`Output::Cancelled`].
    fn cancelled(&mut self, request_id: IdRef<'_>, cause: CancelCause);
    /// [`Output::Settled`] (ours) or, with `inbound`, [`Output::InboundSettled`] (the peer's).
    fn settled(&mut self, request_id: IdRef<'_>, inbound: bool);
    /// [`Output::PeerCancelled`].
    fn peer_cancelled(&mut self, request_id: IdRef<'_>, reason: Option<&str>, watched: bool);
    /// [`Output::Event`].
    fn event(&mut self, event: EventRef<'_>);
    /// Takes the [`Output::Settled`] of our `request_id` (with `inbound`, the
    /// [`Output::InboundSettled`] of the peer's) when it is all the output there is; `false`,
    /// nothing taken, otherwise: the one place a host that releases a settled request's
    /// objects itself skips the output (the wasm layer, after a response to our request or
    /// our response to the peer's).
    fn take_settled(&mut self, request_id: IdRef<'_>, inbound: bool) -> bool;
}

pub(crate) mod sealed {
    /// Keeps [`Sink`](super::Sink) implemented in this crate only.
    pub trait Sealed {}
}

/// The default [`Sink`]: every [`Output`] queued, oldest first, for
/// [`Session::poll_output`](super::Session::poll_output).
#[derive(Clone, Debug, Default)]
pub struct Queue(pub(super) VecDeque<Output>);

impl sealed::Sealed for Queue {}

impl Sink for Queue {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn notify(&mut self, request_id: IdRef<'_>, reason: Option<&str>) {
        let id = request_id.to_request_id();
        let reason = reason.map(str::owned);
        let action = CancelAction::Notify(CancelNotification { request_id: id.clone(), reason });
        self.0.push_back(Output::Transmit(Transmit { request_id: id, action }));
    }

    fn close_stream(&mut self, request_id: IdRef<'_>) {
        let id = request_id.to_request_id();
        self.0.push_back(Output::Transmit(Transmit { request_id: id.clone(), action: CancelAction::CloseStream(id) }));
    }

    fn tasks_cancel(&mut self, request_id: IdRef<'_>, id: IdRef<'_>, task_id: &str) {
        let cancels = request_id.to_request_id();
        let action = CancelAction::CancelTask(TaskCancelRequest {
            id: id.to_request_id(),
            task_id: task_id.owned(),
            cancels: cancels.clone(),
        });
        self.0.push_back(Output::Transmit(Transmit { request_id: cancels, action }));
    }

    fn cancelled(&mut self, request_id: IdRef<'_>, cause: CancelCause) {
        self.0.push_back(Output::Cancelled { request_id: request_id.to_request_id(), cause });
    }

    fn settled(&mut self, request_id: IdRef<'_>, inbound: bool) {
        let id = request_id.to_request_id();
        self.0.push_back(if inbound { Output::InboundSettled(id) } else { Output::Settled(id) });
    }

    fn peer_cancelled(&mut self, request_id: IdRef<'_>, reason: Option<&str>, watched: bool) {
        let request_id = request_id.to_request_id();
        self.0.push_back(Output::PeerCancelled { request_id, reason: reason.map(str::owned), watched });
    }

    fn event(&mut self, event: EventRef<'_>) {
        self.0.push_back(Output::Event(event.to_event()));
    }

    fn take_settled(&mut self, request_id: IdRef<'_>, inbound: bool) -> bool {
        let only = self.0.len() == 1
            && match self.0.front() {
                Some(Output::Settled(s)) if !inbound => Key::of(s) == Key::of_ref(request_id),
                Some(Output::InboundSettled(s)) if inbound => Key::of(s) == Key::of_ref(request_id),
                _ => false,
            };
        if only {
            self.0.clear();
        }
        only
    }
}
