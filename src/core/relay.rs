//! A relay: MCP between any number of downstream connections (clients) and one upstream
//! connection (a server), with cancellation correct on both sides.
//!
//! Each side is a [`Session`] with its own revision and transport, so each side gets the
//! cancel its revision requires: a `notifications/cancelled`, a closed response stream
//! (2026-07-28 over Streamable HTTP) or a `tasks/cancel`. Between them the relay owns an id
//! map: every request a client sends goes upstream under an id the relay chooses (a number,
//! unique on the upstream connection), with its progress token rewritten the same way, so
//! clients whose ids overlap (`0`, `1`, `"1"`) share an upstream without collisions, and a
//! cancel crosses to the request it names and no other.
//!
//! Sans-IO like the session: the host passes every message with [`Relay::handle_downstream`]
//! / [`Relay::handle_upstream`], does what the returned [`Forward`] / [`Backward`] says
//! (rewriting the ids it names), and drains [`Relay::poll_output`] after every call.
//!
//! What crosses, spec §Cancellation of 2024-11-05 .. 2026-07-28:
//! - a client's cancel (a notification, or its request stream closing —
//!   [`Relay::handle_downstream_stream_closed`]) becomes the upstream revision's cancel of
//!   the mapped request; nothing when the request already finished or is the handshake;
//! - a client that disconnects ([`Relay::disconnect`]) has its requests cancelled upstream;
//! - a client that vanishes without a word, when its link has a [`Vanish`] policy: a
//!   request whose response stream closed and was not resumed within the resume grace is
//!   cancelled upstream ("Client vanished: …"), and a client not heard from for its idle
//!   time to live is ended ([`RelayOutput::EndClient`]) with its requests failed and
//!   cancelled upstream ("Client session expired: …");
//! - late responses and progress are dropped on either side (each side's tombstones);
//! - a request that times out upstream ([`Config::timeout`] of the upstream session) is
//!   cancelled there and the client gets an error response ([`Failure::Timeout`]), as is
//!   every request in flight when the upstream connection closes;
//! - the server's cancel of a request it sent (sampling, elicitation, … up to 2025-11-25)
//!   becomes the downstream revision's cancel of that request, on the client it went to: the
//!   only client, or the only one with requests in flight (else it is refused,
//!   [`Failure::Unroutable`]); when the client's requests it may be for are cancelled, or
//!   the client disconnects, it is answered with an error ([`Failure::CallCancelled`],
//!   [`Failure::ClientGone`]) and cancelled downstream.
//!
//! The handshake (`initialize`, up to 2025-11-25) is made once upstream: the first client's
//! goes through; the others are answered from its result ([`Forward::AnswerHandshake`],
//! [`RelayOutput::AnswerHandshake`]), and `notifications/initialized` goes up once.

use crate::prelude::*;
use ::core::cmp::Reverse;
use alloc::collections::{BinaryHeap, VecDeque};

use super::deadlines::Millis;
use super::message::Message;
use super::method::MethodName;
use super::output::{CancelCause, Output, Transmit};
use super::reason::Reason;
use super::session::{Config, Session};
use super::verdict::Verdict;
use super::wire::{CancelledParams, PeerValue};
use super::{Event, MessageFields, Method, RequestId};

/// A downstream connection of a [`Relay`]: a small number, never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Link(pub u32);

/// The settings of a [`Relay`].
#[derive(Clone, Debug)]
pub struct RelayConfig {
    /// The upstream session (its transport, timeouts, reason policy, capacities).
    pub upstream: Config,
    /// The settings every downstream session starts with ([`Relay::connect`] sets the
    /// transport of each).
    pub downstream: Config,
    /// Most requests one client may have in flight through the relay (forwarded, or an
    /// `initialize` held for the shared handshake); beyond it a request is answered with
    /// [`Failure::TooManyRequests`] and not forwarded. Default 4096.
    pub max_in_flight_per_link: usize,
}

impl Default for RelayConfig {
    fn default() -> Self {
        Self { upstream: Config::default(), downstream: Config::default(), max_in_flight_per_link: 4096 }
    }
}

/// What to do with a message from a client ([`Relay::handle_downstream`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum Forward {
    /// Send nothing: a cancel (the relay sends the upstream one itself, see
    /// [`Relay::poll_output`]), a late response, a second `notifications/initialized`, a
    /// request refused (its error is in the output).
    Drop,
    /// Send it upstream, with `id` (a request's) and `params._meta.progressToken` replaced
    /// by these numbers when given; everything else as it is.
    Upstream {
        /// The upstream id of the request.
        id: Option<u64>,
        /// The upstream progress token of the request.
        progress_token: Option<u64>,
    },
    /// Answer this `initialize` with the upstream's handshake result (its `result`, with
    /// this request's id).
    AnswerHandshake,
    /// Hold this `initialize`: [`RelayOutput::AnswerHandshake`] (or a
    /// [`RelayOutput::Fail`]) answers it when the upstream handshake completes.
    Hold,
    /// Answer this `server/discover` of a client on a revision without a handshake
    /// (2026-07-28) with [`discover_result`] of the upstream's handshake result (its
    /// `result`, with this request's id). The upstream speaks a revision with a handshake, so
    /// the relay answers for it.
    AnswerDiscover,
    /// Send this response (a client's answer to a request of the server's) upstream with its
    /// `id` replaced by this one: the server's id of the request (the client saw the relay's,
    /// see [`Backward::Downstream`]).
    AnswerServer {
        /// The server's id of the request answered.
        id: RequestId,
    },
    /// Read these members too and call again with the same message.
    NeedFields(MessageFields),
}

/// What to do with a message from the server ([`Relay::handle_upstream`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum Backward {
    /// Send nothing: a late response or progress, a cancel (translated in the output), the
    /// answer to the relay's own `tasks/cancel`, or a response nobody waits for any more.
    Drop,
    /// Send it to client `link`, with its `id` (a response's; a request's of the server's: a
    /// number the relay chose, unique among the server's requests, from 1) or
    /// `params.progressToken` (a progress notification's) replaced by these when given.
    Downstream {
        /// The client.
        link: Link,
        /// The client's own id of the request this answers.
        id: Option<RequestId>,
        /// The client's own progress token.
        progress_token: Option<RequestId>,
        /// The client's request this message belongs to (a response's, a progress'): a
        /// transport with a stream per request sends it on that request's stream.
        related: Option<RequestId>,
    },
    /// Send it to every client (a notification of the server's: logging, list changes, …).
    Broadcast,
    /// A request of the server's that no single client can take (none is connected, or
    /// several are and not exactly one of them has requests in flight, see
    /// [`Relay::handle_upstream`]): answer it upstream with [`Failure::Unroutable`].
    Refuse,
    /// Read these members too and call again with the same message.
    NeedFields(MessageFields),
}

/// Why the relay answers a request with an error itself (a client's, or with
/// [`Failure::ClientGone`] and [`Failure::Unroutable`] the server's). [`Failure::Timeout`]
/// is also the error `guardTransport` gives the MCP SDK for a request that timed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The request timed out upstream (it was cancelled there): -32001, the MCP SDKs'
    /// `RequestTimeout` (the spec leaves the code to the implementation: 2025-03-26 and
    /// later, Lifecycle §Timeouts; 2026-07-28, Cancellation).
    Timeout,
    /// The upstream connection closed with the request in flight: -32000.
    UpstreamClosed,
    /// The client has [`RelayConfig::max_in_flight_per_link`] requests in flight: -32000.
    TooManyRequests,
    /// The upstream handshake this `initialize` waited for failed: -32000.
    HandshakeFailed,
    /// The request could not be sent to the server (its transport refused it): -32000.
    SendFailed,
    /// A JSON-RPC batch (JSON-RPC 2.0 §6; in MCP 2025-03-26 only), refused whatever the
    /// revision, as its ids could not be mapped one by one and answered as one batch: -32600
    /// (JSON-RPC "Invalid Request"), `id: null`.
    Batch,
    /// The server's request went to a client that disconnected: -32000.
    ClientGone,
    /// The server's request was sent while it handled a client's request (sampling,
    /// elicitation, …), and that client cancelled its request (or it timed out, or its
    /// stream was not resumed): nobody will answer it any more: -32000.
    CallCancelled,
    /// The server's request cannot go to a single client (none is connected, or several are
    /// and not exactly one of them has requests in flight): -32000.
    Unroutable,
    /// The client's session ended: it sent nothing for its idle time to live
    /// ([`Vanish::idle_ttl`]); the request was cancelled upstream: -32000.
    SessionExpired,
}

impl Failure {
    /// The JSON-RPC error code of the failure.
    #[must_use]
    pub fn code(self) -> i32 {
        match self {
            Self::Timeout => -32001,
            Self::Batch => -32600,
            Self::UpstreamClosed
            | Self::TooManyRequests
            | Self::HandshakeFailed
            | Self::SendFailed
            | Self::ClientGone
            | Self::CallCancelled
            | Self::Unroutable
            | Self::SessionExpired => -32000,
        }
    }

    /// The JSON-RPC error message of the failure.
    #[must_use]
    pub fn message(self) -> &'static str {
        match self {
            Self::Timeout => "Request timed out",
            Self::UpstreamClosed => "The upstream connection closed",
            Self::TooManyRequests => "Too many requests in flight through the relay",
            Self::HandshakeFailed => "The upstream handshake failed",
            Self::SendFailed => "The request could not be sent to the server",
            Self::Batch => "mcp-cancel relay: JSON-RPC batches are not relayed",
            Self::ClientGone => "mcp-cancel relay: the client this request went to disconnected",
            Self::CallCancelled => {
                "mcp-cancel relay: the client's request this request was sent for is over (cancelled); the client will not answer"
            }
            Self::Unroutable => "mcp-cancel relay: no single client can take this request",
            Self::SessionExpired => {
                "mcp-cancel relay: the session expired (no request within its time to live); the request was cancelled"
            }
        }
    }
}

/// Which side of the relay an event or a transmit belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Side {
    /// The upstream connection.
    Upstream,
    /// A downstream connection.
    Downstream(Link),
}

/// Something the host must do, from [`Relay::poll_output`], in order.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RelayOutput {
    /// Put this cancel on `side` (a notification, a stream close or a `tasks/cancel`). Its
    /// request id is the one of that side (the relay's upstream id, or the relay's id of a
    /// request of the server's forwarded to a client).
    Transmit(Side, Transmit),
    /// Answer client `link`'s request `id` with this failure (an error response).
    Fail {
        /// The client.
        link: Link,
        /// Its request.
        id: RequestId,
        /// Why.
        failure: Failure,
    },
    /// Answer the server's request `id` with this failure: the client it went to disconnected
    /// ([`Failure::ClientGone`]), or the client's request it was sent for is over
    /// ([`Failure::CallCancelled`]).
    Refuse {
        /// The server's request.
        id: RequestId,
        /// Why.
        failure: Failure,
    },
    /// Answer client `link`'s JSON-RPC batch with [`Failure::Batch`] (an error response with
    /// `id: null`, JSON-RPC 2.0 §5).
    RefuseBatch(Link),
    /// The server's response being handled ([`Relay::handle_upstream`]) is the result of
    /// the shared handshake: keep its `result`, to answer every later client's `initialize`
    /// with ([`RelayOutput::AnswerHandshake`], [`Forward::AnswerHandshake`]).
    KeepHandshakeResult,
    /// Answer client `link`'s held `initialize` `id` with the upstream's handshake result.
    AnswerHandshake {
        /// The client.
        link: Link,
        /// Its `initialize` request.
        id: RequestId,
    },
    /// The upstream revision is now known: a host whose upstream transport needs it (the
    /// MCP SDK's `setProtocolVersion`) is told here.
    UpstreamVersion(String),
    /// An event of one side (only with [`Config::events`] on that side).
    Event(Side, Event),
    /// Something the relay did about client `link` vanishing (only with [`Config::events`]
    /// on the downstream side, [`RelayConfig::downstream`]).
    ClientEvent(Link, ClientEvent),
    /// End client `link`'s connection (for Streamable HTTP, its session: later requests
    /// with its session id get 404): it was not heard from for its [`Vanish::idle_ttl`].
    /// The relay has forgotten the link already; the [`RelayOutput::Fail`]s queued just
    /// before this (after the upstream cancels) are its requests' answers, to be sent
    /// before the connection closes.
    EndClient(Link),
}

/// How the relay treats a client that may vanish without a word (its process killed, its
/// machine asleep): set per client with [`Relay::connect_with`]; both off by default, as
/// for [`Relay::connect`].
///
/// Spec, Streamable HTTP (2025-03-26 .. 2025-11-25, "Sending Messages to the Server" and
/// "Resumability and Redelivery"): a closed response stream "SHOULD NOT be interpreted as
/// the client cancelling its request", and the server may let the client resume it with
/// `Last-Event-ID`; "Session Management": the server MAY terminate a session at any time,
/// and then answers its requests with 404. A relay that waits for a vanished client's
/// cancel forever keeps its work running upstream, and its answers go nowhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vanish {
    /// In revisions where a closed response stream is not a cancel (before 2026-07-28), how
    /// long, in ms, a request whose stream closed waits for a stream of its client to
    /// resume it ([`Relay::handle_downstream_stream_resumed`]) before the relay cancels it
    /// upstream with the reason "Client vanished: its response stream closed and was not
    /// resumed within `<grace>` ms". `Some(0)`: at once. `None`: never (the request runs on).
    pub resume_grace: Option<Millis>,
    /// How long, in ms, the client may stay silent (no message, no [`Relay::heard`])
    /// before the relay ends it: its requests in flight get [`Failure::SessionExpired`] and
    /// are cancelled upstream ("Client session expired: no request for `<ttl>` ms"), the
    /// server's requests to it are refused, and [`RelayOutput::EndClient`] tells the host to
    /// close its connection. A request in flight does not keep the client alive. `None`:
    /// never.
    pub idle_ttl: Option<Millis>,
}

/// What happened to a client that may have vanished ([`RelayOutput::ClientEvent`]). Ids
/// are the client's own (`id`) and the relay's upstream ones (`upstream_id`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientEvent {
    /// The response stream of request `id` closed with the request in flight: it is
    /// cancelled upstream after `grace` ms unless a stream of the client resumes it.
    StreamLost {
        /// The client's request.
        id: RequestId,
        /// Its upstream id.
        upstream_id: u64,
        /// The resume grace, ms.
        grace: Millis,
    },
    /// A stream of the client resumed request `id` within the grace.
    StreamResumed {
        /// The client's request.
        id: RequestId,
        /// Its upstream id, while it is in flight (`None`: it was answered meanwhile).
        upstream_id: Option<u64>,
    },
    /// No stream resumed request `id` within `grace` ms: it is cancelled upstream with
    /// `reason`, and its client gets no answer.
    NotResumed {
        /// The client's request.
        id: RequestId,
        /// Its upstream id.
        upstream_id: u64,
        /// The resume grace, ms.
        grace: Millis,
        /// The reason of the upstream cancel.
        reason: String,
    },
    /// The client was not heard from for `ttl` ms: it is ended ([`RelayOutput::EndClient`]);
    /// `requests` (its id, the upstream id) were in flight: each is answered with
    /// [`Failure::SessionExpired`] and cancelled upstream with `reason`.
    SessionExpired {
        /// The idle time to live, ms.
        ttl: Millis,
        /// Its requests in flight, by upstream id.
        requests: Vec<(RequestId, u64)>,
        /// The reason of the upstream cancels.
        reason: String,
    },
}

/// What closing a request's response stream did ([`Relay::handle_downstream_stream_closed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum StreamClosed {
    /// Nothing: an unknown client, a request not in flight, the handshake, or a close that
    /// is not a cancel in the client's revision and no [`Vanish::resume_grace`].
    Ignored,
    /// The request is cancelled upstream now: the client's cancel (2026-07-28 over
    /// Streamable HTTP), or a resume grace of 0.
    Cancelled,
    /// The request is cancelled upstream at `until` (ms, the clock of `now`) unless a stream
    /// of the client resumes it first.
    AwaitingResume {
        /// When the grace ends.
        until: Millis,
    },
}

/// A request of the server's forwarded to a client.
#[derive(Clone, Debug)]
struct ServerRequest {
    /// The client.
    link: Link,
    /// Its id on the client's side (the relay's: never 0, which the MCP SDK 1.x ignores in
    /// a cancel; unique on the relay, so that a client never gets one id twice).
    down: u64,
    /// The client's requests in flight when the server sent it (those it may be for): when
    /// the last of them is cancelled, it is refused upstream ([`Failure::CallCancelled`]) and
    /// cancelled downstream. Empty: sent while the client had none (its only client's).
    calls: Vec<RequestId>,
}

/// Where a request the relay sent upstream came from.
#[derive(Clone, Debug)]
struct Route {
    link: Link,
    id: RequestId,
    progress_token: Option<RequestId>,
}

/// A client connection.
#[derive(Debug)]
struct Downstream {
    session: Session,
    /// The client's request ids in flight through the relay → their upstream ids.
    upstream_ids: super::IdMap<u64>,
    /// What is done when the client vanishes.
    vanish: Vanish,
    /// When the client was last heard from (ms).
    heard: Millis,
    /// Its requests whose response stream closed, waiting to be resumed → when the grace
    /// ends, and the upstream id they had then (an id the client reuses later is another
    /// request).
    lost: super::IdMap<(Millis, u64)>,
}

/// A deadline of the relay's own ([`Vanish`]), in a heap apart from the entries it is for;
/// checked against them when it falls due (an entry may have moved on meanwhile).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Due {
    at: Millis,
    link: Link,
    what: DueWhat,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum DueWhat {
    /// The client's idle time to live, counted from when it was last heard from: one per
    /// client with an [`Vanish::idle_ttl`], pushed again when it falls due early.
    Idle,
    /// The resume grace of the client's request whose stream closed.
    Resume(RequestId),
}

/// The upstream handshake (`initialize`), made once for every client.
#[derive(Clone, Debug, Default)]
enum Handshake {
    /// Not made yet.
    #[default]
    None,
    /// Sent upstream as this id; these clients' `initialize` wait for it.
    Pending { upstream_id: u64, waiting: Vec<(Link, RequestId)> },
    /// Answered; `initialized` tells whether `notifications/initialized` went up.
    Done { initialized: bool },
}

/// The relay (see the module documentation).
#[derive(Debug)]
pub struct Relay {
    config: RelayConfig,
    upstream: Session,
    links: alloc::collections::BTreeMap<Link, Downstream>,
    next_link: u32,
    /// Upstream id → where the request came from.
    routes: hashbrown::HashMap<u64, Route, foldhash::fast::FixedState>,
    /// The server's requests forwarded to a client, by the server's id.
    server_requests: super::IdMap<ServerRequest>,
    /// The ids the relay gave the server's requests on the clients' side → the server's.
    server_ids: hashbrown::HashMap<u64, RequestId, foldhash::fast::FixedState>,
    next_server_id: u64,
    next_id: u64,
    handshake: Handshake,
    /// The [`Vanish`] deadlines, earliest first.
    due: BinaryHeap<Reverse<Due>>,
    output: VecDeque<RelayOutput>,
}

impl Relay {
    /// A relay with no client yet.
    #[must_use]
    pub fn new(config: RelayConfig) -> Self {
        let upstream = Session::new(config.upstream.clone());
        let seed = config.upstream.hash_seed;
        Self {
            config,
            upstream,
            links: alloc::collections::BTreeMap::new(),
            next_link: 0,
            routes: super::seeded(seed),
            server_requests: super::seeded(seed ^ 0x9e37_79b9_7f4a_7c15),
            server_ids: super::seeded(seed ^ 0x5851_f42d_4c95_7f2d),
            next_server_id: 1,
            next_id: 1,
            handshake: Handshake::None,
            due: BinaryHeap::new(),
            output: VecDeque::new(),
        }
    }

    /// The upstream session (its revision, its requests in flight).
    #[must_use]
    pub fn upstream(&self) -> &Session {
        &self.upstream
    }

    /// The session of client `link`, while it is connected.
    #[must_use]
    pub fn downstream(&self, link: Link) -> Option<&Session> {
        self.links.get(&link).map(|d| &d.session)
    }

    /// The clients connected.
    #[must_use]
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// Requests in flight through the relay (sent upstream, not answered or cancelled).
    #[must_use]
    pub fn in_flight(&self) -> usize {
        self.routes.len()
    }

    /// A new client, on a transport of `transport`'s kind. Its revision is learned from the
    /// handshake it makes through the relay, from its first request that names one in
    /// `_meta` (2026-07-28, read by [`Self::handle_downstream`]), or from
    /// [`Self::set_protocol_version`]. It may vanish without a word: nothing is done about
    /// it ([`Self::connect_with`] sets a [`Vanish`] policy).
    pub fn connect(&mut self, transport: super::TransportKind) -> Link {
        self.connect_with(transport, Vanish::default(), 0)
    }

    /// [`Self::connect`] with what to do when the client vanishes (`vanish`), connected at
    /// `now` (ms, the clock of every later call): its idle time to live counts from `now`.
    pub fn connect_with(&mut self, transport: super::TransportKind, vanish: Vanish, now: Millis) -> Link {
        let link = Link(self.next_link);
        self.next_link = self.next_link.wrapping_add(1);
        let mut config = self.config.downstream.clone();
        config.transport = transport;
        config.role = super::Role::Server;
        config.hash_seed = config.hash_seed.wrapping_add(u64::from(link.0));
        // A client of the relay negotiates with the server: the same revision both sides,
        // once the server's is known.
        if config.revision.is_none() {
            config.revision = self.upstream.revision();
        }
        let seed = config.hash_seed;
        self.links.insert(
            link,
            Downstream {
                session: Session::new(config),
                upstream_ids: super::seeded(seed),
                vanish,
                heard: now,
                lost: super::seeded(seed.rotate_left(7)),
            },
        );
        if let Some(ttl) = vanish.idle_ttl {
            self.due.push(Reverse(Due { at: now.saturating_add(ttl), link, what: DueWhat::Idle }));
        }
        link
    }

    /// A client on revision `version` from the start, whatever the upstream's: for a
    /// 2026-07-28 request over Streamable HTTP, which names its revision itself and needs no
    /// session, one client per request (its cancel is closing its stream,
    /// [`Self::handle_downstream_stream_closed`]). Such a client takes no broadcast and no
    /// request of the server's ([`Self::takes_broadcast`]); its `server/discover` is answered
    /// by the relay ([`Forward::AnswerDiscover`]) when the upstream has a handshake, which the
    /// host makes first (a client of its own sending `initialize`, [`relay_handshake`]).
    pub fn connect_with_version(&mut self, transport: super::TransportKind, version: &str, now: Millis) -> Link {
        let link = self.connect_with(transport, Vanish::default(), now);
        if let Some(d) = self.links.get_mut(&link) {
            d.session.set_protocol_version(version);
        }
        self.drain();
        link
    }

    /// Whether client `link` takes what the server sends to every client
    /// ([`Backward::Broadcast`]) and the server's own requests: a client of a revision with a
    /// handshake (a session of its own, with a stream for them), not a 2026-07-28 client of
    /// one request (notifications on its stream belong to that request; log messages only
    /// when it asked for them, schema 2026-07-28 `RequestMetaObject` `logLevel`).
    #[must_use]
    pub fn takes_broadcast(&self, link: Link) -> bool {
        self.links.get(&link).is_some_and(|d| d.session.revision().map_or(true, |r| r.rules().handshake.is_some()))
    }

    /// Client `link` was heard from at `now` without a message (for Streamable HTTP: an
    /// HTTP request of its session that carries none, e.g. a GET that opens or resumes a
    /// stream): its [`Vanish::idle_ttl`] counts from `now`. Every message of the client's
    /// ([`Self::handle_downstream`]) counts too. Unknown links are ignored.
    pub fn heard(&mut self, link: Link, now: Millis) {
        if let Some(d) = self.links.get_mut(&link) {
            d.heard = d.heard.max(now);
        }
    }

    /// Client `link` disconnected: each of its requests in flight is cancelled upstream
    /// (reason "Client disconnected"; not a pending `initialize`, which is never cancelled:
    /// its answer still completes the shared handshake), and each request of the server's
    /// it had is refused ([`RelayOutput::Refuse`]). Unknown links are ignored.
    pub fn disconnect(&mut self, link: Link) {
        let _ = self.forget_link(link, &Reason::Text("Client disconnected".to_owned()), None);
        self.drain();
    }

    /// Forgets client `link`: its requests in flight are cancelled upstream with `reason`
    /// (and answered with `failure` when given), the server's requests to it are refused.
    /// Returns the answers to send the client, when `failure` is given: the host sends them
    /// after the cancels.
    fn forget_link(&mut self, link: Link, reason: &Reason, failure: Option<Failure>) -> Vec<RelayOutput> {
        let mut answers = Vec::new();
        let Some(mut gone) = self.links.remove(&link) else { return answers };
        let mut ids: Vec<(u64, RequestId)> = gone.upstream_ids.drain().map(|(id, up)| (up, id)).collect();
        ids.sort_unstable_by_key(|(up, _)| *up);
        for (up, id) in ids {
            if let Some(failure) = failure {
                if gone.session.handle_outgoing_response(&id) == super::OutgoingResponseVerdict::Send {
                    answers.push(RelayOutput::Fail { link, id, failure });
                }
            }
            if self.is_pending_handshake(up) {
                // `initialize` MUST NOT be cancelled (2024-11-05 .. 2025-11-25): its route
                // stays, so that its answer completes the handshake for the others.
                continue;
            }
            self.routes.remove(&up);
            let _ = self.upstream.cancel_with(&RequestId::Number(up as i64), reason, CancelCause::Cancelled);
        }
        let mut refused: Vec<RequestId> =
            self.server_requests.iter().filter(|(_, s)| s.link == link).map(|(id, _)| id.clone()).collect();
        refused.sort();
        for id in refused {
            if let Some(s) = self.server_requests.remove(&id) {
                self.server_ids.remove(&s.down);
            }
            self.refuse_server_request(id, Failure::ClientGone);
        }
        if let Handshake::Pending { waiting, .. } = &mut self.handshake {
            waiting.retain(|(l, _)| *l != link);
        }
        gone.session.close();
        if gone.vanish != Vanish::default() {
            self.due.retain(|Reverse(due)| due.link != link);
        }
        answers
    }

    /// Whether `up` is the upstream id of the `initialize` the shared handshake waits for.
    fn is_pending_handshake(&self, up: u64) -> bool {
        matches!(self.handshake, Handshake::Pending { upstream_id, .. } if upstream_id == up)
    }

    /// Client `link`'s `initialize` requests held for the pending handshake: how many, and
    /// whether `id` is one of them.
    fn held(&self, link: Link, id: &RequestId) -> (usize, bool) {
        let Handshake::Pending { waiting, .. } = &self.handshake else { return (0, false) };
        waiting.iter().filter(|(l, _)| *l == link).fold((0, false), |(n, seen), (_, w)| (n + 1, seen || w == id))
    }

    /// The upstream connection closed: every request in flight fails
    /// ([`Failure::UpstreamClosed`]) and is forgotten; the handshake is to be made again.
    pub fn upstream_closed(&mut self) {
        let mut routes: Vec<(u64, Route)> = self.routes.drain().collect();
        routes.sort_by_key(|(up, _)| *up);
        for (_, route) in routes {
            self.fail(route, Failure::UpstreamClosed);
        }
        self.fail_handshake(Failure::UpstreamClosed);
        self.upstream.close();
        self.server_requests.clear();
        self.server_ids.clear();
        self.drain();
    }

    /// A JSON-RPC batch (an array; MCP allows them in 2025-03-26 only) from `side`, in any
    /// revision: batches are not relayed, as
    /// their ids could not be mapped one by one and answered as one batch. A client's is
    /// answered with [`Failure::Batch`] ([`RelayOutput::RefuseBatch`]); the server's is
    /// dropped (no revision lets a server batch a request to a client it cannot name).
    pub fn handle_batch(&mut self, side: Side) {
        if let Side::Downstream(link) = side {
            if self.links.contains_key(&link) {
                self.output.push_back(RelayOutput::RefuseBatch(link));
            }
        }
    }

    /// Follows `version`'s rules on client `link` and, while the upstream has none, on the
    /// upstream too (2026-07-28 has no handshake: each request names its version in
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`, which
    /// [`Self::handle_downstream`] reads itself while the client has no revision).
    pub fn set_protocol_version(&mut self, link: Link, version: &str) {
        if let Some(d) = self.links.get_mut(&link) {
            if d.session.revision().is_none() {
                d.session.set_protocol_version(version);
            }
        }
        if self.upstream.revision().is_none() {
            self.upstream.set_protocol_version(version);
            self.output.push_back(RelayOutput::UpstreamVersion(version.to_owned()));
        }
        self.drain();
    }

    /// A message from client `link`. Never fails: what a client sends is ignored (and
    /// reported) when it is malformed. A message from an unknown link is dropped.
    ///
    /// While the client has no revision, a request of its is first answered
    /// [`Forward::NeedFields`] with [`MessageFields::META_PROTOCOL_VERSION`]: a 2026-07-28
    /// request names its version in `params._meta["io.modelcontextprotocol/protocolVersion"]`
    /// (schema 2026-07-28, `RequestMetaObject`: required on every request). A version read
    /// there becomes the client's, and the upstream's while it has none
    /// ([`Self::set_protocol_version`]: [`RelayOutput::UpstreamVersion`] is queued before the
    /// request is forwarded).
    pub fn handle_downstream(&mut self, link: Link, message: &Message<'_>, now: Millis) -> Forward {
        let forward = self.downstream_message(link, message, now);
        self.drain();
        forward
    }

    fn downstream_message(&mut self, link: Link, message: &Message<'_>, now: Millis) -> Forward {
        let Some(d) = self.links.get_mut(&link) else { return Forward::Drop };
        d.heard = d.heard.max(now);
        let is_request = message.is_request();
        // A request goes upstream as a request of ours: it needs what one of ours needs read
        // (its progress token, its task); everything else what the client's session needs.
        // While the client has no revision, its request's `_meta` version too (2026-07-28:
        // every request names it; the first one sets the client's, and the upstream's).
        if is_request {
            let unversioned = d.session.revision().is_none();
            let mut needed = Method::fields(message.method.known(), false);
            if unversioned {
                needed = needed.with(MessageFields::META_PROTOCOL_VERSION);
            }
            if !message.read.contains(needed) {
                return Forward::NeedFields(needed.without(message.read));
            }
            if let (true, Some(version)) = (unversioned, message.protocol_version) {
                self.set_protocol_version(link, version);
            }
        }
        let Some(d) = self.links.get_mut(&link) else { return Forward::Drop };
        let verdict = d.session.handle_incoming(message, now);
        match verdict {
            Verdict::NeedFields(f) => return Forward::NeedFields(f),
            Verdict::Drop => return Forward::Drop,
            _ => {}
        }
        match message.method {
            // A response to a request of the server's.
            MethodName::Absent => {
                let down = match message.id.to_request_id() {
                    Ok(RequestId::Number(down)) => down,
                    Ok(RequestId::String(_)) => return Forward::Drop,
                    // Not a request id (`null`: an error about a message it could not read).
                    Err(_) => return Forward::Upstream { id: None, progress_token: None },
                };
                let Some(id) = u64::try_from(down).ok().and_then(|down| self.server_ids.get(&down)).cloned() else {
                    return Forward::Drop;
                };
                if self.server_requests.get(&id).map(|s| s.link) != Some(link) {
                    return Forward::Drop;
                }
                self.server_requests.remove(&id);
                self.server_ids.remove(&(down as u64));
                match self.upstream.handle_outgoing_response(&id) {
                    super::OutgoingResponseVerdict::Send => Forward::AnswerServer { id },
                    _ => Forward::Drop,
                }
            }
            MethodName::NotAString => Forward::Upstream { id: None, progress_token: None },
            _ if is_request => self.downstream_request(link, message, now),
            MethodName::Known(Method::Cancelled) => {
                // Valid (the client's session said so): its PeerCancelled output cancels
                // upstream (drained below). The client's own notification never goes up.
                Forward::Drop
            }
            MethodName::Known(Method::Initialized) => match &mut self.handshake {
                Handshake::Done { initialized } if !*initialized => {
                    *initialized = true;
                    Forward::Upstream { id: None, progress_token: None }
                }
                Handshake::Done { .. } | Handshake::Pending { .. } => Forward::Drop,
                Handshake::None => Forward::Upstream { id: None, progress_token: None },
            },
            _ => Forward::Upstream { id: None, progress_token: None },
        }
    }

    fn downstream_request(&mut self, link: Link, message: &Message<'_>, now: Millis) -> Forward {
        let Ok(id) = message.id.to_request_id() else {
            // Not a request id: the server answers it with its own error.
            return Forward::Upstream { id: None, progress_token: None };
        };
        // An id the client has in flight already — forwarded, or an `initialize` held for
        // the shared handshake: its session reported it (`duplicate-request-id`); an answer
        // would be taken for the first request's. Checked before the requests the relay
        // answers or fails itself (discovery, `initialize`): failing or answering the second
        // would forget the first's route.
        let (held, id_held) = self.held(link, &id);
        if id_held || self.links.get(&link).is_some_and(|d| d.upstream_ids.contains_key(&id)) {
            return Forward::Drop;
        }
        let known = message.method.known();
        if known == Some(Method::ServerDiscover) && self.upstream.handshake_method().is_some() {
            // A 2026-07-28 client's discovery, to a server of a revision with a handshake:
            // the relay answers from the handshake's result (made before, see
            // `Relay::connect_with_version`).
            if matches!(self.handshake, Handshake::Done { .. }) {
                self.answered(link, &id);
                return Forward::AnswerDiscover;
            }
            self.fail(Route { link, id, progress_token: None }, Failure::HandshakeFailed);
            return Forward::Drop;
        }
        if known == Some(Method::Initialize) && matches!(self.handshake, Handshake::Done { .. }) {
            self.answered(link, &id);
            return Forward::AnswerHandshake;
        }
        // What the client has in flight through the relay: its forwarded requests and its
        // `initialize` requests held for the handshake (both bounded by the same limit).
        let Some(d) = self.links.get_mut(&link) else { return Forward::Drop };
        if d.upstream_ids.len() + held >= self.config.max_in_flight_per_link {
            if d.session.handle_outgoing_response(&id) == super::OutgoingResponseVerdict::Send {
                self.output.push_back(RelayOutput::Fail { link, id, failure: Failure::TooManyRequests });
            }
            return Forward::Drop;
        }
        if known == Some(Method::Initialize) {
            if let Handshake::Pending { waiting, .. } = &mut self.handshake {
                waiting.push((link, id));
                return Forward::Hold;
            }
        }
        let up = self.next_id;
        self.next_id += 1;
        let progress_token = message.progress_token.to_request_id().ok();
        let up_id = RequestId::Number(up as i64);
        let mut request = super::TrackRequest::new(up_id, message.method.as_str().unwrap_or_default());
        request.progress_token = progress_token.as_ref().map(|_| RequestId::Number(up as i64));
        request.task = message.task;
        request.task_ref = message.task_id.map(str::to_owned);
        if self.upstream.track(request, now).is_err() {
            // Never: the relay's ids and tokens are fresh numbers.
            return Forward::Drop;
        }
        if known == Some(Method::Initialize) {
            self.handshake = Handshake::Pending { upstream_id: up, waiting: Vec::new() };
        }
        d.upstream_ids.insert(id.clone(), up);
        let rewrite_token = progress_token.is_some().then_some(up);
        self.routes.insert(up, Route { link, id, progress_token });
        Forward::Upstream { id: Some(up), progress_token: rewrite_token }
    }

    /// Client `link`'s request `id` had its response stream closed by the client, at `now`.
    ///
    /// - Over Streamable HTTP in 2026-07-28 that is its cancel, handled as its
    ///   `notifications/cancelled` would be ([`StreamClosed::Cancelled`]).
    /// - In earlier revisions a disconnection is not a cancel (Streamable HTTP, 2025-03-26
    ///   .. 2025-11-25: it "SHOULD NOT be interpreted as the client cancelling its
    ///   request"): with a [`Vanish::resume_grace`], the request waits that long for a stream
    ///   of the client to resume it ([`Self::handle_downstream_stream_resumed`],
    ///   [`StreamClosed::AwaitingResume`]); when none does ([`Self::handle_timeout`]), it is
    ///   cancelled upstream with the reason "Client vanished: its response stream closed and
    ///   was not resumed within `<grace>` ms" and its client gets no answer
    ///   ([`ClientEvent::NotResumed`]). A grace of 0 cancels at once. Without one, nothing
    ///   happens ([`StreamClosed::Ignored`]): the request runs on.
    ///
    /// A request that is not in flight (answered, cancelled, unknown) and a pending
    /// `initialize` (never cancelled) are [`StreamClosed::Ignored`].
    pub fn handle_downstream_stream_closed(&mut self, link: Link, id: &RequestId, now: Millis) -> StreamClosed {
        let Some(d) = self.links.get_mut(&link) else { return StreamClosed::Ignored };
        let is_cancel = d.session.config().transport == super::TransportKind::StreamableHttp
            && d.session.revision().is_some_and(|r| r.rules().http_cancel_is_stream_close);
        if is_cancel {
            let request_id = match id {
                RequestId::Number(n) => PeerValue::Number(*n as f64),
                RequestId::String(s) => PeerValue::String(s),
            };
            let params = CancelledParams { params: PeerValue::Object, request_id, reason: PeerValue::Absent };
            let _ = d.session.handle_cancelled(&params);
            self.drain();
            return StreamClosed::Cancelled;
        }
        let (Some(grace), Some(&up)) = (d.vanish.resume_grace, d.upstream_ids.get(id)) else {
            return StreamClosed::Ignored;
        };
        if self.is_pending_handshake(up) {
            return StreamClosed::Ignored;
        }
        if grace == 0 {
            self.abandon(link, id, grace);
            self.drain();
            return StreamClosed::Cancelled;
        }
        let until = now.saturating_add(grace);
        if let Some(d) = self.links.get_mut(&link) {
            d.lost.insert(id.clone(), (until, up));
        }
        self.due.push(Reverse(Due { at: until, link, what: DueWhat::Resume(id.clone()) }));
        self.client_event(link, || ClientEvent::StreamLost { id: id.clone(), upstream_id: up, grace });
        StreamClosed::AwaitingResume { until }
    }

    /// A stream of client `link` resumed its request `id` (for Streamable HTTP: a GET with
    /// `Last-Event-ID` replays the stream that carried it) before its resume grace ended:
    /// it is not cancelled. Returns whether the request was waiting to be resumed; a request
    /// resumed after its grace was cancelled already (`false`).
    pub fn handle_downstream_stream_resumed(&mut self, link: Link, id: &RequestId) -> bool {
        let Some(d) = self.links.get_mut(&link) else { return false };
        if d.lost.remove(id).is_none() {
            return false;
        }
        let upstream_id = d.upstream_ids.get(id).copied();
        self.client_event(link, || ClientEvent::StreamResumed { id: id.clone(), upstream_id });
        true
    }

    /// Client `link`'s request `id` is over for it: cancelled upstream with the "Client
    /// vanished" reason, and forgotten by its session (no answer will come).
    fn abandon(&mut self, link: Link, id: &RequestId, grace: Millis) {
        let Some(d) = self.links.get_mut(&link) else { return };
        let Some(up) = d.upstream_ids.remove(id) else { return };
        let _ = d.session.handle_outgoing_response(id);
        self.routes.remove(&up);
        let reason = format!("Client vanished: its response stream closed and was not resumed within {grace} ms");
        self.client_event(link, || ClientEvent::NotResumed {
            id: id.clone(),
            upstream_id: up,
            grace,
            reason: reason.clone(),
        });
        let _ = self.upstream.cancel_with(&RequestId::Number(up as i64), &Reason::Text(reason), CancelCause::Cancelled);
        self.call_over(link, id);
    }

    /// Client `link` was not heard from for `ttl` ms: its requests in flight are answered
    /// with [`Failure::SessionExpired`] and cancelled upstream, and it is ended.
    fn expire(&mut self, link: Link, ttl: Millis) {
        let Some(d) = self.links.get(&link) else { return };
        let reason = format!("Client session expired: no request for {ttl} ms");
        if self.config.downstream.events {
            let mut requests: Vec<(RequestId, u64)> = d.upstream_ids.iter().map(|(id, up)| (id.clone(), *up)).collect();
            requests.sort_unstable_by_key(|(_, up)| *up);
            self.output.push_back(RelayOutput::ClientEvent(
                link,
                ClientEvent::SessionExpired { ttl, requests, reason: reason.clone() },
            ));
        }
        let answers = self.forget_link(link, &Reason::Text(reason), Some(Failure::SessionExpired));
        // The cancels first, then the client's answers, then the end of its connection.
        self.drain();
        self.output.extend(answers);
        self.output.push_back(RelayOutput::EndClient(link));
    }

    /// Queues a [`RelayOutput::ClientEvent`] when downstream events are on.
    fn client_event(&mut self, link: Link, event: impl FnOnce() -> ClientEvent) {
        if self.config.downstream.events {
            self.output.push_back(RelayOutput::ClientEvent(link, event()));
        }
    }

    /// The request the relay sent upstream as `up` ([`Forward::Upstream`]) could not be
    /// sent (the transport refused it): it is not in flight, and its client gets
    /// [`Failure::SendFailed`].
    pub fn upstream_send_failed(&mut self, up: u64) {
        let Some(route) = self.routes.remove(&up) else { return };
        let id = RequestId::Number(up as i64);
        // It never left: settled as answered (no cancel will be sent for it).
        let _ = self.upstream.handle_incoming_response(&id, MessageFields(u32::MAX), None);
        self.fail(route, Failure::SendFailed);
        if matches!(self.handshake, Handshake::Pending { upstream_id, .. } if upstream_id == up) {
            self.fail_handshake(Failure::HandshakeFailed);
        }
        self.drain();
    }

    /// A message from the server. Never fails: what the server sends is ignored (and
    /// reported) when it is malformed.
    pub fn handle_upstream(&mut self, message: &Message<'_>, now: Millis) -> Backward {
        let backward = self.upstream_message(message, now);
        self.drain();
        backward
    }

    fn upstream_message(&mut self, message: &Message<'_>, now: Millis) -> Backward {
        let verdict = self.upstream.handle_incoming(message, now);
        match verdict {
            Verdict::NeedFields(f) => return Backward::NeedFields(f),
            Verdict::Drop => return Backward::Drop,
            _ => {}
        }
        match message.method {
            MethodName::Absent => self.upstream_response(message),
            MethodName::NotAString => Backward::Drop,
            _ if !matches!(message.id, PeerValue::Absent) => self.upstream_request(message, now),
            MethodName::Known(Method::Progress) => {
                let Ok(token) = message.progress_token.to_request_id() else { return Backward::Drop };
                let route = match token {
                    RequestId::Number(n) if n > 0 => self.routes.get(&(n as u64)),
                    _ => None,
                };
                match route {
                    Some(Route { link, id, progress_token: Some(t) }) => Backward::Downstream {
                        link: *link,
                        id: None,
                        progress_token: Some(t.clone()),
                        related: Some(id.clone()),
                    },
                    // Progress of a request of the server's, or not ours: every client.
                    _ => Backward::Broadcast,
                }
            }
            // A valid cancel of the server's own request: its PeerCancelled output crosses.
            MethodName::Known(Method::Cancelled) => Backward::Drop,
            _ => Backward::Broadcast,
        }
    }

    fn upstream_response(&mut self, message: &Message<'_>) -> Backward {
        let up = match message.id.to_request_id() {
            Ok(RequestId::Number(n)) if n > 0 => n as u64,
            _ => return Backward::Drop,
        };
        let Some(route) = self.routes.remove(&up) else { return Backward::Drop };
        // The handshake succeeded when its result names a protocol version (the upstream
        // session asked for it to be read).
        let failed = message.response.map_or(true, |r| r.error_code.is_some() || r.protocol_version.is_none());
        if let Handshake::Pending { upstream_id, .. } = &self.handshake {
            if *upstream_id == up {
                let Handshake::Pending { waiting, .. } = ::core::mem::take(&mut self.handshake) else {
                    return Backward::Drop;
                };
                if failed {
                    self.fail_waiting(waiting, Failure::HandshakeFailed);
                } else {
                    self.handshake = Handshake::Done { initialized: false };
                    self.output.push_back(RelayOutput::KeepHandshakeResult);
                    if let Some(revision) = self.upstream.revision() {
                        self.output.push_back(RelayOutput::UpstreamVersion(revision.as_str().to_owned()));
                    }
                    for (link, id) in waiting {
                        self.answered(link, &id);
                        self.output.push_back(RelayOutput::AnswerHandshake { link, id });
                    }
                }
            }
        }
        let Some(d) = self.links.get_mut(&route.link) else { return Backward::Drop };
        d.upstream_ids.remove(&route.id);
        if let (Some(revision), None) = (self.upstream.revision(), d.session.revision()) {
            d.session.set_protocol_version(revision.as_str());
        }
        match d.session.handle_outgoing_response(&route.id) {
            super::OutgoingResponseVerdict::Send => Backward::Downstream {
                link: route.link,
                id: Some(route.id.clone()),
                progress_token: None,
                related: Some(route.id),
            },
            _ => Backward::Drop,
        }
    }

    fn upstream_request(&mut self, message: &Message<'_>, now: Millis) -> Backward {
        let Ok(id) = message.id.to_request_id() else { return Backward::Refuse };
        let Some(link) = self.server_request_link() else { return Backward::Refuse };
        let calls = self.calls_of(link);
        let Some(d) = self.links.get_mut(&link) else { return Backward::Refuse };
        let down = self.next_server_id;
        let down_id = RequestId::Number(down as i64);
        let mut request = super::TrackRequest::new(down_id.clone(), message.method.as_str().unwrap_or_default());
        request.timeout = Some(super::Timeout::NONE);
        if d.session.track(request, now).is_err() {
            return Backward::Refuse;
        }
        self.next_server_id += 1;
        self.server_ids.insert(down, id.clone());
        self.server_requests.insert(id, ServerRequest { link, down, calls });
        Backward::Downstream { link, id: Some(down_id), progress_token: None, related: None }
    }

    /// Which client takes a request of the server's (sampling, elicitation, roots, …), of
    /// those that take them ([`Self::takes_broadcast`]): the only one; else the only one with
    /// requests in flight upstream (the handshake aside); else none.
    ///
    /// Over stdio nothing on the wire says which request of the client's the server's
    /// request is for: the MCP SDKs relate it (`relatedRequestId`) for transports with a
    /// stream per request only (Streamable HTTP: "These messages SHOULD relate to the
    /// originating client request", 2025-03-26 .. 2025-11-25), and send nothing of it on
    /// stdio. So the relay goes by who is waiting for the server: a request sent while only
    /// one client has calls in flight is for that client's calls; while several have, it
    /// could be any of theirs, and is refused rather than shown to a client it may not
    /// belong to.
    fn server_request_link(&self) -> Option<Link> {
        let takes = |d: &Downstream| d.session.revision().map_or(true, |r| r.rules().handshake.is_some());
        let mut candidates = self.links.iter().filter(|(_, d)| takes(d));
        if let (Some((link, _)), None) = (candidates.next(), candidates.next()) {
            return Some(*link);
        }
        let mut busy = self
            .links
            .iter()
            .filter(|(_, d)| takes(d) && d.upstream_ids.iter().any(|(_, up)| !self.is_pending_handshake(*up)));
        match (busy.next(), busy.next()) {
            (Some((link, _)), None) => Some(*link),
            _ => None,
        }
    }

    /// Client `link`'s requests in flight upstream (the handshake aside), in their order.
    fn calls_of(&self, link: Link) -> Vec<RequestId> {
        let Some(d) = self.links.get(&link) else { return Vec::new() };
        let mut calls: Vec<(u64, RequestId)> = d
            .upstream_ids
            .iter()
            .filter(|(_, up)| !self.is_pending_handshake(**up))
            .map(|(id, up)| (*up, id.clone()))
            .collect();
        calls.sort_unstable_by_key(|(up, _)| *up);
        calls.into_iter().map(|(_, id)| id).collect()
    }

    /// Client `link`'s request `id` is over without an answer (cancelled by the client, timed
    /// out, not resumed): each request of the server's sent to the client while this was one
    /// of its requests in flight, and none of the others is any more, is refused upstream
    /// ([`Failure::CallCancelled`]: the MCP SDK's server would otherwise wait for it until its
    /// own request timeout, 60 s by default: the request a tool sends is not cancelled with
    /// the tool's call) and cancelled
    /// downstream (the client stops working on it).
    fn call_over(&mut self, link: Link, id: &RequestId) {
        let mut over: Vec<RequestId> = Vec::new();
        for (server_id, s) in self.server_requests.iter_mut() {
            if s.link != link || !s.calls.contains(id) {
                continue;
            }
            s.calls.retain(|c| c != id);
            if s.calls.is_empty() {
                over.push(server_id.clone());
            }
        }
        over.sort();
        if over.is_empty() {
            return;
        }
        // The call's own cancel upstream first, then the answers to the server's requests.
        while let Some(out) = self.upstream.poll_output() {
            self.upstream_output(out);
        }
        for server_id in over {
            if let Some(s) = self.server_requests.remove(&server_id) {
                self.server_ids.remove(&s.down);
                if let Some(d) = self.links.get_mut(&link) {
                    let reason = Reason::Text("The request it was sent for was cancelled".to_owned());
                    let _ = d.session.cancel(&RequestId::Number(s.down as i64), &reason);
                }
            }
            self.refuse_server_request(server_id, Failure::CallCancelled);
        }
    }

    /// Answers the server's request `id` with `failure`, unless it is answered or cancelled.
    fn refuse_server_request(&mut self, id: RequestId, failure: Failure) {
        if self.upstream.handle_outgoing_response(&id) == super::OutgoingResponseVerdict::Send {
            self.output.push_back(RelayOutput::Refuse { id, failure });
        }
    }

    /// The request of `route` is over without an answer from the server: its client gets
    /// `failure` as its response (unless the client cancelled it).
    fn fail(&mut self, route: Route, failure: Failure) {
        let Some(d) = self.links.get_mut(&route.link) else { return };
        d.upstream_ids.remove(&route.id);
        if d.session.handle_outgoing_response(&route.id) == super::OutgoingResponseVerdict::Send {
            self.output.push_back(RelayOutput::Fail { link: route.link, id: route.id, failure });
        }
    }

    /// The pending handshake will not be answered: the `initialize` requests waiting for it
    /// get `failure`, and the next one is sent upstream again.
    fn fail_handshake(&mut self, failure: Failure) {
        if let Handshake::Pending { waiting, .. } = ::core::mem::take(&mut self.handshake) {
            self.fail_waiting(waiting, failure);
        }
    }

    fn fail_waiting(&mut self, waiting: Vec<(Link, RequestId)>, failure: Failure) {
        for (link, id) in waiting {
            if let Some(d) = self.links.get_mut(&link) {
                let _ = d.session.handle_outgoing_response(&id);
            }
            self.output.push_back(RelayOutput::Fail { link, id, failure });
        }
    }

    /// Client `link`'s `initialize` `id` is answered by the relay: its session learns the
    /// upstream revision, and the request is over.
    fn answered(&mut self, link: Link, id: &RequestId) {
        let Some(d) = self.links.get_mut(&link) else { return };
        if let (Some(revision), None) = (self.upstream.revision(), d.session.revision()) {
            d.session.set_protocol_version(revision.as_str());
        }
        let _ = d.session.handle_outgoing_response(id);
    }

    /// The next thing to do, oldest first; `None` when there is none.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<RelayOutput> {
        self.output.pop_front()
    }

    /// When [`Self::handle_timeout`] is next due: the upstream's request timeouts, and the
    /// [`Vanish`] deadlines (resume graces, idle times to live; one may fall due early, when
    /// its client was heard from since: nothing happens then but a later deadline).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        let own = self.due.peek().map(|Reverse(due)| due.at);
        match (self.upstream.poll_timeout(), own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Time passed: requests whose timeout expired are cancelled upstream, and their clients
    /// get [`Failure::Timeout`]; requests whose resume grace ended unresumed are cancelled
    /// upstream; clients silent for their idle time to live are ended.
    pub fn handle_timeout(&mut self, now: Millis) {
        self.upstream.handle_timeout(now);
        while let Some(Reverse(due)) = self.due.peek() {
            if due.at > now {
                break;
            }
            let Some(Reverse(due)) = self.due.pop() else { break };
            self.fall_due(due, now);
        }
        self.drain();
    }

    fn fall_due(&mut self, due: Due, now: Millis) {
        let Some(d) = self.links.get_mut(&due.link) else { return };
        match due.what {
            DueWhat::Idle => {
                let Some(ttl) = d.vanish.idle_ttl else { return };
                let end = d.heard.saturating_add(ttl);
                if end > now {
                    self.due.push(Reverse(Due { at: end, link: due.link, what: DueWhat::Idle }));
                } else {
                    self.expire(due.link, ttl);
                }
            }
            DueWhat::Resume(id) => {
                // Still waiting for this very grace (not resumed, not lost again since), and
                // still in flight as the same request?
                let Some(&(until, up)) = d.lost.get(&id) else { return };
                if until != due.at {
                    return;
                }
                d.lost.remove(&id);
                if d.upstream_ids.get(&id) != Some(&up) {
                    return;
                }
                let grace = d.vanish.resume_grace.unwrap_or(0);
                self.abandon(due.link, &id, grace);
            }
        }
    }

    /// Moves the sessions' output into the relay's, translating across the id map.
    fn drain(&mut self) {
        loop {
            let mut progressed = false;
            while let Some(out) = self.upstream.poll_output() {
                progressed = true;
                self.upstream_output(out);
            }
            let links: Vec<Link> = self.links.iter().filter(|(_, d)| d.session.has_output()).map(|(l, _)| *l).collect();
            for link in links {
                while let Some(out) = self.links.get_mut(&link).and_then(|d| d.session.poll_output()) {
                    progressed = true;
                    self.downstream_output(link, out);
                }
            }
            if !progressed {
                return;
            }
        }
    }

    fn upstream_output(&mut self, out: Output) {
        match out {
            Output::Transmit(t) => self.output.push_back(RelayOutput::Transmit(Side::Upstream, t)),
            Output::Cancelled { request_id: RequestId::Number(up), cause: CancelCause::TimedOut(_) } if up > 0 => {
                if let Some(route) = self.routes.remove(&(up as u64)) {
                    let (link, id) = (route.link, route.id.clone());
                    self.fail(route, Failure::Timeout);
                    self.call_over(link, &id);
                }
            }
            Output::PeerCancelled { request_id, reason, .. } => {
                // The server cancelled its request: the client it went to gets the cancel.
                let Some(ServerRequest { link, down, .. }) = self.server_requests.remove(&request_id) else { return };
                self.server_ids.remove(&down);
                let Some(d) = self.links.get_mut(&link) else { return };
                let reason = reason.map_or(Reason::None, Reason::Text);
                let _ = d.session.cancel(&RequestId::Number(down as i64), &reason);
            }
            Output::Event(e) => self.output.push_back(RelayOutput::Event(Side::Upstream, e)),
            _ => {}
        }
    }

    fn downstream_output(&mut self, link: Link, out: Output) {
        match out {
            Output::Transmit(t) => self.output.push_back(RelayOutput::Transmit(Side::Downstream(link), t)),
            Output::PeerCancelled { request_id, reason, .. } => {
                // The client cancelled its request: cancel the mapped one upstream.
                let Some(d) = self.links.get_mut(&link) else { return };
                let Some(up) = d.upstream_ids.remove(&request_id) else { return };
                self.routes.remove(&up);
                let reason = reason.map_or(Reason::None, Reason::Text);
                let _ = self.upstream.cancel_with(&RequestId::Number(up as i64), &reason, CancelCause::Cancelled);
                self.call_over(link, &request_id);
            }
            Output::Event(e) => self.output.push_back(RelayOutput::Event(Side::Downstream(link), e)),
            _ => {}
        }
    }
}

/// An HTTP request to a relay's Streamable HTTP endpoint (the relay's clients' side), as far
/// as [`classify_http`] needs it: what the host reads from its headers and its JSON body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HttpRequest<'a> {
    /// The HTTP method is `POST` (the only one that carries a message).
    pub post: bool,
    /// The `Mcp-Session-Id` header is present (2025-era sessions).
    pub session_id: bool,
    /// The `MCP-Protocol-Version` header.
    pub protocol_version: Option<&'a str>,
    /// The `Mcp-Method` header (2026-07-28, SEP-2243).
    pub mcp_method: Option<&'a str>,
    /// What the body is.
    pub body: HttpBody<'a>,
}

/// The JSON body of an [`HttpRequest`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpBody<'a> {
    /// No body (GET, DELETE).
    #[default]
    None,
    /// A JSON-RPC batch (an array).
    Batch,
    /// A response (a result or an error), to a request of the server's.
    Response,
    /// A request (`method` and `id`).
    Request {
        /// Its method.
        method: &'a str,
        /// Its `params._meta` envelope.
        envelope: Envelope<'a>,
    },
    /// A notification (`method`, no `id`).
    Notification {
        /// Its method.
        method: &'a str,
        /// Its `params._meta` envelope.
        envelope: Envelope<'a>,
    },
    /// Anything else (not a JSON-RPC message).
    Invalid,
}

/// The per-request envelope of a 2026-07-28 message: members of its `params._meta`
/// (schema 2026-07-28, `RequestMetaObject`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// `"io.modelcontextprotocol/protocolVersion"`: absent (`None`), a string, or present but
    /// not a string (`Some(None)`).
    pub protocol_version: Option<Option<&'a str>>,
    /// `"io.modelcontextprotocol/clientCapabilities"` is an object (required on requests).
    pub client_capabilities: bool,
}

/// What an HTTP request to the relay's Streamable HTTP endpoint is ([`classify_http`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpEntry {
    /// A request of a 2025-era session (a GET, a DELETE, a POST other than `initialize`): it
    /// carries `Mcp-Session-Id`; the host answers `404` when that session is not its own.
    Session,
    /// A 2025-era `initialize`: it opens a session (the host makes one).
    OpenSession,
    /// A 2026-07-28 message: it needs no session; its revision is its own (`version`).
    Modern {
        /// The revision named (the envelope's, or the header's for a notification).
        version: String,
    },
    /// Answer with HTTP `status` and this JSON-RPC error (`id: null`); nothing is forwarded.
    Refuse(HttpRefusal),
}

/// An HTTP answer with a JSON-RPC error ([`HttpEntry::Refuse`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpRefusal {
    /// The HTTP status.
    pub status: u16,
    /// The JSON-RPC error code.
    pub code: i32,
    /// The JSON-RPC error message.
    pub message: String,
    /// For [`HTTP_UNSUPPORTED_PROTOCOL_VERSION`]: the error's `data`, `{ supported, requested }`.
    pub unsupported: Option<(Vec<&'static str>, String)>,
}

/// `HEADER_MISMATCH` (schema 2026-07-28): a header disagrees with the body, or a required
/// header is missing; HTTP `400`.
pub const HTTP_HEADER_MISMATCH: i32 = -32020;
/// `UNSUPPORTED_PROTOCOL_VERSION` (schema 2026-07-28): the request's revision is not served;
/// HTTP `400`, `data: { supported, requested }`.
pub const HTTP_UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;

/// The revisions a relay serves over Streamable HTTP with sessions: those with the
/// `initialize` handshake from 2025-03-26, when the Streamable HTTP transport appeared
/// (2024-11-05 had HTTP+SSE).
#[must_use]
pub fn http_session_revisions() -> Vec<&'static str> {
    super::Revision::ALL
        .into_iter()
        .filter(|r| r.rules().handshake.is_some() && *r >= super::Revision::V2025_03_26)
        .map(super::Revision::as_str)
        .collect()
}

/// Which revision an HTTP request to a relay's Streamable HTTP endpoint belongs to and what
/// it needs: a 2025-era session ([`HttpEntry::Session`]), to open one
/// ([`HttpEntry::OpenSession`]), none (2026-07-28, [`HttpEntry::Modern`]), or a refusal.
/// `serve_modern`: whether the host serves 2026-07-28 requests; when not, they are refused
/// with [`HTTP_UNSUPPORTED_PROTOCOL_VERSION`] naming [`http_session_revisions`], so that a
/// client that can fall back to a 2025 revision (the MCP SDK 2.x client's `auto` mode) does.
/// A revision without a handshake that mcp-cancel does not know (a later date) is refused
/// the same way, naming [`http_served_revisions`].
///
/// The body decides (a proxy that drops a header must not change the revision), the headers
/// are checked against it. Spec, 2026-07-28 (schema `RequestMetaObject`, `HeaderMismatchError`,
/// `UnsupportedProtocolVersionError`; SEP-2243): every request names its version in
/// `params._meta["io.modelcontextprotocol/protocolVersion"]` with its
/// `"io.modelcontextprotocol/clientCapabilities"`; the `MCP-Protocol-Version` header MUST match
/// it (`400`), and with `Mcp-Method` is required on every request; an unsupported version is
/// `400` with `-32022`. Up to 2025-11-25 (Streamable HTTP, "Session Management"): a request
/// other than `initialize` carries the session's `Mcp-Session-Id` (`400` without one).
///
/// In order:
/// 1. a GET or DELETE, a batch, a response: a session's (`400` without `Mcp-Session-Id`);
/// 2. a request or notification whose envelope names a version: malformed (not a string, or
///    a request without `clientCapabilities`) → `400` `-32602`; a header that disagrees
///    (`MCP-Protocol-Version`, `Mcp-Method`) → `400` `-32020`; a revision with a handshake →
///    as 4; else on a request a missing `MCP-Protocol-Version` or `Mcp-Method` → `400`
///    `-32020`; else modern (or `-32022` when not served);
/// 3. no envelope and an `MCP-Protocol-Version` header naming a revision without a handshake:
///    a request → `400` `-32602` (its envelope is missing), a notification → modern;
///    `initialize` with such a header → `400` `-32020`;
///
/// A modern request is [`HttpEntry::Modern`] when served and its revision known, else `400`
/// `-32022`. The `Mcp-Name` header (SEP-2243, for `tools/call`, `prompts/get`,
/// `resources/read`) is not checked.
/// 4. `initialize` → opens a session; anything else → a session's (`400` without one).
#[must_use]
pub fn classify_http(request: &HttpRequest<'_>, serve_modern: bool) -> HttpEntry {
    let refuse = |status: u16, code: i32, message: String| {
        HttpEntry::Refuse(HttpRefusal { status, code, message, unsupported: None })
    };
    let session = || {
        if request.session_id {
            HttpEntry::Session
        } else {
            refuse(
                400,
                -32000,
                if serve_modern {
                    "Bad Request: no valid session (send initialize first, or name a 2026-07-28 revision in the request's _meta)".to_owned()
                } else {
                    "Bad Request: no valid session (send initialize first; this bridge serves MCP up to 2025-11-25 over HTTP)".to_owned()
                },
            )
        }
    };
    let is_modern = |version: &str| super::Revision::negotiated(version).0.rules().handshake.is_none();
    let header = request.protocol_version.map(str::trim);
    let mcp_method = request.mcp_method.map(str::trim);
    let (method, envelope, is_request) = match request.body {
        HttpBody::Request { method, envelope } => (method, envelope, true),
        HttpBody::Notification { method, envelope } => (method, envelope, false),
        // Not a message, or not one a revision without sessions sends on its own.
        HttpBody::None | HttpBody::Batch | HttpBody::Response | HttpBody::Invalid if !request.post => return session(),
        HttpBody::Invalid if !request.session_id => {
            return refuse(400, -32600, "Bad Request: the body is not a JSON-RPC message".to_owned())
        }
        _ => return session(),
    };
    let modern = |version: &str| {
        let known = super::Revision::parse(version).is_some();
        if serve_modern && known {
            HttpEntry::Modern { version: version.to_owned() }
        } else {
            let (supported, message) = if serve_modern {
                (http_served_revisions(), format!("Unsupported protocol version {version}"))
            } else {
                (
                    http_session_revisions(),
                    format!("Unsupported protocol version {version}: this bridge serves MCP up to 2025-11-25 over HTTP (initialize a session)"),
                )
            };
            HttpEntry::Refuse(HttpRefusal {
                status: 400,
                code: HTTP_UNSUPPORTED_PROTOCOL_VERSION,
                message,
                unsupported: Some((supported, version.to_owned())),
            })
        }
    };
    let initialize = method == Method::Initialize.name();
    match envelope.protocol_version {
        Some(None) => {
            return refuse(
                400,
                -32602,
                format!("Invalid _meta envelope: {} must be a string", super::META_PROTOCOL_VERSION),
            )
        }
        Some(Some(claimed)) if is_modern(claimed) || !initialize => {
            if is_request && !envelope.client_capabilities && is_modern(claimed) {
                return refuse(
                    400,
                    -32602,
                    "Invalid _meta envelope: io.modelcontextprotocol/clientCapabilities is required".to_owned(),
                );
            }
            if let Some(h) = header.filter(|h| *h != claimed) {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!("Header mismatch: the body names protocol version {claimed} but the MCP-Protocol-Version header names {h}"),
                );
            }
            if let Some(m) = mcp_method.filter(|m| *m != method) {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!("Header mismatch: the body names method {method} but the Mcp-Method header names {m}"),
                );
            }
            if !is_modern(claimed) {
                return if initialize { HttpEntry::OpenSession } else { session() };
            }
            if is_request && header.is_none() {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!("Header mismatch: the body names protocol version {claimed} but the required MCP-Protocol-Version header is absent"),
                );
            }
            if is_request && mcp_method.is_none() {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!(
                        "Header mismatch: the body names method {method} but the required Mcp-Method header is absent"
                    ),
                );
            }
            return modern(claimed);
        }
        _ => {}
    }
    if let Some(h) = header.filter(|h| is_modern(h)) {
        if initialize {
            return refuse(
                400,
                HTTP_HEADER_MISMATCH,
                format!("Header mismatch: initialize (the 2025 handshake) was sent with MCP-Protocol-Version {h}"),
            );
        }
        if is_request {
            return refuse(
                400,
                -32602,
                format!(
                    "Invalid params: the MCP-Protocol-Version header names {h}, but the request has no _meta envelope ({})",
                    super::META_PROTOCOL_VERSION
                ),
            );
        }
        if let Some(m) = mcp_method.filter(|m| *m != method) {
            return refuse(
                400,
                HTTP_HEADER_MISMATCH,
                format!("Header mismatch: the body names method {method} but the Mcp-Method header names {m}"),
            );
        }
        return modern(h);
    }
    if initialize && is_request {
        HttpEntry::OpenSession
    } else {
        session()
    }
}

/// The revisions a relay serves to clients over Streamable HTTP when it serves 2026-07-28
/// ([`classify_http`] with `serve_modern`): [`http_session_revisions`] and every known
/// revision without a handshake.
#[must_use]
pub fn http_served_revisions() -> Vec<&'static str> {
    let mut all = http_session_revisions();
    all.extend(super::Revision::ALL.into_iter().filter(|r| r.rules().handshake.is_none()).map(super::Revision::as_str));
    all
}

/// The `initialize` a relay sends upstream itself when a client of a revision
/// without a handshake (2026-07-28) comes before any client that makes one: the newest
/// revision with a handshake, no client capabilities (the relay cannot promise any on behalf
/// of clients it has not seen), and `client_info` (`{ name, version }`). Spec 2025-11-25
/// Lifecycle §Initialization.
///
/// Returns the two messages to send, in order: the `initialize` request (id 0), and once it
/// is answered, `notifications/initialized`.
#[must_use]
pub fn relay_handshake(client_info: serde_json::Value) -> [serde_json::Value; 2] {
    let version = http_session_revisions().last().copied().unwrap_or("2025-11-25");
    [
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": Method::Initialize.name(),
            "params": { "protocolVersion": version, "capabilities": {}, "clientInfo": client_info },
        }),
        serde_json::json!({ "jsonrpc": "2.0", "method": Method::Initialized.name() }),
    ]
}

/// The methods whose 2026-07-28 results are cacheable (schema 2026-07-28: the results that
/// extend `CacheableResult`).
const CACHEABLE: [&str; 6] =
    ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

/// The result of a 2026-07-28 client's `server/discover` ([`Forward::AnswerDiscover`]) from
/// the upstream's `initialize` result `handshake` (2025-era): the revisions served
/// ([`http_served_revisions`]), the server's capabilities (without `tasks`, which 2026-07-28
/// moved to an extension), its instructions, its `serverInfo` in
/// `_meta["io.modelcontextprotocol/serverInfo"]`, and the fields every 2026-07-28 result of
/// this kind carries (`modern_result`). Schema 2026-07-28 `DiscoverResult`.
#[must_use]
pub fn discover_result(handshake: &serde_json::Value) -> serde_json::Value {
    let mut result = serde_json::Map::new();
    result.insert("supportedVersions".into(), serde_json::json!(http_served_revisions()));
    let mut capabilities = handshake.get("capabilities").cloned().unwrap_or_else(|| serde_json::json!({}));
    if let Some(c) = capabilities.as_object_mut() {
        c.remove("tasks");
    }
    result.insert("capabilities".into(), capabilities);
    if let Some(instructions) = handshake.get("instructions").filter(|v| v.is_string()) {
        result.insert("instructions".into(), instructions.clone());
    }
    if let Some(info) = handshake.get("serverInfo") {
        result.insert("_meta".into(), serde_json::json!({ "io.modelcontextprotocol/serverInfo": info }));
    }
    modern_result("server/discover", &mut result);
    serde_json::Value::Object(result)
}

/// The answer a 2025-era server gave to a 2026-07-28 client's request of `method`, made a
/// 2026-07-28 one (schema 2026-07-28): a result gets `resultType: "complete"` (required: the
/// MCP SDK 2.x client rejects a result without it), a cacheable one (`CacheableResult`:
/// discovery, lists, `resources/read`) `ttlMs: 0` and `cacheScope: "private"` unless it has
/// them (a gateway does not know who may share it), and loses the members 2026-07-28 removed
/// (`execution` of each tool, `tasks` of capabilities: tasks are an extension); an error with
/// code -32002 (resource not found up to 2025-11-25) gets -32602. Anything else is unchanged.
#[must_use]
pub fn modern_answer(method: &str, mut message: serde_json::Value) -> serde_json::Value {
    if let Some(result) = message.get_mut("result").and_then(serde_json::Value::as_object_mut) {
        modern_result(method, result);
    } else if let Some(code) = message.get_mut("error").and_then(|e| e.get_mut("code")) {
        if code.as_i64() == Some(-32002) {
            *code = serde_json::json!(-32602);
        }
    }
    message
}

fn modern_result(method: &str, result: &mut serde_json::Map<String, serde_json::Value>) {
    result.entry("resultType").or_insert_with(|| serde_json::json!("complete"));
    if CACHEABLE.contains(&method) {
        result.entry("ttlMs").or_insert_with(|| serde_json::json!(0));
        result.entry("cacheScope").or_insert_with(|| serde_json::json!("private"));
    }
    if let Some(tools) = result.get_mut("tools").and_then(serde_json::Value::as_array_mut) {
        for tool in tools.iter_mut().filter_map(serde_json::Value::as_object_mut) {
            tool.remove("execution");
        }
    }
    if let Some(capabilities) = result.get_mut("capabilities").and_then(serde_json::Value::as_object_mut) {
        capabilities.remove("tasks");
    }
}
