//! JS values ↔ core values at the boundary: the extern JS types, ids, reasons, the
//! messages a session puts on the wire, and events.

use crate::prelude::*;
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::{float, CancelNotification, Event, EventKind, PeerValue, Reason, RequestId};

use super::values::{id_to_js, key, set};

#[wasm_bindgen]
extern "C" {
    /// `AbortSignal` (WHATWG DOM), the caller's `track()` option: read for `aborted` and
    /// `reason` only (the JS layer attaches the listener). Declared here rather than through
    /// `web-sys` to keep the module small; a duck-typed object works too.
    #[derive(Clone)]
    #[wasm_bindgen(typescript_type = "AbortSignal")]
    pub type AbortSignal;
    /// Not wrapped to catch (a closure and `arguments` per call): `track()` reads it before
    /// the session is borrowed, so a throwing getter of a duck-typed signal reaches the
    /// caller as its own exception, with nothing tracked.
    #[wasm_bindgen(method, getter)]
    pub fn aborted(this: &AbortSignal) -> bool;
    #[wasm_bindgen(method, getter, catch)]
    pub fn reason(this: &AbortSignal) -> Result<JsValue, JsValue>;

    /// `performance.now()`, its number as a JS value: an import of no argument that
    /// returns a float would be the module's only one of that signature (issue #24,
    /// start-up: V8 compiles a wrapper per import signature when it instantiates the module).
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> JsValue;
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(handle: &JsValue);

    /// `DOMException` (WebIDL).
    #[wasm_bindgen(js_name = DOMException)]
    pub type DomException;
    #[wasm_bindgen(constructor, catch, js_class = DOMException)]
    pub fn new(message: &JsValue, name: &JsValue) -> Result<DomException, JsValue>;

    /// `Reflect.deleteProperty` of a member of an object the session made (it cannot throw
    /// there). Declared here with a JS value for its result, and `element` with the index as
    /// a number: imports of signatures other imports have (Node 20's V8 compiles one wrapper
    /// per distinct import signature when the module is instantiated, issue #24).
    #[wasm_bindgen(js_namespace = Reflect, js_name = deleteProperty)]
    fn delete_member(target: &Object, key: &JsValue) -> JsValue;
    /// `Reflect.get(array, index)`: element `index` of an array.
    #[wasm_bindgen(js_namespace = Reflect, js_name = get)]
    pub fn element(array: &JsValue, index: f64) -> JsValue;
}

/// How the JS reader tags a member it read (`undefined`, `null`, a boolean, a number, a
/// string, an array, an object, a string longer than [`MAX_PEER_STRING`]).
pub mod tag {
    /// `undefined`: the member is not there.
    pub const ABSENT: u32 = 0;
    /// `null`.
    pub const NULL: u32 = 1;
    /// A boolean.
    pub const BOOL: u32 = 2;
    /// A number (in the `…Num` argument).
    pub const NUMBER: u32 = 3;
    /// A string (in the `…Str` argument).
    pub const STRING: u32 = 4;
    /// An array.
    pub const ARRAY: u32 = 5;
    /// An object (or any other non-JSON value).
    pub const OBJECT: u32 = 6;
    /// A string longer than [`super::MAX_PEER_STRING`]: its content did not cross.
    pub const OVERSIZED: u32 = 7;
}

/// The longest string from the peer (an id, a progress token, a method, a task id), in
/// UTF-16 code units, that crosses into wasm memory; a longer id or token crosses as
/// [`tag::OVERSIZED`] (never an id of ours), a longer method name is cut to this length (no
/// method the core knows is that long), a longer task id or status is read as absent, and a
/// `reason` is cut to the largest
/// `maxReasonBytes` (4096 UTF-16 code units, `options::MAX_REASON_BYTES`) before it
/// crosses. Wasm memory never shrinks: nothing a peer sends may grow it by more than a few
/// KiB.
// Read by the JS reader from `constantsJson()` (written out in `bindings::CONSTANTS_JSON`,
// checked against this in a test): the session's build has no other use of it.
#[cfg_attr(not(any(test, feature = "relay")), allow(dead_code))]
pub const MAX_PEER_STRING: u32 = 1024;

/// A member the JS reader tagged, as a [`PeerValue`].
pub fn peer_value(tag: u32, number: f64, string: Option<&str>) -> PeerValue<'_> {
    match (tag, string) {
        (tag::NULL, _) => PeerValue::Null,
        (tag::BOOL, _) => PeerValue::Bool,
        (tag::NUMBER, _) => PeerValue::Number(number),
        (tag::STRING, Some(s)) => PeerValue::String(s),
        (tag::ARRAY, _) => PeerValue::Array,
        (tag::OBJECT, _) => PeerValue::Object,
        (tag::OVERSIZED, _) => PeerValue::Oversized,
        _ => PeerValue::Absent,
    }
}

/// A JS value the caller passed as a [`PeerValue`] (for validation of ids). Numbers are
/// tested first, then strings: each test is a call into JS.
pub fn js_value(v: &JsValue) -> (u32, f64, Option<String>) {
    if let Some(n) = v.as_f64() {
        (tag::NUMBER, n, None)
    } else if let Some(s) = v.as_string() {
        (tag::STRING, 0.0, Some(s))
    } else if v.is_undefined() {
        (tag::ABSENT, 0.0, None)
    } else if v.is_null() {
        (tag::NULL, 0.0, None)
    } else if v.as_bool().is_some() {
        (tag::BOOL, 0.0, None)
    } else if js_sys::Array::is_array(v) {
        (tag::ARRAY, 0.0, None)
    } else {
        (tag::OBJECT, 0.0, None)
    }
}

/// A request id the caller passed.
///
/// # Errors
/// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID` naming `what`.
pub fn id_from_js(v: &JsValue, what: &str) -> Result<RequestId, JsValue> {
    let (t, n, s) = js_value(v);
    peer_value(t, n, s.as_deref()).to_request_id().map_err(|e| super::errors::invalid_id(what, e, v))
}

/// `obj[name]`, or `undefined` when `obj` is not an object or the getter throws.
pub fn get(obj: &JsValue, name: &'static str) -> JsValue {
    if !obj.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(obj, &key(name)).unwrap_or(JsValue::UNDEFINED)
}

/// How an abort/cancel reason given in JS is treated by the [`Reason`] policy:
/// `undefined` → none; a string → text; an object with a string `name` (an `Error`, a
/// `DOMException`) → [`Reason::from_error`] with its `name` and `message` (which knows the
/// timeouts of `AbortSignal.timeout()` and the MCP clients); anything else → an error,
/// described as its JSON.
///
/// `text` must be `v` when `v` is a string (the JS layer passes it as such: no call back into
/// JS to read it), else `None`: `v` itself is not read as a string.
pub fn reason_from_js(v: &JsValue, text: Option<String>) -> Reason {
    match text {
        Some(s) => Reason::Text(s),
        None => reason_from_js_object(v),
    }
}

fn reason_from_js_object(v: &JsValue) -> Reason {
    if v.is_undefined() {
        return Reason::None;
    }
    if let Some(name) = get(v, "name").as_string() {
        let message = get(v, "message").as_string().unwrap_or_default();
        return Reason::from_error(&name, &message);
    }
    let text = js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()).unwrap_or_else(|| "[object]".to_owned());
    Reason::Error(text)
}

/// The JS layer's helpers (the arguments of `new SessionCore` after `seed`): builders of the
/// messages a session puts on the wire, each one call that returns an object literal (a
/// crossing per member otherwise); and what to do with the JS objects the JS layer keeps for
/// a watched request — the controller of its signal, the listener on the caller's signal —
/// when the core's output says so. Those objects live in JS, not in wasm memory. Without
/// the helpers (the wasm tests drive `SessionCore` directly) messages are built member by
/// member and there are no such objects.
///
/// A request's objects are taken (`take` for ours, `takeInbound` for the peer's) before any
/// callback of the output that ends it runs: a callback — `send`, `onEvent`, `onTimeout`, a
/// listener of the request's own signal — may track a new request with the same id (or, for
/// the peer's, take a new request of the peer with the same id and ask for its signal),
/// whose objects the ended request's hooks must not abort or release.
#[derive(Clone, Default)]
pub struct JsHooks {
    cancelled: Option<Hook>,
    tasks_cancel: Option<Hook>,
    request_cancelled: Option<Hook>,
    settled: Option<Hook>,
    peer_cancelled: Option<Hook>,
    take_inbound: Option<Hook>,
    take: Option<Hook>,
}

impl JsHooks {
    /// `[cancelled, tasksCancel, requestCancelled, settled, peerCancelled, takeInbound,
    /// take]`, each a function or none.
    pub fn new(hooks: [Option<Function>; 7]) -> Self {
        let [cancelled, tasks_cancel, request_cancelled, settled, peer_cancelled, take_inbound, take] =
            hooks.map(|f| f.map(JsCast::unchecked_into::<Hook>));
        Self { cancelled, tasks_cancel, request_cancelled, settled, peer_cancelled, take_inbound, take }
    }

    /// Our request was cancelled: abort its signal (if one was made) with `reason`. `request`
    /// is what [`Self::take`] gave for it.
    pub fn request_cancelled(&self, request: &JsValue, reason: &JsValue) {
        call(self.request_cancelled.as_ref(), request, reason);
    }

    /// Our watched request settled: release its objects (the listener goes). `request` as in
    /// [`Self::request_cancelled`].
    pub fn settled(&self, request: &JsValue) {
        call(self.settled.as_ref(), request, &JsValue::UNDEFINED);
    }

    /// The JS objects of our request `id`, taken out of the JS layer's map (`undefined`:
    /// it has none): what [`Self::request_cancelled`] and [`Self::settled`] are then given for
    /// it. `None` when there is no `take` hook (then neither is called).
    pub fn take(&self, id: &JsValue) -> Option<JsValue> {
        take_with(self.take.as_ref(), id)
    }

    /// The peer cancelled its watched request: abort its signal with `reason`. `request` is
    /// what [`Self::take_inbound`] gave for it.
    pub fn peer_cancelled(&self, request: &JsValue, reason: &JsValue) {
        call(self.peer_cancelled.as_ref(), request, reason);
    }

    /// The JS objects of the peer's watched request `id` (the controller of its signal), taken
    /// out of the JS layer's map when the request is over (cancelled by the peer, answered,
    /// forgotten): what [`Self::peer_cancelled`] is then given for it (`undefined`: it has
    /// none). `None` when there is no `takeInbound` hook.
    pub fn take_inbound(&self, id: &JsValue) -> Option<JsValue> {
        take_with(self.take_inbound.as_ref(), id)
    }

    /// The `notifications/cancelled` of `n`, whose `requestId` is `id` (`n.request_id` as a
    /// JS value); `caller_reason`: the caller's JS string when it is `n.reason` (no copy of
    /// it out of wasm memory).
    pub fn cancelled(&self, n: &CancelNotification, id: &JsValue, caller_reason: Option<&JsValue>) -> JsValue {
        let Some(build) = &self.cancelled else { return notification_to_js(n) };
        let copied;
        let reason = match caller_reason {
            Some(r) => r,
            None => {
                copied = n.reason.as_deref().map_or(JsValue::UNDEFINED, JsValue::from_str);
                &copied
            }
        };
        build.call_hook(&JsValue::UNDEFINED, id, reason)
    }

    /// The `tasks/cancel` request of `r`.
    pub fn tasks_cancel(&self, r: &crate::core::TaskCancelRequest) -> JsValue {
        let Some(build) = &self.tasks_cancel else { return task_cancel_to_js(r) };
        build.call_hook(&JsValue::UNDEFINED, &id_to_js(&r.id), &JsValue::from_str(&r.task_id))
    }
}

#[wasm_bindgen]
extern "C" {
    /// `Function.prototype.call` with two arguments, for the JS layer's own hooks, which do
    /// not throw (they build an object literal, abort a controller — whose listeners' errors
    /// the host reports, they never reach the caller — or remove a listener). Not wrapped to
    /// catch: `call2` of js-sys makes a closure and an `arguments` object per call.
    #[wasm_bindgen(extends = Function, typescript_type = "Function")]
    #[derive(Clone)]
    pub type Hook;
    #[wasm_bindgen(method, js_name = call)]
    fn call_hook(this: &Hook, context: &JsValue, a: &JsValue, b: &JsValue) -> JsValue;
}

/// What the take hook `hook` gives for request `id`; `None` without the hook.
fn take_with(hook: Option<&Hook>, id: &JsValue) -> Option<JsValue> {
    hook.map(|f| f.call_hook(&JsValue::UNDEFINED, id, &JsValue::UNDEFINED))
}

/// Calls a hook of the JS layer, if there is one.
fn call(hook: Option<&Hook>, a: &JsValue, b: &JsValue) {
    if let Some(f) = hook {
        f.call_hook(&JsValue::UNDEFINED, a, b);
    }
}

/// The `notifications/cancelled` message object.
pub fn notification_to_js(n: &CancelNotification) -> JsValue {
    let params = Object::new();
    set(&params, &key("requestId"), &id_to_js(&n.request_id));
    if let Some(reason) = &n.reason {
        set(&params, &key("reason"), &reason.into());
    }
    let msg = Object::new();
    set(&msg, &key("jsonrpc"), &key("2.0"));
    set(&msg, &key("method"), &key(crate::core::CANCELLED_METHOD));
    set(&msg, &key("params"), &params);
    msg.into()
}

/// An event as a plain JS object: `{ direction, type, requestId, … }`, the members in the
/// order and with the names the core's `Serialize` gives them (absent options left out).
/// Built by hand: serde and a serializer for JS values were a tenth of the `.wasm`.
pub fn event_to_js(event: &Event) -> JsValue {
    let obj = Object::new();
    let member = |name: &'static str, value: &JsValue| set(&obj, &key(name), value);
    let text = |name: &'static str, value: &str| member(name, &JsValue::from_str(value));
    let opt_text = |name: &'static str, value: &Option<String>| {
        if let Some(v) = value {
            text(name, v);
        }
    };
    member("direction", &key(event.direction.as_str()));
    member("type", &key(event.kind.type_name()));
    match &event.kind {
        EventKind::CancelSent { request_id, method, via, reason, task_id } => {
            member("requestId", &id_to_js(request_id));
            text("method", method);
            member("via", &key(via.as_str()));
            opt_text("reason", reason);
            opt_text("taskId", task_id);
        }
        EventKind::CancelDeferred { request_id, method }
        | EventKind::LateResponseDropped { request_id, method }
        | EventKind::ResponseSuppressed { request_id, method }
        | EventKind::DuplicateRequestId { request_id, method }
        | EventKind::InboundForgotten { request_id, method } => {
            member("requestId", &id_to_js(request_id));
            text("method", method);
        }
        EventKind::TimedOut { request_id, method, kind } => {
            member("requestId", &id_to_js(request_id));
            text("method", method);
            member("kind", &key(kind.as_str()));
        }
        EventKind::TaskCancelAnswered { request_id, task_id, outcome, code } => {
            member("requestId", &id_to_js(request_id));
            text("taskId", task_id);
            member("outcome", &key(outcome.as_str()));
            if let Some(code) = code {
                member("code", &JsValue::from_f64(*code as f64));
            }
        }
        EventKind::ListenEnded { request_id, reason } => {
            member("requestId", &id_to_js(request_id));
            opt_text("reason", reason);
        }
        EventKind::RevisionNegotiated { version, revision, known } => {
            text("version", version);
            member("revision", &key(revision.as_str()));
            member("known", &JsValue::from_bool(*known));
        }
        EventKind::CancelNotSent { request_id, method, why } => {
            member("requestId", &id_to_js(request_id));
            opt_text("method", method);
            member("why", &key(why.as_str()));
        }
        EventKind::CancelReceived { request_id, method, reason } => {
            member("requestId", &id_to_js(request_id));
            text("method", method);
            opt_text("reason", reason);
        }
        EventKind::CancelIgnored { request_id, why, detail, reason } => {
            if let Some(id) = request_id {
                member("requestId", &id_to_js(id));
            }
            member("why", &key(why.as_str()));
            opt_text("detail", detail);
            opt_text("reason", reason);
        }
        EventKind::LateProgressDropped { request_id, method, progress_token } => {
            member("requestId", &id_to_js(request_id));
            text("method", method);
            member("progressToken", &id_to_js(progress_token));
        }
    }
    obj.into()
}

/// A `DOMException` named `name` (a plain `Error` with that name where there is none).
pub fn dom_exception(message: &str, name: &'static str) -> JsValue {
    match DomException::new(&JsValue::from_str(message), &key(name)) {
        Ok(e) => e.into(),
        Err(_) => {
            let e = js_sys::Error::new(message);
            set(&e, &key("name"), &key(name));
            e.into()
        }
    }
}

/// The `tasks/cancel` request object.
pub fn task_cancel_to_js(r: &crate::core::TaskCancelRequest) -> JsValue {
    let params = Object::new();
    set(&params, &key("taskId"), &r.task_id.as_str().into());
    let msg = Object::new();
    set(&msg, &key("jsonrpc"), &key("2.0"));
    set(&msg, &key("id"), &id_to_js(&r.id));
    set(&msg, &key("method"), &key(crate::core::TASKS_CANCEL_METHOD));
    set(&msg, &key("params"), &params);
    msg.into()
}

/// Now on the host's monotonic clock (`performance.now()`), in ms (0 if the host's is not a number).
pub fn now() -> f64 {
    performance_now().as_f64().unwrap_or(0.0)
}

/// Now on the host's monotonic clock (`performance.now()`), in whole ms.
pub fn now_ms() -> u64 {
    let now = now();
    if now.is_finite() && now > 0.0 {
        float::round_non_negative(now) as u64
    } else {
        0
    }
}

/// The caller's `notifications/cancelled` with its `reason` replaced by what the reason
/// policy sends (`None`: left out), every other member kept (e.g. the 2026-07-28 `_meta`);
/// the same object when the reason is unchanged.
pub fn rewrite_cancel(message: &JsValue, reason: Option<&str>) -> JsValue {
    let params = get(message, "params");
    if get(&params, "reason").as_string().as_deref() == reason {
        return message.clone();
    }
    let copy = Object::assign(&Object::new(), &Object::from(message.clone()));
    let new_params = Object::assign(&Object::new(), &Object::from(params));
    match reason {
        Some(r) => {
            set(&new_params, &key("reason"), &r.into());
        }
        None => {
            delete_member(&new_params, &key("reason"));
        }
    }
    set(&copy, &key("params"), &new_params);
    copy.into()
}

/// The JS value a tagged member stood for (for error messages).
pub fn js_value_of(tag: u32, number: f64, string: Option<&str>) -> JsValue {
    match (tag, string) {
        (tag::NUMBER, _) => JsValue::from_f64(number),
        (tag::STRING, Some(s)) => JsValue::from_str(s),
        (tag::NULL, _) => JsValue::NULL,
        (tag::BOOL, _) => JsValue::from_bool(number != 0.0),
        _ => JsValue::UNDEFINED,
    }
}

/// The response members the JS reader read (`incomingResponse`, `upstreamResponse`), as the
/// core takes them ([`crate::core::ResponseInfo::from_members`] decides what they mean).
pub fn response_info(
    task_task_id: Option<String>,
    result_type: Option<String>,
    result_task_id: Option<String>,
    result_status: Option<String>,
    protocol_version: Option<String>,
    has_error: bool,
    error_code: f64,
) -> crate::core::ResponseInfo {
    crate::core::ResponseInfo::from_members(crate::core::ResponseMembers {
        task_task_id,
        result_type,
        result_task_id,
        result_status,
        protocol_version,
        error_code: has_error.then_some(error_code),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::event_to_js;
    use crate::core::{
        Direction, Event, EventKind, Ignored, NotSent, RequestId, Revision, TaskCancelOutcome, TimeoutKind, Via,
    };

    include!("../../tests/common/every_event.rs");

    /// The event schema is written once, by the core's `Serialize` (which the typings are
    /// checked against, tests/typings.rs); the objects `onEvent` gets are built by hand
    /// here, so this checks them against it, member by member and value by value.
    #[wasm_bindgen_test]
    fn every_event_reaches_on_event_as_the_core_serializes_it() {
        for event in every_kind() {
            let text = js_sys::JSON::stringify(&event_to_js(&event)).unwrap().as_string().unwrap();
            let shipped: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(shipped, serde_json::to_value(&event).unwrap());
        }
    }
}
