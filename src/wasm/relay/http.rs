//! The HTTP classification as the relay's class passes it (`RelayCore.classifyHttp`): the
//! numbers the JS layer read an HTTP request into, decoded ([`body`], [`envelope`]), and the
//! core's answer as the plain object JS gets ([`entry_to_js`]). It decides nothing: every rule
//! is the core's `classify_http`.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::super::values;
use crate::core::{Envelope, HttpBody, HttpEntry};

/// The `params._meta` envelope of the body: its protocol version by `version_tag` (`0`
/// absent, `1` the string `version`, `2` another value) and whether its
/// `clientCapabilities` is an object.
pub(super) fn envelope(version_tag: u32, version: Option<&str>, client_capabilities: bool) -> Envelope<'_> {
    Envelope {
        protocol_version: match version_tag {
            1 => Some(version),
            2 => Some(None),
            _ => None,
        },
        client_capabilities,
    }
}

/// The body by `body_kind` (`0` none, `1` batch, `2` response, `3` request, `4`
/// notification, `5` not JSON-RPC), with its `method` and `envelope` for the message kinds.
pub(super) fn body<'a>(body_kind: u32, method: &'a str, envelope: Envelope<'a>) -> HttpBody<'a> {
    match body_kind {
        1 => HttpBody::Batch,
        2 => HttpBody::Response,
        3 => HttpBody::Request { method, envelope },
        4 => HttpBody::Notification { method, envelope },
        5 => HttpBody::Invalid,
        _ => HttpBody::None,
    }
}

/// What an HTTP request is, as `classifyHttp()` documents it: `{ entry: "session" |
/// "open-session" }`, `{ entry: "modern", version }`, or `{ entry: "refuse", status, code,
/// message, data? }` (`data`: `{ supported, requested }`).
pub(super) fn entry_to_js(entry: HttpEntry) -> JsValue {
    let obj = Object::new();
    let set = |name: &str, value: &JsValue| {
        values::set(&obj, &JsValue::from_str(name), value);
    };
    match entry {
        HttpEntry::Session => set("entry", &JsValue::from_str("session")),
        HttpEntry::OpenSession => set("entry", &JsValue::from_str("open-session")),
        HttpEntry::Modern { version } => {
            set("entry", &JsValue::from_str("modern"));
            set("version", &JsValue::from_str(&version));
        }
        HttpEntry::Refuse(refusal) => {
            set("entry", &JsValue::from_str("refuse"));
            set("status", &JsValue::from_f64(f64::from(refusal.status)));
            set("code", &JsValue::from_f64(f64::from(refusal.code)));
            set("message", &JsValue::from_str(&refusal.message));
            if let Some((supported, requested)) = refusal.unsupported {
                let data = Object::new();
                let list = js_sys::Array::new();
                for version in supported {
                    list.push(&JsValue::from_str(version));
                }
                values::set(&data, &JsValue::from_str("supported"), &list);
                values::set(&data, &JsValue::from_str("requested"), &JsValue::from_str(&requested));
                set("data", &data.into());
            }
        }
    }
    obj.into()
}
