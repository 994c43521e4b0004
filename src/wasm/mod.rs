//! The `wasm-bindgen` layer: `CancellationSession` for JS, bridging the
//! [`crate::core::Session`] to `AbortSignal`, `setTimeout` and callbacks.
//!
//! Rules of this layer:
//! - it converts at the boundary (ids validated, never cast) and turns core errors into
//!   JS `Error` subclasses with a `code`;
//! - it never holds the session borrowed while calling into JS (`send`, `logger`,
//!   `AbortController.abort`, …), so callbacks may call the session again;
//! - a callback that throws is reported as an event, never a panic;
//! - one `setTimeout` per session drives every request's timeout (the core's
//!   `poll_timeout`/`handle_timeout`).

mod js;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::core::{
    CancelAction, CancelledParams, Config, Expired, InboundCancelVerdict, OutgoingResponseVerdict, PeerValue,
    ProgressVerdict, Reason, ReasonPolicy, RequestId, RequestState, ResponseInfo, ResponseVerdict, Session, Timeout,
    TimeoutKind, TrackRequest, TransportKind, CANCELLED_METHOD, PROGRESS_METHOD, TASK_STATUS_METHOD,
};
use js::{AbortController, AbortSignal};

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** A JSON-RPC request id. `"1"` and `1` differ; `0` and `""` are valid. Numbers must be safe integers. */
export type RequestId = string | number;

/** Any JSON-RPC 2.0 message (request, notification, result or error response). */
export interface JSONRPCMessage {
  jsonrpc: "2.0";
  id?: RequestId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** The `notifications/cancelled` a session produces. */
export interface CancelledNotification {
  jsonrpc: "2.0";
  method: "notifications/cancelled";
  params: { requestId: RequestId; reason?: string };
}

/** The `tasks/cancel` request a session produces for a task-augmented request (2025-11-25 on). Its id is the session's own (`"mcp-cancel:<n>"`); feed its response to `receive()`, which consumes it. */
export interface TasksCancelRequest {
  jsonrpc: "2.0";
  id: string;
  method: "tasks/cancel";
  params: { taskId: string };
}

/** A spec revision mcp-cancel knows. */
export type Revision = "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" | "2026-07-28";

/** Why a cancel of ours was not sent. */
export type NotSentWhy = "not-in-flight" | "handshake" | "task-settled";
/** Why a peer's cancel was ignored. */
export type IgnoredWhy = "malformed" | "not-in-flight" | "wrong-direction" | "already-cancelled" | "handshake" | "peer-may-not-cancel";

/** Every cancellation event, as given to the `logger` option. `direction` is "outbound" for requests we sent, "inbound" for the peer's. */
export type CancellationEvent =
  | { type: "cancel-sent"; direction: "outbound"; requestId: RequestId; method: string; via: "notification" | "stream-close" | "tasks-cancel"; reason?: string; taskId?: string }
  | { type: "cancel-not-sent"; direction: "outbound"; requestId: RequestId; method?: string; why: NotSentWhy }
  | { type: "cancel-deferred"; direction: "outbound"; requestId: RequestId; method: string }
  | { type: "timed-out"; direction: "outbound"; requestId: RequestId; method: string; kind: "timeout" | "max-total" }
  | { type: "task-cancel-answered"; direction: "outbound"; requestId: RequestId; taskId: string; outcome: "cancelled" | "already-terminal" | "error"; code?: number }
  | { type: "listen-ended"; direction: "outbound"; requestId: RequestId; reason?: string }
  | { type: "revision-negotiated"; direction: "session"; version: string; revision: Revision; known: boolean }
  | { type: "cancel-received"; direction: "inbound"; requestId: RequestId; method: string; reason?: string }
  | { type: "cancel-ignored"; direction: "inbound"; requestId?: RequestId; why: IgnoredWhy; detail?: string; reason?: string }
  | { type: "late-response-dropped"; direction: "outbound"; requestId: RequestId; method: string }
  | { type: "late-progress-dropped"; direction: "outbound"; requestId: RequestId; method: string; progressToken: RequestId }
  | { type: "response-suppressed"; direction: "inbound"; requestId: RequestId; method: string }
  | { type: "duplicate-request-id"; direction: "inbound"; requestId: RequestId; method: string }
  | { type: "send-failed"; direction: "outbound"; requestId: RequestId; error: unknown };

/** Timeouts of a request, in ms (2025-03-26 §Lifecycle "Timeouts"). */
export interface TimeoutOptions {
  /** Cancel when no response came within this many ms (of the start, or of the last progress with `resetTimeoutOnProgress`). */
  timeoutMs?: number;
  /** Restart the `timeoutMs` clock on each `notifications/progress` for the request. Default false. */
  resetTimeoutOnProgress?: boolean;
  /** Cancel when no response came within this many ms of the start, progress or not. Fires once, at its deadline. */
  maxTotalTimeoutMs?: number;
}

/** Options of `new CancellationSession(options)`. Every member is optional. */
export interface CancellationSessionOptions extends TimeoutOptions {
  /** Called with each message to put on the wire that the session makes itself: the `notifications/cancelled` when a tracked signal aborts or a timeout expires, a deferred `tasks/cancel`. `cancel()` returns its message and hands it here too. */
  send?: (message: CancelledNotification | TasksCancelRequest) => void;
  /** 2026-07-28 over Streamable HTTP: called to close the response stream of a cancelled request (that is the cancel; nothing is sent). */
  closeStream?: (requestId: RequestId) => void;
  /** Called when a request's timeout expires, after its cancel went out, with a `DOMException` named `TimeoutError`. */
  onTimeout?: (requestId: RequestId, error: DOMException) => void;
  /** Called with every cancellation event. Default: none. */
  logger?: (event: CancellationEvent) => void;
  /** The negotiated protocol version, if known up front (else learned from the `initialize` result or `setProtocolVersion()`). */
  protocolVersion?: string;
  /** The transport: "stdio" (or any message transport; default) or "streamable-http" (2026-07-28: a cancel closes the request's stream). */
  transport?: "stdio" | "streamable-http";
  /** Cancelled requests remembered to drop their late messages (oldest forgotten first). Default 1024. */
  tombstoneCapacity?: number;
  /** Longest `reason` sent or reported, in bytes of UTF-8. Default 1024. */
  maxReasonBytes?: number;
  /** Send an `Error` reason's "Name: message" to the peer. Default false: `genericReason` is sent instead. */
  exposeErrorReasons?: boolean;
  /** Reason sent for an `Error` reason when errors are not exposed. Default "Request cancelled". */
  genericReason?: string;
  /** Reason sent for a timeout. Default "Request timed out". */
  timeoutReason?: string;
}

/** Options of `track()`. */
export interface TrackOptions extends TimeoutOptions {
  /** Aborting it cancels the request: the cancel goes to the `send` option. */
  signal?: AbortSignal;
  /** The request's `params`; only `_meta.progressToken`, `task` and `taskId` are read. */
  params?: unknown;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// The options object of `new CancellationSession(options)`: TS `CancellationSessionOptions`.
    #[wasm_bindgen(typescript_type = "CancellationSessionOptions")]
    pub type SessionOptions;
    /// The options object of `track()`: TS `TrackOptions`.
    #[wasm_bindgen(typescript_type = "TrackOptions")]
    pub type TrackOptions;
}

/// The abort listener of a tracked request: the session's one abort closure bound to the
/// request's id (a plain JS function, so nothing per request is registered for cleanup).
struct Listener {
    signal: AbortSignal,
    callback: Function,
}

/// JS resources of one of our requests, released when the core says it settled.
#[derive(Default)]
struct RequestEntry {
    listener: Option<Listener>,
    /// The controller of the signal `track()` returned.
    controller: Option<AbortController>,
}

#[derive(Clone, Default)]
struct Callbacks {
    send: Option<Function>,
    close_stream: Option<Function>,
    on_timeout: Option<Function>,
    logger: Option<Function>,
}

struct State {
    core: Session,
    requests: HashMap<RequestId, RequestEntry>,
    /// Controllers of the peer's requests, whose signals `inboundSignal()` hands out.
    inbound: HashMap<RequestId, AbortController>,
    callbacks: Callbacks,
    /// The abort listener of every tracked request, called with the request's id.
    abort_closure: Option<Closure<dyn Fn(JsValue)>>,
    /// The session's one timer: its handle and deadline (ms), and its callback.
    timer: Option<(JsValue, u64)>,
    timer_closure: Option<Closure<dyn FnMut()>>,
}

impl Drop for State {
    /// The session is gone (freed, or collected): its timer and abort listeners must not
    /// call the closures dropped with it.
    fn drop(&mut self) {
        if let Some((handle, _)) = self.timer.take() {
            js::clear_timeout(&handle);
        }
        for entry in self.requests.values() {
            if let Some(listener) = &entry.listener {
                let _ = listener.signal.remove_event_listener(&js::key("abort"), &listener.callback);
            }
        }
    }
}

/// The cancellation bookkeeping of one MCP connection, for JS.
///
/// Track each request you send, feed every message that arrives to `receive()` and every
/// message you send to `beforeSend()`, and cancel with an `AbortSignal` or `cancel()`.
/// Follows the rules of the negotiated revision (2024-11-05 to 2026-07-28, §Cancellation,
/// §Lifecycle "Timeouts", §Tasks).
///
/// ```ts
/// import { CancellationSession } from "mcp-cancel";
/// const session = new CancellationSession({ send: (m) => transport.send(m) });
/// const ac = new AbortController();
/// session.track(7, "tools/call", { signal: ac.signal });
/// await transport.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params });
/// ac.abort("user pressed stop"); // → notifications/cancelled { requestId: 7, reason: "user pressed stop" }
/// session.shouldDropResponse(7); // → true: the late result is dropped
/// ```
#[wasm_bindgen]
pub struct CancellationSession {
    state: Rc<RefCell<State>>,
}

#[wasm_bindgen]
impl CancellationSession {
    /// A session with no request in flight.
    ///
    /// # Errors
    /// `InvalidArgumentError` (`code: "ERR_INVALID_OPTION"`) when an option has the wrong
    /// type (e.g. `send` not a function, `tombstoneCapacity` not a non-negative integer,
    /// `transport` not "stdio" or "streamable-http").
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<SessionOptions>) -> Result<CancellationSession, JsValue> {
        let options: JsValue = options.map(Into::into).unwrap_or(JsValue::UNDEFINED);
        let defaults = ReasonPolicy::default();
        let transport = match option_string(&options, "transport", "stdio".to_owned())?.as_str() {
            "stdio" => TransportKind::Messages,
            "streamable-http" => TransportKind::StreamableHttp,
            _ => {
                return Err(option_error(
                    "transport",
                    "\"stdio\" or \"streamable-http\"",
                    &js::get(&options, "transport"),
                ))
            }
        };
        let config = Config {
            tombstone_capacity: option_count(&options, "tombstoneCapacity", 1024)?,
            reason: ReasonPolicy {
                max_bytes: option_count(&options, "maxReasonBytes", defaults.max_bytes)?,
                expose_error_reasons: option_bool(&options, "exposeErrorReasons", defaults.expose_error_reasons)?,
                generic_reason: option_string(&options, "genericReason", defaults.generic_reason)?,
                timeout_reason: option_string(&options, "timeoutReason", defaults.timeout_reason)?,
            },
            transport,
            revision: None,
            timeout: timeout_options(&options, "CancellationSession")?.unwrap_or(Timeout::NONE),
            report_settled: true,
            ..Config::default()
        };
        let mut core = Session::new(config);
        let version = js::get(&options, "protocolVersion");
        if !version.is_undefined() {
            let v = version.as_string().ok_or_else(|| option_error("protocolVersion", "a string", &version))?;
            core.set_protocol_version(&v);
        }
        let state = State {
            core,
            requests: HashMap::new(),
            inbound: HashMap::new(),
            callbacks: Callbacks {
                send: option_function(&options, "send")?,
                close_stream: option_function(&options, "closeStream")?,
                on_timeout: option_function(&options, "onTimeout")?,
                logger: option_function(&options, "logger")?,
            },
            abort_closure: None,
            timer: None,
            timer_closure: None,
        };
        let state = Rc::new(RefCell::new(state));
        let weak = Rc::downgrade(&state);
        let closure = Closure::<dyn FnMut()>::new(move || on_timer(&weak));
        let weak = Rc::downgrade(&state);
        let abort_closure = Closure::<dyn Fn(JsValue)>::new(move |id: JsValue| on_abort(&weak, &id));
        if let Ok(mut st) = state.try_borrow_mut() {
            st.timer_closure = Some(closure);
            st.abort_closure = Some(abort_closure);
        }
        let session = CancellationSession { state };
        session.flush();
        Ok(session)
    }

    /// Records a request we send: its id, `method`, and (from `options.params`) its
    /// `_meta.progressToken`, `task` (a task-augmented request, 2025-11-25) and `taskId`
    /// (a `tasks/get`/`tasks/result`/`tasks/cancel`). With `options.signal`, aborting the
    /// signal cancels the request (the cancel goes to the `send` option). Timeouts
    /// (`timeoutMs`, `resetTimeoutOnProgress`, `maxTotalTimeoutMs`, in ms; session
    /// defaults otherwise) cancel it with the timeout reason when they expire.
    ///
    /// Returns an `AbortSignal` when the request has a `signal` or a timeout, else
    /// `undefined`: it aborts when the request is cancelled — with `signal.reason` (or the
    /// `cancel()` reason) for an abort, with a `DOMException` named `TimeoutError` for a
    /// timeout — and never once the request completed.
    ///
    /// # Errors
    /// - `signal.reason` itself when the signal is already aborted (nothing is tracked or
    ///   sent), per the DOM's AbortSignal conventions;
    /// - `InvalidArgumentError` `ERR_INVALID_REQUEST_ID` for an id that is not a string or
    ///   a safe integer (also for the progress token), `ERR_INVALID_OPTION` for a bad
    ///   timeout;
    /// - `UsageError` `ERR_ALREADY_IN_FLIGHT` / `ERR_PROGRESS_TOKEN_IN_USE`.
    #[wasm_bindgen(unchecked_return_type = "AbortSignal | undefined")]
    pub fn track(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue,
        method: &str,
        options: Option<TrackOptions>,
    ) -> Result<JsValue, JsValue> {
        let request_id = js::id_from_js(&id).map_err(|e| js::invalid_id_error("track(): request id", e, &id))?;
        let options: JsValue = options.map(Into::into).unwrap_or(JsValue::UNDEFINED);
        let mut request = track_request(request_id, method, &js::get(&options, "params"))?;
        request.timeout = timeout_options(&options, "track()")?;
        let signal_js = js::get(&options, "signal");
        self.track_inner(request, signal_js, true)
    }

    /// Cancels our request `id`: returns the message to send — a `notifications/cancelled`,
    /// or a `tasks/cancel` request for a task-augmented request whose task is known — also
    /// handed to the `send` option; or `undefined` when there is nothing to send: the
    /// request is not in flight (completed, unknown, already cancelled: the first reason
    /// wins), its task's id is not known yet (the `tasks/cancel` follows through `send`
    /// when it is), or 2026-07-28 over Streamable HTTP (the `closeStream` option is
    /// called). `reason` may be a string (sent, capped), an `Error`/`DOMException` (the
    /// generic reason is sent unless `exposeErrorReasons`), a `DOMException` named
    /// `TimeoutError` (the timeout reason), or `undefined` (no reason).
    ///
    /// # Errors
    /// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID`; `UsageError`
    /// `ERR_HANDSHAKE_NOT_CANCELLABLE` for `initialize` (2024-11-05 .. 2025-11-25).
    #[wasm_bindgen(unchecked_return_type = "CancelledNotification | TasksCancelRequest | undefined")]
    pub fn cancel(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] reason: JsValue,
    ) -> Result<JsValue, JsValue> {
        let request_id = js::id_from_js(&id).map_err(|e| js::invalid_id_error("cancel(): request id", e, &id))?;
        let policy_reason = js::reason_from_js(&reason);
        let local_reason = if reason.is_undefined() { js::abort_error("Request cancelled") } else { reason };
        let result = self.core_cancel(&request_id, &policy_reason, &local_reason);
        let message = match result {
            Ok(Some(action)) => self.perform(&request_id, action, true),
            Ok(None) => JsValue::UNDEFINED,
            Err(e) => {
                self.flush();
                return Err(js::usage_error(&e));
            }
        };
        self.flush();
        Ok(message)
    }

    /// Handles a response (result or error) that arrived, and says whether to drop it:
    /// `true` when it answers a request we cancelled (late) or our own `tasks/cancel`
    /// (consumed). A response to a request in flight completes it (`false`); an id we do
    /// not know is `false` (the host decides, as without this library). Pass the whole
    /// response message to let a `CreateTaskResult` start its task (only `result.task`,
    /// `result.taskId`/`status`, `result.protocolVersion` and `error.code` are read), or
    /// just its id. Call it once per response.
    ///
    /// Never throws: an id that is not a valid request id (e.g. `null`) is `false`.
    #[wasm_bindgen(js_name = shouldDropResponse)]
    pub fn should_drop_response(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestId | JSONRPCMessage")] response: JsValue,
    ) -> bool {
        let (id, message) =
            if response.is_object() { (js::get(&response, "id"), response) } else { (response, JsValue::UNDEFINED) };
        let Ok(request_id) = js::id_from_js(&id) else { return false };
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => {
                let fields = st.core.response_fields(&request_id);
                let info = read_response(&message, fields);
                st.core.handle_response(&request_id, &info)
            }
            Err(_) => return false,
        };
        self.flush();
        matches!(verdict, ResponseVerdict::Late | ResponseVerdict::Consumed)
    }

    /// Handles a `notifications/progress` by its `progressToken`, and says whether to drop
    /// it: `true` exactly when the token belongs to a request we cancelled. A delivered one
    /// restarts its request's timeout when it resets on progress.
    #[wasm_bindgen(js_name = shouldDropProgress)]
    pub fn should_drop_progress(&self, #[wasm_bindgen(unchecked_param_type = "RequestId")] token: JsValue) -> bool {
        let Ok(token) = js::id_from_js(&token) else { return false };
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => st.core.handle_progress(&token, js::now_ms()),
            Err(_) => return false,
        };
        self.flush();
        verdict == ProgressVerdict::Late
    }

    /// Feeds a message that arrived from the peer; returns `true` to pass it on to the
    /// application, `false` to drop it. Reads only `id`, `method`, and the few `params`,
    /// `result` and `error` fields the bookkeeping needs — never copies the message.
    ///
    /// - response: dropped when late (after our cancel) or when it answers our own
    ///   `tasks/cancel`; completes a request in flight; an `initialize` result sets the
    ///   revision;
    /// - `notifications/progress`: dropped when late;
    /// - `notifications/cancelled`: passed on when valid (and the request's
    ///   `inboundSignal()` aborts with the peer's reason), or when it ends our
    ///   `subscriptions/listen` (2026-07-28); an invalid one (malformed, unknown, wrong
    ///   direction, `initialize`, or any server cancel in 2026-07-28) is dropped and
    ///   reported as an event;
    /// - `notifications/tasks/status`: a terminal status ends the task;
    /// - request: tracked as in flight (see `inboundSignal()`), passed on.
    ///
    /// Never throws for anything a peer sends.
    pub fn receive(&self, #[wasm_bindgen(unchecked_param_type = "JSONRPCMessage")] message: JsValue) -> bool {
        let method = js::get(&message, "method");
        let id = js::get(&message, "id");
        let Some(method) = method.as_string() else {
            // A response (or something that is not JSON-RPC: not ours to judge).
            if id.is_undefined() {
                return true;
            }
            return !self.should_drop_response(message);
        };
        if !id.is_undefined() {
            self.receive_request(&id, &method);
            return true;
        }
        let params = js::get(&message, "params");
        match method.as_str() {
            PROGRESS_METHOD => !self.should_drop_progress(js::get(&params, "progressToken")),
            CANCELLED_METHOD => self.receive_cancelled(&params),
            TASK_STATUS_METHOD => {
                if let (Some(task_id), Some(status)) =
                    (js::get(&params, "taskId").as_string(), js::get(&params, "status").as_string())
                {
                    if let Ok(mut st) = self.state.try_borrow_mut() {
                        st.core.handle_task_status(&task_id, &status);
                    }
                    self.flush();
                }
                true
            }
            _ => true,
        }
    }

    /// Feeds a message we are about to send; returns the message to put on the wire — the
    /// same object, a copy with the reason policy applied, or the `tasks/cancel` that
    /// replaces a cancel of a task-augmented request — or `undefined` to send nothing:
    ///
    /// - request: tracked as in flight (with its progress token and task);
    /// - `notifications/cancelled`: sent only for a request in flight that is not the
    ///   handshake, once, with its reason rewritten by the policy (an SDK's `String(error)`
    ///   reason becomes the generic reason); for a task-augmented request it becomes
    ///   `tasks/cancel` (or waits for the task's id); in 2026-07-28 over Streamable HTTP
    ///   nothing is sent;
    /// - response to a request the peer cancelled: `undefined` (suppressed);
    /// - anything else: unchanged.
    ///
    /// # Errors
    /// As `track()` for a request (`ERR_ALREADY_IN_FLIGHT`, `ERR_INVALID_REQUEST_ID`), and
    /// `ERR_INVALID_REQUEST_ID` for a cancel whose `requestId` is not an id.
    #[wasm_bindgen(js_name = beforeSend, unchecked_return_type = "JSONRPCMessage | undefined")]
    pub fn before_send(
        &self,
        #[wasm_bindgen(unchecked_param_type = "JSONRPCMessage")] message: JsValue,
    ) -> Result<JsValue, JsValue> {
        let method = js::get(&message, "method");
        let id = js::get(&message, "id");
        let Some(method) = method.as_string() else {
            if id.is_undefined() {
                return Ok(message);
            }
            return Ok(if self.outgoing_response(&id) { message } else { JsValue::UNDEFINED });
        };
        if !id.is_undefined() {
            // As `track(id, method, { params })`; the signal it would return is never seen.
            let request_id = js::id_from_js(&id).map_err(|e| js::invalid_id_error("track(): request id", e, &id))?;
            let request = track_request(request_id, &method, &js::get(&message, "params"))?;
            self.track_signal(request, None, false)?;
            return Ok(message);
        }
        if method != CANCELLED_METHOD {
            return Ok(message);
        }
        let params = js::get(&message, "params");
        let id = js::get(&params, "requestId");
        let request_id = js::id_from_js(&id)
            .map_err(|e| js::invalid_id_error("notifications/cancelled: params.requestId", e, &id))?;
        let given = js::get(&params, "reason").as_string();
        let reason = given.as_deref().map_or(Reason::None, Reason::from_stringified);
        let local_reason = js::abort_error(given.as_deref().unwrap_or("Request cancelled"));
        let out = match self.core_cancel(&request_id, &reason, &local_reason) {
            Ok(Some(CancelAction::Notify(n))) if given == n.reason => message,
            Ok(Some(CancelAction::Notify(n))) => rewrite_cancel(&message, &params, n.reason.as_deref()),
            Ok(Some(action)) => self.perform(&request_id, action, false),
            Ok(None) | Err(_) => JsValue::UNDEFINED,
        };
        self.flush();
        Ok(out)
    }

    /// Follows the rules of the negotiated protocol `version` (what the SDK passes to
    /// `transport.setProtocolVersion`). An unknown version follows the newest known
    /// revision dated on or before it, and is reported as a `revision-negotiated` event
    /// with `known: false` — never an error. Returns the revision followed.
    #[wasm_bindgen(js_name = setProtocolVersion, unchecked_return_type = "Revision")]
    pub fn set_protocol_version(&self, version: &str) -> Result<String, JsValue> {
        let revision = {
            let mut st = self.state.try_borrow_mut().map_err(|_| js::reentrant_error())?;
            st.core.set_protocol_version(version)
        };
        self.flush();
        Ok(revision.as_str().to_owned())
    }

    /// The revision whose rules are followed, or `undefined` before one is known.
    #[wasm_bindgen(getter, unchecked_return_type = "Revision | undefined")]
    pub fn revision(&self) -> Option<String> {
        self.state.try_borrow().ok().and_then(|st| st.core.revision()).map(|r| r.as_str().to_owned())
    }

    /// The `AbortSignal` of the peer's request `id` (tracked by `receive()`): it aborts
    /// with a `DOMException` named `AbortError` whose message is the peer's reason when the
    /// peer validly cancels. `undefined` for an id not in flight.
    #[wasm_bindgen(js_name = inboundSignal, unchecked_return_type = "AbortSignal | undefined")]
    pub fn inbound_signal(&self, #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue) -> JsValue {
        let Ok(request_id) = js::id_from_js(&id) else { return JsValue::UNDEFINED };
        let Ok(st) = self.state.try_borrow() else { return JsValue::UNDEFINED };
        st.inbound.get(&request_id).map(|c| JsValue::from(c.signal())).unwrap_or(JsValue::UNDEFINED)
    }

    /// Whether our request `id` can still be cancelled: in flight, or its task running.
    #[wasm_bindgen(js_name = isInFlight)]
    pub fn is_in_flight(&self, #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue) -> bool {
        let Ok(request_id) = js::id_from_js(&id) else { return false };
        self.state.try_borrow().is_ok_and(|st| {
            matches!(st.core.request_state(&request_id), Some(RequestState::InFlight | RequestState::TaskRunning))
        })
    }

    /// Number of our requests in flight.
    #[wasm_bindgen(getter, js_name = inFlightCount)]
    pub fn in_flight_count(&self) -> usize {
        self.state.try_borrow().map(|st| st.core.outbound_in_flight()).unwrap_or(0)
    }

    /// Number of tombstones (cancelled requests remembered, at most `tombstoneCapacity`).
    #[wasm_bindgen(getter, js_name = tombstoneCount)]
    pub fn tombstone_count(&self) -> usize {
        self.state.try_borrow().map(|st| st.core.tombstones()).unwrap_or(0)
    }

    /// Forgets every request (the connection closed): removes every abort listener and
    /// the timer; no cancel is sent.
    pub fn close(&self) {
        if let Ok(mut st) = self.state.try_borrow_mut() {
            st.core.close();
            st.inbound.clear();
        }
        self.flush();
    }

    // ----- for the package's JS layer (js/fast.js) -----
    //
    // The entry modules read the few fields of a message or options object in JS, where it
    // is cheap, and call one of these with the id as a number or a string: one crossing of
    // the boundary per operation. Each does exactly what the method named in its doc does
    // for such input; anything else takes that method.

    /// `track(id, method, { signal, params })` with an id (`idString`, else the safe
    /// integer `idNumber`) and progress token (when `hasToken`) already validated, no
    /// `task`/`taskId` and no timeout options. Returns the request's signal when
    /// `wantSignal` (`beforeSend()` does not).
    ///
    /// # Errors
    /// As `track()`.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = "__track", skip_typescript)]
    pub fn fast_track(
        &self,
        id_number: f64,
        id_string: Option<String>,
        method: &str,
        has_token: bool,
        token_number: f64,
        token_string: Option<String>,
        signal: JsValue,
        want_signal: bool,
    ) -> Result<JsValue, JsValue> {
        let request = fast_request(id_number, id_string, method, has_token, token_number, token_string)?;
        self.track_inner(request, signal, want_signal)
    }

    /// `beforeSend(request)`: `__track` without a signal and without a return value, so
    /// nothing but numbers and strings crosses the boundary.
    ///
    /// # Errors
    /// As `track()`.
    #[wasm_bindgen(js_name = "__trackRequest", skip_typescript)]
    pub fn fast_track_request(
        &self,
        id_number: f64,
        id_string: Option<String>,
        method: &str,
        has_token: bool,
        token_number: f64,
        token_string: Option<String>,
    ) -> Result<(), JsValue> {
        let request = fast_request(id_number, id_string, method, has_token, token_number, token_string)?;
        self.track_signal(request, None, false).map(|_| ())
    }

    /// `shouldDropResponse(id)` for a validated id: `0` keep it, `1` drop it, `2` the
    /// response's fields are needed (nothing was done: pass the whole response to
    /// `shouldDropResponse`).
    #[wasm_bindgen(js_name = "__response", skip_typescript)]
    pub fn fast_response(&self, id_number: f64, id_string: Option<String>) -> u32 {
        let Ok(request_id) = fast_id(id_number, id_string, "") else { return 0 };
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => {
                if st.core.response_fields(&request_id) != crate::core::Fields::default() {
                    return 2;
                }
                st.core.handle_response(&request_id, &ResponseInfo::default())
            }
            Err(_) => return 0,
        };
        self.flush();
        u32::from(matches!(verdict, ResponseVerdict::Late | ResponseVerdict::Consumed))
    }

    /// `shouldDropProgress(token)` for a validated token.
    #[wasm_bindgen(js_name = "__progress", skip_typescript)]
    pub fn fast_progress(&self, token_number: f64, token_string: Option<String>) -> bool {
        let Ok(token) = fast_id(token_number, token_string, "") else { return false };
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => st.core.handle_progress(&token, js::now_ms()),
            Err(_) => return false,
        };
        self.flush();
        verdict == ProgressVerdict::Late
    }

    /// `receive()` of a request from the peer with a validated id.
    #[wasm_bindgen(js_name = "__request", skip_typescript)]
    pub fn fast_request(&self, id_number: f64, id_string: Option<String>, method: &str) {
        if let Ok(request_id) = fast_id(id_number, id_string, "") {
            self.receive_request_id(request_id, method);
        }
    }

    /// `receive()` of a `notifications/cancelled` whose `params` is an object with a
    /// `requestId` that is a number (`requestIdNumber`, any number) or a string, and a
    /// `reason` that is a string or absent.
    #[wasm_bindgen(js_name = "__peerCancel", skip_typescript)]
    pub fn fast_peer_cancel(&self, id_number: f64, id_string: Option<String>, reason: Option<String>) -> bool {
        self.receive_cancelled_fields(&CancelledParams {
            params: PeerValue::Object,
            request_id: match id_string {
                Some(s) => PeerValue::String(s),
                None => PeerValue::Number(id_number),
            },
            reason: reason.map_or(PeerValue::Absent, PeerValue::String),
        })
    }

    /// `beforeSend()` of our response to the peer's request with a validated id: `true` to
    /// send it.
    #[wasm_bindgen(js_name = "__outgoing", skip_typescript)]
    pub fn fast_outgoing(&self, id_number: f64, id_string: Option<String>) -> bool {
        match fast_id(id_number, id_string, "") {
            Ok(request_id) => self.outgoing_response_id(&request_id),
            Err(_) => true,
        }
    }
}

impl CancellationSession {
    /// Tracks `request` (its timeout from the options, `None` for the session's), with the
    /// caller's `signal` (`undefined`/`null` for none). Returns the request's own signal
    /// when `want_signal` and the request has a signal or a timer, else `undefined`.
    fn track_inner(&self, request: TrackRequest, signal_js: JsValue, want_signal: bool) -> Result<JsValue, JsValue> {
        let signal = if signal_js.is_undefined() || signal_js.is_null() {
            None
        } else {
            let signal: AbortSignal = signal_js.unchecked_into();
            if signal.aborted().unwrap_or(false) {
                return Err(signal.reason().unwrap_or(JsValue::UNDEFINED));
            }
            Some(signal)
        };
        self.track_signal(request, signal, want_signal)
    }

    /// [`Self::track_inner`] with the caller's signal checked (not aborted) or absent.
    fn track_signal(
        &self,
        request: TrackRequest,
        signal: Option<AbortSignal>,
        want_signal: bool,
    ) -> Result<JsValue, JsValue> {
        let request_id = request.id.clone();
        let (has_timer, abort_closure) = {
            let mut st = self.state.try_borrow_mut().map_err(|_| js::reentrant_error())?;
            let effective = request.timeout.unwrap_or(st.core.config().timeout);
            // The clock is read only for a request that may get a deadline.
            let now = if effective.is_set() { js::now_ms() } else { 0 };
            st.core.track(request, now).map_err(|e| js::usage_error(&e))?;
            let closure = signal.as_ref().and_then(|_| st.abort_closure.as_ref()).map(|c| {
                let f: &Function = c.as_ref().unchecked_ref();
                f.clone()
            });
            (effective.is_set(), closure)
        };
        let mut entry = RequestEntry::default();
        let mut request_signal = JsValue::UNDEFINED;
        if want_signal && (signal.is_some() || has_timer) {
            if let Ok(controller) = AbortController::new() {
                request_signal = controller.signal().into();
                entry.controller = Some(controller);
            }
        }
        if let (Some(signal), Some(closure)) = (signal, abort_closure) {
            let callback: Function = closure.bind1(&JsValue::UNDEFINED, &js::id_to_js(&request_id)).unchecked_into();
            if signal.add_event_listener(&js::key("abort"), &callback).is_ok() {
                entry.listener = Some(Listener { signal, callback });
            }
        }
        if entry.listener.is_some() || entry.controller.is_some() {
            if let Ok(mut st) = self.state.try_borrow_mut() {
                st.requests.insert(request_id, entry);
            }
        }
        self.flush();
        Ok(request_signal)
    }

    /// `core.cancel`, then aborts the request's own signal with `local_reason`.
    fn core_cancel(
        &self,
        id: &RequestId,
        reason: &Reason,
        local_reason: &JsValue,
    ) -> Result<Option<CancelAction>, crate::core::UsageError> {
        let (result, controller) = {
            let Ok(mut st) = self.state.try_borrow_mut() else { return Ok(None) };
            let result = st.core.cancel(id, reason);
            let controller = match &result {
                Ok(Some(_)) => st.requests.get_mut(id).and_then(|e| e.controller.take()),
                _ => None,
            };
            (result, controller)
        };
        if let Some(controller) = controller {
            let _ = controller.abort(local_reason);
        }
        result
    }

    /// Does `action` for request `id`; returns the message it puts on the wire (for the
    /// caller to return), handing it to `send` too when `also_send`.
    fn perform(&self, id: &RequestId, action: CancelAction, also_send: bool) -> JsValue {
        perform(&self.state, id, action, also_send)
    }

    fn receive_request(&self, id: &JsValue, method: &str) {
        let Ok(request_id) = js::id_from_js(id) else { return };
        self.receive_request_id(request_id, method);
    }

    fn receive_request_id(&self, request_id: RequestId, method: &str) {
        if let Ok(mut st) = self.state.try_borrow_mut() {
            if st.core.handle_request(request_id.clone(), method) {
                if let Ok(controller) = AbortController::new() {
                    st.inbound.insert(request_id, controller);
                }
            }
        }
        self.flush();
    }

    fn receive_cancelled(&self, params: &JsValue) -> bool {
        let params_kind = js::peer_value(params);
        let fields = if matches!(params_kind, PeerValue::Object) {
            CancelledParams {
                params: params_kind,
                request_id: js::peer_value(&js::get(params, "requestId")),
                reason: js::peer_value(&js::get(params, "reason")),
            }
        } else {
            CancelledParams { params: params_kind, request_id: PeerValue::Absent, reason: PeerValue::Absent }
        };
        self.receive_cancelled_fields(&fields)
    }

    fn receive_cancelled_fields(&self, fields: &CancelledParams) -> bool {
        let (verdict, controller) = match self.state.try_borrow_mut() {
            Ok(mut st) => {
                let verdict = st.core.handle_cancelled(fields);
                let controller = match &verdict {
                    InboundCancelVerdict::Abort { request_id, .. } => st.inbound.remove(request_id),
                    _ => None,
                };
                (verdict, controller)
            }
            Err(_) => return false,
        };
        self.flush();
        match verdict {
            InboundCancelVerdict::Abort { reason, .. } => {
                if let Some(controller) = controller {
                    let message = reason.as_deref().unwrap_or("Request cancelled by the peer");
                    let _ = controller.abort(&js::abort_error(message));
                }
                true
            }
            InboundCancelVerdict::ListenEnded { .. } => true,
            InboundCancelVerdict::Ignore => false,
        }
    }

    /// `true` to send our response to the peer's request `id`.
    fn outgoing_response(&self, id: &JsValue) -> bool {
        let Ok(request_id) = js::id_from_js(id) else { return true };
        self.outgoing_response_id(&request_id)
    }

    fn outgoing_response_id(&self, request_id: &RequestId) -> bool {
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => {
                st.inbound.remove(request_id);
                st.core.handle_outgoing_response(request_id)
            }
            Err(_) => return true,
        };
        self.flush();
        verdict == OutgoingResponseVerdict::Send
    }

    fn flush(&self) {
        flush(&self.state);
    }
}

/// A request to track from its id, method and `params` (reads `_meta.progressToken`,
/// `task` and `taskId`); the session's timeouts.
fn track_request(id: RequestId, method: &str, params: &JsValue) -> Result<TrackRequest, JsValue> {
    let token_js = js::get(&js::get(params, "_meta"), "progressToken");
    let progress_token = if token_js.is_undefined() {
        None
    } else {
        Some(js::id_from_js(&token_js).map_err(|e| js::invalid_id_error("track(): progress token", e, &token_js))?)
    };
    let task = js::get(params, "task");
    Ok(TrackRequest {
        id,
        method: method.to_owned(),
        progress_token,
        task: task.is_object() && !js_sys::Array::is_array(&task),
        task_ref: js::get(params, "taskId").as_string(),
        timeout: None,
    })
}

/// The `TrackRequest` of the fast `__track` paths: the id and the optional progress token,
/// each a number or a string.
///
/// # Errors
/// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID` for an id or token that is not one.
fn fast_request(
    id_number: f64,
    id_string: Option<String>,
    method: &str,
    has_token: bool,
    token_number: f64,
    token_string: Option<String>,
) -> Result<TrackRequest, JsValue> {
    let mut request = TrackRequest::new(fast_id(id_number, id_string, "track(): request id")?, method);
    if has_token {
        request.progress_token = Some(fast_id(token_number, token_string, "track(): progress token")?);
    }
    Ok(request)
}

/// A request id the package's JS layer already validated: a string, or a safe integer.
fn fast_id(number: f64, string: Option<String>, what: &str) -> Result<RequestId, JsValue> {
    match string {
        Some(s) => Ok(RequestId::String(s)),
        None => RequestId::from_f64(number).map_err(|e| js::invalid_id_error(what, e, &JsValue::from_f64(number))),
    }
}

/// Reads the fields `handle_response` asked for from a response message.
fn read_response(message: &JsValue, fields: crate::core::Fields) -> ResponseInfo {
    let mut info = ResponseInfo::default();
    if message.is_undefined() || fields == crate::core::Fields::default() {
        return info;
    }
    let error = js::get(message, "error");
    if !error.is_undefined() {
        info.error_code =
            Some(js::get(&error, "code").as_f64().filter(|c| c.fract() == 0.0).map_or(-32603, |c| c as i64));
        return info;
    }
    let result = js::get(message, "result");
    if fields.task_id {
        let task = js::get(&result, "task");
        info.task_id = js::get(&task, "taskId").as_string().or_else(|| {
            // 2026-07-28 tasks extension: `{ resultType: "task", taskId, … }`.
            (js::get(&result, "resultType").as_string().as_deref() == Some("task"))
                .then(|| js::get(&result, "taskId").as_string())
                .flatten()
        });
    }
    if fields.task_status {
        if let (Some(t), Some(s)) = (js::get(&result, "taskId").as_string(), js::get(&result, "status").as_string()) {
            info.task_status = Some((t, s));
        }
    }
    if fields.protocol_version {
        info.protocol_version = js::get(&result, "protocolVersion").as_string();
    }
    info
}

/// Does `action`; returns the message it puts on the wire (`undefined` when none).
fn perform(state: &Rc<RefCell<State>>, id: &RequestId, action: CancelAction, also_send: bool) -> JsValue {
    let callbacks = state.try_borrow().map(|st| st.callbacks.clone()).unwrap_or_default();
    match action {
        CancelAction::Notify(n) => {
            let message = js::notification_to_js(&n);
            if also_send {
                call_send(state, &callbacks, id, &message);
            }
            message
        }
        CancelAction::CancelTask(r) => {
            let message = js::task_cancel_to_js(&r);
            if also_send {
                call_send(state, &callbacks, id, &message);
            }
            message
        }
        CancelAction::CloseStream(id) => {
            if let Some(close) = &callbacks.close_stream {
                if let Err(error) = close.call1(&JsValue::UNDEFINED, &js::id_to_js(&id)) {
                    report_callback_error(state, &callbacks, &id, &error);
                }
            }
            JsValue::UNDEFINED
        }
        CancelAction::Deferred => JsValue::UNDEFINED,
    }
}

/// The abort listener of a tracked request (the session's abort closure, bound to its id).
fn on_abort(weak: &Weak<RefCell<State>>, id: &JsValue) {
    let Some(state) = weak.upgrade() else { return };
    let Ok(id) = js::id_from_js(id) else { return };
    let (result, controller, reason_js) = {
        let Ok(mut st) = state.try_borrow_mut() else { return };
        let Some(listener) = st.requests.get(&id).and_then(|e| e.listener.as_ref()) else { return };
        let reason_js = listener.signal.reason().unwrap_or(JsValue::UNDEFINED);
        let result = st.core.cancel(&id, &js::reason_from_js(&reason_js));
        let controller = match &result {
            Ok(Some(_)) => st.requests.get_mut(&id).and_then(|e| e.controller.take()),
            _ => None,
        };
        (result, controller, reason_js)
    };
    if let Some(controller) = controller {
        let _ = controller.abort(&reason_js);
    }
    if let Ok(Some(action)) = result {
        perform(&state, &id, action, true);
    }
    flush(&state);
}

/// The session timer fired: expire what is due.
fn on_timer(weak: &Weak<RefCell<State>>) {
    let Some(state) = weak.upgrade() else { return };
    let (expired, callbacks) = {
        let Ok(mut st) = state.try_borrow_mut() else { return };
        st.timer = None;
        let expired: Vec<(Expired, Option<AbortController>)> = st
            .core
            .handle_timeout(js::now_ms())
            .into_iter()
            .map(|e| {
                let controller = st.requests.get_mut(&e.request_id).and_then(|r| r.controller.take());
                (e, controller)
            })
            .collect();
        (expired, st.callbacks.clone())
    };
    // The cancels go out first (flush), then the local callers learn of the timeout.
    flush(&state);
    for (e, controller) in expired {
        let message = match e.kind {
            TimeoutKind::Timeout => format!("Request {} timed out", e.request_id),
            TimeoutKind::MaxTotal => format!("Request {} exceeded its maximum total timeout", e.request_id),
        };
        let error = js::dom_exception(&message, "TimeoutError");
        if let Some(controller) = controller {
            let _ = controller.abort(&error);
        }
        if let Some(on_timeout) = &callbacks.on_timeout {
            if let Err(err) = on_timeout.call2(&JsValue::UNDEFINED, &js::id_to_js(&e.request_id), &error) {
                report_callback_error(&state, &callbacks, &e.request_id, &err);
            }
        }
    }
    flush(&state);
}

fn call_send(state: &Rc<RefCell<State>>, callbacks: &Callbacks, id: &RequestId, message: &JsValue) {
    if let Some(send) = &callbacks.send {
        if let Err(error) = send.call1(&JsValue::UNDEFINED, message) {
            report_callback_error(state, callbacks, id, &error);
        }
    }
}

fn report_callback_error(_state: &Rc<RefCell<State>>, callbacks: &Callbacks, id: &RequestId, error: &JsValue) {
    if let Some(logger) = &callbacks.logger {
        let event = Object::new();
        let _ = Reflect::set(&event, &"type".into(), &"send-failed".into());
        let _ = Reflect::set(&event, &"direction".into(), &"outbound".into());
        let _ = Reflect::set(&event, &"requestId".into(), &js::id_to_js(id));
        let _ = Reflect::set(&event, &"error".into(), error);
        let _ = logger.call1(&JsValue::UNDEFINED, &event);
    }
}

/// Hands the core's output to JS, outside any borrow: releases settled requests' listeners,
/// performs the cancels the session made itself (timeouts, deferred `tasks/cancel`), gives
/// events to the logger, and re-arms the session timer.
fn flush(state: &Rc<RefCell<State>>) {
    loop {
        let (released, transmits, events, callbacks) = {
            let Ok(mut st) = state.try_borrow_mut() else { return };
            if !st.core.has_output() {
                break;
            }
            let mut released = Vec::new();
            while let Some(id) = st.core.poll_settled() {
                if st.requests.is_empty() {
                    continue;
                }
                if let Some(entry) = st.requests.remove(&id) {
                    released.extend(entry.listener);
                }
            }
            let transmits: Vec<_> = std::iter::from_fn(|| st.core.poll_transmit()).collect();
            let events: Vec<_> = std::iter::from_fn(|| st.core.poll_event()).collect();
            let callbacks = if transmits.is_empty() && (events.is_empty() || st.callbacks.logger.is_none()) {
                Callbacks::default()
            } else {
                st.callbacks.clone()
            };
            (released, transmits, events, callbacks)
        };
        if released.is_empty() && transmits.is_empty() && callbacks.logger.is_none() {
            // Nothing reached JS, so nothing new can have been queued.
            break;
        }
        for listener in &released {
            let _ = listener.signal.remove_event_listener(&js::key("abort"), &listener.callback);
        }
        for t in transmits {
            perform(state, &t.request_id, t.action, true);
        }
        if let Some(logger) = &callbacks.logger {
            for event in &events {
                // A throwing logger must not break the session: its error is dropped.
                let _ = logger.call1(&JsValue::UNDEFINED, &js::event_to_js(event));
            }
        }
    }
    rearm_timer(state);
}

/// Keeps the one session timer armed for the core's next deadline.
fn rearm_timer(state: &Rc<RefCell<State>>) {
    let Ok(mut st) = state.try_borrow_mut() else { return };
    let next = st.core.poll_timeout();
    let current = st.timer.as_ref().map(|(_, at)| *at);
    if next == current {
        return;
    }
    if let Some((handle, _)) = st.timer.take() {
        js::clear_timeout(&handle);
    }
    let Some(at) = next else { return };
    let Some(closure) = st.timer_closure.as_ref() else { return };
    let delay = (at as f64 - js::performance_now()).max(0.0);
    let handle = js::set_timeout(closure.as_ref().unchecked_ref(), delay);
    // Node: a pending timeout must not keep the process alive by itself.
    if let Ok(unref) = Reflect::get(&handle, &"unref".into()) {
        if let Some(unref) = unref.dyn_ref::<Function>() {
            let _ = unref.call0(&handle);
        }
    }
    st.timer = Some((handle, at));
}

fn rewrite_cancel(message: &JsValue, params: &JsValue, reason: Option<&str>) -> JsValue {
    let copy = Object::assign(&Object::new(), &Object::from(message.clone()));
    // Keep every other param (e.g. the 2026-07-28 `_meta` envelope); replace only `reason`.
    let new_params = Object::assign(&Object::new(), &Object::from(params.clone()));
    match reason {
        Some(r) => {
            let _ = Reflect::set(&new_params, &"reason".into(), &r.into());
        }
        None => {
            let _ = Reflect::delete_property(&new_params, &"reason".into());
        }
    }
    let _ = Reflect::set(&copy, &"params".into(), &new_params);
    copy.into()
}

fn timeout_options(options: &JsValue, what: &str) -> Result<Option<Timeout>, JsValue> {
    let timeout_ms = js::get(options, "timeoutMs");
    let max_total = js::get(options, "maxTotalTimeoutMs");
    let reset = js::get(options, "resetTimeoutOnProgress");
    if timeout_ms.is_undefined() && max_total.is_undefined() && reset.is_undefined() {
        return Ok(None);
    }
    let ms = |v: &JsValue, key: &str| -> Result<Option<u64>, JsValue> {
        if v.is_undefined() {
            return Ok(None);
        }
        js::millis(v).map(Some).ok_or_else(|| {
            js::error(
                js::ErrorClass::InvalidArgument,
                &format!("{what}: `{key}` must be a non-negative integer number of milliseconds"),
                "ERR_INVALID_OPTION",
                v,
            )
        })
    };
    let reset_on_progress = match reset.as_bool() {
        Some(b) => b,
        None if reset.is_undefined() => false,
        None => return Err(option_error("resetTimeoutOnProgress", "a boolean", &reset)),
    };
    Ok(Some(Timeout {
        timeout_ms: ms(&timeout_ms, "timeoutMs")?,
        reset_on_progress,
        max_total_ms: ms(&max_total, "maxTotalTimeoutMs")?,
    }))
}

fn option_function(options: &JsValue, key: &'static str) -> Result<Option<Function>, JsValue> {
    let v = js::get(options, key);
    if v.is_undefined() {
        return Ok(None);
    }
    v.dyn_into::<Function>().map(Some).map_err(|v| option_error(key, "a function", &v))
}

fn option_count(options: &JsValue, key: &'static str, default: usize) -> Result<usize, JsValue> {
    let v = js::get(options, key);
    if v.is_undefined() {
        return Ok(default);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => Ok(n as usize),
        _ => Err(option_error(key, "a non-negative integer", &v)),
    }
}

fn option_bool(options: &JsValue, key: &'static str, default: bool) -> Result<bool, JsValue> {
    let v = js::get(options, key);
    if v.is_undefined() {
        return Ok(default);
    }
    v.as_bool().ok_or_else(|| option_error(key, "a boolean", &v))
}

fn option_string(options: &JsValue, key: &'static str, default: String) -> Result<String, JsValue> {
    let v = js::get(options, key);
    if v.is_undefined() {
        return Ok(default);
    }
    v.as_string().ok_or_else(|| option_error(key, "a string", &v))
}

fn option_error(key: &str, expected: &str, value: &JsValue) -> JsValue {
    js::error(
        js::ErrorClass::InvalidArgument,
        &format!("CancellationSession option `{key}` must be {expected}"),
        "ERR_INVALID_OPTION",
        value,
    )
}
