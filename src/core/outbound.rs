//! Requests we send: tracking, the one cancel path, and their responses and progress.
//!
//! Spec: every revision §Cancellation ("MUST only reference requests … believed to still be
//! in-progress", "SHOULD ignore any response … that arrives afterward"), 2025-11-25 §Tasks.

use crate::prelude::*;

use super::deadlines::{Millis, RequestTimer, Timeout};
use super::event::{EventKindOf, EventRef, NotSent, TaskCancelOutcome, Via};
use super::id::{IdRef, ProgressToken, RequestId};
use super::keys::Key;
use super::method::{Method, MethodName};
use super::output::{CancelCause, Sink};
use super::reason::Reason;
use super::records::{is_terminal, Extra, Kind, Outbound, Taken, INVALID_PARAMS, TASK_AUGMENTABLE, WATCHED};
use super::requests::Requests;
use super::response::{Fields, ResponseInfo};
use super::revision::TaskCancel;
use super::session::{emit, Session, TransportKind, UsageError};
use super::verdict::{ProgressVerdict, ResponseVerdict};

/// A request we send, for [`Session::track`](super::Session::track).
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
    /// Its timeouts; `None` takes [`Config::timeout`](super::Config::timeout) (except for `subscriptions/listen`,
    /// which only gets a timeout of its own). The handshake never gets one.
    pub timeout: Option<Timeout>,
    /// The host keeps resources for this request (an abort listener, a signal): queue an
    /// [`Output::Settled`](super::Output::Settled) when it can no longer be cancelled. Default `false`.
    pub watch: bool,
}

impl TrackRequest {
    /// A plain request: no progress token, no task, the session's timeouts.
    #[must_use]
    pub fn new(id: RequestId, method: &str) -> Self {
        Self {
            id,
            method: method.owned(),
            progress_token: None,
            task: false,
            task_ref: None,
            timeout: None,
            watch: false,
        }
    }
}

/// Where one of our requests is, as [`Session::request_state`](super::Session::request_state) reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

impl<S: Sink> Session<S> {
    /// Where our request `id` is; `None` when it completed, was never sent, or its
    /// tombstone was evicted.
    #[must_use]
    pub fn request_state<'i>(&self, id: impl Into<IdRef<'i>>) -> Option<RequestState> {
        let key = Key::of_ref(id.into());
        match self.requests.outbound(key) {
            Some((_, o)) if o.kind == (Kind::Task { cancel_pending: true }) => Some(RequestState::CancelPending),
            Some(_) => Some(RequestState::InFlight),
            None if self.tasks.of(key).is_some() => Some(RequestState::TaskRunning),
            None if self.requests.has_tombstone(key) => Some(RequestState::Cancelled),
            None => None,
        }
    }

    /// Number of our requests in flight (our own `tasks/cancel` requests included); what the
    /// host may still cancel is [`Self::in_flight_count`].
    #[must_use]
    pub fn outbound_in_flight(&self) -> usize {
        self.requests.outbound_len()
    }

    /// Whether our request `id` is in flight as the host sees it — it can still be cancelled:
    /// sent and not answered (not the session's own `tasks/cancel`, not a task request whose
    /// cancel is already deferred), or its task running with no `tasks/cancel` sent yet. The
    /// handshake counts (it is in flight, though [`Self::cancel`] refuses it). The JS API's
    /// `isInFlight(id)`.
    #[must_use]
    pub fn is_in_flight<'i>(&self, id: impl Into<IdRef<'i>>) -> bool {
        let key = Key::of_ref(id.into());
        match self.requests.outbound(key) {
            Some((_, o)) => o.is_cancellable(),
            None => self.tasks.of(key).is_some_and(|t| !self.tasks.cancel_sent(t)),
        }
    }

    /// How many of our requests [`Self::is_in_flight`] is `true` for (the JS API's
    /// `inFlightCount`).
    #[must_use]
    pub fn in_flight_count(&self) -> usize {
        let requests = &self.requests;
        requests.cancellable() + self.tasks.cancellable(|key| requests.has_outbound(key))
    }

    /// Number of tombstones (cancelled requests remembered).
    #[must_use]
    pub fn tombstones(&self) -> usize {
        self.requests.tombstones_len()
    }

    /// Marks our request `id` as watched: the host keeps resources for it (a signal, a
    /// listener) and gets an [`Output::Settled`](super::Output::Settled) when it can no longer be cancelled.
    /// Returns `false` (and marks nothing) when `id` is neither in flight nor a running
    /// task's request.
    pub fn watch<'i>(&mut self, id: impl Into<IdRef<'i>>) -> bool {
        let key = Key::of_ref(id.into());
        if let Some((at, _)) = self.requests.outbound(key) {
            self.requests.watch_outbound(at);
            return true;
        }
        let Some(t) = self.tasks.of(key) else { return false };
        let flags = self.tasks.flags(t);
        self.tasks.set_flags(t, flags | WATCHED);
        true
    }

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
        let token = progress_token.as_ref().map(RequestId::as_id_ref);
        let task_ref = task_ref.as_deref();
        let method = MethodName::from_name(&method);
        self.track_entry(id.as_id_ref(), method, token, task, task_ref, timeout, watch, now)
    }

    /// The timeouts our request of method `known` runs with: `timeout` when the caller gave
    /// its own, else the session's defaults ([`Config::timeout`](super::Config::timeout), in
    /// ms), which the long-lived `subscriptions/listen` skips (schema 2026-07-28: it lasts as
    /// long as the subscription); [`Timeout::NONE`] for the handshake, which cannot be
    /// cancelled (2024-11-05 to 2025-11-25 §Cancellation: the client MUST NOT cancel
    /// `initialize`; 2026-07-28 has no handshake). A request whose timeouts are set cancels
    /// itself when one expires: a host that sends cancels needs somewhere to send that one
    /// (the wasm layer refuses such a request in a session without `send`).
    #[must_use]
    #[inline]
    pub fn timeout_of(&self, known: Option<Method>, timeout: Option<Timeout>) -> Timeout {
        if known == Some(Method::Initialize) && self.handshake_method().is_some() {
            return Timeout::NONE;
        }
        match timeout {
            Some(t) => t,
            None if known == Some(Method::SubscriptionsListen) => Timeout::NONE,
            None => self.config.timeout,
        }
    }

    /// **The one path of a request we send** — [`Self::track`], [`Self::handle_outgoing`]'s
    /// requests and the wasm layer's `track` — with the method as the host has it (a known
    /// one: nothing is allocated for it, its name not even looked up); the id,
    /// the progress token and `params.taskId` (`task_ref`) borrowed. What it does and refuses:
    /// [`Self::track`].
    ///
    /// The common case takes a shortcut here: a plain request — a known method that is not
    /// `initialize` (whose response is read), no progress token, no task, no timeout to arm —
    /// while no task is named by a request id (tracking an id un-names its task) is what the
    /// general path makes of it, one record with nothing else, put with one insert into the
    /// window of counter ids (or the index, for a packed string id) without the general
    /// path's lookups of the token, the tombstone's task and the timer. Bench scenario 1b
    /// (track + response, no signal) is this and [`Self::handle_incoming_response`]'s
    /// shortcut (its bound: 0.8× the SDK-style JS with number ids).
    ///
    /// One copy for the wasm layer's `track` and `outgoing` (for the `.wasm`'s size bound:
    /// inlined into both, it is 237 B more gzip; bench scenario 1b pays ~30–50 instructions
    /// per request for the call).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(crate) fn track_entry(
        &mut self,
        id: IdRef<'_>,
        method: MethodName<'_>,
        progress_token: Option<IdRef<'_>>,
        task: bool,
        task_ref: Option<&str>,
        timeout: Option<Timeout>,
        watch: bool,
        now: Millis,
    ) -> Result<(), UsageError> {
        if !self.children.is_empty() {
            self.unrelate_new(id);
        }
        let known = method.known();
        let plain = known.is_some_and(|m| m != Method::Initialize)
            && progress_token.is_none()
            && !task
            && task_ref.is_none()
            && !self.tasks.any_named()
            && !self.timeout_of(known, timeout).is_set();
        if !plain {
            return self.track_general(id, method, progress_token, task, task_ref, timeout, watch, now);
        }
        // No request in flight has a tombstone (invariant 1): forgetting one first is safe.
        if self.requests.tombstones_len() > 0 {
            self.requests.remove_tombstone(Key::of_ref(id));
        }
        if self.requests.insert_plain(id, Outbound::new(known, Kind::Plain, watch)) {
            Ok(())
        } else {
            Err(UsageError::AlreadyInFlight(id.to_request_id()))
        }
    }

    /// [`Self::track_entry`] of any request.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn track_general(
        &mut self,
        id: IdRef<'_>,
        method: MethodName<'_>,
        progress_token: Option<IdRef<'_>>,
        task: bool,
        task_ref: Option<&str>,
        timeout: Option<Timeout>,
        watch: bool,
        now: Millis,
    ) -> Result<(), UsageError> {
        let known = method.known();
        let key = Key::of_ref(id);
        if self.requests.has_outbound(key) {
            return Err(UsageError::AlreadyInFlight(id.to_request_id()));
        }
        if let Some(token) = progress_token {
            if self.requests.token_owner(Key::of_ref(token)).is_some() {
                return Err(UsageError::ProgressTokenInUse(token.to_request_id()));
            }
        }
        if self.requests.tombstones_len() > 0 {
            self.requests.remove_tombstone(key);
        }
        // An id whose earlier request started a task that still runs now names the new
        // request: the task can no longer be cancelled through it, so that earlier request
        // is settled (a watched one gets its `Settled` before the new request exists).
        if let Some(t) = self.tasks.of(key) {
            let flags = self.tasks.flags(t);
            self.tasks.unname(t);
            if flags & WATCHED != 0 {
                self.tasks.set_flags(t, flags & !WATCHED);
                self.out.settled(id, false);
            }
        }
        let tasks_apply = self.revision.map_or(true, |r| r.rules().tasks != TaskCancel::None);
        let mut task_id = None;
        let kind = match task_ref {
            Some(t) if tasks_apply && self.tasks.find(t).is_some() => {
                if known == Some(Method::TasksCancel) {
                    // The host cancels the task itself: ours would be a second one.
                    if let Some(running) = self.tasks.find(t) {
                        let flags = self.tasks.flags(running);
                        self.tasks.set_flags(running, flags | super::records::CANCEL_SENT);
                    }
                }
                task_id = Some(t.owned());
                Kind::TaskQuery
            }
            _ if task && tasks_apply && known.is_some_and(|m| TASK_AUGMENTABLE.contains(&m)) => {
                Kind::Task { cancel_pending: false }
            }
            _ => Kind::Plain,
        };
        let timeout = self.timeout_of(known, timeout);
        let timer = timeout.is_set().then(|| RequestTimer::start(timeout, now));
        let name = match method {
            MethodName::Other(name) => Some(name.into()),
            _ => None,
        };
        let token = progress_token.map(|t| Key::of_ref(t).to_owned());
        let extra = (name.is_some() || task_id.is_some() || token.is_some() || timer.is_some()).then_some(Extra {
            name,
            task_id,
            progress_token: token,
            timer,
            request: None,
        });
        self.insert_outbound(key, Outbound::new(known, kind, watch), extra);
        Ok(())
    }

    /// Cancels our request `id`: **the one cancel path**. A caller's abort, a cancel the
    /// host's SDK sends itself, a closed request stream and a timeout all end here. Returns
    /// whether a cancel was made now (sent or deferred); `false` when there is nothing to
    /// cancel (completed, unknown, already cancelled — the first reason wins — or its task
    /// is terminal or already being cancelled; an
    /// [`EventKind::CancelNotSent`](super::EventKind::CancelNotSent) says why). A
    /// poll of a task (`tasks/get`, `tasks/result`) is itself cancelled (`true`) even when its
    /// task's `tasks/cancel` already went out.
    ///
    /// What to put on the wire comes out of [`Self::poll_output`], then the request's
    /// [`Output::Cancelled`](super::Output::Cancelled):
    /// - a plain request: [`CancelAction::Notify`](super::CancelAction::Notify), or
    ///   [`CancelAction::CloseStream`](super::CancelAction::CloseStream) in
    ///   2026-07-28 over Streamable HTTP. It becomes a tombstone: its late response and
    ///   progress are dropped;
    /// - a task-augmented request (2025-11-25 on):
    ///   [`CancelAction::CancelTask`](super::CancelAction::CancelTask) once its
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
    pub fn cancel<'i>(&mut self, id: impl Into<IdRef<'i>>, reason: &Reason) -> Result<bool, UsageError> {
        self.cancel_ref(id.into(), reason, CancelCause::Cancelled)
    }

    /// Makes our request `child` a child of the peer's request `parent`: `child` was sent
    /// while handling `parent` (an elicitation or a sampling request a tool call makes; the
    /// MCP TypeScript SDK's `relatedRequestId`). When the peer cancels `parent`, every child
    /// still in flight is cancelled on the wire with [`ReasonPolicy::cascade_reason`](super::ReasonPolicy::cascade_reason),
    /// after an [`EventKind::CancelCascaded`](super::EventKind::CancelCascaded), and its
    /// local caller gets [`CancelCause::ParentCancelled`]; when `parent` ends otherwise (our
    /// response to it), its children are not touched. `false`, and nothing related, when
    /// `child` is not our request in flight or `parent` not the peer's (ended, forgotten,
    /// never seen); a child has one parent, the first one given.
    ///
    /// Spec: every revision §Cancellation "Behavior Requirements": the receiver of a cancel
    /// SHOULD stop processing the request and free its resources; what it sent for the
    /// request is part of that processing.
    pub fn relate<'c, 'p>(&mut self, child: impl Into<IdRef<'c>>, parent: impl Into<IdRef<'p>>) -> bool {
        let (child, parent) = (child.into(), parent.into());
        if !self.requests.has_outbound(Key::of_ref(child)) || !self.peer_requests.contains(Key::of_ref(parent)) {
            return false;
        }
        let requests = &self.requests;
        self.children.relate(child, parent, |k| requests.has_outbound(k));
        true
    }

    /// A new request is nobody's child: an earlier request of its id may have been (the pair
    /// of a settled child is kept until its parent ends). One in flight is refused by
    /// [`Self::track_entry`], and keeps its pair.
    #[inline(never)]
    fn unrelate_new(&mut self, id: IdRef<'_>) {
        if !self.requests.has_outbound(Key::of_ref(id)) {
            self.children.forget_child(Key::of_ref(id));
        }
    }

    /// The peer cancelled its request `parent`: each of its children still in flight is
    /// cancelled ([`Self::relate`]).
    #[inline(never)]
    pub(super) fn cascade(&mut self, parent: Key<'_>) {
        let children = self.children.take_parent(parent);
        if children.is_empty() {
            return;
        }
        let parent_id = parent.as_id_ref().to_request_id();
        let reason = Reason::Text(self.config.reason.cascade_reason.clone());
        for child in &children {
            let id = IdRef::from(child);
            let Some(method) =
                self.requests.outbound(Key::of_ref(id)).map(|(at, _)| self.requests.outbound_name(at).owned())
            else {
                continue;
            };
            emit!(
                self,
                EventRef::outbound(EventKindOf::CancelCascaded {
                    request_id: id,
                    method: &method,
                    parent_id: IdRef::from(&parent_id),
                })
            );
            // A child that cannot be cancelled (the handshake) stays as it is.
            let _ = self.cancel_ref(id, &reason, CancelCause::ParentCancelled);
        }
    }

    /// [`Self::cancel`] for any `cause` (the relay's, the timer's).
    #[inline]
    pub(super) fn cancel_with<'i>(
        &mut self,
        id: impl Into<IdRef<'i>>,
        reason: &Reason,
        cause: CancelCause,
    ) -> Result<bool, UsageError> {
        self.cancel_ref(id.into(), reason, cause)
    }

    /// The one cancel path. Each branch queues, in order: the transmit (if any),
    /// [`Output::Cancelled`](super::Output::Cancelled), then
    /// [`Output::Settled`](super::Output::Settled) (if the request settles).
    ///
    /// The common case takes a shortcut: a plain request in flight (what
    /// [`Self::track_entry`]'s shortcut makes; never the handshake, `initialize`, whose
    /// record is not plain) is taken out with one lookup-and-remove, where the general path
    /// looks it up, compares its method with the handshake's and takes it out; both end in
    /// [`Self::cancel_plain`], so the outputs are the same, in the same order.
    fn cancel_ref(&mut self, id: IdRef<'_>, reason: &Reason, cause: CancelCause) -> Result<bool, UsageError> {
        let key = Key::of_ref(id);
        if let Some(t) = self.tasks.of(key) {
            let task_id = self.tasks.id(t);
            let made = self.cancel_task(id, &task_id);
            if made {
                self.out.cancelled(id, cause);
            }
            return Ok(made);
        }
        if let Some(request) = self.requests.remove_plain(id) {
            self.cancel_plain(id, key, Taken { request, extra: None }, reason, cause);
            return Ok(true);
        }
        self.cancel_general(id, key, reason, cause)
    }

    /// [`Self::cancel_ref`] of any request that names no task.
    #[inline(never)]
    fn cancel_general(
        &mut self,
        id: IdRef<'_>,
        key: Key<'_>,
        reason: &Reason,
        cause: CancelCause,
    ) -> Result<bool, UsageError> {
        let request_id = id;
        let handshake = self.handshake_method();
        let Some((at, request)) = self.requests.outbound(key) else {
            // The tombstone's method is looked up for the event only.
            emit!(
                self,
                EventRef::outbound(EventKindOf::CancelNotSent {
                    request_id,
                    method: self.requests.tombstone_method(key),
                    why: NotSent::NotInFlight,
                })
            );
            return Ok(false);
        };
        match request.kind {
            Kind::Task { cancel_pending: true } | Kind::TaskCancel => {
                let method = Some(self.requests.outbound_name(at));
                emit!(
                    self,
                    EventRef::outbound(EventKindOf::CancelNotSent { request_id, method, why: NotSent::NotInFlight })
                );
                return Ok(false);
            }
            Kind::Task { cancel_pending: false } => {
                self.requests.set_outbound_kind(at, Kind::Task { cancel_pending: true });
                // Dropped, not only unscheduled: progress must not re-arm a cancelled request.
                self.requests.drop_timer(at);
                let method = self.requests.outbound_name(at);
                emit!(self, EventRef::outbound(EventKindOf::CancelDeferred { request_id, method }));
                self.out.cancelled(request_id, cause);
                return Ok(true);
            }
            Kind::TaskQuery => {
                // Aborting a poll of a running task (the TS SDK aborts the `tasks/get` and
                // `tasks/result` of a task with the same signal) means: stop the task. The
                // poll itself is tombstoned; the task gets its one `tasks/cancel`.
                let task_id = self.requests.outbound_extra(at).and_then(|e| e.task_id.clone()).unwrap_or_default();
                let owner = self.tasks.find(&task_id).and_then(|t| self.tasks.request(t));
                let made = owner.is_some_and(|owner| self.cancel_task(owner.as_id_ref(), &task_id));
                let Some(poll) = self.take_outbound(key) else { return Ok(made) };
                let watched = poll.watched;
                tombstone(&mut self.requests, key, poll);
                self.out.cancelled(request_id, cause);
                self.settle(id, watched);
                // The poll itself is cancelled even when its task's `tasks/cancel` already
                // went (or the task ended): `Ok(true)` whenever `Output::Cancelled` is queued,
                // which `handle_timeout` relies on to queue it once.
                return Ok(true);
            }
            Kind::Plain => {}
        }
        if Some(self.requests.outbound_name(at)) == handshake {
            let method = Some(self.requests.outbound_name(at));
            emit!(self, EventRef::outbound(EventKindOf::CancelNotSent { request_id, method, why: NotSent::Handshake }));
            return Err(UsageError::HandshakeNotCancellable(id.to_request_id()));
        }
        let Some(request) = self.take_outbound(key) else { return Ok(false) };
        self.cancel_plain(id, key, request, reason, cause);
        Ok(true)
    }

    /// The cancel of a plain request of ours, taken out: the event, its tombstone, then
    /// the cancel on the wire (a notification with the reason the policy allows, or the
    /// stream's close), its caller told, and its settlement.
    fn cancel_plain(&mut self, id: IdRef<'_>, key: Key<'_>, request: Taken, reason: &Reason, cause: CancelCause) {
        let close_stream = self.cancel_closes_stream();
        // Borrowed from the policy or the caller's reason: the fields below are written
        // around it, not through `&mut self`.
        let reason = self.config.reason.wire_text(reason);
        emit!(
            self,
            EventRef::outbound(EventKindOf::CancelSent {
                request_id: id,
                method: request.name(),
                via: if close_stream { Via::StreamClose } else { Via::Notification },
                reason,
                task_id: None,
            })
        );
        let watched = request.watched;
        tombstone(&mut self.requests, key, request);
        if close_stream {
            self.out.close_stream(id);
        } else {
            self.out.notify(id, reason);
        }
        self.out.cancelled(id, cause);
        self.settle(id, watched);
    }

    /// Whether a cancel of ours closes the request's stream instead of sending
    /// `notifications/cancelled`: a Streamable HTTP client on a revision whose rules say so
    /// (2026-07-28 §Transports, [`Rules::http_cancel_is_stream_close`](super::Rules::http_cancel_is_stream_close)).
    fn cancel_closes_stream(&self) -> bool {
        self.config.transport == TransportKind::StreamableHttp
            && self.revision.is_some_and(|r| r.rules().http_cancel_is_stream_close)
    }

    /// What [`Self::handle_response`] needs to read of a response to `id`. Reading nothing
    /// else keeps a 1 MB result out of the session.
    #[must_use]
    pub fn response_fields<'i>(&self, id: impl Into<IdRef<'i>>) -> Fields {
        let tasks_extension = self.tasks_extension();
        if self.reading_responses == 0 && !tasks_extension {
            return Fields::default();
        }
        let key = Key::of_ref(id.into());
        match self.requests.outbound(key).map(|(_, o)| o) {
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
            None if tasks_extension && self.requests.has_tombstone(key) => {
                Fields { task_id: true, ..Fields::default() }
            }
            None => Fields::default(),
        }
    }

    /// Classifies a response (result or error) to our request `id`, with the fields
    /// [`Self::response_fields`] asked for. A
    /// [`ResponseVerdict::Deliver`] completes the
    /// request (a `CreateTaskResult` starts its task); a [`ResponseVerdict::Late`]
    /// consumes its tombstone, or — for a task request cancelled before its `taskId` was
    /// known — queues the deferred `tasks/cancel` ([`Self::poll_output`]).
    ///
    /// Spec: every revision §Cancellation, "SHOULD ignore any response to the request that
    /// arrives afterward"; 2025-11-25 §Tasks.
    pub fn handle_response<'i>(&mut self, id: impl Into<IdRef<'i>>, info: &ResponseInfo) -> ResponseVerdict {
        self.response_to(id.into(), info)
    }

    /// [`Self::handle_response`], the id borrowed.
    pub(super) fn response_to(&mut self, id: IdRef<'_>, info: &ResponseInfo) -> ResponseVerdict {
        let key = Key::of_ref(id);
        let Some(request) = self.take_outbound(key) else {
            if self.requests.tombstones_len() == 0 {
                return ResponseVerdict::Unknown;
            }
            let Some((_, method)) = self.requests.remove_tombstone(key) else { return ResponseVerdict::Unknown };
            if let Some(task_id) = info.task_id.clone().filter(|_| info.error_code.is_none() && self.tasks_extension())
            {
                // 2026-07-28: the request we cancelled came back as a task: cancel that too.
                self.start_task(id, &task_id, &method, false);
                self.cancel_task(id, &task_id);
            }
            emit!(self, EventRef::outbound(EventKindOf::LateResponseDropped { request_id: id, method: &method }));
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
                        let method = request.name();
                        emit!(self, EventRef::outbound(EventKindOf::LateResponseDropped { request_id: id, method }));
                        ResponseVerdict::Late
                    }
                    (None, false) => {
                        self.settle(id, watched);
                        ResponseVerdict::Deliver
                    }
                    (None, true) => {
                        // An error, or a server that ran it as a plain request: nothing to cancel.
                        self.settle(id, watched);
                        let method = request.name();
                        emit!(self, EventRef::outbound(EventKindOf::LateResponseDropped { request_id: id, method }));
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
                    let task_id = task_id.owned();
                    self.end_task(&task_id);
                }
                self.settle(id, watched);
                ResponseVerdict::Deliver
            }
            Kind::TaskCancel => {
                let task_id = request.task_id().owned();
                let outcome = match info.error_code {
                    None => TaskCancelOutcome::Cancelled,
                    Some(INVALID_PARAMS) => TaskCancelOutcome::AlreadyTerminal,
                    Some(_) => TaskCancelOutcome::Error,
                };
                emit!(
                    self,
                    EventRef::outbound(EventKindOf::TaskCancelAnswered {
                        request_id: id,
                        task_id: &task_id,
                        outcome,
                        code: info.error_code,
                    })
                );
                self.end_task(&task_id);
                ResponseVerdict::Consumed
            }
        }
    }

    /// Classifies a `notifications/progress` by its `params.progressToken`, at `now`: a
    /// delivered one restarts its request's timeout when it resets on progress.
    pub fn handle_progress<'i>(&mut self, token: impl Into<IdRef<'i>>, now: Millis) -> ProgressVerdict {
        let token = token.into();
        let key = Key::of_ref(token);
        if let Some(owner) = self.requests.token_owner(key) {
            self.requests.progress(owner, now);
            return ProgressVerdict::Deliver;
        }
        let Some(s) = self.requests.tombstone_of_token(key) else {
            return ProgressVerdict::Unknown;
        };
        if self.config.events {
            let (id, method) = self.requests.tombstone_at(s);
            self.out.event(EventRef::outbound(EventKindOf::LateProgressDropped {
                request_id: id,
                method,
                progress_token: token,
            }));
        }
        ProgressVerdict::Late
    }

    /// Puts our request (in no place yet) in the part: its slot (`None`: in the window).
    pub(super) fn insert_outbound(&mut self, key: Key<'_>, request: Outbound, extra: Option<Extra>) -> Option<u32> {
        if request.reads_response() {
            self.reading_responses += 1;
        }
        self.requests.insert_outbound(key, request, extra)
    }

    /// Takes our request `key` out of its part (with its progress token and its deadline).
    pub(super) fn take_outbound(&mut self, key: Key<'_>) -> Option<Taken> {
        let request = self.requests.remove_outbound(key)?;
        if request.reads_response() {
            self.reading_responses -= 1;
        }
        Some(request)
    }
}

/// Tombstones our cancelled request (taken out): its method and progress token stay. Of the
/// part alone, so that a cancel writes it while it holds the policy's reason.
fn tombstone(requests: &mut Requests, key: Key<'_>, request: Taken) {
    let (name, token) = request.extra.map_or((None, None), |e| (e.name, e.progress_token));
    requests.insert_tombstone(key, request.request.method, name, token);
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::{Config, IdRef, MessageFields, Output, PackedStr, Session, StrId, TransportKind, Verdict};

    /// Everything queued, in order.
    fn drained(session: &mut Session) -> Vec<Output> {
        ::core::iter::from_fn(|| session.poll_output()).collect()
    }

    /// A response to `id` with nothing read, then what the core asks for (2026-07-28's tasks
    /// extension reads a `resultType`: a plain result has none); with `general`, the general
    /// path alone.
    fn answer(session: &mut Session, id: IdRef<'_>, general: bool) -> Verdict {
        let first = if general {
            session.incoming_response_general(id, MessageFields::NONE, None)
        } else {
            session.incoming_response(id, MessageFields::NONE, None)
        };
        match first {
            Verdict::NeedFields(read) => session.incoming_response_general(id, read, Some(&ResponseInfo::default())),
            verdict => verdict,
        }
    }

    /// A plain request tracked, tracked again, cancelled, answered late, tracked and answered:
    /// `a` through the one paths (their shortcuts), `b` through their general paths alone.
    /// Every answer, every output in its order, and what the session holds after are the same.
    #[test]
    fn the_shortcuts_of_a_plain_request_give_what_the_general_paths_give() {
        let long = "a-request-id-longer-than-words";
        let ids = [
            IdRef::Number(7),
            IdRef::Number(-3),
            IdRef::Str(StrId::Packed(PackedStr::new("req-1").unwrap())),
            IdRef::Str(StrId::Text("req-2")),
            IdRef::Str(StrId::Text(long)),
        ];
        for (events, http, watch) in
            [(true, false, true), (false, false, false), (true, true, false), (false, true, true)]
        {
            let config = || Config {
                events,
                transport: if http { TransportKind::StreamableHttp } else { TransportKind::Messages },
                ..Config::default()
            };
            let (mut a, mut b) = (Session::new(config()), Session::new(config()));
            if http {
                // The cancel is the stream's close.
                a.set_protocol_version("2026-07-28");
                b.set_protocol_version("2026-07-28");
            }
            let _ = (drained(&mut a), drained(&mut b));
            let method = MethodName::Known(Method::ToolsCall);
            let reason = Reason::Text("stop".into());
            for id in ids {
                let what = (events, http, watch, id);
                let got = a.track_entry(id, method, None, false, None, None, watch, 0);
                let want = b.track_general(id, method, None, false, None, None, watch, 0);
                assert_eq!((got, drained(&mut a)), (want, drained(&mut b)), "track {what:?}");
                let got = a.track_entry(id, method, None, false, None, None, watch, 0);
                let want = b.track_general(id, method, None, false, None, None, watch, 0);
                assert!(matches!(got, Err(UsageError::AlreadyInFlight(_))), "again {what:?}");
                assert_eq!(got, want, "again {what:?}");
                assert_eq!(a.is_in_flight(id), b.is_in_flight(id), "{what:?}");
                let got = a.cancel_ref(id, &reason, CancelCause::Cancelled);
                let key = Key::of_ref(id);
                let want = b.cancel_general(id, key, &reason, CancelCause::Cancelled);
                assert_eq!((got, drained(&mut a)), (want, drained(&mut b)), "cancel {what:?}");
                assert_eq!(a.request_state(id), Some(RequestState::Cancelled), "{what:?}");
                let (got, want) = (answer(&mut a, id, false), answer(&mut b, id, true));
                assert_eq!(got, Verdict::Drop, "late {what:?}");
                assert_eq!((got, drained(&mut a)), (want, drained(&mut b)), "late {what:?}");
                let _ = a.track_entry(id, method, None, false, None, None, watch, 0);
                let _ = b.track_general(id, method, None, false, None, None, watch, 0);
                let (got, want) = (answer(&mut a, id, false), answer(&mut b, id, true));
                assert_eq!(got, Verdict::Pass, "{what:?}");
                assert_eq!((got, drained(&mut a)), (want, drained(&mut b)), "response {what:?}");
                assert_eq!(
                    (a.outbound_in_flight(), a.in_flight_count(), a.tombstones(), a.request_state(id)),
                    (b.outbound_in_flight(), b.in_flight_count(), b.tombstones(), b.request_state(id)),
                    "{what:?}"
                );
            }
        }
    }
}
