//! One classification of a JSON-RPC message, for every revision.
//!
//! A host hands the session a borrowed [`Message`]: the few members of a message the rules
//! read, never the message itself (a 1 MB tool result is never copied). Which members to
//! read is also the core's to say: [`Method::fields`] for requests and notifications, and
//! [`Verdict::NeedFields`] for a response whose request needs more than its id. The host
//! reads those members and nothing else, and takes no decision of its own: what is a
//! request, which is the handshake, what a revision forbids, what to drop — all of it is
//! [`Session::handle_incoming`] and [`Session::handle_outgoing`].
//!
//! Spec: JSON-RPC 2.0 §4 (request, notification) and §5 (response); MCP schema
//! `JSONRPCMessage` of every revision (2024-11-05 .. 2026-07-28).

use super::deadlines::Millis;
use super::id::{IdRef, InvalidRequestId};
use super::inbound::PeerCancel;
use super::method::{Fields, Method, MethodName};
use super::output::Sink;
use super::reason::Reason;
use super::response::{ResponseInfo, ResponseMembers};
use super::session::{Session, UsageError};
use super::verdict::{OutgoingResponseVerdict, ProgressVerdict, ResponseVerdict, Verdict};
use super::wire::{CancelledParams, PeerValue};
use crate::prelude::*;

/// What the rules read of one JSON-RPC message: a borrowed view the host fills with the
/// members [`Method::fields`] (or [`Verdict::NeedFields`]) named, and says so in
/// [`Message::read`]. Members not read stay [`PeerValue::Absent`] / `None` / `false`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Message<'a> {
    /// The `id` member.
    pub id: PeerValue<'a>,
    /// The `method` member.
    pub method: MethodName<'a>,
    /// The members read beyond `id` and `method`.
    pub read: Fields,
    /// The type of `params` ([`Fields::PARAMS`]; a string's content is not needed).
    pub params: PeerValue<'a>,
    /// `params.requestId` ([`Fields::REQUEST_ID`]).
    pub request_id: PeerValue<'a>,
    /// `params.reason` ([`Fields::REASON`]).
    pub reason: PeerValue<'a>,
    /// `params.progressToken` or `params._meta.progressToken`
    /// ([`Fields::PROGRESS_TOKEN`], [`Fields::META_PROGRESS_TOKEN`]).
    pub progress_token: PeerValue<'a>,
    /// `params.task` is an object ([`Fields::TASK`]).
    pub task: bool,
    /// `params.taskId` ([`Fields::TASK_ID`]).
    pub task_id: Option<&'a str>,
    /// `params.status` ([`Fields::STATUS`]).
    pub status: Option<&'a str>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]` of a request when a string
    /// ([`Fields::META_PROTOCOL_VERSION`]; schema 2026-07-28, `RequestMetaObject`).
    pub protocol_version: Option<&'a str>,
    /// The response members read ([`Fields::RESULT_TASK_ID`] and the three after it).
    pub response: Option<&'a ResponseInfo>,
}

/// The `params._meta` member in which a 2026-07-28 request names its protocol version
/// (schema 2026-07-28, `RequestMetaObject`: required on every request).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

impl<'a> Message<'a> {
    /// A message with `id` and `method` only (nothing else read).
    #[must_use]
    pub fn new(id: PeerValue<'a>, method: MethodName<'a>) -> Self {
        Self {
            id,
            method,
            read: Fields::NONE,
            params: PeerValue::Absent,
            request_id: PeerValue::Absent,
            reason: PeerValue::Absent,
            progress_token: PeerValue::Absent,
            task: false,
            task_id: None,
            status: None,
            protocol_version: None,
            response: None,
        }
    }

    /// Whether it is a request: its `method` is a string and it has an `id` (JSON-RPC 2.0
    /// §4; an `id` that is not a request id still makes it one, an invalid one).
    #[must_use]
    pub fn is_request(&self) -> bool {
        matches!(self.method, MethodName::Known(_) | MethodName::Other(_)) && !matches!(self.id, PeerValue::Absent)
    }

    /// Reads every member the rules may need from a JSON message (tests, fuzzing, and
    /// Rust hosts that hold `serde_json` values). `response` receives the response members.
    #[must_use]
    pub fn from_json(message: &'a serde_json::Value, response: &'a mut ResponseInfo) -> Self {
        let method = match message.get("method") {
            None => MethodName::Absent,
            Some(serde_json::Value::String(name)) => MethodName::from_name(name),
            Some(_) => MethodName::NotAString,
        };
        let mut m = Message::new(PeerValue::from_json(message.get("id")), method);
        let params = message.get("params");
        let param = |key: &str| params.and_then(|p| p.as_object()).and_then(|p| p.get(key));
        m.params = PeerValue::from_json(params);
        m.request_id = PeerValue::from_json(param("requestId"));
        m.reason = PeerValue::from_json(param("reason"));
        m.progress_token = if message.get("id").is_some() {
            PeerValue::from_json(param("_meta").and_then(|meta| meta.get("progressToken")))
        } else {
            PeerValue::from_json(param("progressToken"))
        };
        m.task = param("task").is_some_and(serde_json::Value::is_object);
        m.task_id = param("taskId").and_then(serde_json::Value::as_str);
        m.status = param("status").and_then(serde_json::Value::as_str);
        if message.get("id").is_some() {
            m.protocol_version =
                param("_meta").and_then(|meta| meta.get(META_PROTOCOL_VERSION)).and_then(serde_json::Value::as_str);
        }
        let result = message.get("result");
        let text = |v: Option<&serde_json::Value>| v.and_then(serde_json::Value::as_str).map(str::to_owned);
        *response = ResponseInfo::from_members(ResponseMembers {
            task_task_id: text(result.and_then(|r| r.get("task")).and_then(|t| t.get("taskId"))),
            result_type: text(result.and_then(|r| r.get("resultType"))),
            result_task_id: text(result.and_then(|r| r.get("taskId"))),
            result_status: text(result.and_then(|r| r.get("status"))),
            protocol_version: text(result.and_then(|r| r.get("protocolVersion"))),
            error_code: message
                .get("error")
                .map(|error| error.get("code").and_then(serde_json::Value::as_f64).unwrap_or(f64::NAN)),
        });
        m.read = Fields(u32::MAX);
        m.response = Some(response);
        m
    }
}

/// Why [`Session::handle_outgoing`] refused a request of ours: the caller's mistake, never
/// the peer's.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutgoingError {
    /// The request's `id` is not a request id.
    InvalidRequestId(InvalidRequestId),
    /// Its `params._meta.progressToken` is not a progress token.
    InvalidProgressToken(InvalidRequestId),
    /// As [`Session::track`].
    Usage(UsageError),
}

impl<S: Sink> Session<S> {
    /// Classifies a message that arrived from the peer and does what the rules say:
    ///
    /// - a response completes our request, or is dropped when late (after our cancel) or
    ///   when it answers our own `tasks/cancel`; an id we never sent passes;
    /// - `notifications/progress` is dropped when late;
    /// - `notifications/cancelled` passes when valid (the peer's request is aborted —
    ///   [`InboundCancelVerdict::Abort`](super::InboundCancelVerdict::Abort) through [`Session::handle_cancelled`]), or when it
    ///   ends our `subscriptions/listen` (2026-07-28); an invalid one is dropped and
    ///   reported ([`EventKind::CancelIgnored`](super::EventKind::CancelIgnored));
    /// - `notifications/tasks/status` with a terminal status ends the task;
    /// - a request is recorded as in flight;
    /// - anything else passes.
    ///
    /// A valid peer cancel queues [`Output::PeerCancelled`](super::Output::PeerCancelled):
    /// the host aborts the work it runs for that request.
    ///
    /// Never fails: anything a peer sends is ignored (and reported) when it is malformed.
    pub fn handle_incoming(&mut self, message: &Message<'_>, now: Millis) -> Verdict {
        let method = match message.method {
            MethodName::NotAString => return Verdict::Pass,
            MethodName::Absent => {
                // A response (or not JSON-RPC): not ours to judge unless it has an id of ours.
                let Ok(id) = message.id.to_id_ref() else { return Verdict::Pass };
                return self.handle_incoming_response(id, message.read, message.response);
            }
            MethodName::Known(m) => Some(m),
            MethodName::Other(_) => None,
        };
        if let Some(missing) = self.missing(message, method, true) {
            return Verdict::NeedFields(missing);
        }
        if !matches!(message.id, PeerValue::Absent) {
            // A request from the peer.
            if let (Ok(id), Some(name)) = (message.id.to_id_ref(), message.method.as_str()) {
                self.record_request(super::keys::Key::of_ref(id), message.method.known(), name, message.task);
            }
            return Verdict::Pass;
        }
        match method {
            Some(Method::Progress) => match message.progress_token.to_id_ref() {
                Ok(token) => match self.handle_progress(token, now) {
                    ProgressVerdict::Late => Verdict::Drop,
                    ProgressVerdict::Deliver | ProgressVerdict::Unknown => Verdict::Pass,
                },
                Err(_) => Verdict::Pass,
            },
            Some(Method::Cancelled) => {
                let params =
                    CancelledParams { params: message.params, request_id: message.request_id, reason: message.reason };
                match self.peer_cancel(&params) {
                    PeerCancel::Abort { .. } | PeerCancel::ListenEnded { .. } => Verdict::Pass,
                    PeerCancel::Ignore => Verdict::Drop,
                }
            }
            Some(Method::TaskStatus) => {
                if let (Some(task_id), Some(status)) = (message.task_id, message.status) {
                    self.handle_task_status(task_id, status);
                }
                Verdict::Pass
            }
            _ => Verdict::Pass,
        }
    }

    /// **The one path of a response from the peer** ([`Self::handle_incoming`]'s responses,
    /// the wasm layer's `response`): `read` and `info` are the response members read (none at
    /// first; [`Verdict::NeedFields`] names those to read before calling again). Completes
    /// our request ([`Verdict::Pass`]: deliver it) or drops a late response or our own
    /// `tasks/cancel`'s answer ([`Verdict::Drop`]), as [`Self::handle_response`]; an id we do
    /// not know passes.
    ///
    /// The common case takes a shortcut: the response to a plain request — no task, no
    /// timer, not the handshake, outside 2026-07-28's tasks extension (which reads a
    /// `resultType` of every response), and no `protocolVersion` read — completes it with one
    /// lookup-and-remove, where the general path asks what to read, then looks the request
    /// up and takes it out; its settlement is the same. With the same shortcut of a plain
    /// request's track, this is bench scenario 1b (track + response, no signal; its bound:
    /// 0.8× the SDK-style JS with number ids).
    ///
    /// Spec: every revision §Cancellation ("SHOULD ignore any response … that arrives
    /// afterward").
    pub fn handle_incoming_response<'i>(
        &mut self,
        id: impl Into<IdRef<'i>>,
        read: Fields,
        info: Option<&ResponseInfo>,
    ) -> Verdict {
        self.incoming_response(id.into(), read, info)
    }

    /// [`Self::handle_incoming_response`], the id borrowed. One copy for the wasm layer's
    /// `response` and `incoming` (for the `.wasm`'s size bound: inlined into both, it is 113 B
    /// more gzip; bench scenario 1b pays ~35 instructions per request for the call).
    #[inline(never)]
    pub(crate) fn incoming_response(&mut self, id: IdRef<'_>, read: Fields, info: Option<&ResponseInfo>) -> Verdict {
        if !self.tasks_extension() && info.map_or(true, |i| i.protocol_version.is_none()) {
            if let Some(request) = self.requests.remove_plain(id) {
                self.settle(id, request.watched);
                return Verdict::Pass;
            }
        }
        self.incoming_response_general(id, read, info)
    }

    /// [`Self::incoming_response`] of any response.
    #[inline(never)]
    pub(super) fn incoming_response_general(
        &mut self,
        id: IdRef<'_>,
        read: Fields,
        info: Option<&ResponseInfo>,
    ) -> Verdict {
        let needed = self.response_fields(id).to_message_fields();
        if !read.contains(needed) {
            return Verdict::NeedFields(needed.without(read));
        }
        let empty = ResponseInfo::default();
        match self.response_to(id, info.unwrap_or(&empty)) {
            ResponseVerdict::Late | ResponseVerdict::Consumed => Verdict::Drop,
            ResponseVerdict::Deliver | ResponseVerdict::Unknown => Verdict::Pass,
        }
    }

    /// Classifies a message we are about to send and does what the rules say:
    ///
    /// - a request is tracked as in flight (with its progress token, its task, and `watch`
    ///   from the host), with the session's timeouts;
    /// - `notifications/cancelled` (the cancel an SDK sends itself) goes through the one
    ///   cancel path ([`Session::cancel`]) with its reason: [`Verdict::Drop`] — the cancel
    ///   the revision requires, with the reason policy applied, is in
    ///   [`Session::poll_output`], or nothing is sent (not in flight, the handshake, a
    ///   task already being cancelled);
    /// - our response to a request the peer cancelled is dropped (suppressed);
    /// - anything else passes.
    ///
    /// # Errors
    /// For a request: [`OutgoingError::InvalidRequestId`],
    /// [`OutgoingError::InvalidProgressToken`], or [`OutgoingError::Usage`] as
    /// [`Session::track`]. A cancel of the handshake is not an error here: it is dropped
    /// and reported.
    pub fn handle_outgoing(
        &mut self,
        message: &Message<'_>,
        now: Millis,
        watch: bool,
    ) -> Result<Verdict, OutgoingError> {
        let method = match message.method {
            MethodName::NotAString => return Ok(Verdict::Pass),
            MethodName::Absent => {
                let Ok(id) = message.id.to_id_ref() else { return Ok(Verdict::Pass) };
                return Ok(match self.handle_outgoing_response(id) {
                    OutgoingResponseVerdict::Send => Verdict::Pass,
                    OutgoingResponseVerdict::Suppress => Verdict::Drop,
                });
            }
            MethodName::Known(m) => Some(m),
            MethodName::Other(_) => None,
        };
        if let Some(missing) = self.missing(message, method, false) {
            return Ok(Verdict::NeedFields(missing));
        }
        if message.is_request() {
            let id = message.id.to_id_ref().map_err(OutgoingError::InvalidRequestId)?;
            let progress_token = match message.progress_token {
                PeerValue::Absent => None,
                token => Some(token.to_id_ref().map_err(OutgoingError::InvalidProgressToken)?),
            };
            self.track_entry(id, message.method, progress_token, message.task, message.task_id, None, watch, now)
                .map_err(OutgoingError::Usage)?;
            return Ok(Verdict::Pass);
        }
        if method == Some(Method::Cancelled) {
            let params =
                CancelledParams { params: message.params, request_id: message.request_id, reason: message.reason };
            let Ok((id, reason)) = params.validate_ref() else { return Ok(Verdict::Drop) };
            let reason = reason.map_or(Reason::None, Reason::from_stringified);
            // The handshake is reported (an event) and its cancel never sent.
            let _ = self.cancel(id, &reason);
            return Ok(Verdict::Drop);
        }
        Ok(Verdict::Pass)
    }

    /// Whether a message that is an array (a JSON-RPC batch) is to be examined element by
    /// element, each as [`Self::handle_incoming`] / [`Self::handle_outgoing`] would: in a
    /// revision that allows batches (2025-03-26), and before one is negotiated. Otherwise a
    /// batch is not a message of the revision: the host passes it on untouched.
    #[must_use]
    pub fn accepts_batches(&self) -> bool {
        self.revision().map_or(true, |r| r.rules().batches)
    }

    /// The members [`Method::fields`] names for this message that the host did not read.
    fn missing(&self, message: &Message<'_>, method: Option<Method>, incoming: bool) -> Option<Fields> {
        let needed = Method::fields(method, incoming);
        (!message.read.contains(needed)).then(|| needed.without(message.read))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_round_trips_through_its_code_and_name() {
        for m in Method::ALL {
            assert_eq!(Method::from_code(m.code()), Some(m));
            assert_eq!(Method::from_name(m.name()), Some(m));
        }
        assert_eq!(Method::from_code(0), None);
        assert_eq!(Method::from_code(Method::ALL.len() as u32 + 1), None);
        assert_eq!(Method::from_code(99), None);
        assert_eq!(Method::from_name("tools/unknown"), None);
        assert_eq!(Method::from_name(""), None);
    }
}
