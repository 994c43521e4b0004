//! The JS errors mcp-cancel throws: `InvalidArgumentError` (a value the caller passed) and
//! `UsageError` (a call the session's state does not allow), each with a stable `code` and
//! the `requestId` (or offending value) it is about — rustls' `ApiMisuse`, never the peer's
//! fault: nothing a peer sends is ever thrown.

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use super::values::{id_to_js, key, set, Local};
use crate::core::{InvalidRequestId, OutgoingError, UsageError};

/// The classes registered by [`register_error_classes`].
static ERROR_CLASSES: Local<Option<(Function, Function)>> = Local::new(None);

/// Registers the JS classes thrown for bad arguments and for misuse. Called once by the
/// package's entry module; without it errors are plain `Error`s with the same `name`,
/// `code` and `requestId`.
#[wasm_bindgen(js_name = "__registerErrorClasses", skip_typescript)]
pub fn register_error_classes(invalid_argument: Function, usage: Function) {
    ERROR_CLASSES.with(|c| *c.borrow_mut() = Some((invalid_argument, usage)));
}

/// Which error class to throw.
#[derive(Clone, Copy)]
enum Class {
    InvalidArgument,
    Usage,
}

fn make(class: Class, message: &str, code: &str, request_id: &JsValue) -> JsValue {
    let ctor = ERROR_CLASSES.with(|c| {
        c.borrow().as_ref().map(|(invalid, usage)| match class {
            Class::InvalidArgument => invalid.clone(),
            Class::Usage => usage.clone(),
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
        Class::InvalidArgument => "InvalidArgumentError",
        Class::Usage => "UsageError",
    };
    set(&err, &key("name"), &key(name));
    set(&err, &key("code"), &code.into());
    set(&err, &key("requestId"), request_id);
    err.into()
}

/// `InvalidArgumentError` with `code` (`ERR_INVALID_OPTION`, `ERR_INVALID_ARGUMENT`, …).
pub fn invalid_argument(message: &str, code: &str, value: &JsValue) -> JsValue {
    make(Class::InvalidArgument, message, code, value)
}

/// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID`: `what` is not a request id.
pub fn invalid_id(what: &str, e: InvalidRequestId, value: &JsValue) -> JsValue {
    make(Class::InvalidArgument, &[what, ": ", &e.message()].concat(), "ERR_INVALID_REQUEST_ID", value)
}

/// `UsageError` with the core error's code.
pub fn usage(e: &UsageError) -> JsValue {
    make(Class::Usage, &e.message(), e.code(), &id_to_js(e.request_id()))
}

/// The error of a request [`crate::core::Session::handle_outgoing`] refused.
pub fn outgoing(e: &OutgoingError, id: &JsValue, token: &JsValue) -> JsValue {
    match e {
        OutgoingError::InvalidRequestId(e) => invalid_id("request id", *e, id),
        OutgoingError::InvalidProgressToken(e) => invalid_id("params._meta.progressToken", *e, token),
        OutgoingError::Usage(e) => usage(e),
    }
}

/// `UsageError` `ERR_REENTRANT_CALL`.
pub fn reentrant() -> JsValue {
    make(
        Class::Usage,
        "CancellationSession was called from inside one of its own callbacks while busy",
        "ERR_REENTRANT_CALL",
        &JsValue::UNDEFINED,
    )
}

/// `UsageError` `ERR_SEND_REQUIRED`: a request that can be cancelled by itself (a signal, a
/// timeout) needs somewhere to send its cancel.
pub fn send_required(id: &JsValue) -> JsValue {
    make(
        Class::Usage,
        "track(): a request with a `signal` or a timeout needs the session's `send` option (where its cancel goes)",
        "ERR_SEND_REQUIRED",
        id,
    )
}
