//! The relay's output as the plain objects `RelayCore.poll()` returns (documented there):
//! one per [`RelayOutput`], the events of the sessions as the session's JS layer gets them,
//! and the relay's own about vanished clients ([`ClientEvent`]).

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::super::values::{self, id_to_js};
use crate::core::{CancelAction, ClientEvent, Failure, RelayOutput, Side};

/// `out` as the plain object `poll()` documents.
pub(super) fn output_to_js(out: RelayOutput) -> JsValue {
    let obj = Object::new();
    let set = |name: &str, value: &JsValue| {
        values::set(&obj, &JsValue::from_str(name), value);
    };
    let side = |side: Side| match side {
        Side::Upstream => set("side", &JsValue::from_str("upstream")),
        Side::Downstream(link) => {
            set("side", &JsValue::from_str("downstream"));
            set("link", &JsValue::from_f64(f64::from(link.0)));
        }
    };
    match out {
        RelayOutput::Transmit(s, t) => {
            set("type", &JsValue::from_str("cancel"));
            side(s);
            set("requestId", &id_to_js(&t.request_id));
            match t.action {
                CancelAction::Notify(n) => {
                    set("via", &JsValue::from_str("notification"));
                    if let Some(reason) = n.reason {
                        set("reason", &JsValue::from_str(&reason));
                    }
                }
                CancelAction::CloseStream(_) => set("via", &JsValue::from_str("stream-close")),
                CancelAction::CancelTask(task) => {
                    set("via", &JsValue::from_str("tasks-cancel"));
                    set("id", &id_to_js(&task.id));
                    set("taskId", &JsValue::from_str(&task.task_id));
                }
            }
        }
        RelayOutput::Fail { link, id, failure } => {
            set("type", &JsValue::from_str("fail"));
            set("link", &JsValue::from_f64(f64::from(link.0)));
            set("id", &id_to_js(&id));
            set("code", &JsValue::from_f64(f64::from(failure.code())));
            set("message", &JsValue::from_str(failure.message()));
        }
        RelayOutput::Refuse { id, failure } => {
            set("type", &JsValue::from_str("refuse"));
            set("id", &id_to_js(&id));
            set("code", &JsValue::from_f64(f64::from(failure.code())));
            set("message", &JsValue::from_str(failure.message()));
        }
        RelayOutput::RefuseBatch(link) => {
            set("type", &JsValue::from_str("fail"));
            set("link", &JsValue::from_f64(f64::from(link.0)));
            set("id", &JsValue::NULL);
            set("code", &JsValue::from_f64(f64::from(Failure::Batch.code())));
            set("message", &JsValue::from_str(Failure::Batch.message()));
        }
        RelayOutput::KeepHandshakeResult => set("type", &JsValue::from_str("keep-handshake-result")),
        RelayOutput::AnswerHandshake { link, id } => {
            set("type", &JsValue::from_str("answer-handshake"));
            set("link", &JsValue::from_f64(f64::from(link.0)));
            set("id", &id_to_js(&id));
        }
        RelayOutput::UpstreamVersion(version) => {
            set("type", &JsValue::from_str("upstream-version"));
            set("version", &JsValue::from_str(&version));
        }
        RelayOutput::Event(s, event) => {
            set("type", &JsValue::from_str("event"));
            side(s);
            // The session's events as the session's JS layer gets them: parsed from the
            // core's JSON (`wasm::output`).
            let text = super::super::output::event_json(&event);
            set("event", &js_sys::JSON::parse(&text).unwrap_or(JsValue::UNDEFINED));
        }
        RelayOutput::ClientEvent(link, event) => {
            set("type", &JsValue::from_str("event"));
            side(Side::Downstream(link));
            set("event", &client_event_to_js(&event));
        }
        RelayOutput::EndClient(link) => {
            set("type", &JsValue::from_str("end-client"));
            set("link", &JsValue::from_f64(f64::from(link.0)));
        }
    }
    obj.into()
}

/// A [`ClientEvent`] as the plain object `poll()` documents.
fn client_event_to_js(event: &ClientEvent) -> JsValue {
    let obj = Object::new();
    let set = |name: &str, value: &JsValue| {
        values::set(&obj, &JsValue::from_str(name), value);
    };
    let number = |n: u64| JsValue::from_f64(n as f64);
    match event {
        ClientEvent::StreamLost { id, upstream_id, grace } => {
            set("type", &JsValue::from_str("stream-lost"));
            set("requestId", &id_to_js(id));
            set("upstreamId", &number(*upstream_id));
            set("graceMs", &number(*grace));
        }
        ClientEvent::StreamResumed { id, upstream_id } => {
            set("type", &JsValue::from_str("stream-resumed"));
            set("requestId", &id_to_js(id));
            if let Some(up) = upstream_id {
                set("upstreamId", &number(*up));
            }
        }
        ClientEvent::NotResumed { id, upstream_id, grace, reason } => {
            set("type", &JsValue::from_str("stream-not-resumed"));
            set("requestId", &id_to_js(id));
            set("upstreamId", &number(*upstream_id));
            set("graceMs", &number(*grace));
            set("reason", &JsValue::from_str(reason));
        }
        ClientEvent::SessionExpired { ttl, requests, reason } => {
            set("type", &JsValue::from_str("session-expired"));
            set("ttlMs", &number(*ttl));
            let list = js_sys::Array::new();
            for (id, up) in requests {
                let item = Object::new();
                values::set(&item, &JsValue::from_str("requestId"), &id_to_js(id));
                values::set(&item, &JsValue::from_str("upstreamId"), &number(*up));
                list.push(&item);
            }
            set("requests", &list);
            set("reason", &JsValue::from_str(reason));
        }
    }
    obj.into()
}
