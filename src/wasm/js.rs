//! JS values at the boundary: extern types, reading the few fields of a message, typed
//! errors, and the events and notifications handed to JS.

use std::cell::RefCell;

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::{CancelNotification, Event, EventKind, InvalidRequestId, PeerValue, Reason, RequestId, UsageError};

#[wasm_bindgen]
extern "C" {
    /// `AbortSignal` (WHATWG DOM). Declared here rather than through `web-sys` to keep the
    /// module small; a duck-typed object with the same members works too.
    #[derive(Clone)]
    #[wasm_bindgen(typescript_type = "AbortSignal")]
    pub type AbortSignal;
    #[wasm_bindgen(method, getter, catch)]
    pub fn aborted(this: &AbortSignal) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn reason(this: &AbortSignal) -> Result<JsValue, JsValue>;
    /// `kind` is a JS string (`key("abort")`): a `&str` would be decoded on every call.
    #[wasm_bindgen(method, catch, js_name = addEventListener)]
    pub fn add_event_listener(this: &AbortSignal, kind: &JsValue, listener: &Function) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeEventListener)]
    pub fn remove_event_listener(this: &AbortSignal, kind: &JsValue, listener: &Function) -> Result<(), JsValue>;

    /// `AbortController` (WHATWG DOM).
    pub type AbortController;
    #[wasm_bindgen(constructor, catch)]
    pub fn new() -> Result<AbortController, JsValue>;
    #[wasm_bindgen(method, getter)]
    pub fn signal(this: &AbortController) -> AbortSignal;
    #[wasm_bindgen(method, catch)]
    pub fn abort(this: &AbortController, reason: &JsValue) -> Result<(), JsValue>;

    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub fn performance_now() -> f64;
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(handle: &JsValue);

    /// `DOMException` (WebIDL).
    #[wasm_bindgen(js_name = DOMException)]
    pub type DomException;
    #[wasm_bindgen(constructor, catch, js_class = DOMException)]
    pub fn new(message: &str, name: &JsValue) -> Result<DomException, JsValue>;
}

thread_local! {
    static ERROR_CLASSES: RefCell<Option<(Function, Function)>> = const { RefCell::new(None) };
}

/// Registers the JS classes thrown for bad arguments and for misuse. Called once by the
/// package's entry module; without it errors are plain `Error`s with the same `name`,
/// `code` and `requestId`.
#[wasm_bindgen(js_name = "__registerErrorClasses", skip_typescript)]
pub fn register_error_classes(invalid_argument: Function, usage: Function) {
    ERROR_CLASSES.with(|c| *c.borrow_mut() = Some((invalid_argument, usage)));
}

/// Which error class to throw.
#[derive(Clone, Copy)]
pub enum ErrorClass {
    /// `InvalidArgumentError`: a value the caller passed is not acceptable.
    InvalidArgument,
    /// `UsageError`: the call is not acceptable in the session's state.
    Usage,
}

/// A real JS `Error` subclass with `code` and `requestId`.
pub fn error(class: ErrorClass, message: &str, code: &str, request_id: &JsValue) -> JsValue {
    let ctor = ERROR_CLASSES.with(|c| {
        c.borrow().as_ref().map(|(invalid, usage)| match class {
            ErrorClass::InvalidArgument => invalid.clone(),
            ErrorClass::Usage => usage.clone(),
        })
    });
    if let Some(ctor) = ctor {
        let args = Array::of3(&message.into(), &code.into(), request_id);
        if let Ok(err) = Reflect::construct(&ctor, &args) {
            return err;
        }
    }
    let err = js_sys::Error::new(message);
    let name = match class {
        ErrorClass::InvalidArgument => "InvalidArgumentError",
        ErrorClass::Usage => "UsageError",
    };
    err.set_name(name);
    let _ = Reflect::set(&err, &"code".into(), &code.into());
    let _ = Reflect::set(&err, &key("requestId"), request_id);
    err.into()
}

pub fn invalid_id_error(what: &str, e: InvalidRequestId, value: &JsValue) -> JsValue {
    error(ErrorClass::InvalidArgument, &format!("{what}: {e}"), "ERR_INVALID_REQUEST_ID", value)
}

pub fn usage_error(e: &UsageError) -> JsValue {
    error(ErrorClass::Usage, &e.to_string(), e.code(), &id_to_js(e.request_id()))
}

pub fn reentrant_error() -> JsValue {
    error(
        ErrorClass::Usage,
        "CancellationSession was called from inside one of its own callbacks while busy",
        "ERR_REENTRANT_CALL",
        &JsValue::UNDEFINED,
    )
}

/// A JS value as a [`PeerValue`] (what a peer sent). Numbers are tested first, then
/// strings: each test is a call into JS, and ids are mostly numbers.
pub fn peer_value(v: &JsValue) -> PeerValue {
    if let Some(n) = v.as_f64() {
        PeerValue::Number(n)
    } else if let Some(s) = v.as_string() {
        PeerValue::String(s)
    } else if v.is_undefined() {
        PeerValue::Absent
    } else if v.is_null() {
        PeerValue::Null
    } else if v.as_bool().is_some() {
        PeerValue::Bool
    } else if Array::is_array(v) {
        PeerValue::Array
    } else if v.is_object() {
        PeerValue::Object
    } else {
        // bigint, symbol, function: not JSON; treated like an object (never an id).
        PeerValue::Object
    }
}

/// A JS value as a request id: a string, or a number that is a safe integer.
pub fn id_from_js(v: &JsValue) -> Result<RequestId, InvalidRequestId> {
    peer_value(v).to_request_id()
}

pub fn id_to_js(id: &RequestId) -> JsValue {
    match id {
        RequestId::Number(n) => JsValue::from_f64(*n as f64),
        RequestId::String(s) => JsValue::from_str(s),
    }
}

thread_local! {
    /// The property names read from messages and options, each made a JS string once.
    static KEYS: RefCell<Vec<(&'static str, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// `key` as a JS string, made once per name: building a JS string from wasm memory is a
/// UTF-8 decode, which dominated the cost of reading a field.
pub fn key(key: &'static str) -> JsValue {
    KEYS.with(|keys| {
        let Ok(mut keys) = keys.try_borrow_mut() else { return JsValue::from_str(key) };
        if let Some((_, value)) = keys.iter().find(|(k, _)| *k == key) {
            return value.clone();
        }
        let value = JsValue::from_str(key);
        keys.push((key, value.clone()));
        value
    })
}

/// `obj[key]`, or `undefined` when `obj` is not an object or the getter throws.
pub fn get(obj: &JsValue, name: &'static str) -> JsValue {
    if !obj.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(obj, &key(name)).unwrap_or(JsValue::UNDEFINED)
}

/// How an abort/cancel reason given in JS is treated by the [`Reason`] policy:
/// `undefined` → none; a string → text; a `DOMException` named `TimeoutError` → timeout;
/// an `Error` (or anything else) → an error, described as `"Name: message"`.
pub fn reason_from_js(v: &JsValue) -> Reason {
    if v.is_undefined() {
        return Reason::None;
    }
    if let Some(s) = v.as_string() {
        return Reason::Text(s);
    }
    let name = get(v, "name").as_string();
    if name.as_deref() == Some("TimeoutError") {
        return Reason::Timeout;
    }
    if let Some(err) = v.dyn_ref::<js_sys::Error>() {
        let name: String = err.name().into();
        let message: String = err.message().into();
        return Reason::Error(if message.is_empty() { name } else { format!("{name}: {message}") });
    }
    let text = js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()).unwrap_or_else(|| "[object]".to_owned());
    Reason::Error(text)
}

/// The `notifications/cancelled` message object.
pub fn notification_to_js(n: &CancelNotification) -> JsValue {
    let params = Object::new();
    let _ = Reflect::set(&params, &key("requestId"), &id_to_js(&n.request_id));
    if let Some(reason) = &n.reason {
        let _ = Reflect::set(&params, &key("reason"), &reason.into());
    }
    let msg = Object::new();
    let _ = Reflect::set(&msg, &key("jsonrpc"), &key("2.0"));
    let _ = Reflect::set(&msg, &key("method"), &key(crate::core::CANCELLED_METHOD));
    let _ = Reflect::set(&msg, &key("params"), &params);
    msg.into()
}

/// An event as a plain JS object: `{ direction, type, requestId, … }`, the members in the
/// order and with the names the core's `Serialize` gives them (absent options left out).
/// Built by hand: serde and a serializer for JS values were a tenth of the `.wasm`.
pub fn event_to_js(event: &Event) -> JsValue {
    let obj = Object::new();
    let set = |name: &'static str, value: &JsValue| {
        let _ = Reflect::set(&obj, &key(name), value);
    };
    let text = |name: &'static str, value: &str| set(name, &JsValue::from_str(value));
    let opt_text = |name: &'static str, value: &Option<String>| {
        if let Some(v) = value {
            text(name, v);
        }
    };
    set("direction", &key(event.direction.as_str()));
    set("type", &key(event.kind.type_name()));
    match &event.kind {
        EventKind::CancelSent { request_id, method, via, reason, task_id } => {
            set("requestId", &id_to_js(request_id));
            text("method", method);
            set("via", &key(via.as_str()));
            opt_text("reason", reason);
            opt_text("taskId", task_id);
        }
        EventKind::CancelDeferred { request_id, method }
        | EventKind::LateResponseDropped { request_id, method }
        | EventKind::ResponseSuppressed { request_id, method }
        | EventKind::DuplicateRequestId { request_id, method } => {
            set("requestId", &id_to_js(request_id));
            text("method", method);
        }
        EventKind::TimedOut { request_id, method, kind } => {
            set("requestId", &id_to_js(request_id));
            text("method", method);
            set("kind", &key(kind.as_str()));
        }
        EventKind::TaskCancelAnswered { request_id, task_id, outcome, code } => {
            set("requestId", &id_to_js(request_id));
            text("taskId", task_id);
            set("outcome", &key(outcome.as_str()));
            if let Some(code) = code {
                set("code", &JsValue::from_f64(*code as f64));
            }
        }
        EventKind::ListenEnded { request_id, reason } => {
            set("requestId", &id_to_js(request_id));
            opt_text("reason", reason);
        }
        EventKind::RevisionNegotiated { version, revision, known } => {
            text("version", version);
            set("revision", &key(revision.as_str()));
            set("known", &JsValue::from_bool(*known));
        }
        EventKind::CancelNotSent { request_id, method, why } => {
            set("requestId", &id_to_js(request_id));
            opt_text("method", method);
            set("why", &key(why.as_str()));
        }
        EventKind::CancelReceived { request_id, method, reason } => {
            set("requestId", &id_to_js(request_id));
            text("method", method);
            opt_text("reason", reason);
        }
        EventKind::CancelIgnored { request_id, why, detail, reason } => {
            if let Some(id) = request_id {
                set("requestId", &id_to_js(id));
            }
            set("why", &key(why.as_str()));
            opt_text("detail", detail);
            opt_text("reason", reason);
        }
        EventKind::LateProgressDropped { request_id, method, progress_token } => {
            set("requestId", &id_to_js(request_id));
            text("method", method);
            set("progressToken", &id_to_js(progress_token));
        }
    }
    obj.into()
}

/// A `DOMException` named `AbortError` with `message`, the reason an inbound request's
/// signal aborts with.
pub fn abort_error(message: &str) -> JsValue {
    dom_exception(message, "AbortError")
}

/// A `DOMException` named `name` (a plain `Error` with that name where there is none).
pub fn dom_exception(message: &str, name: &'static str) -> JsValue {
    match DomException::new(message, &key(name)) {
        Ok(e) => e.into(),
        Err(_) => {
            let e = js_sys::Error::new(message);
            e.set_name(name);
            e.into()
        }
    }
}

/// The `tasks/cancel` request object.
pub fn task_cancel_to_js(r: &crate::core::TaskCancelRequest) -> JsValue {
    let params = Object::new();
    let _ = Reflect::set(&params, &key("taskId"), &r.task_id.as_str().into());
    let msg = Object::new();
    let _ = Reflect::set(&msg, &key("jsonrpc"), &key("2.0"));
    let _ = Reflect::set(&msg, &key("id"), &id_to_js(&r.id));
    let _ = Reflect::set(&msg, &key("method"), &key(crate::core::TASKS_CANCEL_METHOD));
    let _ = Reflect::set(&msg, &key("params"), &params);
    msg.into()
}

/// Now on the host's monotonic clock (`performance.now()`), in whole ms.
pub fn now_ms() -> u64 {
    let now = performance_now();
    if now.is_finite() && now > 0.0 {
        now.round() as u64
    } else {
        0
    }
}

/// A non-negative integer of ms from a JS value, for timeout options.
pub fn millis(v: &JsValue) -> Option<u64> {
    v.as_f64()
        .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= 9_007_199_254_740_991.0)
        .map(|n| n as u64)
}
