//! JS values the relay's layer makes: the members of its objects ([`set`]) and request ids
//! ([`id_to_js`]). The bottom of `src/wasm`: it uses no other module of it. (The session's
//! layer makes no JS value: its output and its errors cross as JSON text.)

use wasm_bindgen::prelude::*;

use crate::core::RequestId;

#[wasm_bindgen]
extern "C" {
    /// `Reflect.set`, with its result (a boolean) as a JS value: js-sys's `Reflect::set`
    /// returns it as a `bool`, an import of a signature (three values in, a number out) that
    /// no other import has — V8 compiles a wrapper per import signature when it instantiates
    /// the module, which adds to start-up. Caught: a setter of an object may throw.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set, catch)]
    fn reflect_set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<JsValue, JsValue>;
}

/// `target[key] = value` for the objects this layer makes (events, messages): what
/// `Reflect.set` says or throws is of no use there (a plain object takes any member).
pub fn set(target: &JsValue, key: &JsValue, value: &JsValue) {
    let _ = reflect_set(target, key, value);
}

/// A request id as JS has it: a number or a string (a copy out of wasm memory).
pub fn id_to_js(id: &RequestId) -> JsValue {
    match id {
        RequestId::Number(n) => JsValue::from_f64(*n as f64),
        RequestId::String(s) => JsValue::from_str(s),
    }
}
