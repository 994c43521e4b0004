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
//!
//! The parts, each owning its state and its invariants (written in its module):
//! - `ids`: the id map, both ways — the clients' requests upstream ([`Link`], the routes by
//!   upstream id and by each client's id) and the server's requests to clients;
//! - `handshake`: the shared handshake ([`relay_handshake`], the one the host makes itself);
//! - `vanish`: vanished clients ([`Vanish`], [`ClientEvent`], [`StreamClosed`]) and the
//!   relay's own deadlines for them;
//! - `http`: the HTTP classification of a request to a relay's Streamable HTTP endpoint
//!   ([`classify_http`]) and the 2026-07-28 answers of a 2025-era server
//!   ([`modern_answer`], [`discover_result`]);
//! - `output`: what the relay tells its host ([`Forward`], [`Backward`], [`RelayOutput`],
//!   [`Failure`]).
//!
//! [`Relay`] wires them with the sessions of each side: a part answers what it holds, and
//! the relay carries out what crosses from one to another (a cancel upstream, an answer
//! downstream, a refusal of the server's request).

mod handshake;
mod http;
mod ids;
mod output;
mod vanish;

pub use handshake::relay_handshake;
pub use http::{
    classify_http, discover_result, http_served_revisions, http_session_revisions, modern_answer, Envelope, HttpBody,
    HttpEntry, HttpRefusal, HttpRequest, HTTP_HEADER_MISMATCH, HTTP_UNSUPPORTED_PROTOCOL_VERSION,
};
pub use ids::Link;
pub use output::{Backward, Failure, Forward, RelayOutput, Side};
pub use vanish::{ClientEvent, StreamClosed, Vanish};

use crate::prelude::*;
use alloc::collections::{BTreeMap, VecDeque};

use super::deadlines::Millis;
use super::message::Message;
use super::method::MethodName;
use super::output::{CancelCause, Output};
use super::reason::Reason;
use super::session::{Config, Session};
use super::verdict::Verdict;
use super::wire::{CancelledParams, PeerValue};
use super::{MessageFields, Method, RequestId};
use handshake::SharedHandshake;
use ids::{Route, Routes, ServerRequest, ServerRequests};
use vanish::{Fell, Vanishing};

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

/// The relay (see the module documentation).
#[derive(Debug)]
pub struct Relay {
    config: RelayConfig,
    upstream: Session,
    /// The clients' sessions.
    links: BTreeMap<Link, Session>,
    next_link: u32,
    /// The clients' requests in flight upstream.
    routes: Routes,
    /// The server's requests forwarded to a client.
    server_requests: ServerRequests,
    handshake: SharedHandshake,
    /// The clients with a [`Vanish`] policy and their deadlines.
    vanishing: Vanishing,
    output: VecDeque<RelayOutput>,
}

/// Whether a client's session takes the server's broadcasts and requests: one of a revision
/// with a handshake (a session of its own, with a stream for them), or not known yet.
fn takes_broadcast(session: &Session) -> bool {
    session.revision().map_or(true, |r| r.rules().handshake.is_some())
}

impl Relay {
    /// A relay with no client yet.
    #[must_use]
    pub fn new(config: RelayConfig) -> Self {
        let upstream = Session::new(config.upstream.clone());
        let seed = config.upstream.hash_seed;
        let client_seed = config.downstream.hash_seed;
        Self {
            config,
            upstream,
            links: BTreeMap::new(),
            next_link: 0,
            routes: Routes::new(seed, client_seed),
            server_requests: ServerRequests::new(seed ^ 0x9e37_79b9_7f4a_7c15, seed ^ 0x5851_f42d_4c95_7f2d),
            handshake: SharedHandshake::default(),
            vanishing: Vanishing::new(client_seed),
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
        self.links.get(&link)
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
        self.links.insert(link, Session::new(config));
        self.vanishing.watch(link, vanish, now);
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
        if let Some(session) = self.links.get_mut(&link) {
            session.set_protocol_version(version);
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
        self.links.get(&link).is_some_and(takes_broadcast)
    }

    /// Client `link` was heard from at `now` without a message (for Streamable HTTP: an
    /// HTTP request of its session that carries none, e.g. a GET that opens or resumes a
    /// stream): its [`Vanish::idle_ttl`] counts from `now`. Every message of the client's
    /// ([`Self::handle_downstream`]) counts too. Unknown links are ignored.
    pub fn heard(&mut self, link: Link, now: Millis) {
        self.vanishing.heard(link, now);
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
        let Some(mut session) = self.links.remove(&link) else { return answers };
        let pending = self.handshake.pending();
        for (up, id) in self.routes.forget(link, pending) {
            if let Some(failure) = failure {
                if session.handle_outgoing_response(&id) == super::OutgoingResponseVerdict::Send {
                    answers.push(RelayOutput::Fail { link, id, failure });
                }
            }
            if Some(up) == pending {
                // `initialize` MUST NOT be cancelled (2024-11-05 .. 2025-11-25): its route
                // stays, so that its answer completes the handshake for the others.
                continue;
            }
            let _ = self.upstream.cancel_with(&RequestId::Number(up as i64), reason, CancelCause::Cancelled);
        }
        for id in self.server_requests.forget(link) {
            self.refuse_server_request(id, Failure::ClientGone);
        }
        self.handshake.forget(link);
        session.close();
        self.vanishing.forget(link);
        answers
    }

    /// The upstream connection closed: every request in flight fails
    /// ([`Failure::UpstreamClosed`]) and is forgotten; the handshake is to be made again.
    pub fn upstream_closed(&mut self) {
        for (_, route) in self.routes.take_all() {
            self.fail(route, Failure::UpstreamClosed);
        }
        self.fail_handshake(Failure::UpstreamClosed);
        self.upstream.close();
        self.server_requests.clear();
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
        if let Some(session) = self.links.get_mut(&link) {
            if session.revision().is_none() {
                session.set_protocol_version(version);
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
        let Some(session) = self.links.get(&link) else { return Forward::Drop };
        self.vanishing.heard(link, now);
        let is_request = message.is_request();
        // A request goes upstream as a request of ours: it needs what one of ours needs read
        // (its progress token, its task); everything else what the client's session needs.
        // While the client has no revision, its request's `_meta` version too (2026-07-28:
        // every request names it; the first one sets the client's, and the upstream's).
        if is_request {
            let unversioned = session.revision().is_none();
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
        let Some(session) = self.links.get_mut(&link) else { return Forward::Drop };
        let verdict = session.handle_incoming(message, now);
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
                let Some(id) = self.server_requests.answer(link, down) else { return Forward::Drop };
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
            MethodName::Known(Method::Initialized) => {
                if self.handshake.pass_initialized() {
                    Forward::Upstream { id: None, progress_token: None }
                } else {
                    Forward::Drop
                }
            }
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
        let (held, id_held) = self.handshake.held(link, &id);
        if id_held || self.routes.upstream_id(link, &id).is_some() {
            return Forward::Drop;
        }
        let known = message.method.known();
        if known == Some(Method::ServerDiscover) && self.upstream.handshake_method().is_some() {
            // A 2026-07-28 client's discovery, to a server of a revision with a handshake:
            // the relay answers from the handshake's result (made before, see
            // `Relay::connect_with_version`).
            if self.handshake.is_done() {
                self.answered(link, &id);
                return Forward::AnswerDiscover;
            }
            self.fail(Route { link, id, progress_token: None }, Failure::HandshakeFailed);
            return Forward::Drop;
        }
        if known == Some(Method::Initialize) && self.handshake.is_done() {
            self.answered(link, &id);
            return Forward::AnswerHandshake;
        }
        // What the client has in flight through the relay: its forwarded requests and its
        // `initialize` requests held for the handshake (both bounded by the same limit).
        let Some(session) = self.links.get_mut(&link) else { return Forward::Drop };
        if self.routes.count(link) + held >= self.config.max_in_flight_per_link {
            if session.handle_outgoing_response(&id) == super::OutgoingResponseVerdict::Send {
                self.output.push_back(RelayOutput::Fail { link, id, failure: Failure::TooManyRequests });
            }
            return Forward::Drop;
        }
        if known == Some(Method::Initialize) && self.handshake.hold(link, id.clone()) {
            return Forward::Hold;
        }
        let up = self.routes.next_id();
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
            self.handshake.start(up);
        }
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
        let Some(session) = self.links.get_mut(&link) else { return StreamClosed::Ignored };
        let is_cancel = session.config().transport == super::TransportKind::StreamableHttp
            && session.revision().is_some_and(|r| r.rules().http_cancel_is_stream_close);
        if is_cancel {
            let request_id = match id {
                RequestId::Number(n) => PeerValue::Number(*n as f64),
                RequestId::String(s) => PeerValue::String(s),
            };
            let params = CancelledParams { params: PeerValue::Object, request_id, reason: PeerValue::Absent };
            let _ = session.handle_cancelled(&params);
            self.drain();
            return StreamClosed::Cancelled;
        }
        let (Some(grace), Some(up)) = (self.vanishing.resume_grace(link), self.routes.upstream_id(link, id)) else {
            return StreamClosed::Ignored;
        };
        if self.handshake.pending() == Some(up) {
            return StreamClosed::Ignored;
        }
        if grace == 0 {
            self.abandon(link, id, grace);
            self.drain();
            return StreamClosed::Cancelled;
        }
        let until = now.saturating_add(grace);
        self.vanishing.lose(link, id, up, until);
        self.client_event(link, || ClientEvent::StreamLost { id: id.clone(), upstream_id: up, grace });
        StreamClosed::AwaitingResume { until }
    }

    /// A stream of client `link` resumed its request `id` (for Streamable HTTP: a GET with
    /// `Last-Event-ID` replays the stream that carried it) before its resume grace ended:
    /// it is not cancelled. Returns whether the request was waiting to be resumed; a request
    /// resumed after its grace was cancelled already (`false`).
    pub fn handle_downstream_stream_resumed(&mut self, link: Link, id: &RequestId) -> bool {
        if !self.vanishing.resume(link, id) {
            return false;
        }
        let upstream_id = self.routes.upstream_id(link, id);
        self.client_event(link, || ClientEvent::StreamResumed { id: id.clone(), upstream_id });
        true
    }

    /// Client `link`'s request `id` is over for it: cancelled upstream with the "Client
    /// vanished" reason, and forgotten by its session (no answer will come).
    fn abandon(&mut self, link: Link, id: &RequestId, grace: Millis) {
        let Some(session) = self.links.get_mut(&link) else { return };
        let Some(up) = self.routes.remove_client_id(link, id) else { return };
        let _ = session.handle_outgoing_response(id);
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
        if !self.links.contains_key(&link) {
            return;
        }
        let reason = format!("Client session expired: no request for {ttl} ms");
        if self.config.downstream.events {
            let requests = self.routes.of(link, None);
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
        let Some(route) = self.routes.remove(up) else { return };
        let id = RequestId::Number(up as i64);
        // It never left: settled as answered (no cancel will be sent for it).
        let _ = self.upstream.handle_incoming_response(&id, MessageFields(u32::MAX), None);
        self.fail(route, Failure::SendFailed);
        if self.handshake.pending() == Some(up) {
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
                    RequestId::Number(n) if n > 0 => self.routes.route(n as u64),
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
        let Some(route) = self.routes.remove(up) else { return Backward::Drop };
        // The handshake succeeded when its result names a protocol version (the upstream
        // session asked for it to be read).
        let failed = message.response.map_or(true, |r| r.error_code.is_some() || r.protocol_version.is_none());
        if let Some(waiting) = self.handshake.complete(up, !failed) {
            if failed {
                self.fail_waiting(waiting, Failure::HandshakeFailed);
            } else {
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
        let Some(session) = self.links.get_mut(&route.link) else { return Backward::Drop };
        if let (Some(revision), None) = (self.upstream.revision(), session.revision()) {
            session.set_protocol_version(revision.as_str());
        }
        match session.handle_outgoing_response(&route.id) {
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
        let Some(session) = self.links.get_mut(&link) else { return Backward::Refuse };
        let down = self.server_requests.next_id();
        let down_id = RequestId::Number(down as i64);
        let mut request = super::TrackRequest::new(down_id.clone(), message.method.as_str().unwrap_or_default());
        request.timeout = Some(super::Timeout::NONE);
        if session.track(request, now).is_err() {
            return Backward::Refuse;
        }
        self.server_requests.insert(id, link, calls);
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
        let mut candidates = self.links.iter().filter(|(_, session)| takes_broadcast(session));
        if let (Some((link, _)), None) = (candidates.next(), candidates.next()) {
            return Some(*link);
        }
        let pending = self.handshake.pending();
        let mut busy = self
            .links
            .iter()
            .filter(|(link, session)| takes_broadcast(session) && self.routes.has_any(**link, pending));
        match (busy.next(), busy.next()) {
            (Some((link, _)), None) => Some(*link),
            _ => None,
        }
    }

    /// Client `link`'s requests in flight upstream (the handshake aside), in their order.
    fn calls_of(&self, link: Link) -> Vec<RequestId> {
        self.routes.of(link, self.handshake.pending()).into_iter().map(|(id, _)| id).collect()
    }

    /// Client `link`'s request `id` is over without an answer (cancelled by the client, timed
    /// out, not resumed): each request of the server's sent to the client while this was one
    /// of its requests in flight, and none of the others is any more, is refused upstream
    /// ([`Failure::CallCancelled`]: the MCP SDK's server would otherwise wait for it until its
    /// own request timeout, 60 s by default: the request a tool sends is not cancelled with
    /// the tool's call) and cancelled
    /// downstream (the client stops working on it).
    fn call_over(&mut self, link: Link, id: &RequestId) {
        let over = self.server_requests.call_over(link, id);
        if over.is_empty() {
            return;
        }
        // The call's own cancel upstream first, then the answers to the server's requests.
        while let Some(out) = self.upstream.poll_output() {
            self.upstream_output(out);
        }
        for server_id in over {
            // Held until now: a cancel of the server's for it, in the output just carried
            // out, crossed with the server's own reason.
            if let Some(s) = self.server_requests.remove(&server_id) {
                if let Some(session) = self.links.get_mut(&link) {
                    let reason = Reason::Text("The request it was sent for was cancelled".to_owned());
                    let _ = session.cancel(&RequestId::Number(s.down as i64), &reason);
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
        let Some(session) = self.links.get_mut(&route.link) else { return };
        if session.handle_outgoing_response(&route.id) == super::OutgoingResponseVerdict::Send {
            self.output.push_back(RelayOutput::Fail { link: route.link, id: route.id, failure });
        }
    }

    /// The handshake is to be made again: the `initialize` requests waiting for it get
    /// `failure`, and the next one is sent upstream.
    fn fail_handshake(&mut self, failure: Failure) {
        let waiting = self.handshake.reset();
        self.fail_waiting(waiting, failure);
    }

    fn fail_waiting(&mut self, waiting: Vec<(Link, RequestId)>, failure: Failure) {
        for (link, id) in waiting {
            if let Some(session) = self.links.get_mut(&link) {
                let _ = session.handle_outgoing_response(&id);
            }
            self.output.push_back(RelayOutput::Fail { link, id, failure });
        }
    }

    /// Client `link`'s `initialize` `id` is answered by the relay: its session learns the
    /// upstream revision, and the request is over.
    fn answered(&mut self, link: Link, id: &RequestId) {
        let Some(session) = self.links.get_mut(&link) else { return };
        if let (Some(revision), None) = (self.upstream.revision(), session.revision()) {
            session.set_protocol_version(revision.as_str());
        }
        let _ = session.handle_outgoing_response(id);
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
        let own = self.vanishing.next_deadline();
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
        while let Some(fell) = self.vanishing.fall_due(now) {
            match fell {
                Fell::Idle { link, ttl } => self.expire(link, ttl),
                // Still in flight as the request whose stream closed (an id the client reuses
                // later is another request)?
                Fell::NotResumed { link, id, up, grace } => {
                    if self.routes.upstream_id(link, &id) == Some(up) {
                        self.abandon(link, &id, grace);
                    }
                }
            }
        }
        self.drain();
    }

    /// Moves the sessions' output into the relay's, translating across the id map.
    fn drain(&mut self) {
        loop {
            let mut progressed = false;
            while let Some(out) = self.upstream.poll_output() {
                progressed = true;
                self.upstream_output(out);
            }
            let links: Vec<Link> = self.links.iter().filter(|(_, s)| s.has_output()).map(|(l, _)| *l).collect();
            for link in links {
                while let Some(out) = self.links.get_mut(&link).and_then(Session::poll_output) {
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
                if let Some(route) = self.routes.remove(up as u64) {
                    let (link, id) = (route.link, route.id.clone());
                    self.fail(route, Failure::Timeout);
                    self.call_over(link, &id);
                }
            }
            Output::PeerCancelled { request_id, reason, .. } => {
                // The server cancelled its request: the client it went to gets the cancel.
                let Some(ServerRequest { link, down, .. }) = self.server_requests.remove(&request_id) else { return };
                let Some(session) = self.links.get_mut(&link) else { return };
                let reason = reason.map_or(Reason::None, Reason::Text);
                let _ = session.cancel(&RequestId::Number(down as i64), &reason);
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
                let Some(up) = self.routes.remove_client_id(link, &request_id) else { return };
                let reason = reason.map_or(Reason::None, Reason::Text);
                let _ = self.upstream.cancel_with(&RequestId::Number(up as i64), &reason, CancelCause::Cancelled);
                self.call_over(link, &request_id);
            }
            Output::Event(e) => self.output.push_back(RelayOutput::Event(Side::Downstream(link), e)),
            _ => {}
        }
    }
}
