//! JS values the layer makes again and again, made here once: property names and constant
//! strings ([`key`]), request ids ([`id_to_js`]). The bottom of `src/wasm`: it uses no other
//! module of it.

use ::core::cell::RefCell;

use crate::prelude::*;

use wasm_bindgen::prelude::*;

use crate::core::RequestId;

/// The property names and constant strings used, each made a JS string once.
static KEYS: Local<Vec<(&'static str, JsValue)>> = Local::new(Vec::new());

/// A value of the module's only thread, as `thread_local!` keeps one in a `std` build (the
/// package's `.wasm` is `no_std`): JS values made once ([`key`]) and the error classes.
pub struct Local<T>(RefCell<T>);

// SAFETY: the `.wasm` has one thread — it is built without the `atomics` target feature (the
// `compile_error!` below refuses a build with it) — so a `static` of it is never shared.
unsafe impl<T> Sync for Local<T> {}

#[cfg(target_feature = "atomics")]
compile_error!("src/wasm keeps JS values in statics (values::Local): one thread only, no `atomics`");

impl<T> Local<T> {
    /// `value`, in a `static`.
    pub const fn new(value: T) -> Self {
        Self(RefCell::new(value))
    }

    /// Calls `f` with the value, as `LocalKey::with`.
    pub fn with<R>(&self, f: impl FnOnce(&RefCell<T>) -> R) -> R {
        f(&self.0)
    }
}

#[wasm_bindgen]
extern "C" {
    /// `Reflect.set`, with its result (a boolean) as a JS value: js-sys's `Reflect::set`
    /// returns it as a `bool`, an import of a signature (three values in, a number out) that
    /// no other import has — V8 compiles a wrapper per import signature when it instantiates
    /// the module (issue #24, start-up). Caught: a setter of an object may throw.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set, catch)]
    fn reflect_set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<JsValue, JsValue>;
}

/// `target[key] = value` for the objects this layer makes (events, messages, errors): what
/// `Reflect.set` says or throws is of no use there (a plain object takes any member).
pub fn set(target: &JsValue, key: &JsValue, value: &JsValue) {
    let _ = reflect_set(target, key, value);
}

/// `key` as a JS string, made once per name: building a JS string from wasm memory is a
/// UTF-8 decode.
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

/// A request id as JS has it: a number or a string (a copy out of wasm memory).
pub fn id_to_js(id: &RequestId) -> JsValue {
    match id {
        RequestId::Number(n) => JsValue::from_f64(*n as f64),
        RequestId::String(s) => JsValue::from_str(s),
    }
}
