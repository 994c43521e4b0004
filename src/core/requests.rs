//! What the session keeps of each request — ours ([`Outbound`], what most do not have
//! boxed in [`Extra`]), the peer's ([`Inbound`]) — and of each task ([`Task`]), with the
//! task statuses and methods those records are read with (2025-11-25 §Tasks). Records
//! only: the rules that make and read them are in `outbound`, `inbound` and `tasks`.

use std::sync::Arc;

use super::deadlines::RequestTimer;
use super::id::{ProgressToken, RequestId};
use super::method::{Method, Name};
use super::tombstones::Tombstone;

/// What kind of outbound request an entry is (the task's id, if any, is in [`Extra`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Plain,
    /// Task-augmented, no `CreateTaskResult` yet; `cancel_pending` once aborted.
    Task {
        cancel_pending: bool,
    },
    /// The host's own `tasks/get`/`tasks/result`/`tasks/cancel` for a task.
    TaskQuery,
    /// Our own `tasks/cancel`.
    TaskCancel,
}

/// One of our requests in flight: 8 bytes beside its id. What most requests do not have —
/// a method outside [`Method`], a task id, a progress token, a deadline — is boxed in
/// [`Extra`].
#[derive(Debug)]
pub(super) struct Outbound {
    /// The method, when known; else its name is in `extra`.
    pub(super) method: Option<Method>,
    pub(super) kind: Kind,
    /// Tracked with [`TrackRequest::watch`](super::TrackRequest::watch): queue [`Output::Settled`] when it settles.
    pub(super) watched: bool,
    pub(super) extra: Option<Box<Extra>>,
}

#[derive(Debug, Default)]
pub(super) struct Extra {
    /// The method of a request whose method is not a known one (shared, [`Session::intern`](super::Session::intern)).
    pub(super) name: Option<Arc<str>>,
    /// The task of a [`Kind::TaskQuery`] or [`Kind::TaskCancel`].
    pub(super) task_id: Option<String>,
    pub(super) progress_token: Option<ProgressToken>,
    pub(super) timer: Option<RequestTimer>,
}

impl Outbound {
    pub(super) fn name(&self) -> &str {
        match (self.method, &self.extra) {
            (Some(m), _) => m.name(),
            (None, Some(extra)) => extra.name.as_deref().unwrap_or_default(),
            (None, None) => "",
        }
    }

    /// The name as a tombstone keeps it.
    pub(super) fn stored_name(&self) -> Name {
        match self.method {
            Some(m) => Name::Known(m),
            None => Name::Other(self.extra.as_ref().and_then(|e| e.name.clone()).unwrap_or_else(|| "".into())),
        }
    }

    /// Whether it can still be cancelled: in flight, or a task with no `tasks/cancel` pending
    /// ([`Session::is_cancellable`](super::Session::is_cancellable)).
    pub(super) fn is_cancellable(&self) -> bool {
        matches!(self.kind, Kind::Plain | Kind::TaskQuery | Kind::Task { cancel_pending: false })
    }

    pub(super) fn is(&self, method: Method) -> bool {
        self.method == Some(method)
    }

    pub(super) fn task_id(&self) -> &str {
        self.extra.as_ref().and_then(|e| e.task_id.as_deref()).unwrap_or_default()
    }

    /// Whether its response needs more than its id ([`Session::response_fields`](super::Session::response_fields)).
    pub(super) fn reads_response(&self) -> bool {
        self.kind != Kind::Plain || self.method == Some(Method::Initialize)
    }

    pub(super) fn timer_mut(&mut self) -> Option<&mut RequestTimer> {
        self.extra.as_mut().and_then(|e| e.timer.as_mut())
    }

    pub(super) fn into_tombstone(self) -> Tombstone {
        let method = self.stored_name();
        Tombstone { method, progress_token: self.extra.and_then(|e| e.progress_token) }
    }
}

#[derive(Debug)]
pub(super) struct Inbound {
    pub(super) method: Name,
    /// The host keeps resources for it ([`Session::watch_inbound`](super::Session::watch_inbound)).
    pub(super) watched: bool,
    /// It is task-augmented (`params.task`): only `tasks/cancel` cancels it.
    pub(super) task: bool,
}

/// JSON-RPC error code for invalid params: what a 2025-11-25 server answers to
/// `tasks/cancel` for a task already terminal.
pub const INVALID_PARAMS: i64 = -32602;

/// A task created by one of our task-augmented requests, until it is terminal.
#[derive(Debug)]
pub(super) struct Task {
    pub(super) request_id: RequestId,
    pub(super) method: String,
    pub(super) cancel_sent: bool,
    /// The request was tracked with [`TrackRequest::watch`](super::TrackRequest::watch).
    pub(super) watched: bool,
}

pub(super) const TASK_STATUS_METHOD_TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// The requests that may be task-augmented (2025-11-25 §Tasks). Others may carry
/// `params.task` (the TS SDK 1.x copies it onto its `tasks/get` polls) without being one.
pub(super) const TASK_AUGMENTABLE: [Method; 3] =
    [Method::ToolsCall, Method::SamplingCreateMessage, Method::ElicitationCreate];

pub(super) fn is_terminal(status: &str) -> bool {
    TASK_STATUS_METHOD_TERMINAL.contains(&status)
}
