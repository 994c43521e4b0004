//! [`Session`]: the cancellation bookkeeping of one MCP connection.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use super::event::{Event, EventKind, Ignored, NotSent};
use super::id::{ProgressToken, RequestId};
use super::reason::{Reason, ReasonPolicy};
use super::tombstones::{Tombstone, Tombstones};
use super::wire::{cap_utf8, CancelledParams, INITIALIZE_METHOD};

/// Settings of a [`Session`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// How many cancelled requests are remembered to drop their late messages. Default
    /// 1024; the oldest is forgotten first, and a late message for a forgotten request is
    /// classified [`ResponseVerdict::Unknown`]. `0` remembers none.
    pub tombstone_capacity: usize,
    /// What `reason` goes on the wire, and how long reasons may be.
    pub reason: ReasonPolicy,
}

impl Default for Config {
    fn default() -> Self {
        Self { tombstone_capacity: 1024, reason: ReasonPolicy::default() }
    }
}

/// Where one of our requests is, as [`Session::request_state`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestState {
    /// Sent, no response yet, not cancelled.
    InFlight,
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
        serde_json::json!({
            "jsonrpc": "2.0",
            "method": super::wire::CANCELLED_METHOD,
            "params": params,
        })
    }
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
    /// Invalid (malformed, unknown, finished, wrong direction, duplicate, handshake):
    /// ignore it; an [`EventKind::CancelIgnored`] says why.
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
    /// [`Session::track_request`] with an id that is already in flight.
    AlreadyInFlight(RequestId),
    /// [`Session::track_request`] with a progress token another request in flight uses
    /// (spec: progress tokens MUST be unique across active requests).
    ProgressTokenInUse(ProgressToken),
    /// [`Session::cancel`] of the handshake request (`initialize`), which MUST NOT be
    /// cancelled (2024-11-05 .. 2025-11-25 §Cancellation).
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

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AlreadyInFlight(id) => write!(f, "request id {id} is already in flight"),
            Self::ProgressTokenInUse(t) => write!(f, "progress token {t} is already used by a request in flight"),
            Self::HandshakeNotCancellable(id) => {
                write!(f, "request {id} is the initialize handshake, which must not be cancelled")
            }
        }
    }
}

impl std::error::Error for UsageError {}

#[derive(Debug)]
struct Outbound {
    method: String,
    progress_token: Option<ProgressToken>,
}

#[derive(Debug)]
struct Inbound {
    method: String,
    cancelled: bool,
}

/// The cancellation bookkeeping of one MCP connection: sans-IO, deterministic, no clock.
///
/// A `Session` never sends or receives anything itself. The host tells it what crosses
/// the wire and does what it answers:
///
/// **Requests we send** (outbound):
/// 1. [`track_request`](Self::track_request) when the request goes out;
/// 2. [`cancel`](Self::cancel) to cancel it: send the returned [`CancelNotification`];
/// 3. [`handle_response`](Self::handle_response) for every response that arrives, and
///    [`handle_progress`](Self::handle_progress) for every `notifications/progress`:
///    drop what they call late.
///
/// **Requests the peer sends us** (inbound):
/// 1. [`handle_request`](Self::handle_request) when one arrives;
/// 2. [`handle_cancelled`](Self::handle_cancelled) for every `notifications/cancelled`:
///    abort the work when it says [`InboundCancelVerdict::Abort`];
/// 3. [`handle_outgoing_response`](Self::handle_outgoing_response) before sending our
///    response: do not send it when it says [`OutgoingResponseVerdict::Suppress`].
///
/// **Events**: after each call, [`poll_event`](Self::poll_event) until `None`.
///
/// Spec: `notifications/cancelled`, 2024-11-05 / 2025-03-26 / 2025-06-18 §Cancellation.
///
/// # Invariants
/// 1. An id is at most one of: outbound in flight, tombstoned.
/// 2. A cancel is produced only for an outbound request in flight, never for `initialize`,
///    and at most once per request.
/// 3. The peer cannot create tombstones: only [`cancel`](Self::cancel) does.
/// 4. Tombstones never exceed [`Config::tombstone_capacity`].
#[derive(Debug)]
pub struct Session {
    config: Config,
    outbound: HashMap<RequestId, Outbound>,
    progress: HashMap<ProgressToken, RequestId>,
    tombstones: Tombstones,
    inbound: HashMap<RequestId, Inbound>,
    events: VecDeque<Event>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new(Config::default())
    }
}

impl Session {
    /// A session with no request in flight.
    #[must_use]
    pub fn new(config: Config) -> Self {
        let tombstones = Tombstones::new(config.tombstone_capacity);
        Self {
            config,
            outbound: HashMap::new(),
            progress: HashMap::new(),
            tombstones,
            inbound: HashMap::new(),
            events: VecDeque::new(),
        }
    }

    // ----- getters -----

    /// The session's settings.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Where our request `id` is: in flight, cancelled (tombstoned), or `None` (completed,
    /// never sent, or its tombstone evicted).
    #[must_use]
    pub fn request_state(&self, id: &RequestId) -> Option<RequestState> {
        if self.outbound.contains_key(id) {
            Some(RequestState::InFlight)
        } else if self.tombstones.contains(id) {
            Some(RequestState::Cancelled)
        } else {
            None
        }
    }

    /// Number of our requests in flight.
    #[must_use]
    pub fn outbound_in_flight(&self) -> usize {
        self.outbound.len()
    }

    /// Number of the peer's requests we are working on (cancelled ones included until
    /// their response is handled).
    #[must_use]
    pub fn inbound_in_flight(&self) -> usize {
        self.inbound.len()
    }

    /// Number of tombstones (cancelled requests remembered).
    #[must_use]
    pub fn tombstones(&self) -> usize {
        self.tombstones.len()
    }

    // ----- requests we send -----

    /// Records that we sent request `id` with `method`, and its
    /// `params._meta.progressToken` if it has one.
    ///
    /// An id that was tombstoned is forgotten as cancelled: it is in flight again.
    ///
    /// # Errors
    /// [`UsageError::AlreadyInFlight`] when `id` is in flight;
    /// [`UsageError::ProgressTokenInUse`] when the token is used by a request in flight.
    pub fn track_request(
        &mut self,
        id: RequestId,
        method: &str,
        progress_token: Option<ProgressToken>,
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
        self.tombstones.remove(&id);
        self.outbound.insert(id, Outbound { method: method.to_owned(), progress_token });
        Ok(())
    }

    /// Cancels our request `id`: returns the notification to send, or `None` when there is
    /// nothing to cancel (not in flight: completed, unknown, or already cancelled — the
    /// first reason wins). Afterwards `id` is a tombstone: its late response and progress
    /// are [`ResponseVerdict::Late`] / [`ProgressVerdict::Late`].
    ///
    /// Spec: 2024-11-05 .. 2025-06-18 §Cancellation, "Cancellation notifications MUST only
    /// reference requests that were previously issued in the same direction and are
    /// believed to still be in-progress".
    ///
    /// # Errors
    /// [`UsageError::HandshakeNotCancellable`] for `initialize`; the request stays in flight.
    pub fn cancel(&mut self, id: &RequestId, reason: &Reason) -> Result<Option<CancelNotification>, UsageError> {
        let Some(request) = self.outbound.get(id) else {
            let method = self.tombstones.method(id).map(str::to_owned);
            self.emit(Event::outbound(EventKind::CancelNotSent {
                request_id: id.clone(),
                method,
                why: NotSent::NotInFlight,
            }));
            return Ok(None);
        };
        if request.method == INITIALIZE_METHOD {
            self.emit(Event::outbound(EventKind::CancelNotSent {
                request_id: id.clone(),
                method: Some(INITIALIZE_METHOD.to_owned()),
                why: NotSent::Handshake,
            }));
            return Err(UsageError::HandshakeNotCancellable(id.clone()));
        }
        let Some(request) = self.outbound.remove(id) else {
            return Ok(None);
        };
        if let Some(token) = &request.progress_token {
            self.progress.remove(token);
        }
        let wire_reason = self.config.reason.wire_reason(reason);
        self.emit(Event::outbound(EventKind::CancelSent {
            request_id: id.clone(),
            method: request.method.clone(),
            reason: wire_reason.clone(),
        }));
        self.tombstones.insert(
            id.clone(),
            Tombstone { method: request.method, progress_token: request.progress_token },
        );
        Ok(Some(CancelNotification { request_id: id.clone(), reason: wire_reason }))
    }

    /// Classifies a response (result or error) to our request `id`. A
    /// [`ResponseVerdict::Deliver`] completes the request; a [`ResponseVerdict::Late`]
    /// consumes its tombstone.
    ///
    /// Spec: every revision §Cancellation, "The sender of the cancellation notification
    /// SHOULD ignore any response to the request that arrives afterward".
    pub fn handle_response(&mut self, id: &RequestId) -> ResponseVerdict {
        if let Some(request) = self.outbound.remove(id) {
            if let Some(token) = &request.progress_token {
                self.progress.remove(token);
            }
            return ResponseVerdict::Deliver;
        }
        match self.tombstones.remove(id) {
            Some(tombstone) => {
                self.emit(Event::outbound(EventKind::LateResponseDropped {
                    request_id: id.clone(),
                    method: tombstone.method,
                }));
                ResponseVerdict::Late
            }
            None => ResponseVerdict::Unknown,
        }
    }

    /// Classifies a `notifications/progress` by its `params.progressToken`.
    pub fn handle_progress(&mut self, token: &ProgressToken) -> ProgressVerdict {
        if self.progress.contains_key(token) {
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

    // ----- requests the peer sends us -----

    /// Records a request the peer sent us. A second request with an id already in flight
    /// is reported ([`EventKind::DuplicateRequestId`]) and the first one kept; returns
    /// `false` then.
    pub fn handle_request(&mut self, id: RequestId, method: &str) -> bool {
        if self.inbound.contains_key(&id) {
            self.emit(Event::inbound(EventKind::DuplicateRequestId { request_id: id, method: method.to_owned() }));
            return false;
        }
        self.inbound.insert(id, Inbound { method: method.to_owned(), cancelled: false });
        true
    }

    /// Classifies a `notifications/cancelled` from the peer.
    ///
    /// Valid only for a request the peer sent us that is in flight, not yet cancelled and
    /// not `initialize`; anything else is ignored and reported
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
                    detail: Some(malformed.to_string()),
                    reason,
                }));
                return InboundCancelVerdict::Ignore;
            }
        };
        let why = match self.inbound.get_mut(&id) {
            None if self.outbound.contains_key(&id) || self.tombstones.contains(&id) => Ignored::WrongDirection,
            None => Ignored::NotInFlight,
            Some(request) if request.method == INITIALIZE_METHOD => Ignored::Handshake,
            Some(request) if request.cancelled => Ignored::AlreadyCancelled,
            Some(request) => {
                request.cancelled = true;
                let method = request.method.clone();
                self.emit(Event::inbound(EventKind::CancelReceived {
                    request_id: id.clone(),
                    method,
                    reason: reason.clone(),
                }));
                return InboundCancelVerdict::Abort { request_id: id, reason };
            }
        };
        self.emit(Event::inbound(EventKind::CancelIgnored { request_id: Some(id), why, detail: None, reason }));
        InboundCancelVerdict::Ignore
    }

    /// Classifies the response we are about to send to the peer's request `id`, and
    /// forgets that request. Ids we do not know are [`OutgoingResponseVerdict::Send`].
    pub fn handle_outgoing_response(&mut self, id: &RequestId) -> OutgoingResponseVerdict {
        match self.inbound.remove(id) {
            Some(request) if request.cancelled => {
                self.emit(Event::inbound(EventKind::ResponseSuppressed {
                    request_id: id.clone(),
                    method: request.method,
                }));
                OutgoingResponseVerdict::Suppress
            }
            _ => OutgoingResponseVerdict::Send,
        }
    }

    /// Whether the peer has validly cancelled its request `id`.
    #[must_use]
    pub fn is_cancelled_by_peer(&self, id: &RequestId) -> bool {
        self.inbound.get(id).is_some_and(|r| r.cancelled)
    }

    // ----- connection -----

    /// Forgets every request and tombstone (the connection closed). Queued events stay.
    pub fn close(&mut self) {
        self.outbound.clear();
        self.progress.clear();
        self.tombstones.clear();
        self.inbound.clear();
    }

    // ----- output -----

    /// The next event, oldest first; `None` when there is none. Call until `None` after
    /// every other call: events are kept until polled.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Whether events are waiting to be polled.
    #[must_use]
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    fn emit(&mut self, event: Event) {
        self.events.push_back(event);
    }
}
