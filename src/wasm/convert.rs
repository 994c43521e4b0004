//! JS values ↔ core values at the boundary: the extern JS types, ids and reasons.

use crate::prelude::*;
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::core::{float, PeerValue, Reason, RequestId};

use super::values::key;

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

    /// `Reflect.get(array, index)`: element `index` of an array (declared with the index as a
    /// number: an import of a signature other imports have; Node 20's V8 compiles one
    /// wrapper per distinct import signature when the module is instantiated, issue #24).
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
