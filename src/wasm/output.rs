//! The core's output as the records [`SessionCore::take_output`](super::SessionCore) gives the
//! JS layer: one JSON object per [`Output`], which the JS class does (sends the cancel,
//! aborts or releases a request's JS objects, calls `onTimeout` and `onEvent`). Written by
//! hand with the layer's small JSON writer: no `serde_json` in the `.wasm`.

use crate::prelude::*;

use super::json::Json;
use crate::core::{CancelAction, CancelCause, Event, EventKind, Output, RequestId, TimeoutKind};

/// Writes `output` as a record: `{"o":…,"requestId":…,…}` (the members
/// [`SessionCore::take_output`](super::SessionCore) lists).
pub(super) fn record(json: &mut Json, output: &Output) {
    json.0.push_str("{\"o\":");
    match output {
        Output::Transmit(t) => {
            let what = match &t.action {
                CancelAction::Notify(_) => "notify",
                CancelAction::CloseStream(_) => "close",
                CancelAction::CancelTask(_) => "tasksCancel",
            };
            json.string(what);
            id(json, "requestId", &t.request_id);
            match &t.action {
                CancelAction::Notify(n) => text(json, "reason", n.reason.as_deref()),
                CancelAction::CancelTask(r) => {
                    id(json, "id", &r.id);
                    text(json, "taskId", Some(&r.task_id));
                }
                CancelAction::CloseStream(_) => {}
            }
        }
        Output::Cancelled { request_id, cause } => {
            json.string("cancelled");
            id(json, "requestId", request_id);
            if let CancelCause::TimedOut(kind) = cause {
                text(json, "timeout", Some(kind.as_str()));
                let mut message = "Request ".to_owned();
                request_id.push_to(&mut message);
                message.push_str(match kind {
                    TimeoutKind::MaxTotal => " exceeded its maximum total timeout",
                    _ => " timed out",
                });
                text(json, "message", Some(&message));
            }
        }
        Output::Settled(request_id) => {
            json.string("settled");
            id(json, "requestId", request_id);
        }
        Output::InboundSettled(request_id) => {
            json.string("inboundSettled");
            id(json, "requestId", request_id);
        }
        Output::PeerCancelled { request_id, reason, watched } => {
            json.string("peerCancelled");
            id(json, "requestId", request_id);
            text(json, "reason", reason.as_deref());
            json.key("watched");
            json.0.push_str(if *watched { "true" } else { "false" });
        }
        Output::Event(e) => {
            json.string("event");
            json.key("event");
            event(json, e);
        }
    }
    json.0.push('}');
}

/// `,"name":id` (a number or a string).
fn id(json: &mut Json, name: &str, id: &RequestId) {
    json.key(name);
    match id {
        RequestId::Number(n) => json.number(*n),
        RequestId::String(s) => json.string(s),
    }
}

/// `,"name":"text"`, nothing when `text` is `None`.
fn text(json: &mut Json, name: &str, text: Option<&str>) {
    if let Some(t) = text {
        json.key(name);
        json.string(t);
    }
}

/// An event as JSON text (the relay's events, `wasm::relay`).
#[cfg(feature = "relay")]
pub(super) fn event_json(e: &Event) -> String {
    let mut json = Json(String::with_capacity(96));
    event(&mut json, e);
    json.0
}

/// An event as the object `onEvent` gets: `{ direction, type, requestId, … }`, the members in
/// the order and with the names the core's `Serialize` gives them (absent options left out).
fn event(json: &mut Json, event: &Event) {
    json.0.push_str("{\"direction\":");
    json.string(event.direction.as_str());
    json.key("type");
    json.string(event.kind.type_name());
    match &event.kind {
        EventKind::CancelSent { request_id, method, via, reason, task_id } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
            text(json, "via", Some(via.as_str()));
            text(json, "reason", reason.as_deref());
            text(json, "taskId", task_id.as_deref());
        }
        EventKind::CancelDeferred { request_id, method }
        | EventKind::LateResponseDropped { request_id, method }
        | EventKind::ResponseSuppressed { request_id, method }
        | EventKind::DuplicateRequestId { request_id, method }
        | EventKind::InboundForgotten { request_id, method } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
        }
        EventKind::TimedOut { request_id, method, kind } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
            text(json, "kind", Some(kind.as_str()));
        }
        EventKind::TaskCancelAnswered { request_id, task_id, outcome, code } => {
            id(json, "requestId", request_id);
            text(json, "taskId", Some(task_id));
            text(json, "outcome", Some(outcome.as_str()));
            if let Some(code) = code {
                json.key("code");
                json.number(*code);
            }
        }
        EventKind::ListenEnded { request_id, reason } => {
            id(json, "requestId", request_id);
            text(json, "reason", reason.as_deref());
        }
        EventKind::RevisionNegotiated { version, revision, known } => {
            text(json, "version", Some(version));
            text(json, "revision", Some(revision.as_str()));
            json.key("known");
            json.0.push_str(if *known { "true" } else { "false" });
        }
        EventKind::CancelNotSent { request_id, method, why } => {
            id(json, "requestId", request_id);
            text(json, "method", method.as_deref());
            text(json, "why", Some(why.as_str()));
        }
        EventKind::CancelReceived { request_id, method, reason } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
            text(json, "reason", reason.as_deref());
        }
        EventKind::CancelIgnored { request_id, why, detail, reason } => {
            if let Some(request_id) = request_id {
                id(json, "requestId", request_id);
            }
            text(json, "why", Some(why.as_str()));
            text(json, "detail", detail.as_deref());
            text(json, "reason", reason.as_deref());
        }
        EventKind::LateProgressDropped { request_id, method, progress_token } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
            id(json, "progressToken", progress_token);
        }
    }
    json.0.push('}');
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::{event, Json};
    use crate::core::{
        Direction, Event, EventKind, Ignored, NotSent, RequestId, Revision, TaskCancelOutcome, TimeoutKind, Via,
    };
    use crate::prelude::*;

    include!("../../tests/common/every_event.rs");

    /// The event schema is written once, by the core's `Serialize` (which the typings are
    /// checked against, tests/typings.rs); the JSON `onEvent`'s objects are parsed from is
    /// written by hand here, so this checks it against it, member by member and value by value.
    #[wasm_bindgen_test]
    fn every_event_reaches_on_event_as_the_core_serializes_it() {
        for e in every_kind() {
            let mut json = Json(String::new());
            event(&mut json, &e);
            let shipped: serde_json::Value = serde_json::from_str(&json.0).unwrap();
            assert_eq!(shipped, serde_json::to_value(&e).unwrap());
        }
    }
}
