//! The `wasm-bindgen` layer: `CancellationSession` for JS, bridging the core
//! [`Session`](crate::core::Session) to `AbortSignal`.
//!
//! Rules of this layer:
//! - it converts at the boundary (ids validated, never cast) and turns core errors into
//!   JS `Error` subclasses with a `code`;
//! - it never holds the session borrowed while calling into JS (`send`, `logger`,
//!   `AbortController.abort`), so callbacks may call the session again;
//! - a callback that throws is reported as an event, never a panic.

mod js;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::core::{
    CancelNotification, CancelledParams, Config, InboundCancelVerdict, OutgoingResponseVerdict, ProgressVerdict,
    Reason, ReasonPolicy, RequestId, ResponseVerdict, Session, CANCELLED_METHOD, PROGRESS_METHOD,
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

/** Why a cancel of ours was not sent. */
export type NotSentWhy = "not-in-flight" | "handshake";
/** Why a peer's cancel was ignored. */
export type IgnoredWhy = "malformed" | "not-in-flight" | "wrong-direction" | "already-cancelled" | "handshake";

/** Every cancellation event, as given to the `logger` option. `direction` is "outbound" for requests we sent, "inbound" for the peer's. */
export type CancellationEvent =
  | { type: "cancel-sent"; direction: "outbound"; requestId: RequestId; method: string; reason?: string }
  | { type: "cancel-not-sent"; direction: "outbound"; requestId: RequestId; method?: string; why: NotSentWhy }
  | { type: "cancel-received"; direction: "inbound"; requestId: RequestId; method: string; reason?: string }
  | { type: "cancel-ignored"; direction: "inbound"; requestId?: RequestId; why: IgnoredWhy; detail?: string; reason?: string }
  | { type: "late-response-dropped"; direction: "outbound"; requestId: RequestId; method: string }
  | { type: "late-progress-dropped"; direction: "outbound"; requestId: RequestId; method: string; progressToken: RequestId }
  | { type: "response-suppressed"; direction: "inbound"; requestId: RequestId; method: string }
  | { type: "duplicate-request-id"; direction: "inbound"; requestId: RequestId; method: string }
  | { type: "send-failed"; direction: "outbound"; requestId: RequestId; error: unknown };

/** Options of `new CancellationSession(options)`. Every member is optional. */
export interface CancellationSessionOptions {
  /** Called with the `notifications/cancelled` to put on the wire when a tracked request's `signal` aborts, and by `cancel()`. */
  send?: (message: CancelledNotification) => void;
  /** Called with every cancellation event. Default: none. */
  logger?: (event: CancellationEvent) => void;
  /** Cancelled requests remembered to drop their late messages (oldest forgotten first). Default 1024. */
  tombstoneCapacity?: number;
  /** Longest `reason` sent or reported, in bytes of UTF-8. Default 1024. */
  maxReasonBytes?: number;
  /** Send an `Error` reason's "Name: message" to the peer. Default false: `genericReason` is sent instead. */
  exposeErrorReasons?: boolean;
  /** Reason sent for an `Error` reason when errors are not exposed. Default "Request cancelled". */
  genericReason?: string;
  /** Reason sent for a timeout (`DOMException` named `TimeoutError`). Default "Request timed out". */
  timeoutReason?: string;
}

/** Options of `track()`. */
export interface TrackOptions {
  /** Aborting it cancels the request: the notification goes to the `send` option. */
  signal?: AbortSignal;
  /** The request's `params`; only `params._meta.progressToken` is read. */
  params?: unknown;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "CancellationSessionOptions")]
    pub type SessionOptions;
    #[wasm_bindgen(typescript_type = "TrackOptions")]
    pub type TrackOptions;
}

struct Listener {
    signal: AbortSignal,
    closure: Closure<dyn FnMut()>,
}

struct State {
    core: Session,
    /// Abort listeners of our tracked requests, removed when the request settles.
    listeners: HashMap<RequestId, Listener>,
    /// Controllers of the peer's requests, whose signals `inboundSignal()` hands out.
    inbound: HashMap<RequestId, AbortController>,
    /// Listeners that fired: kept until no listener is running (a closure is never
    /// dropped from inside its own call).
    retired: Vec<Listener>,
    /// Depth of abort listeners running.
    dispatching: u32,
    send: Option<Function>,
    logger: Option<Function>,
}

impl State {
    fn release_listener(&mut self, id: &RequestId) {
        if let Some(listener) = self.listeners.remove(id) {
            let _ = listener.signal.remove_event_listener("abort", listener.closure.as_ref().unchecked_ref());
            self.retired.push(listener);
        }
        if self.dispatching == 0 {
            self.retired.clear();
        }
    }
}

/// The cancellation bookkeeping of one MCP connection, for JS.
///
/// Track each request you send, feed every message that arrives to `receive()` and every
/// message you send to `beforeSend()`, and cancel with an `AbortSignal` or `cancel()`.
/// Spec: `notifications/cancelled`, 2024-11-05 / 2025-03-26 / 2025-06-18 §Cancellation.
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
    /// type (e.g. `send` not a function, `tombstoneCapacity` not a non-negative integer).
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<SessionOptions>) -> Result<CancellationSession, JsValue> {
        let options: JsValue = options.map(Into::into).unwrap_or(JsValue::UNDEFINED);
        let defaults = ReasonPolicy::default();
        let config = Config {
            tombstone_capacity: option_count(&options, "tombstoneCapacity", 1024)?,
            reason: ReasonPolicy {
                max_bytes: option_count(&options, "maxReasonBytes", defaults.max_bytes)?,
                expose_error_reasons: option_bool(&options, "exposeErrorReasons", defaults.expose_error_reasons)?,
                generic_reason: option_string(&options, "genericReason", defaults.generic_reason)?,
                timeout_reason: option_string(&options, "timeoutReason", defaults.timeout_reason)?,
            },
        };
        let state = State {
            core: Session::new(config),
            listeners: HashMap::new(),
            inbound: HashMap::new(),
            retired: Vec::new(),
            dispatching: 0,
            send: option_function(&options, "send")?,
            logger: option_function(&options, "logger")?,
        };
        Ok(CancellationSession { state: Rc::new(RefCell::new(state)) })
    }

    /// Records a request we send: its id, `method`, and (from `options.params`) its
    /// `_meta.progressToken`. With `options.signal`, aborting the signal cancels the
    /// request: the `notifications/cancelled` goes to the `send` option; the listener is
    /// removed when the request settles.
    ///
    /// # Errors
    /// - `signal.reason` itself when the signal is already aborted (nothing is tracked or
    ///   sent), per the DOM's AbortSignal conventions;
    /// - `InvalidArgumentError` `ERR_INVALID_REQUEST_ID` for an id that is not a string or
    ///   a safe integer (also for the progress token);
    /// - `UsageError` `ERR_ALREADY_IN_FLIGHT` / `ERR_PROGRESS_TOKEN_IN_USE`.
    pub fn track(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue,
        method: &str,
        options: Option<TrackOptions>,
    ) -> Result<(), JsValue> {
        let request_id = js::id_from_js(&id).map_err(|e| js::invalid_id_error("track(): request id", e, &id))?;
        let options: JsValue = options.map(Into::into).unwrap_or(JsValue::UNDEFINED);
        let token_js = js::get(&js::get(&js::get(&options, "params"), "_meta"), "progressToken");
        let token = if token_js.is_undefined() {
            None
        } else {
            Some(js::id_from_js(&token_js).map_err(|e| js::invalid_id_error("track(): progress token", e, &token_js))?)
        };
        let signal_js = js::get(&options, "signal");
        let signal = if signal_js.is_undefined() || signal_js.is_null() {
            None
        } else {
            let signal: AbortSignal = signal_js.unchecked_into();
            if signal.aborted().unwrap_or(false) {
                return Err(signal.reason().unwrap_or(JsValue::UNDEFINED));
            }
            Some(signal)
        };
        {
            let mut st = self.state.try_borrow_mut().map_err(|_| js::reentrant_error())?;
            st.core.track_request(request_id.clone(), method, token).map_err(|e| js::usage_error(&e))?;
            if st.dispatching == 0 {
                st.retired.clear();
            }
        }
        if let Some(signal) = signal {
            let weak = Rc::downgrade(&self.state);
            let listener_id = request_id.clone();
            let closure = Closure::<dyn FnMut()>::new(move || on_abort(&weak, &listener_id));
            if signal.add_event_listener("abort", closure.as_ref().unchecked_ref()).is_ok() {
                if let Ok(mut st) = self.state.try_borrow_mut() {
                    st.listeners.insert(request_id, Listener { signal, closure });
                }
            }
        }
        Ok(())
    }

    /// Cancels our request `id`: returns the `notifications/cancelled` to send (also handed
    /// to the `send` option, if set), or `undefined` when the request is not in flight
    /// (completed, unknown, already cancelled: the first reason wins). `reason` may be a
    /// string (sent, capped), an `Error`/`DOMException` (the generic reason is sent unless
    /// `exposeErrorReasons`), a `DOMException` named `TimeoutError` (the timeout reason), or
    /// `undefined` (no reason).
    ///
    /// # Errors
    /// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID`; `UsageError`
    /// `ERR_HANDSHAKE_NOT_CANCELLABLE` for `initialize` (2024-11-05 .. 2025-11-25).
    #[wasm_bindgen(unchecked_return_type = "CancelledNotification | undefined")]
    pub fn cancel(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] reason: JsValue,
    ) -> Result<JsValue, JsValue> {
        let request_id = js::id_from_js(&id).map_err(|e| js::invalid_id_error("cancel(): request id", e, &id))?;
        let reason = js::reason_from_js(&reason);
        let (notification, send) = {
            let mut st = self.state.try_borrow_mut().map_err(|_| js::reentrant_error())?;
            let result = st.core.cancel(&request_id, &reason);
            if let Ok(Some(_)) = &result {
                st.release_listener(&request_id);
            }
            match result {
                Ok(n) => (n, st.send.clone()),
                Err(e) => {
                    drop(st);
                    self.flush_events();
                    return Err(js::usage_error(&e));
                }
            }
        };
        let message = notification.as_ref().map(js::notification_to_js).unwrap_or(JsValue::UNDEFINED);
        if let (Some(n), Some(send)) = (&notification, send) {
            self.call_send(&send, n, &message);
        }
        self.flush_events();
        Ok(message)
    }

    /// Handles a response (result or error) that arrived for `id`, and says whether to
    /// drop it: `true` exactly when it answers a request we cancelled (late). A response
    /// to a request in flight completes it (`false`); an id we do not know is `false`
    /// (the host decides, as without this library). Call it once per response.
    ///
    /// Never throws: an id that is not a valid request id (e.g. `null`) is `false`.
    #[wasm_bindgen(js_name = shouldDropResponse)]
    pub fn should_drop_response(&self, #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue) -> bool {
        let Ok(request_id) = js::id_from_js(&id) else {
            return false;
        };
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => {
                let verdict = st.core.handle_response(&request_id);
                if verdict == ResponseVerdict::Deliver {
                    st.release_listener(&request_id);
                }
                verdict
            }
            Err(_) => return false,
        };
        self.flush_events();
        verdict == ResponseVerdict::Late
    }

    /// Handles a `notifications/progress` by its `progressToken`, and says whether to drop
    /// it: `true` exactly when the token belongs to a request we cancelled.
    #[wasm_bindgen(js_name = shouldDropProgress)]
    pub fn should_drop_progress(&self, #[wasm_bindgen(unchecked_param_type = "RequestId")] token: JsValue) -> bool {
        let Ok(token) = js::id_from_js(&token) else {
            return false;
        };
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => st.core.handle_progress(&token),
            Err(_) => return false,
        };
        self.flush_events();
        verdict == ProgressVerdict::Late
    }

    /// Feeds a message that arrived from the peer; returns `true` to pass it on to the
    /// application, `false` to drop it. Reads only `id`, `method`, `params.requestId`,
    /// `params.reason` and `params.progressToken` — never copies the message.
    ///
    /// - response: dropped when late (after our cancel); completes a request in flight;
    /// - `notifications/progress`: dropped when late;
    /// - `notifications/cancelled`: passed on when valid (and the request's
    ///   `inboundSignal()` aborts with the peer's reason); an invalid one (malformed,
    ///   unknown, wrong direction, `initialize`) is dropped and reported as an event;
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
            return !self.should_drop_response(id);
        };
        if !id.is_undefined() {
            self.receive_request(&id, &method);
            return true;
        }
        let params = js::get(&message, "params");
        if method == PROGRESS_METHOD {
            return !self.should_drop_progress(js::get(&params, "progressToken"));
        }
        if method == CANCELLED_METHOD {
            return self.receive_cancelled(&params);
        }
        true
    }

    /// Feeds a message we are about to send; returns the message to put on the wire — the
    /// same object, or a copy with the reason policy applied — or `undefined` to send
    /// nothing:
    ///
    /// - request: tracked as in flight (with its progress token);
    /// - `notifications/cancelled`: sent only for a request in flight that is not
    ///   `initialize`, once, with its reason rewritten by the policy (an SDK's
    ///   `String(error)` reason becomes the generic reason); otherwise `undefined`;
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
            let options = Object::new();
            let _ = Reflect::set(&options, &"params".into(), &js::get(&message, "params"));
            self.track(id, &method, Some(JsValue::from(options).unchecked_into()))?;
            return Ok(message);
        }
        if method != CANCELLED_METHOD {
            return Ok(message);
        }
        let params = js::get(&message, "params");
        let id = js::get(&params, "requestId");
        let request_id = js::id_from_js(&id)
            .map_err(|e| js::invalid_id_error("notifications/cancelled: params.requestId", e, &id))?;
        let reason = match js::get(&params, "reason").as_string() {
            Some(text) => Reason::from_stringified(&text),
            None => Reason::None,
        };
        let notification = {
            let mut st = self.state.try_borrow_mut().map_err(|_| js::reentrant_error())?;
            let n = st.core.cancel(&request_id, &reason).ok().flatten();
            if n.is_some() {
                st.release_listener(&request_id);
            }
            n
        };
        self.flush_events();
        Ok(match notification {
            None => JsValue::UNDEFINED,
            Some(n) if js::get(&params, "reason").as_string() == n.reason => message,
            Some(n) => rewrite_cancel(&message, &n),
        })
    }

    /// The `AbortSignal` of the peer's request `id` (tracked by `receive()`): it aborts
    /// with a `DOMException` named `AbortError` whose message is the peer's reason when the
    /// peer validly cancels. `undefined` for an id not in flight.
    #[wasm_bindgen(js_name = inboundSignal, unchecked_return_type = "AbortSignal | undefined")]
    pub fn inbound_signal(&self, #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue) -> JsValue {
        let Ok(request_id) = js::id_from_js(&id) else {
            return JsValue::UNDEFINED;
        };
        let Ok(st) = self.state.try_borrow() else {
            return JsValue::UNDEFINED;
        };
        st.inbound.get(&request_id).map(|c| JsValue::from(c.signal())).unwrap_or(JsValue::UNDEFINED)
    }

    /// Whether our request `id` is in flight (sent, no response, not cancelled).
    #[wasm_bindgen(js_name = isInFlight)]
    pub fn is_in_flight(&self, #[wasm_bindgen(unchecked_param_type = "RequestId")] id: JsValue) -> bool {
        let Ok(request_id) = js::id_from_js(&id) else {
            return false;
        };
        self.state
            .try_borrow()
            .is_ok_and(|st| st.core.request_state(&request_id) == Some(crate::core::RequestState::InFlight))
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

    /// Forgets every request (the connection closed): removes every abort listener; no
    /// cancel is sent.
    pub fn close(&self) {
        if let Ok(mut st) = self.state.try_borrow_mut() {
            st.core.close();
            let ids: Vec<RequestId> = st.listeners.keys().cloned().collect();
            for id in ids {
                st.release_listener(&id);
            }
            st.inbound.clear();
        }
        self.flush_events();
    }
}

impl CancellationSession {
    fn receive_request(&self, id: &JsValue, method: &str) {
        let Ok(request_id) = js::id_from_js(id) else {
            return;
        };
        if let Ok(mut st) = self.state.try_borrow_mut() {
            if st.core.handle_request(request_id.clone(), method) {
                if let Ok(controller) = AbortController::new() {
                    st.inbound.insert(request_id, controller);
                }
            }
        }
        self.flush_events();
    }

    fn receive_cancelled(&self, params: &JsValue) -> bool {
        let params_kind = js::peer_value(params);
        let fields = if matches!(params_kind, crate::core::PeerValue::Object) {
            CancelledParams {
                params: params_kind,
                request_id: js::peer_value(&js::get(params, "requestId")),
                reason: js::peer_value(&js::get(params, "reason")),
            }
        } else {
            CancelledParams {
                params: params_kind,
                request_id: crate::core::PeerValue::Absent,
                reason: crate::core::PeerValue::Absent,
            }
        };
        let (verdict, controller) = match self.state.try_borrow_mut() {
            Ok(mut st) => {
                let verdict = st.core.handle_cancelled(&fields);
                let controller = match &verdict {
                    InboundCancelVerdict::Abort { request_id, .. } => st.inbound.remove(request_id),
                    InboundCancelVerdict::Ignore => None,
                };
                (verdict, controller)
            }
            Err(_) => return false,
        };
        self.flush_events();
        match verdict {
            InboundCancelVerdict::Abort { reason, .. } => {
                if let Some(controller) = controller {
                    let message = reason.as_deref().unwrap_or("Request cancelled by the peer");
                    let _ = controller.abort(&js::abort_error(message));
                }
                true
            }
            InboundCancelVerdict::Ignore => false,
        }
    }

    /// `true` to send our response to the peer's request `id`.
    fn outgoing_response(&self, id: &JsValue) -> bool {
        let Ok(request_id) = js::id_from_js(id) else {
            return true;
        };
        let verdict = match self.state.try_borrow_mut() {
            Ok(mut st) => {
                st.inbound.remove(&request_id);
                st.core.handle_outgoing_response(&request_id)
            }
            Err(_) => return true,
        };
        self.flush_events();
        verdict == OutgoingResponseVerdict::Send
    }

    fn call_send(&self, send: &Function, n: &CancelNotification, message: &JsValue) {
        call_send(&self.state, send, n, message);
    }

    fn flush_events(&self) {
        flush_events(&self.state);
    }
}

/// The abort listener of a tracked request.
fn on_abort(weak: &Weak<RefCell<State>>, id: &RequestId) {
    let Some(state) = weak.upgrade() else { return };
    let (notification, send) = {
        let Ok(mut st) = state.try_borrow_mut() else {
            return;
        };
        let Some(listener) = st.listeners.get(id) else {
            return;
        };
        let reason = js::reason_from_js(&listener.signal.reason().unwrap_or(JsValue::UNDEFINED));
        st.dispatching += 1;
        let notification = st.core.cancel(id, &reason).ok().flatten();
        st.release_listener(id);
        (notification, st.send.clone())
    };
    if let (Some(n), Some(send)) = (&notification, send) {
        call_send(&state, &send, n, &js::notification_to_js(n));
    }
    flush_events(&state);
    if let Ok(mut st) = state.try_borrow_mut() {
        st.dispatching = st.dispatching.saturating_sub(1);
    };
}

fn call_send(state: &Rc<RefCell<State>>, send: &Function, n: &CancelNotification, message: &JsValue) {
    if let Err(error) = send.call1(&JsValue::UNDEFINED, message) {
        let logger = state.try_borrow().ok().and_then(|st| st.logger.clone());
        if let Some(logger) = logger {
            let event = Object::new();
            let _ = Reflect::set(&event, &"type".into(), &"send-failed".into());
            let _ = Reflect::set(&event, &"direction".into(), &"outbound".into());
            let _ = Reflect::set(&event, &"requestId".into(), &js::id_to_js(&n.request_id));
            let _ = Reflect::set(&event, &"error".into(), &error);
            let _ = logger.call1(&JsValue::UNDEFINED, &event);
        }
    }
}

/// Hands queued events to the logger (or discards them without one), outside any borrow.
fn flush_events(state: &Rc<RefCell<State>>) {
    loop {
        let (event, logger) = {
            let Ok(mut st) = state.try_borrow_mut() else {
                return;
            };
            if !st.core.has_events() {
                return;
            }
            let Some(event) = st.core.poll_event() else {
                return;
            };
            (event, st.logger.clone())
        };
        if let Some(logger) = logger {
            // A throwing logger must not break the session: its error is dropped.
            let _ = logger.call1(&JsValue::UNDEFINED, &js::event_to_js(&event));
        }
    }
}

fn rewrite_cancel(message: &JsValue, n: &CancelNotification) -> JsValue {
    let copy = Object::assign(&Object::new(), &Object::from(message.clone()));
    let _ = Reflect::set(&copy, &"params".into(), &js::get(&js::notification_to_js(n), "params"));
    copy.into()
}

fn option_function(options: &JsValue, key: &str) -> Result<Option<Function>, JsValue> {
    let v = js::get(options, key);
    if v.is_undefined() {
        return Ok(None);
    }
    v.dyn_into::<Function>().map(Some).map_err(|v| option_error(key, "a function", &v))
}

fn option_count(options: &JsValue, key: &str, default: usize) -> Result<usize, JsValue> {
    let v = js::get(options, key);
    if v.is_undefined() {
        return Ok(default);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => Ok(n as usize),
        _ => Err(option_error(key, "a non-negative integer", &v)),
    }
}

fn option_bool(options: &JsValue, key: &str, default: bool) -> Result<bool, JsValue> {
    let v = js::get(options, key);
    if v.is_undefined() {
        return Ok(default);
    }
    v.as_bool().ok_or_else(|| option_error(key, "a boolean", &v))
}

fn option_string(options: &JsValue, key: &str, default: String) -> Result<String, JsValue> {
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
