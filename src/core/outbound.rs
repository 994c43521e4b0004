//! Requests we send: tracking, the one cancel path, and their responses and progress.
//!
//! Spec: every revision §Cancellation ("MUST only reference requests … believed to still be
//! in-progress", "SHOULD ignore any response … that arrives afterward"), 2025-11-25 §Tasks.

use crate::prelude::*;

use super::deadlines::{Millis, RequestTimer, Timeout};
use super::event::{EventKindOf, EventRef, NotSent, TaskCancelOutcome, Via};
use super::id::{IdRef, ProgressToken, RequestId, StrId};
use super::keys::Key;
use super::method::{Fields as MessageFields, Method};
use super::output::{CancelCause, Sink};
use super::reason::Reason;
use super::requests::{is_terminal, Extra, Kind, Outbound, Taken, INVALID_PARAMS, TASK_AUGMENTABLE, WATCHED};
use super::response::{Fields, ResponseInfo};
use super::revision::TaskCancel;
use super::session::{emit, Session, TransportKind, UsageError};
use super::store::At;
use super::verdict::{FastOwnCancel, ProgressVerdict, ResponseVerdict, Verdict};

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
    pub fn request_state(&self, id: &RequestId) -> Option<RequestState> {
        let key = Key::of(id);
        match self.store.outbound(key) {
            Some((_, o)) if o.kind == (Kind::Task { cancel_pending: true }) => Some(RequestState::CancelPending),
            Some(_) => Some(RequestState::InFlight),
            None if self.store.task_of(key).is_some() => Some(RequestState::TaskRunning),
            None if self.store.has_tombstone(key) => Some(RequestState::Cancelled),
            None => None,
        }
    }

    /// Number of our requests in flight (our own `tasks/cancel` requests included).
    #[must_use]
    pub fn outbound_in_flight(&self) -> usize {
        self.store.outbound_len()
    }

    /// Whether our request `id` can still be cancelled by the host: in flight (not the
    /// session's own `tasks/cancel`, not a task request whose cancel is already deferred),
    /// or its task running with no `tasks/cancel` sent yet. The handshake counts (it is in
    /// flight, though [`Self::cancel`] refuses it).
    #[must_use]
    pub fn is_cancellable(&self, id: &RequestId) -> bool {
        let key = Key::of(id);
        match self.store.outbound(key) {
            Some((_, o)) => o.is_cancellable(),
            None => self.store.task_of(key).is_some_and(|t| !self.store.task_cancel_sent(t)),
        }
    }

    /// How many of our requests [`Self::is_cancellable`] is `true` for.
    #[must_use]
    pub fn cancellable(&self) -> usize {
        self.store.cancellable()
    }

    /// Number of tombstones (cancelled requests remembered).
    #[must_use]
    pub fn tombstones(&self) -> usize {
        self.store.tombstones_len()
    }

    /// Marks our request `id` as watched: the host keeps resources for it (a signal, a
    /// listener) and gets an [`Output::Settled`](super::Output::Settled) when it can no longer be cancelled.
    /// Returns `false` (and marks nothing) when `id` is neither in flight nor a running
    /// task's request.
    pub fn watch(&mut self, id: &RequestId) -> bool {
        let key = Key::of(id);
        if let Some((at, _)) = self.store.outbound(key) {
            self.store.watch_outbound(at);
            return true;
        }
        let Some(t) = self.store.task_of(key) else { return false };
        let flags = self.store.task_flags(t);
        self.store.set_task_flags(t, flags | WATCHED);
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
        let known = Method::from_name(&method);
        self.track_entry(id, known, &method, progress_token, task, task_ref, timeout, watch, now)
    }

    /// [`Self::track`] of a request with the integer id `n` (within ±2^53 − 1, the ids a
    /// JSON number holds exactly), a known `method`, no progress token, no task, the
    /// session's timeouts, and `watch` ([`TrackRequest::watch`]). The common case: with no
    /// timeout to arm (none by default, or the handshake) and no task that the
    /// id names, it is one insert into the window of counter ids; anything else takes the
    /// general path, with the same outcome. Spec: as [`Self::track`].
    ///
    /// `now`: ms on the host's monotonic time line, read only when a timeout is armed.
    ///
    /// # Errors
    /// [`UsageError::AlreadyInFlight`] when `n` is in flight.
    pub fn track_number(&mut self, n: i64, method: Method, watch: bool, now: Millis) -> Result<(), UsageError> {
        self.track_plain(IdRef::Number(n), method, watch, now)
    }

    /// [`Self::track_number`] for a string id (any content, the empty string included), as
    /// the host holds it: packed ([`StrId::Packed`], e.g. from four numbers a JS host
    /// computed, [`PackedStr::from_words`](super::PackedStr::from_words)) or as text. Nothing
    /// is allocated for an id of up to 11 bytes of UTF-8; one key for a longer one.
    ///
    /// # Errors
    /// [`UsageError::AlreadyInFlight`] when `id` is in flight.
    pub fn track_str(&mut self, id: StrId<'_>, method: Method, watch: bool, now: Millis) -> Result<(), UsageError> {
        self.track_plain(IdRef::Str(id), method, watch, now)
    }

    /// [`Self::response_number`] for a string id, packed or as text: nothing is allocated
    /// when it completes a plain request.
    pub fn response_str(&mut self, id: StrId<'_>) -> Verdict {
        self.queue_settled(IdRef::Str(id))
    }

    /// [`Self::response_number`] for a host that releases a watched request's objects
    /// itself: when the response settles a watched request and nothing else is queued,
    /// [`Output::Settled`](super::Output::Settled) is not queued and the second value is `true` instead (no id is
    /// made, no output queued: for a string id, nothing allocated). Otherwise exactly
    /// [`Self::response_number`], and `false`. Spec: as [`Self::response_number`] (every
    /// revision §Cancellation).
    pub fn response_number_fast(&mut self, n: i64) -> (Verdict, bool) {
        self.response_plain(IdRef::Number(n))
    }

    /// [`Self::response_number_fast`] for a string id, packed or as text (`true`: settled,
    /// no `Output::Settled` queued). Spec: as [`Self::response_number`].
    pub fn response_str_fast(&mut self, id: StrId<'_>) -> (Verdict, bool) {
        self.response_plain(IdRef::Str(id))
    }

    /// [`Self::handle_incoming_response`](super::Session::handle_incoming_response) of a
    /// response (result or error) whose id is the integer `n`, with nothing read yet. The
    /// common case: the response to a plain request — no task, no timer, not the
    /// handshake, no 2026-07-28 tasks extension to read a `resultType` for — completes it
    /// with one lookup-and-remove: [`Verdict::Pass`] (deliver it). Anything else takes the
    /// general path, with the same outcome: [`Verdict::Drop`] for a late response,
    /// [`Verdict::NeedFields`] when members of the result must be read first (then call
    /// `handle_incoming_response` with them). Spec: every revision §Cancellation ("SHOULD
    /// ignore any response … that arrives afterward").
    pub fn response_number(&mut self, n: i64) -> Verdict {
        self.queue_settled(IdRef::Number(n))
    }

    /// [`Self::response_plain`], with a settled request's [`Output::Settled`](super::Output::Settled) queued.
    fn queue_settled(&mut self, id: IdRef<'_>) -> Verdict {
        let (verdict, settled) = self.response_plain(id);
        if settled {
            self.settle(&id.to_request_id(), true);
        }
        verdict
    }

    /// The one fast path of `track_number` and `track_str`: one insert for a plain request,
    /// else the general path (a timeout to arm, a task the id names, the handshake).
    /// Always inlined: each caller's id kind is then known and the other arm goes away
    /// (not inlined, the number path measured 10-25% slower).
    #[inline(always)]
    fn track_plain(&mut self, id: IdRef<'_>, method: Method, watch: bool, now: Millis) -> Result<(), UsageError> {
        if method == Method::Initialize || self.config.timeout.is_set() || self.store.has_tasks_of_requests() {
            return self.track_entry(
                id.to_request_id(),
                Some(method),
                method.name(),
                None,
                false,
                None,
                None,
                watch,
                now,
            );
        }
        // No request in flight has a tombstone (invariant 1): forgetting one first is safe.
        if self.store.tombstones_len() > 0 {
            self.store.remove_tombstone(Key::of_ref(id));
        }
        if self.store.insert_plain(id, Outbound::new(Some(method), Kind::Plain, watch)) {
            Ok(())
        } else {
            Err(UsageError::AlreadyInFlight(id.to_request_id()))
        }
    }

    /// The one fast path of the `response_*` entry points: one lookup-and-remove for the
    /// response to a plain request, else the general path. `true`: a watched request settled
    /// and its [`Output::Settled`](super::Output::Settled) is the caller's to queue or to act on — only when nothing
    /// else is queued (so the order of the outputs is the same either way) and no task runs
    /// (no task's request can then be settled instead, [`Self::settle`]).
    #[inline(always)]
    fn response_plain(&mut self, id: IdRef<'_>) -> (Verdict, bool) {
        if !self.tasks_extension() {
            if let Some(request) = self.store.remove_plain(id) {
                if !request.watched {
                    return (Verdict::Pass, false);
                }
                if self.out.is_empty() && !self.store.has_tasks_of_requests() {
                    return (Verdict::Pass, true);
                }
                self.settle(&id.to_request_id(), true);
                return (Verdict::Pass, false);
            }
        }
        (self.handle_incoming_response(&id.to_request_id(), MessageFields::NONE, None), false)
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
        let key = Key::of(&id);
        if self.store.has_outbound(key) {
            return Err(UsageError::AlreadyInFlight(id));
        }
        if let Some(token) = &progress_token {
            if self.store.token_owner(Key::of(token)).is_some() {
                return Err(UsageError::ProgressTokenInUse(token.clone()));
            }
        }
        if self.store.tombstones_len() > 0 {
            self.store.remove_tombstone(key);
        }
        // An id whose earlier request started a task that still runs now names the new
        // request: the task can no longer be cancelled through it, so that earlier request
        // is settled (a watched one gets its `Settled` before the new request exists).
        if let Some(t) = self.store.task_of(key) {
            let flags = self.store.task_flags(t);
            self.store.unname_task(t);
            if flags & WATCHED != 0 {
                self.store.set_task_flags(t, flags & !WATCHED);
                self.out.settled(id.as_id_ref(), false);
            }
        }
        let tasks_apply = self.revision.map_or(true, |r| r.rules().tasks != TaskCancel::None);
        let mut task_id = None;
        let kind = match task_ref {
            Some(t) if tasks_apply && self.store.task(&t).is_some() => {
                if known == Some(Method::TasksCancel) {
                    // The host cancels the task itself: ours would be a second one.
                    if let Some(running) = self.store.task(&t) {
                        let flags = self.store.task_flags(running);
                        self.store.set_task_flags(running, flags | super::requests::CANCEL_SENT);
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
        let timeout = self.timeout_of(known, timeout);
        let timer = timeout.is_set().then(|| RequestTimer::start(timeout, now));
        let scheduled = timer.is_some();
        let name = if known.is_none() { Some(method.into()) } else { None };
        let token = progress_token.as_ref().map(|t| Key::of(t).to_owned());
        let extra = (name.is_some() || task_id.is_some() || token.is_some() || timer.is_some()).then_some(Extra {
            name,
            task_id,
            progress_token: token,
            timer,
            request: None,
        });
        let slot = self.insert_outbound(key, Outbound::new(known, kind, watch), extra);
        if let (Some(token), Some(s)) = (&progress_token, slot) {
            self.store.insert_token(Key::of(token), s);
        }
        if let (true, Some(s)) = (scheduled, slot) {
            if let Some(timer) = self.store.outbound_extra_mut(At::Slot(s)).and_then(|e| e.timer.as_mut()) {
                self.deadlines.schedule(s, timer);
            }
            self.tidy_deadlines();
        }
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
    pub fn cancel(&mut self, id: &RequestId, reason: &Reason) -> Result<bool, UsageError> {
        self.cancel_with(id, reason, CancelCause::Cancelled)
    }

    /// [`Self::cancel`] for any `cause`. Each branch queues, in order: the transmit (if
    /// any), [`Output::Cancelled`](super::Output::Cancelled), then
    /// [`Output::Settled`](super::Output::Settled) (if the request settles).
    pub(super) fn cancel_with(
        &mut self,
        id: &RequestId,
        reason: &Reason,
        cause: CancelCause,
    ) -> Result<bool, UsageError> {
        let request_id = id.as_id_ref();
        let key = Key::of(id);
        if let Some(t) = self.store.task_of(key) {
            let task_id = self.store.task_id(t);
            let made = self.cancel_task(id, &task_id);
            if made {
                self.out.cancelled(request_id, cause);
            }
            return Ok(made);
        }
        let handshake = self.handshake_method();
        let Some((at, request)) = self.store.outbound(key) else {
            // The tombstone's method is looked up for the event only.
            emit!(
                self,
                EventRef::outbound(EventKindOf::CancelNotSent {
                    request_id,
                    method: self.store.tombstone_method(key),
                    why: NotSent::NotInFlight,
                })
            );
            return Ok(false);
        };
        match request.kind {
            Kind::Task { cancel_pending: true } | Kind::TaskCancel => {
                let method = Some(self.store.outbound_name(at));
                emit!(
                    self,
                    EventRef::outbound(EventKindOf::CancelNotSent { request_id, method, why: NotSent::NotInFlight })
                );
                return Ok(false);
            }
            Kind::Task { cancel_pending: false } => {
                self.store.set_outbound_kind(at, Kind::Task { cancel_pending: true });
                // Dropped, not only unscheduled: progress must not re-arm a cancelled request.
                if let Some(mut timer) = self.store.outbound_extra_mut(at).and_then(|e| e.timer.take()) {
                    self.deadlines.unschedule(&mut timer);
                    self.tidy_deadlines();
                }
                let method = self.store.outbound_name(at);
                emit!(self, EventRef::outbound(EventKindOf::CancelDeferred { request_id, method }));
                self.out.cancelled(request_id, cause);
                return Ok(true);
            }
            Kind::TaskQuery => {
                // Aborting a poll of a running task (the TS SDK aborts the `tasks/get` and
                // `tasks/result` of a task with the same signal) means: stop the task. The
                // poll itself is tombstoned; the task gets its one `tasks/cancel`.
                let task_id = self.store.outbound_extra(at).and_then(|e| e.task_id.clone()).unwrap_or_default();
                let owner = self.store.task(&task_id).and_then(|t| self.store.task_request(t));
                let made = owner.is_some_and(|owner| self.cancel_task(&owner, &task_id));
                let Some(poll) = self.take_outbound(id) else { return Ok(made) };
                let watched = poll.watched;
                self.tombstone(key, poll);
                self.out.cancelled(request_id, cause);
                self.settle(id, watched);
                // The poll itself is cancelled even when its task's `tasks/cancel` already
                // went (or the task ended): `Ok(true)` whenever `Output::Cancelled` is queued,
                // which `handle_timeout` relies on to queue it once.
                return Ok(true);
            }
            Kind::Plain => {}
        }
        if Some(self.store.outbound_name(at)) == handshake {
            let method = Some(self.store.outbound_name(at));
            emit!(self, EventRef::outbound(EventKindOf::CancelNotSent { request_id, method, why: NotSent::Handshake }));
            return Err(UsageError::HandshakeNotCancellable(id.clone()));
        }
        let Some(request) = self.take_outbound(id) else { return Ok(false) };
        let close_stream = self.cancel_closes_stream();
        let wire_reason = self.config.reason.wire_reason(reason);
        let reason = wire_reason.as_deref();
        emit!(
            self,
            EventRef::outbound(EventKindOf::CancelSent {
                request_id,
                method: request.name(),
                via: if close_stream { Via::StreamClose } else { Via::Notification },
                reason,
                task_id: None,
            })
        );
        let watched = request.watched;
        self.tombstone(key, request);
        if close_stream {
            self.out.close_stream(request_id);
        } else {
            self.out.notify(request_id, reason);
        }
        self.out.cancelled(request_id, cause);
        self.settle(id, watched);
        Ok(true)
    }

    /// Whether a cancel of ours closes the request's stream instead of sending
    /// `notifications/cancelled`: a Streamable HTTP client on a revision whose rules say so
    /// (2026-07-28 §Transports, [`Rules::http_cancel_is_stream_close`](super::Rules::http_cancel_is_stream_close)).
    fn cancel_closes_stream(&self) -> bool {
        self.config.transport == TransportKind::StreamableHttp
            && self.revision.is_some_and(|r| r.rules().http_cancel_is_stream_close)
    }

    /// [`Self::cancel`] for the host's fast path: our request `id` cancelled by
    /// its caller with no reason (`reason_bytes` `None`) or a string reason of at most
    /// `reason_bytes` bytes of UTF-8 (an upper bound will do: JS gives 3 × its length).
    ///
    /// Decides as [`Self::cancel`] but queues nothing: [`FastOwnCancel::Notify`] when a
    /// plain request (no task, no timer, no progress token, a known method, not `initialize`)
    /// was in flight under `id` — it is cancelled and tombstoned, and the host
    /// does what the outputs of [`Self::cancel`] would have said: send
    /// `notifications/cancelled` with the caller's reason as is (it needs no cap), then, when
    /// the request was watched, abort its own signal and release what it holds for it.
    /// [`FastOwnCancel::General`] (nothing done) when this cancel needs [`Self::cancel`]:
    /// events are on (they carry the reason's text), the reason may be longer than
    /// [`ReasonPolicy::max_bytes`](super::ReasonPolicy::max_bytes), a task is in flight,
    /// output is already queued (the general path keeps its order with this cancel's), the
    /// request is not a plain one or not in flight, or the cancel closes a stream
    /// (2026-07-28 Streamable HTTP).
    ///
    /// Spec: every revision §Cancellation "Behavior Requirements" (the sender of a request
    /// MAY cancel it; SHOULD ignore its response if it arrives afterward: the tombstone).
    pub fn cancel_fast(&mut self, id: IdRef<'_>, reason_bytes: Option<usize>) -> FastOwnCancel {
        if self.config.events
            || reason_bytes.is_some_and(|n| n > self.config.reason.max_bytes)
            || self.store.has_tasks_of_requests()
            || !self.out.is_empty()
            || self.cancel_closes_stream()
        {
            return FastOwnCancel::General;
        }
        let key = Key::of_ref(id);
        let Some(request) = self.store.remove_plain(id) else { return FastOwnCancel::General };
        self.store.insert_tombstone(key, request.method, None, None);
        FastOwnCancel::Notify { watched: request.watched }
    }

    /// What [`Self::handle_response`] needs to read of a response to `id`. Reading nothing
    /// else keeps a 1 MB result out of the session.
    #[must_use]
    pub fn response_fields(&self, id: &RequestId) -> Fields {
        let tasks_extension = self.tasks_extension();
        if self.reading_responses == 0 && !tasks_extension {
            return Fields::default();
        }
        let key = Key::of(id);
        match self.store.outbound(key).map(|(_, o)| o) {
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
            None if tasks_extension && self.store.has_tombstone(key) => Fields { task_id: true, ..Fields::default() },
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
    pub fn handle_response(&mut self, id: &RequestId, info: &ResponseInfo) -> ResponseVerdict {
        let Some(request) = self.take_outbound(id) else {
            if self.store.tombstones_len() == 0 {
                return ResponseVerdict::Unknown;
            }
            let Some((_, method)) = self.store.remove_tombstone(Key::of(id)) else { return ResponseVerdict::Unknown };
            if let Some(task_id) = info.task_id.clone().filter(|_| info.error_code.is_none() && self.tasks_extension())
            {
                // 2026-07-28: the request we cancelled came back as a task: cancel that too.
                self.start_task(id, &task_id, &method, false);
                self.cancel_task(id, &task_id);
            }
            emit!(
                self,
                EventRef::outbound(EventKindOf::LateResponseDropped { request_id: id.as_id_ref(), method: &method })
            );
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
                        emit!(
                            self,
                            EventRef::outbound(EventKindOf::LateResponseDropped { request_id: id.as_id_ref(), method })
                        );
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
                        emit!(
                            self,
                            EventRef::outbound(EventKindOf::LateResponseDropped { request_id: id.as_id_ref(), method })
                        );
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
                        request_id: id.as_id_ref(),
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
    pub fn handle_progress(&mut self, token: &ProgressToken, now: Millis) -> ProgressVerdict {
        let key = Key::of(token);
        if let Some(owner) = self.store.token_owner(key) {
            if let Some(timer) = self.store.outbound_extra_mut(At::Slot(owner)).and_then(|e| e.timer.as_mut()) {
                self.deadlines.on_progress(owner, timer, now);
                self.tidy_deadlines();
            }
            return ProgressVerdict::Deliver;
        }
        let Some(s) = self.store.tombstone_of_token(key) else {
            return ProgressVerdict::Unknown;
        };
        if self.config.events {
            let (id, method) = self.store.tombstone_at(s);
            self.out.event(EventRef::outbound(EventKindOf::LateProgressDropped {
                request_id: id,
                method,
                progress_token: token.as_id_ref(),
            }));
        }
        ProgressVerdict::Late
    }

    /// Puts our request (in no place yet) in the store: its slot (`None`: in the window).
    pub(super) fn insert_outbound(&mut self, key: Key<'_>, request: Outbound, extra: Option<Extra>) -> Option<u32> {
        if request.reads_response() {
            self.reading_responses += 1;
        }
        self.store.insert_outbound(key, request, extra)
    }

    /// Takes our request `id` out of the store, with its progress token and its deadline.
    pub(super) fn take_outbound(&mut self, id: &RequestId) -> Option<Taken> {
        let mut request = self.store.remove_outbound(Key::of(id))?;
        if request.reads_response() {
            self.reading_responses -= 1;
        }
        if let Some(extra) = request.extra.as_mut() {
            if let Some(token) = &extra.progress_token {
                self.store.remove_token(token.as_key());
            }
            if let Some(timer) = extra.timer.as_mut() {
                self.deadlines.unschedule(timer);
                self.tidy_deadlines();
            }
        }
        Some(request)
    }

    /// Tombstones our cancelled request (taken out): its method and progress token stay.
    fn tombstone(&mut self, key: Key<'_>, request: Taken) {
        let (name, token) = request.extra.map_or((None, None), |e| (e.name, e.progress_token));
        self.store.insert_tombstone(key, request.request.method, name, token);
    }
}
