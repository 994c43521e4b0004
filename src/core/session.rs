//! [`Session`]: the cancellation bookkeeping of one MCP connection.

use crate::prelude::*;
use ::core::fmt;

use super::children::Children;
use super::deadlines::Timeout;
use super::event::{EventKindOf, EventRef};
use super::id::{IdRef, ProgressToken, RequestId};
use super::keys::Key;
use super::output::{Output, Queue, Sink};
use super::peer_requests::PeerRequests;
use super::reason::ReasonPolicy;
use super::requests::Requests;
use super::revision::{Revision, Rules};
use super::running::RunningTasks;
use super::wire::{cap_utf8, INITIALIZE_METHOD};

/// How the connection carries messages, which decides how a cancel is signalled in
/// 2026-07-28 (§Cancellation "Transport-Specific Cancellation").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// stdio or any message transport: the cancel is a `notifications/cancelled`.
    #[default]
    Messages,
    /// Streamable HTTP: in 2026-07-28 closing the request's response stream is the cancel.
    StreamableHttp,
}

/// Which end of the connection the session keeps the books of: what the peer may cancel
/// depends on it in 2026-07-28 (spec 2026-07-28 §Cancellation: only the client cancels).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// An MCP client (default): in 2026-07-28 the peer (a server) may only end our
    /// `subscriptions/listen`.
    #[default]
    Client,
    /// An MCP server (the downstream sessions of a [`Relay`](super::Relay)): the peer (a
    /// client) may cancel the requests it issued, in every revision.
    Server,
}

/// Settings of a [`Session`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// How many cancelled requests are remembered to drop their late messages. Default
    /// 1024; the oldest is forgotten first, and a late message for a forgotten request is
    /// classified [`ResponseVerdict::Unknown`](super::ResponseVerdict::Unknown). `0` remembers none.
    pub tombstone_capacity: usize,
    /// How many of the peer's requests in flight are remembered (to honour its cancels and
    /// suppress our responses). Default 4096; the oldest is forgotten first, with an
    /// [`EventKind::InboundForgotten`](super::EventKind::InboundForgotten), so memory stays flat
    /// even when the host never reports our responses. A forgotten request can no longer be
    /// cancelled by the peer.
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
    /// Which end of the connection this is. Default [`Role::Client`].
    pub role: Role,
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
            internal_id_prefix: "mcp-cancel:".owned(),
            events: true,
            role: Role::Client,
        }
    }
}

/// A mistake in how the session is called (rustls' `ApiMisuse`): the caller's order or
/// values, never the peer's.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UsageError {
    /// [`Session::track`](super::Session::track) with an id that is already in flight.
    AlreadyInFlight(RequestId),
    /// [`Session::track`](super::Session::track) with a progress token another request in flight uses
    /// (spec: progress tokens MUST be unique across active requests).
    ProgressTokenInUse(ProgressToken),
    /// [`Session::cancel`](super::Session::cancel) of the handshake request (`initialize`, up to 2025-11-25),
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
        let mut text = before.owned();
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

impl ::core::error::Error for UsageError {}

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
/// abort, every watched request settled, and every event. (`S`, the [`Sink`] the output goes
/// to, is [`Queue`] for every session but the wasm layer's, which writes it as it comes.)
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
///    exceed [`Config::tombstone_capacity`](super::Config::tombstone_capacity).
#[derive(Debug)]
pub struct Session<S = Queue> {
    pub(super) config: Config,
    pub(super) revision: Option<Revision>,
    /// Our requests in flight, their progress tokens, tombstones.
    pub(super) requests: Requests,
    /// Our tasks that are running.
    pub(super) tasks: RunningTasks,
    /// The peer's requests in flight (at most
    /// [`Config::inbound_capacity`](super::Config::inbound_capacity)) and the ones it validly
    /// cancelled until our response to each is handled (bounded like the tombstones, so a
    /// peer that cancels and never hears back cannot grow it).
    pub(super) peer_requests: PeerRequests,
    pub(super) next_internal_id: u64,
    /// Where everything the host must do goes, in order: the [`Queue`] of
    /// [`Session::poll_output`], or the wasm layer's records.
    pub(super) out: S,
    /// How many requests in flight need more than the id of their response (tasks,
    /// `initialize`): while none does, and no tasks extension applies, a response is
    /// classified by its id alone without asking [`Self::response_fields`].
    pub(super) reading_responses: usize,
    /// Our nested requests and the peer's requests they were sent for
    /// ([`Session::relate`]): empty in a session that sends none.
    pub(super) children: Children,
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
        Self::with_sink(config, Queue::default())
    }

    /// The next thing to do, oldest first; `None` when there is none. Call until `None`
    /// after every other call: output is kept until polled.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.0.pop_front()
    }
}

impl<S: Sink> Session<S> {
    /// A session with no request in flight whose output goes to `out`.
    pub(crate) fn with_sink(config: Config, out: S) -> Self {
        let requests = Requests::new(config.tombstone_capacity, config.hash_seed);
        let tasks = RunningTasks::new(config.hash_seed);
        let peer_requests = PeerRequests::new(config.inbound_capacity, config.tombstone_capacity, config.hash_seed);
        Self {
            revision: config.revision,
            config,
            requests,
            tasks,
            peer_requests,
            next_internal_id: 1,
            out,
            reading_responses: 0,
            children: Children::default(),
        }
    }

    // ----- getters -----

    /// The session's settings.
    #[must_use]
    #[inline]
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

    // ----- revision -----

    /// Follows the rules of the negotiated protocol `version` (the `initialize` result's
    /// `protocolVersion`, or what the SDK passes to `transport.setProtocolVersion`). An
    /// unknown version follows [`Revision::negotiated`] and is reported
    /// ([`EventKind::RevisionNegotiated`](super::EventKind::RevisionNegotiated) with `known:
    /// false`); it is never an error.
    pub fn set_protocol_version(&mut self, version: &str) -> Revision {
        let (revision, known) = Revision::negotiated(version);
        if self.revision != Some(revision) || !known {
            emit!(
                self,
                EventRef::session(EventKindOf::RevisionNegotiated { version: cap_utf8(version, 64), revision, known })
            );
        }
        self.revision = Some(revision);
        revision
    }

    // ----- connection -----

    /// Forgets every request, task and tombstone (the connection closed): watched requests
    /// get their [`Output::Settled`]; nothing is sent. Queued output stays.
    pub fn close(&mut self) {
        let out = &mut self.out;
        self.requests.each_watched(|id| out.settled(id, false));
        self.tasks.each_watched(|id| out.settled(id, false));
        self.peer_requests.each_watched(|id| out.settled(id, true));
        self.requests.clear();
        self.tasks.clear();
        self.peer_requests.clear();
        self.children.clear();
        self.reading_responses = 0;
    }

    // ----- output -----

    /// Whether output waits (to be polled from the [`Queue`], or taken from the wasm layer's
    /// records): a host can skip taking it when not.
    #[must_use]
    #[inline]
    pub fn has_output(&self) -> bool {
        !self.out.is_empty()
    }

    // ----- internals -----

    #[inline]
    pub(super) fn rules(&self) -> Option<Rules> {
        self.revision.map(Revision::rules)
    }

    /// Gives the sink [`Output::Settled`] for a watched request that
    /// can no longer be cancelled (a request whose task still runs is not settled until the
    /// task ends).
    #[inline]
    pub(super) fn settle(&mut self, id: IdRef<'_>, watched: bool) {
        if watched {
            self.settle_watched(id);
        }
    }

    /// [`Self::settle`] of a watched request: one copy for its ~17 callers (for size).
    #[inline(never)]
    fn settle_watched(&mut self, id: IdRef<'_>) {
        if self.tasks.of(Key::of_ref(id)).is_none() {
            self.out.settled(id, false);
        }
    }
}

/// What only the wasm layer asks of a session (its `SessionCore`, not built natively: the
/// `std` build's allowance).
#[cfg_attr(feature = "std", allow(dead_code))]
impl<S: Sink> Session<S> {
    /// Where the output goes (the wasm layer takes what its sink wrote).
    pub(crate) fn sink_mut(&mut self) -> &mut S {
        &mut self.out
    }

    /// The reason policy's texts, set after the session was made (the wasm layer's settings
    /// that cross as strings, `SessionCore::configure`): `generic` replaces
    /// [`ReasonPolicy::generic_reason`], `timeout` [`ReasonPolicy::timeout_reason`], when given.
    pub(crate) fn set_reason_texts(&mut self, generic: Option<&str>, timeout: Option<&str>, cascade: Option<&str>) {
        let policy = &mut self.config.reason;
        for (text, into) in [
            (generic, &mut policy.generic_reason),
            (timeout, &mut policy.timeout_reason),
            (cascade, &mut policy.cascade_reason),
        ] {
            if let Some(text) = text {
                *into = text.owned();
            }
        }
    }

    /// Takes the [`Output::Settled`] (with `inbound`, the [`Output::InboundSettled`]) of the
    /// request `id` when it is all the output there is: after a response completed our
    /// watched request ([`Self::handle_incoming_response`]), or our response ended the peer's
    /// ([`Self::handle_outgoing_response`]). The one place a lone settlement is made cheap: a
    /// host that releases the request's objects itself is told so by the call's answer and
    /// takes no output. `false`, and nothing taken, otherwise.
    #[inline]
    pub(crate) fn take_settled(&mut self, id: IdRef<'_>, inbound: bool) -> bool {
        self.out.take_settled(id, inbound)
    }
}

/// Gives the session's sink the event `$event` (an [`EventRef`]), only with
/// [`Config::events`]: a session that shows no events never builds one. A macro, not a
/// method: the event borrows the session's records (`self.requests`) while the sink
/// (`self.out`) is written.
macro_rules! emit {
    ($session:expr, $event:expr) => {
        if $session.config.events {
            $session.out.event($event);
        }
    };
}
pub(super) use emit;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::{Output, Reason, ResponseInfo, ResponseVerdict, TrackRequest};

    fn watched(n: i64) -> TrackRequest {
        TrackRequest { watch: true, ..TrackRequest::new(RequestId::Number(n), "tools/call") }
    }

    #[test]
    fn take_settled_takes_the_settled_of_that_request_only_when_it_is_all_the_output() {
        let n = RequestId::Number;
        let mut session = Session::new(Config { events: false, ..Config::default() });
        session.track(watched(1), 0).unwrap();
        session.track(watched(2), 0).unwrap();
        assert_eq!(session.handle_response(&n(1), &ResponseInfo::default()), ResponseVerdict::Deliver);
        assert!(!session.take_settled(IdRef::Number(2), false), "another request's");
        assert!(!session.take_settled(IdRef::Number(1), true), "the peer's request 1's");
        assert!(session.take_settled(IdRef::Number(1), false));
        assert!(session.poll_output().is_none(), "taken, not reported twice");
        assert!(!session.take_settled(IdRef::Number(1), false), "nothing left to take");
        // Behind other output (a cancel of 2 before the response of 3), nothing is taken: the
        // host drains the queue in order instead.
        session.track(watched(3), 0).unwrap();
        assert!(session.cancel(&n(2), &Reason::None).unwrap());
        assert_eq!(session.handle_response(&n(3), &ResponseInfo::default()), ResponseVerdict::Deliver);
        assert!(!session.take_settled(IdRef::Number(3), false));
        let rest: Vec<Output> = ::core::iter::from_fn(|| session.poll_output()).collect();
        assert_eq!(rest.last(), Some(&Output::Settled(n(3))));
        // The peer's request our response ended.
        assert!(session.handle_request(RequestId::from("in"), "ping"));
        assert!(session.watch_inbound(&RequestId::from("in")));
        let _ = session.handle_outgoing_response(&RequestId::from("in"));
        let id = IdRef::Str(crate::core::StrId::Text("in"));
        assert!(!session.take_settled(id, false), "ours");
        assert!(session.take_settled(id, true));
        assert!(session.poll_output().is_none());
    }
}
