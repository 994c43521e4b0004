//! [`Session`]: the cancellation bookkeeping of one MCP connection.

use std::collections::{HashMap, VecDeque};

use foldhash::fast::FixedState;

use super::bounded::Bounded;
use super::message::{Method, Name};
use super::{seeded, IdMap};
use std::fmt;
use std::sync::Arc;

use super::event::{Event, EventKind, Ignored, NotSent, TaskCancelOutcome, Via};
use super::id::{ProgressToken, RequestId};
use super::reason::{Reason, ReasonPolicy};
use super::revision::{PeerCancels, Revision, Rules, TaskCancel};
use super::timer::{Deadlines, Millis, RequestTimer, Timeout, TimeoutKind};
use super::tombstones::{Tombstone, Tombstones};
use super::wire::{
    cap_utf8, CancelledParams, INITIALIZE_METHOD, TASKS_CANCEL_METHOD,
};

/// JSON-RPC error code for invalid params: what a 2025-11-25 server answers to
/// `tasks/cancel` for a task already terminal.
pub const INVALID_PARAMS: i64 = -32602;

/// How the connection carries messages, which decides how a cancel is signalled in
/// 2026-07-28 (§Cancellation "Transport-Specific Cancellation").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransportKind {
    /// stdio or any message transport: the cancel is a `notifications/cancelled`.
    #[default]
    Messages,
    /// Streamable HTTP: in 2026-07-28 closing the request's response stream is the cancel.
    StreamableHttp,
}

/// Settings of a [`Session`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// How many cancelled requests are remembered to drop their late messages. Default
    /// 1024; the oldest is forgotten first, and a late message for a forgotten request is
    /// classified [`ResponseVerdict::Unknown`]. `0` remembers none.
    pub tombstone_capacity: usize,
    /// How many of the peer's requests in flight are remembered (to honour its cancels and
    /// suppress our responses). Default 4096; the oldest is forgotten first, with an
    /// [`EventKind::InboundForgotten`], so memory stays flat even when the host never
    /// reports our responses. A forgotten request can no longer be cancelled by the peer.
    pub inbound_capacity: usize,
    /// Seed of the id maps' hasher (see the crate's notes on flooding): a host facing
    /// untrusted peers draws it from a random source. Default `0`.
    pub hash_seed: u64,
    /// What `reason` goes on the wire, and how long reasons may be.
    pub reason: ReasonPolicy,
    /// The transport, for the 2026-07-28 stream-close cancel. Default [`TransportKind::Messages`].
    pub transport: TransportKind,
    /// The revision to follow before one is negotiated; `None` (default): protect
    /// `initialize`, cancel with notifications, let the peer cancel its own requests.
    pub revision: Option<Revision>,
    /// Timeouts of requests that do not set their own. Default: none.
    pub timeout: Timeout,
    /// Prefix of the ids of the `tasks/cancel` requests the session issues itself, chosen
    /// not to collide with the host's ids. Default `"mcp-cancel:"` (ids `"mcp-cancel:1"`, …).
    pub internal_id_prefix: String,
    /// Queue an [`Output::Event`] for everything that happens. Default `true`; a host that
    /// shows no events turns it off and pays for none.
    pub events: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            tombstone_capacity: 1024,
            inbound_capacity: 4096,
            hash_seed: 0,
            reason: ReasonPolicy::default(),
            transport: TransportKind::Messages,
            revision: None,
            timeout: Timeout::NONE,
            internal_id_prefix: "mcp-cancel:".to_owned(),
            events: true,
        }
    }
}

/// A request we send, for [`Session::track`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackRequest {
    /// Its id.
    pub id: RequestId,
    /// Its method.
    pub method: String,
    /// `params._meta.progressToken`, if any.
    pub progress_token: Option<ProgressToken>,
    /// Whether `params.task` is present: a task-augmented request (2025-11-25 §Tasks).
    pub task: bool,
    /// `params.taskId` of a `tasks/get`, `tasks/result` or `tasks/cancel` the host sends.
    pub task_ref: Option<String>,
    /// Its timeouts; `None` takes [`Config::timeout`] (except for `subscriptions/listen`,
    /// which only gets a timeout of its own). The handshake never gets one.
    pub timeout: Option<Timeout>,
    /// The host keeps resources for this request (an abort listener, a signal): queue an
    /// [`Output::Settled`] when it can no longer be cancelled. Default `false`.
    pub watch: bool,
}

impl TrackRequest {
    /// A plain request: no progress token, no task, the session's timeouts.
    #[must_use]
    pub fn new(id: RequestId, method: &str) -> Self {
        Self {
            id,
            method: method.to_owned(),
            progress_token: None,
            task: false,
            task_ref: None,
            timeout: None,
            watch: false,
        }
    }
}

/// Where one of our requests is, as [`Session::request_state`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestState {
    /// Sent, no response yet, not cancelled.
    InFlight,
    /// Cancelled while task-augmented and before its `taskId` was known: waiting for the
    /// `CreateTaskResult` to send `tasks/cancel`.
    CancelPending,
    /// Its `CreateTaskResult` came; the task runs and can still be cancelled.
    TaskRunning,
    /// Cancelled by us; its late response and progress will be dropped (a tombstone).
    Cancelled,
}

/// The `notifications/cancelled` to send for a request we cancelled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CancelNotification {
    /// `params.requestId`.
    pub request_id: RequestId,
    /// `params.reason`, after the [`ReasonPolicy`]; `None` leaves it out.
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
    /// [`Config::internal_id_prefix`]); its response is [`ResponseVerdict::Consumed`].
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
pub enum CancelAction {
    /// Send this `notifications/cancelled`.
    Notify(CancelNotification),
    /// Close the response stream of this request (2026-07-28 over Streamable HTTP: that
    /// *is* the cancel; no notification).
    CloseStream(RequestId),
    /// Send this `tasks/cancel` request.
    CancelTask(TaskCancelRequest),
}

/// A cancel to put on the wire, from [`Session::poll_output`]: every cancel — the
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
    /// The host cancelled it ([`Session::cancel`]): the caller's own reason applies.
    Cancelled,
    /// Its timeout expired: the caller gets a `TimeoutError`.
    TimedOut(TimeoutKind),
}

/// Something the host must do, from [`Session::poll_output`], in the order it must be
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
    /// A request tracked with [`TrackRequest::watch`] can no longer be cancelled
    /// (completed, cancelled, its task ended, or the connection closed): release what the
    /// host keeps for it.
    Settled(RequestId),
    /// A peer's request watched with [`Session::watch_inbound`] is over (our response went
    /// out, or the connection closed) without being cancelled: release what the host keeps
    /// for it.
    InboundSettled(RequestId),
    /// The peer validly cancelled its request: abort the work the host runs for it (and
    /// the request's signal). Its response will be suppressed.
    PeerCancelled {
        /// The peer's request.
        request_id: RequestId,
        /// The peer's reason, capped to [`ReasonPolicy::max_bytes`].
        reason: Option<String>,
    },
    /// An event (only with [`Config::events`]).
    Event(Event),
}

/// What the session needs to read of a response, from [`Session::response_fields`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// `result.task.taskId` (the `CreateTaskResult` of a task-augmented request).
    pub task_id: bool,
    /// `result.taskId` and `result.status` (the task of a `tasks/get`/`tasks/cancel`).
    pub task_status: bool,
    /// `error.code` (the answer to our own `tasks/cancel`).
    pub error_code: bool,
    /// `result.protocolVersion` (the `initialize` result).
    pub protocol_version: bool,
}

/// The fields of a response that [`Session::response_fields`] asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResponseInfo {
    /// `result.task.taskId`.
    pub task_id: Option<String>,
    /// `result.taskId` and `result.status`.
    pub task_status: Option<(String, String)>,
    /// `error.code`; `None` for a result.
    pub error_code: Option<i64>,
    /// `result.protocolVersion`.
    pub protocol_version: Option<String>,
}

/// What to do with a response (result or error) that arrived from the peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
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
pub enum InboundCancelVerdict {
    /// A valid cancel of a request the peer sent us: abort its work, and let its
    /// response be suppressed ([`Session::handle_outgoing_response`]). `reason` is capped.
    Abort {
        /// The cancelled request.
        request_id: RequestId,
        /// The peer's reason, capped to [`ReasonPolicy::max_bytes`].
        reason: Option<String>,
    },
    /// The peer ended our `subscriptions/listen` request (2026-07-28): that stream is
    /// over; pass the notification on.
    ListenEnded {
        /// Our `subscriptions/listen` request.
        request_id: RequestId,
    },
    /// Invalid (malformed, unknown, finished, wrong direction, duplicate, handshake, or not
    /// allowed in this revision): ignore it; an [`EventKind::CancelIgnored`] says why.
    Ignore,
}

/// What to do with a response we are about to send to one of the peer's requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum OutgoingResponseVerdict {
    /// Send it.
    Send,
    /// The peer cancelled that request: do not send it (spec: the receiver of a cancel
    /// SHOULD NOT send a response for the cancelled request).
    Suppress,
}

/// A mistake in how the session is called (rustls' `ApiMisuse`): the caller's order or
/// values, never the peer's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsageError {
    /// [`Session::track`] with an id that is already in flight.
    AlreadyInFlight(RequestId),
    /// [`Session::track`] with a progress token another request in flight uses
    /// (spec: progress tokens MUST be unique across active requests).
    ProgressTokenInUse(ProgressToken),
    /// [`Session::cancel`] of the handshake request (`initialize`, up to 2025-11-25),
    /// which MUST NOT be cancelled.
    HandshakeNotCancellable(RequestId),
}

impl UsageError {
    /// A stable machine-readable code: `ERR_ALREADY_IN_FLIGHT`,
    /// `ERR_PROGRESS_TOKEN_IN_USE`, `ERR_HANDSHAKE_NOT_CANCELLABLE`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::AlreadyInFlight(_) => "ERR_ALREADY_IN_FLIGHT",
            Self::ProgressTokenInUse(_) => "ERR_PROGRESS_TOKEN_IN_USE",
            Self::HandshakeNotCancellable(_) => "ERR_HANDSHAKE_NOT_CANCELLABLE",
        }
    }

    /// The request id (or progress token) the error is about.
    #[must_use]
    pub fn request_id(&self) -> &RequestId {
        match self {
            Self::AlreadyInFlight(id) | Self::ProgressTokenInUse(id) | Self::HandshakeNotCancellable(id) => id,
        }
    }
}

impl UsageError {
    /// What is wrong, in words (what [`Display`](fmt::Display) shows), without `core::fmt`.
    #[must_use]
    pub fn message(&self) -> String {
        let (before, id, after) = match self {
            Self::AlreadyInFlight(id) => ("request id ", id, " is already in flight"),
            Self::ProgressTokenInUse(t) => ("progress token ", t, " is already used by a request in flight"),
            Self::HandshakeNotCancellable(id) => {
                ("request ", id, " is the initialize handshake, which must not be cancelled")
            }
        };
        let mut text = before.to_owned();
        id.push_to(&mut text);
        text.push_str(after);
        text
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for UsageError {}

/// What kind of outbound request an entry is (the task's id, if any, is in [`Extra`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Plain,
    /// Task-augmented, no `CreateTaskResult` yet; `cancel_pending` once aborted.
    Task { cancel_pending: bool },
    /// The host's own `tasks/get`/`tasks/result`/`tasks/cancel` for a task.
    TaskQuery,
    /// Our own `tasks/cancel`.
    TaskCancel,
}

/// One of our requests in flight: 8 bytes beside its id. What most requests do not have —
/// a method outside [`Method`], a task id, a progress token, a deadline — is boxed in
/// [`Extra`].
#[derive(Debug)]
struct Outbound {
    /// The method, when known; else its name is in `extra`.
    method: Option<Method>,
    kind: Kind,
    /// Tracked with [`TrackRequest::watch`]: queue [`Output::Settled`] when it settles.
    watched: bool,
    extra: Option<Box<Extra>>,
}

#[derive(Debug, Default)]
struct Extra {
    /// The method of a request whose method is not a known one (shared, [`Session::intern`]).
    name: Option<Arc<str>>,
    /// The task of a [`Kind::TaskQuery`] or [`Kind::TaskCancel`].
    task_id: Option<String>,
    progress_token: Option<ProgressToken>,
    timer: Option<RequestTimer>,
}

impl Outbound {
    fn name(&self) -> &str {
        match (self.method, &self.extra) {
            (Some(m), _) => m.name(),
            (None, Some(extra)) => extra.name.as_deref().unwrap_or_default(),
            (None, None) => "",
        }
    }

    /// The name as a tombstone keeps it.
    fn stored_name(&self) -> Name {
        match self.method {
            Some(m) => Name::Known(m),
            None => Name::Other(self.extra.as_ref().and_then(|e| e.name.clone()).unwrap_or_else(|| "".into())),
        }
    }

    fn is(&self, method: Method) -> bool {
        self.method == Some(method)
    }

    fn task_id(&self) -> &str {
        self.extra.as_ref().and_then(|e| e.task_id.as_deref()).unwrap_or_default()
    }

    /// Whether its response needs more than its id ([`Session::response_fields`]).
    fn reads_response(&self) -> bool {
        self.kind != Kind::Plain || self.method == Some(Method::Initialize)
    }

    fn timer_mut(&mut self) -> Option<&mut RequestTimer> {
        self.extra.as_mut().and_then(|e| e.timer.as_mut())
    }

    fn into_tombstone(self) -> Tombstone {
        let method = self.stored_name();
        Tombstone { method, progress_token: self.extra.and_then(|e| e.progress_token) }
    }
}

#[derive(Debug)]
struct Inbound {
    method: Name,
    /// The host keeps resources for it ([`Session::watch_inbound`]).
    watched: bool,
}

/// A task created by one of our task-augmented requests, until it is terminal.
#[derive(Debug)]
struct Task {
    request_id: RequestId,
    method: String,
    cancel_sent: bool,
    /// The request was tracked with [`TrackRequest::watch`].
    watched: bool,
}

/// The cancellation bookkeeping of one MCP connection: sans-IO, deterministic, no clock.
///
/// A `Session` never sends or receives anything itself and never reads a clock: the host
/// tells it what crosses the wire and what time it is (`now`, in ms of any monotonic time
/// line), and does what it answers.
///
/// A host that sees whole messages calls [`handle_incoming`](Self::handle_incoming) for
/// each message from the peer and [`handle_outgoing`](Self::handle_outgoing) for each
/// message to it: the session classifies the message and calls the methods below.
///
/// **Requests we send** (outbound):
/// 1. [`track`](Self::track) when the request goes out;
/// 2. [`cancel`](Self::cancel) to cancel it (the cancel comes out of
///    [`poll_output`](Self::poll_output));
/// 3. for every response that arrives: [`response_fields`](Self::response_fields), read
///    those fields, then [`handle_response`](Self::handle_response); for every
///    `notifications/progress`, [`handle_progress`](Self::handle_progress); for every
///    `notifications/tasks/status`, [`handle_task_status`](Self::handle_task_status).
///    Drop what they call late.
///
/// **Requests the peer sends us** (inbound):
/// 1. [`handle_request`](Self::handle_request) when one arrives;
/// 2. [`handle_cancelled`](Self::handle_cancelled) for every `notifications/cancelled`;
/// 3. [`handle_outgoing_response`](Self::handle_outgoing_response) before sending our
///    response.
///
/// **Time**: arm one timer for [`poll_timeout`](Self::poll_timeout); when it fires, call
/// [`handle_timeout`](Self::handle_timeout).
///
/// **Output**: after every call, [`poll_output`](Self::poll_output) until `None`, and do
/// each [`Output`] in order: one queue for every cancel to transmit, every local caller to
/// abort, every watched request settled, and every event.
///
/// The rules followed are those of the negotiated revision ([`Revision::rules`]):
/// [`set_protocol_version`](Self::set_protocol_version).
///
/// # Invariants
/// 1. An id is at most one of: outbound in flight, tombstoned.
/// 2. A cancel is produced only for a request in flight (or its running task), never for
///    the revision's handshake, at most once per request, and at most one `tasks/cancel`
///    per task.
/// 3. The peer cannot create tombstones: only our cancels and timeouts do.
/// 4. Tombstones, and the peer's cancelled requests awaiting our response, each never
///    exceed [`Config::tombstone_capacity`].
#[derive(Debug)]
pub struct Session {
    config: Config,
    revision: Option<Revision>,
    outbound: IdMap<Outbound>,
    progress: IdMap<RequestId>,
    tombstones: Tombstones,
    /// The peer's requests in flight, at most [`Config::inbound_capacity`].
    inbound: Bounded<Inbound>,
    /// The peer's requests it validly cancelled, until our response to each is handled —
    /// bounded like the tombstones, so a peer that cancels and never hears back cannot
    /// grow it.
    peer_cancelled: Tombstones,
    tasks: HashMap<String, Task, FixedState>,
    task_of_request: IdMap<String>,
    deadlines: Deadlines,
    next_internal_id: u64,
    /// The methods of our requests, shared ([`Self::intern`]).
    methods: Vec<Arc<str>>,
    /// Everything the host must do, oldest first ([`Self::poll_output`]).
    outputs: VecDeque<Output>,
    /// How many requests in flight need more than the id of their response (tasks,
    /// `initialize`): while none does, and no tasks extension applies, a response is
    /// classified by its id alone without asking [`Self::response_fields`].
    reading_responses: usize,
}

impl Default for Session {
    fn default() -> Self {
        Self::new(Config::default())
    }
}

/// How many distinct methods [`Session`] shares between its requests.
const MAX_INTERNED: usize = 32;

const TASK_STATUS_METHOD_TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// The requests that may be task-augmented (2025-11-25 §Tasks). Others may carry
/// `params.task` (the TS SDK 1.x copies it onto its `tasks/get` polls) without being one.
const TASK_AUGMENTABLE: [Method; 3] = [Method::ToolsCall, Method::SamplingCreateMessage, Method::ElicitationCreate];

impl Session {
    /// A session with no request in flight.
    #[must_use]
    pub fn new(config: Config) -> Self {
        let seed = config.hash_seed;
        let tombstones = Tombstones::new(config.tombstone_capacity, seed);
        let peer_cancelled = Tombstones::new(config.tombstone_capacity, seed);
        let inbound = Bounded::new(config.inbound_capacity, seed);
        Self {
            revision: config.revision,
            config,
            outbound: seeded(seed),
            progress: seeded(seed),
            tombstones,
            inbound,
            peer_cancelled,
            tasks: seeded(seed),
            task_of_request: seeded(seed),
            deadlines: Deadlines::default(),
            next_internal_id: 1,
            methods: Vec::new(),
            outputs: VecDeque::new(),
            reading_responses: 0,
        }
    }

    // ----- getters -----

    /// The session's settings.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The revision whose rules are followed; `None` before one is known.
    #[must_use]
    pub fn revision(&self) -> Option<Revision> {
        self.revision
    }

    /// The handshake method that must not be cancelled: `initialize` up to 2025-11-25 and
    /// before negotiation, none in 2026-07-28.
    #[must_use]
    pub fn handshake_method(&self) -> Option<&'static str> {
        match self.revision {
            Some(r) => r.rules().handshake,
            None => Some(INITIALIZE_METHOD),
        }
    }

    /// Where our request `id` is; `None` when it completed, was never sent, or its
    /// tombstone was evicted.
    #[must_use]
    pub fn request_state(&self, id: &RequestId) -> Option<RequestState> {
        match self.outbound.get(id) {
            Some(o) if o.kind == (Kind::Task { cancel_pending: true }) => Some(RequestState::CancelPending),
            Some(_) => Some(RequestState::InFlight),
            None if self.task_of_request.contains_key(id) => Some(RequestState::TaskRunning),
            None if self.tombstones.contains(id) => Some(RequestState::Cancelled),
            None => None,
        }
    }

    /// Number of our requests in flight (our own `tasks/cancel` requests included).
    #[must_use]
    pub fn outbound_in_flight(&self) -> usize {
        self.outbound.len()
    }

    /// Whether our request `id` can still be cancelled by the host: in flight (not the
    /// session's own `tasks/cancel`, not a task request whose cancel is already deferred),
    /// or its task running with no `tasks/cancel` sent yet. The handshake counts (it is in
    /// flight, though [`Self::cancel`] refuses it).
    #[must_use]
    pub fn is_cancellable(&self, id: &RequestId) -> bool {
        match self.outbound.get(id) {
            Some(o) => matches!(o.kind, Kind::Plain | Kind::TaskQuery | Kind::Task { cancel_pending: false }),
            None => self
                .task_of_request
                .get(id)
                .and_then(|task_id| self.tasks.get(task_id))
                .is_some_and(|task| !task.cancel_sent),
        }
    }

    /// How many of our requests [`Self::is_cancellable`] is `true` for.
    #[must_use]
    pub fn cancellable(&self) -> usize {
        let in_flight = self.outbound.keys().filter(|id| self.is_cancellable(id)).count();
        let tasks = self
            .task_of_request
            .keys()
            .filter(|id| !self.outbound.contains_key(*id) && self.is_cancellable(id))
            .count();
        in_flight + tasks
    }

    /// Number of the peer's requests we are working on and it has not cancelled.
    #[must_use]
    pub fn inbound_in_flight(&self) -> usize {
        self.inbound.len()
    }

    /// Number of the peer's requests it cancelled whose response we have not handled yet
    /// (at most [`Config::tombstone_capacity`]).
    #[must_use]
    pub fn inbound_cancelled(&self) -> usize {
        self.peer_cancelled.len()
    }

    /// Number of tasks of ours that are running (not yet terminal).
    #[must_use]
    pub fn running_tasks(&self) -> usize {
        self.tasks.len()
    }

    /// Number of tombstones (cancelled requests remembered).
    #[must_use]
    pub fn tombstones(&self) -> usize {
        self.tombstones.len()
    }

    /// Marks our request `id` as watched: the host keeps resources for it (a signal, a
    /// listener) and gets an [`Output::Settled`] when it can no longer be cancelled.
    /// Returns `false` (and marks nothing) when `id` is neither in flight nor a running
    /// task's request.
    pub fn watch(&mut self, id: &RequestId) -> bool {
        if let Some(request) = self.outbound.get_mut(id) {
            request.watched = true;
            return true;
        }
        let Some(task_id) = self.task_of_request.get(id) else { return false };
        self.tasks.get_mut(task_id).is_some_and(|t| {
            t.watched = true;
            true
        })
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

    // ----- revision -----

    /// Follows the rules of the negotiated protocol `version` (the `initialize` result's
    /// `protocolVersion`, or what the SDK passes to `transport.setProtocolVersion`). An
    /// unknown version follows [`Revision::negotiated`] and is reported
    /// ([`EventKind::RevisionNegotiated`] with `known: false`); it is never an error.
    pub fn set_protocol_version(&mut self, version: &str) -> Revision {
        let (revision, known) = Revision::negotiated(version);
        let capped = cap_utf8(version, 64).to_owned();
        if self.revision != Some(revision) || !known {
            self.emit(Event::session(EventKind::RevisionNegotiated { version: capped, revision, known }));
        }
        self.revision = Some(revision);
        revision
    }

    // ----- requests we send -----

    /// Records that we sent request `id` with `method`, and its
    /// `params._meta.progressToken` if it has one: [`Self::track`] without timeouts, task or
    /// clock.
    ///
    /// # Errors
    /// As [`Self::track`].
    pub fn track_request(
        &mut self,
        id: RequestId,
        method: &str,
        progress_token: Option<ProgressToken>,
    ) -> Result<(), UsageError> {
        let mut request = TrackRequest::new(id, method);
        request.progress_token = progress_token;
        request.timeout = Some(Timeout::NONE);
        self.track(request, 0)
    }

    /// Records a request we sent at `now` (ms). Its timeouts start at `now`. An id that was
    /// tombstoned is forgotten as cancelled: it is in flight again.
    ///
    /// # Errors
    /// [`UsageError::AlreadyInFlight`] when `id` is in flight;
    /// [`UsageError::ProgressTokenInUse`] when the token is used by a request in flight.
    pub fn track(&mut self, request: TrackRequest, now: Millis) -> Result<(), UsageError> {
        let TrackRequest { id, method, progress_token, task, task_ref, timeout, watch } = request;
        let known = Method::from_name(&method);
        self.track_entry(id, known, &method, progress_token, task, task_ref, timeout, watch, now)
    }

    /// [`Self::track`] with the method as the host has it: `known` when it is one of
    /// [`Method`] (then nothing is allocated for it), and by name.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn track_entry(
        &mut self,
        id: RequestId,
        known: Option<Method>,
        method: &str,
        progress_token: Option<ProgressToken>,
        task: bool,
        task_ref: Option<String>,
        timeout: Option<Timeout>,
        watch: bool,
        now: Millis,
    ) -> Result<(), UsageError> {
        if self.outbound.contains_key(&id) {
            return Err(UsageError::AlreadyInFlight(id));
        }
        if let Some(token) = &progress_token {
            if self.progress.contains_key(token) {
                return Err(UsageError::ProgressTokenInUse(token.clone()));
            }
            self.progress.insert(token.clone(), id.clone());
        }
        if self.tombstones.len() > 0 {
            self.tombstones.remove(&id);
        }
        // An id whose earlier request started a task that still runs now names the new
        // request: the task can no longer be cancelled through it.
        if !self.task_of_request.is_empty() {
            self.task_of_request.remove(&id);
        }
        let tasks_apply = self.revision.map_or(true, |r| r.rules().tasks != TaskCancel::None);
        let mut task_id = None;
        let kind = match task_ref {
            Some(t) if tasks_apply && self.tasks.contains_key(&t) => {
                if known == Some(Method::TasksCancel) {
                    // The host cancels the task itself: ours would be a second one.
                    if let Some(running) = self.tasks.get_mut(&t) {
                        running.cancel_sent = true;
                    }
                }
                task_id = Some(t);
                Kind::TaskQuery
            }
            _ if task && tasks_apply && known.is_some_and(|m| TASK_AUGMENTABLE.contains(&m)) => {
                Kind::Task { cancel_pending: false }
            }
            _ => Kind::Plain,
        };
        // The session's default timeouts skip the long-lived `subscriptions/listen`; no
        // timeout applies to the handshake, which cannot be cancelled.
        let timeout = match timeout {
            Some(t) => t,
            None if known == Some(Method::SubscriptionsListen) => Timeout::NONE,
            None => self.config.timeout,
        };
        let exempt = known == Some(Method::Initialize) && self.handshake_method().is_some();
        let mut timer = (timeout.is_set() && !exempt).then(|| RequestTimer::start(timeout, now));
        if let Some(timer) = timer.as_mut() {
            self.deadlines.schedule(&id, timer);
        }
        let name = if known.is_none() { Some(self.intern(method)) } else { None };
        let extra = (name.is_some() || task_id.is_some() || progress_token.is_some() || timer.is_some())
            .then(|| Box::new(Extra { name, task_id, progress_token, timer }));
        let scheduled = extra.as_ref().is_some_and(|e| e.timer.is_some());
        self.insert_outbound(id, Outbound { method: known, kind, watched: watch, extra });
        if scheduled {
            // Only now is the new deadline live (its entry is in `outbound`).
            self.tidy_deadlines();
        }
        Ok(())
    }

    /// Cancels our request `id`: **the one cancel path**. A caller's abort, a cancel the
    /// host's SDK sends itself, a closed request stream and a timeout all end here. Returns
    /// whether a cancel was made now (sent or deferred); `false` when there is nothing to
    /// cancel (completed, unknown, already cancelled — the first reason wins — or its task
    /// is terminal or already being cancelled; an [`EventKind::CancelNotSent`] says why). A
    /// poll of a task (`tasks/get`, `tasks/result`) is itself cancelled (`true`) even when its
    /// task's `tasks/cancel` already went out.
    ///
    /// What to put on the wire comes out of [`Self::poll_output`], then the request's
    /// [`Output::Cancelled`]:
    /// - a plain request: [`CancelAction::Notify`], or [`CancelAction::CloseStream`] in
    ///   2026-07-28 over Streamable HTTP. It becomes a tombstone: its late response and
    ///   progress are dropped;
    /// - a task-augmented request (2025-11-25 on): [`CancelAction::CancelTask`] once its
    ///   `CreateTaskResult` came; before that nothing yet — the `tasks/cancel` is queued
    ///   when the `CreateTaskResult` arrives (deferred).
    ///
    /// Spec: §Cancellation of every revision ("MUST only reference requests … believed to
    /// still be in-progress"; 2025-11-25: "For task-augmented requests, the `tasks/cancel`
    /// request MUST be used instead"; 2026-07-28 "Transport-Specific Cancellation").
    ///
    /// # Errors
    /// [`UsageError::HandshakeNotCancellable`] for the revision's handshake; it stays in
    /// flight.
    pub fn cancel(&mut self, id: &RequestId, reason: &Reason) -> Result<bool, UsageError> {
        self.cancel_with(id, reason, CancelCause::Cancelled)
    }

    /// [`Self::cancel`] for any `cause`. Each branch queues, in order: the transmit (if
    /// any), [`Output::Cancelled`], then [`Output::Settled`] (if the request settles).
    fn cancel_with(&mut self, id: &RequestId, reason: &Reason, cause: CancelCause) -> Result<bool, UsageError> {
        let cancelled = Output::Cancelled { request_id: id.clone(), cause };
        if let Some(task_id) = self.task_of_request.get(id).cloned() {
            let made = self.cancel_task(id, &task_id);
            if made {
                self.outputs.push_back(cancelled);
            }
            return Ok(made);
        }
        let handshake = self.handshake_method();
        let Some(request) = self.outbound.get_mut(id) else {
            let method = self.tombstones.method(id).map(str::to_owned);
            self.emit(Event::outbound(EventKind::CancelNotSent {
                request_id: id.clone(),
                method,
                why: NotSent::NotInFlight,
            }));
            return Ok(false);
        };
        match request.kind {
            Kind::Task { cancel_pending: true } | Kind::TaskCancel => {
                let method = Some(request.name().to_owned());
                self.emit(Event::outbound(EventKind::CancelNotSent {
                    request_id: id.clone(),
                    method,
                    why: NotSent::NotInFlight,
                }));
                return Ok(false);
            }
            Kind::Task { cancel_pending: false } => {
                request.kind = Kind::Task { cancel_pending: true };
                let method = request.name().to_owned();
                // Dropped, not only unscheduled: progress must not re-arm a cancelled request.
                if let Some(mut timer) = request.extra.as_mut().and_then(|e| e.timer.take()) {
                    self.deadlines.unschedule(&mut timer);
                    self.tidy_deadlines();
                }
                self.emit(Event::outbound(EventKind::CancelDeferred { request_id: id.clone(), method }));
                self.outputs.push_back(cancelled);
                return Ok(true);
            }
            Kind::TaskQuery => {
                // Aborting a poll of a running task (the TS SDK aborts the `tasks/get` and
                // `tasks/result` of a task with the same signal) means: stop the task. The
                // poll itself is tombstoned; the task gets its one `tasks/cancel`.
                let task_id = request.task_id().to_owned();
                let owner = self.tasks.get(&task_id).map(|t| t.request_id.clone());
                let made = owner.is_some_and(|owner| self.cancel_task(&owner, &task_id));
                let Some(poll) = self.take_outbound(id) else { return Ok(made) };
                let watched = poll.watched;
                self.tombstones.insert(id.clone(), poll.into_tombstone());
                self.outputs.push_back(cancelled);
                self.settle(id, watched);
                // The poll itself is cancelled even when its task's `tasks/cancel` already
                // went (or the task ended): `Ok(true)` whenever `Output::Cancelled` is queued,
                // which `handle_timeout` relies on to queue it once.
                return Ok(true);
            }
            Kind::Plain => {}
        }
        if Some(request.name()) == handshake {
            let method = Some(request.name().to_owned());
            self.emit(Event::outbound(EventKind::CancelNotSent {
                request_id: id.clone(),
                method,
                why: NotSent::Handshake,
            }));
            return Err(UsageError::HandshakeNotCancellable(id.clone()));
        }
        let Some(request) = self.take_outbound(id) else { return Ok(false) };
        let close_stream = self.config.transport == TransportKind::StreamableHttp
            && self.revision.is_some_and(|r| r.rules().http_cancel_is_stream_close);
        let wire_reason = self.config.reason.wire_reason(reason);
        if self.config.events {
            self.emit(Event::outbound(EventKind::CancelSent {
                request_id: id.clone(),
                method: request.name().to_owned(),
                via: if close_stream { Via::StreamClose } else { Via::Notification },
                reason: wire_reason.clone(),
                task_id: None,
            }));
        }
        let watched = request.watched;
        self.tombstones.insert(id.clone(), request.into_tombstone());
        let action = if close_stream {
            CancelAction::CloseStream(id.clone())
        } else {
            CancelAction::Notify(CancelNotification { request_id: id.clone(), reason: wire_reason })
        };
        self.outputs.push_back(Output::Transmit(Transmit { request_id: id.clone(), action }));
        self.outputs.push_back(cancelled);
        self.settle(id, watched);
        Ok(true)
    }

    /// What [`Self::handle_response`] needs to read of a response to `id`. Reading nothing
    /// else keeps a 1 MB result out of the session.
    #[must_use]
    pub fn response_fields(&self, id: &RequestId) -> Fields {
        let tasks_extension = self.tasks_extension();
        if self.reading_responses == 0 && !tasks_extension {
            return Fields::default();
        }
        match self.outbound.get(id) {
            Some(o) => match o.kind {
                Kind::Task { .. } => Fields { task_id: true, ..Fields::default() },
                Kind::TaskQuery => Fields { task_status: true, ..Fields::default() },
                Kind::TaskCancel => Fields { error_code: true, ..Fields::default() },
                Kind::Plain if o.is(Method::Initialize) => Fields { protocol_version: true, ..Fields::default() },
                // 2026-07-28 tasks extension: any request may come back as a task
                // (`resultType: "task"`), even one we cancelled.
                Kind::Plain if tasks_extension => Fields { task_id: true, ..Fields::default() },
                Kind::Plain => Fields::default(),
            },
            None if tasks_extension && self.tombstones.contains(id) => Fields { task_id: true, ..Fields::default() },
            None => Fields::default(),
        }
    }

    /// Classifies a response (result or error) to our request `id`, with the fields
    /// [`Self::response_fields`] asked for. A [`ResponseVerdict::Deliver`] completes the
    /// request (a `CreateTaskResult` starts its task); a [`ResponseVerdict::Late`]
    /// consumes its tombstone, or — for a task request cancelled before its `taskId` was
    /// known — queues the deferred `tasks/cancel` ([`Self::poll_output`]).
    ///
    /// Spec: every revision §Cancellation, "SHOULD ignore any response to the request that
    /// arrives afterward"; 2025-11-25 §Tasks.
    pub fn handle_response(&mut self, id: &RequestId, info: &ResponseInfo) -> ResponseVerdict {
        let Some(request) = self.take_outbound(id) else {
            if self.tombstones.len() == 0 {
                return ResponseVerdict::Unknown;
            }
            let Some(tombstone) = self.tombstones.remove(id) else { return ResponseVerdict::Unknown };
            if let Some(task_id) = info.task_id.clone().filter(|_| info.error_code.is_none() && self.tasks_extension())
            {
                // 2026-07-28: the request we cancelled came back as a task: cancel that too.
                self.start_task(id, &task_id, &tombstone.method, false);
                self.cancel_task(id, &task_id);
            }
            if self.config.events {
                self.emit(Event::outbound(EventKind::LateResponseDropped {
                    request_id: id.clone(),
                    method: tombstone.method.to_string(),
                }));
            }
            return ResponseVerdict::Late;
        };
        let watched = request.watched;
        match request.kind {
            Kind::Plain => {
                if let Some(version) = &info.protocol_version {
                    self.set_protocol_version(version);
                }
                match info.task_id.clone().filter(|_| info.error_code.is_none() && self.tasks_extension()) {
                    // 2026-07-28: a `resultType: "task"` answer starts a task we can cancel.
                    Some(task_id) => self.start_task(id, &task_id, request.name(), watched),
                    None => self.settle(id, watched),
                }
                ResponseVerdict::Deliver
            }
            Kind::Task { cancel_pending } => {
                let task_id = info.task_id.clone().filter(|_| info.error_code.is_none());
                match (task_id, cancel_pending) {
                    (Some(task_id), false) => {
                        self.start_task(id, &task_id, request.name(), watched);
                        ResponseVerdict::Deliver
                    }
                    (Some(task_id), true) => {
                        // The caller gave up before the task existed: cancel it now, and drop
                        // the CreateTaskResult nobody waits for.
                        self.start_task(id, &task_id, request.name(), watched);
                        self.cancel_task(id, &task_id);
                        self.emit(Event::outbound(EventKind::LateResponseDropped {
                            request_id: id.clone(),
                            method: request.name().to_owned(),
                        }));
                        ResponseVerdict::Late
                    }
                    (None, false) => {
                        self.settle(id, watched);
                        ResponseVerdict::Deliver
                    }
                    (None, true) => {
                        // An error, or a server that ran it as a plain request: nothing to cancel.
                        self.settle(id, watched);
                        self.emit(Event::outbound(EventKind::LateResponseDropped {
                            request_id: id.clone(),
                            method: request.name().to_owned(),
                        }));
                        ResponseVerdict::Late
                    }
                }
            }
            Kind::TaskQuery => {
                let task_id = request.task_id();
                let ended = request.is(Method::TasksResult)
                    || (request.is(Method::TasksCancel) && info.error_code.is_none())
                    || info.error_code == Some(INVALID_PARAMS) && request.is(Method::TasksCancel)
                    || info.task_status.as_ref().is_some_and(|(t, s)| *t == task_id && is_terminal(s));
                if ended {
                    let task_id = task_id.to_owned();
                    self.end_task(&task_id);
                }
                self.settle(id, watched);
                ResponseVerdict::Deliver
            }
            Kind::TaskCancel => {
                let task_id = request.task_id().to_owned();
                let outcome = match info.error_code {
                    None => TaskCancelOutcome::Cancelled,
                    Some(INVALID_PARAMS) => TaskCancelOutcome::AlreadyTerminal,
                    Some(_) => TaskCancelOutcome::Error,
                };
                self.emit(Event::outbound(EventKind::TaskCancelAnswered {
                    request_id: id.clone(),
                    task_id: task_id.clone(),
                    outcome,
                    code: info.error_code,
                }));
                self.end_task(&task_id);
                ResponseVerdict::Consumed
            }
        }
    }

    /// Classifies a `notifications/progress` by its `params.progressToken`, at `now`: a
    /// delivered one restarts its request's timeout when it resets on progress.
    pub fn handle_progress(&mut self, token: &ProgressToken, now: Millis) -> ProgressVerdict {
        if let Some(id) = self.progress.get(token) {
            if let Some(timer) = self.outbound.get_mut(id).and_then(Outbound::timer_mut) {
                self.deadlines.on_progress(id, timer, now);
                self.tidy_deadlines();
            }
            return ProgressVerdict::Deliver;
        }
        let Some((id, method)) = self.tombstones.by_progress_token(token) else {
            return ProgressVerdict::Unknown;
        };
        let event = EventKind::LateProgressDropped {
            request_id: id.clone(),
            method: method.to_owned(),
            progress_token: token.clone(),
        };
        self.emit(Event::outbound(event));
        ProgressVerdict::Late
    }

    /// Notes a task's status (`notifications/tasks/status`): a terminal status
    /// (`completed`, `failed`, `cancelled`) ends the task — no `tasks/cancel` will be sent
    /// for it.
    pub fn handle_task_status(&mut self, task_id: &str, status: &str) {
        if is_terminal(status) {
            self.end_task(task_id);
        }
    }

    // ----- time -----

    /// The earliest deadline (ms on the host's time line) at which
    /// [`Self::handle_timeout`] must be called; `None` when no request has a timeout.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.deadlines.next()
    }

    /// Expires every request whose deadline is at or before `now`: each is cancelled as by
    /// [`Self::cancel`] with [`Reason::Timeout`], and its [`Output::Cancelled`] carries
    /// [`CancelCause::TimedOut`] so its local caller gets a timeout error (queued even when
    /// nothing could be sent). Each deadline fires once.
    ///
    /// Spec: 2025-03-26 §Lifecycle "Timeouts" (2026-07-28: §Cancellation "Timeouts"): on
    /// timeout the sender SHOULD issue a cancel and stop waiting.
    pub fn handle_timeout(&mut self, now: Millis) {
        while let Some((key, id)) = self.deadlines.pop_due(now) {
            let Some(request) = self.outbound.get_mut(&id) else {
                continue;
            };
            let Some(extra) = request.extra.as_mut() else { continue };
            // A stale entry: the timer was rescheduled or unscheduled since.
            if extra.timer.as_ref().and_then(|t| t.key) != Some(key) {
                continue;
            }
            let Some(mut timer) = extra.timer.take() else { continue };
            self.deadlines.unschedule(&mut timer);
            let Some(kind) = timer.expired(now) else {
                // Unreachable (its key was due, so one of its deadlines is); never loop on it.
                continue;
            };
            if self.config.events {
                let method = request.name().to_owned();
                self.emit(Event::outbound(EventKind::TimedOut { request_id: id.clone(), method, kind }));
            }
            let cause = CancelCause::TimedOut(kind);
            if !matches!(self.cancel_with(&id, &Reason::Timeout, cause), Ok(true)) {
                self.outputs.push_back(Output::Cancelled { request_id: id, cause });
            }
        }
        self.tidy_deadlines();
    }

    // ----- requests the peer sends us -----

    /// Records a request the peer sent us. A second request with an id already in flight
    /// is reported ([`EventKind::DuplicateRequestId`]) and the first one kept; returns
    /// `false` then. An id the peer cancelled before is a new request now.
    pub fn handle_request(&mut self, id: RequestId, method: &str) -> bool {
        if self.inbound.contains_key(&id) {
            self.emit(Event::inbound(EventKind::DuplicateRequestId { request_id: id, method: method.to_owned() }));
            return false;
        }
        self.peer_cancelled.remove(&id);
        if let Some((old, request)) = self.inbound.insert(id, Inbound { method: Name::from(method), watched: false }) {
            if request.watched {
                self.outputs.push_back(Output::InboundSettled(old.clone()));
            }
            self.emit(Event::inbound(EventKind::InboundForgotten { request_id: old, method: request.method.to_string() }));
        }
        true
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
                self.emit(Event::inbound(EventKind::CancelIgnored {
                    request_id,
                    why: Ignored::Malformed,
                    detail: Some(malformed.message()),
                    reason,
                }));
                return InboundCancelVerdict::Ignore;
            }
        };
        if self.rules_peer_cancels() == PeerCancels::OnlyListenStreams {
            let is_listen = self.outbound.get(&id).is_some_and(|o| o.is(Method::SubscriptionsListen));
            if is_listen {
                if let Some(listen) = self.take_outbound(&id) {
                    self.settle(&id, listen.watched);
                }
                self.emit(Event::outbound(EventKind::ListenEnded { request_id: id.clone(), reason }));
                return InboundCancelVerdict::ListenEnded { request_id: id };
            }
            self.emit(Event::inbound(EventKind::CancelIgnored {
                request_id: Some(id),
                why: Ignored::PeerMayNotCancel,
                detail: Some("in 2026-07-28 a server may only cancel the client's subscriptions/listen".to_owned()),
                reason,
            }));
            return InboundCancelVerdict::Ignore;
        }
        let handshake = self.handshake_method();
        let why = match self.inbound.get(&id) {
            None if self.peer_cancelled.contains(&id) => Ignored::AlreadyCancelled,
            None if self.outbound.contains_key(&id) || self.tombstones.contains(&id) => Ignored::WrongDirection,
            None => Ignored::NotInFlight,
            Some(request) if Some(&*request.method) == handshake => Ignored::Handshake,
            Some(_) => {
                let Some(request) = self.inbound.remove(&id) else { return InboundCancelVerdict::Ignore };
                self.emit(Event::inbound(EventKind::CancelReceived {
                    request_id: id.clone(),
                    method: request.method.to_string(),
                    reason: reason.clone(),
                }));
                self.peer_cancelled
                    .insert(id.clone(), Tombstone { method: request.method, progress_token: None });
                self.outputs.push_back(Output::PeerCancelled { request_id: id.clone(), reason: reason.clone() });
                return InboundCancelVerdict::Abort { request_id: id, reason };
            }
        };
        self.emit(Event::inbound(EventKind::CancelIgnored { request_id: Some(id), why, detail: None, reason }));
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
                self.emit(Event::inbound(EventKind::ResponseSuppressed {
                    request_id: id.clone(),
                    method: request.method.to_string(),
                }));
                OutgoingResponseVerdict::Suppress
            }
            None => OutgoingResponseVerdict::Send,
        }
    }

    // ----- connection -----

    /// Forgets every request, task and tombstone (the connection closed): watched requests
    /// get their [`Output::Settled`]; nothing is sent. Queued output stays.
    pub fn close(&mut self) {
        let mut watched: Vec<RequestId> =
            self.outbound.iter().filter(|(_, o)| o.watched).map(|(id, _)| id.clone()).collect();
        watched.extend(self.tasks.values().filter(|t| t.watched).map(|t| t.request_id.clone()));
        self.outputs.extend(watched.into_iter().map(Output::Settled));
        let inbound: Vec<RequestId> =
            self.inbound.iter().filter(|(_, r)| r.watched).map(|(id, _)| id.clone()).collect();
        self.outputs.extend(inbound.into_iter().map(Output::InboundSettled));
        self.outbound.clear();
        self.reading_responses = 0;
        self.progress.clear();
        self.tombstones.clear();
        self.inbound.clear();
        self.peer_cancelled.clear();
        self.tasks.clear();
        self.task_of_request.clear();
        self.deadlines.clear();
    }

    // ----- output -----

    /// The next thing to do, oldest first; `None` when there is none. Call until `None`
    /// after every other call: output is kept until polled.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// Whether output waits to be polled: a host can skip its polling when not.
    #[must_use]
    pub fn has_output(&self) -> bool {
        !self.outputs.is_empty()
    }

    // ----- internals -----

    fn rules(&self) -> Option<Rules> {
        self.revision.map(Revision::rules)
    }

    fn tasks_extension(&self) -> bool {
        self.rules().is_some_and(|r| r.tasks == TaskCancel::TasksExtension)
    }

    fn rules_peer_cancels(&self) -> PeerCancels {
        self.rules().map_or(PeerCancels::OwnRequests, |r| r.peer_cancels)
    }

    /// Queues the `tasks/cancel` for `task_id` (the task of our request `id`); `false` when
    /// one was already sent. Its id is the session's own, never one in use.
    fn cancel_task(&mut self, id: &RequestId, task_id: &str) -> bool {
        let Some(task) = self.tasks.get_mut(task_id) else { return false };
        if task.cancel_sent {
            let method = Some(task.method.clone());
            self.emit(Event::outbound(EventKind::CancelNotSent {
                request_id: id.clone(),
                method,
                why: NotSent::TaskSettled,
            }));
            return false;
        }
        task.cancel_sent = true;
        let method = task.method.clone();
        let cancel_id = loop {
            let mut candidate = self.config.internal_id_prefix.clone();
            candidate.push_str(itoa::Buffer::new().format(self.next_internal_id));
            let candidate = RequestId::String(candidate);
            self.next_internal_id += 1;
            // The application may use ids of the same shape: never take one it has in use.
            if !self.outbound.contains_key(&candidate) && !self.tombstones.contains(&candidate) {
                break candidate;
            }
        };
        let extra = Extra { task_id: Some(task_id.to_owned()), ..Extra::default() };
        self.insert_outbound(
            cancel_id.clone(),
            Outbound {
                method: Some(Method::TasksCancel),
                kind: Kind::TaskCancel,
                watched: false,
                extra: Some(Box::new(extra)),
            },
        );
        self.emit(Event::outbound(EventKind::CancelSent {
            request_id: id.clone(),
            method,
            via: Via::TasksCancel,
            reason: None,
            task_id: Some(task_id.to_owned()),
        }));
        let action =
            CancelAction::CancelTask(TaskCancelRequest { id: cancel_id, task_id: task_id.to_owned(), cancels: id.clone() });
        self.outputs.push_back(Output::Transmit(Transmit { request_id: id.clone(), action }));
        true
    }

    /// `method` shared with the requests in flight that have the same one: an entry holds
    /// a pointer instead of a string of its own. At most [`MAX_INTERNED`] methods are kept.
    fn intern(&mut self, method: &str) -> Arc<str> {
        if let Some(m) = self.methods.iter().find(|m| ***m == *method) {
            return Arc::clone(m);
        }
        let m: Arc<str> = method.into();
        if self.methods.len() < MAX_INTERNED {
            self.methods.push(Arc::clone(&m));
        }
        m
    }


    /// Drops stale deadlines (see [`Deadlines::tidy`]): after every schedule or unschedule,
    /// so [`Self::poll_timeout`] is exact and memory stays bounded under progress resets.
    fn tidy_deadlines(&mut self) {
        let outbound = &self.outbound;
        self.deadlines.tidy(|id, key| {
            outbound.get(id).and_then(|o| o.extra.as_ref()).and_then(|e| e.timer.as_ref()).and_then(|t| t.key)
                == Some(key)
        });
    }

    fn insert_outbound(&mut self, id: RequestId, request: Outbound) {
        if request.reads_response() {
            self.reading_responses += 1;
        }
        self.outbound.insert(id, request);
    }

    /// Removes our request `id` with its progress token and deadline.
    fn take_outbound(&mut self, id: &RequestId) -> Option<Outbound> {
        let mut request = self.outbound.remove(id)?;
        if request.reads_response() {
            self.reading_responses -= 1;
        }
        if let Some(extra) = request.extra.as_mut() {
            if let Some(token) = &extra.progress_token {
                self.progress.remove(token);
            }
            if let Some(timer) = extra.timer.as_mut() {
                self.deadlines.unschedule(timer);
                self.tidy_deadlines();
            }
        }
        Some(request)
    }

    fn start_task(&mut self, id: &RequestId, task_id: &str, method: &str, watched: bool) {
        self.task_of_request.insert(id.clone(), task_id.to_owned());
        let task = Task { request_id: id.clone(), method: method.to_owned(), cancel_sent: false, watched };
        self.tasks.insert(task_id.to_owned(), task);
    }

    fn end_task(&mut self, task_id: &str) {
        let Some(task) = self.tasks.remove(task_id) else { return };
        // The request id may have been reused since (see `track`): only its own mapping goes.
        if self.task_of_request.get(&task.request_id).map(String::as_str) == Some(task_id) {
            self.task_of_request.remove(&task.request_id);
            if !self.outbound.contains_key(&task.request_id) {
                self.settle(&task.request_id, task.watched);
            }
        }
    }

    /// Queues [`Output::Settled`] for a watched request that can no longer be cancelled
    /// (a request whose task still runs is not settled until the task ends).
    fn settle(&mut self, id: &RequestId, watched: bool) {
        if watched && !self.task_of_request.contains_key(id) {
            self.outputs.push_back(Output::Settled(id.clone()));
        }
    }

    fn emit(&mut self, event: Event) {
        if self.config.events {
            self.outputs.push_back(Output::Event(event));
        }
    }
}

fn is_terminal(status: &str) -> bool {
    TASK_STATUS_METHOD_TERMINAL.contains(&status)
}
