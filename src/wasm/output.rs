//! [`Records`]: the session's [`Sink`], which writes each output as the record
//! [`SessionCore::take_output`](super::SessionCore) gives the JS layer — one JSON object per
//! [`Output`](crate::core::Output), which the JS class does (sends the cancel, aborts or
//! releases a request's JS objects, calls `onTimeout` and `onEvent`) — as the core makes it:
//! no owned copy of an id or a text, no queue of Rust values (issue #24, the `.wasm`'s size).
//! Written by hand with the layer's small JSON writer: no `serde_json` in the `.wasm`.

use crate::prelude::*;

use super::json::Json;
use crate::core::{sealed, CancelCause, EventKindOf, EventRef, IdRef, Sink, StrId, TimeoutKind};

/// The records written since the last [`Records::take`]: `[{"o":…,"requestId":…,…},…]`
/// without its closing bracket (the members [`SessionCore::take_output`](super::SessionCore)
/// lists).
#[derive(Debug, Default)]
pub(super) struct Records {
    json: String,
    count: u32,
}

impl Records {
    /// The records as a JSON array, oldest first, and none left; `None` when there are none.
    pub(super) fn take(&mut self) -> Option<String> {
        if self.count == 0 {
            return None;
        }
        self.count = 0;
        let mut json = ::core::mem::take(&mut self.json);
        json.push(']');
        Some(json)
    }

    /// Starts a record: `{"o":"what"`.
    fn open(&mut self, what: &str) -> Json {
        let mut json = Json(::core::mem::take(&mut self.json));
        json.0.push(if self.count == 0 { '[' } else { ',' });
        json.0.push_str("{\"o\":");
        json.string(what);
        json
    }

    /// Ends the record `json` that [`Self::open`] started.
    fn close(&mut self, mut json: Json) {
        json.0.push('}');
        self.json = json.0;
        self.count += 1;
    }
}

impl sealed::Sealed for Records {}

impl Sink for Records {
    fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn notify(&mut self, request_id: IdRef<'_>, reason: Option<&str>) {
        let mut json = self.open("notify");
        id(&mut json, "requestId", request_id);
        text(&mut json, "reason", reason);
        self.close(json);
    }

    fn close_stream(&mut self, request_id: IdRef<'_>) {
        let mut json = self.open("close");
        id(&mut json, "requestId", request_id);
        self.close(json);
    }

    fn tasks_cancel(&mut self, request_id: IdRef<'_>, cancel_id: IdRef<'_>, task_id: &str) {
        let mut json = self.open("tasksCancel");
        id(&mut json, "requestId", request_id);
        id(&mut json, "id", cancel_id);
        text(&mut json, "taskId", Some(task_id));
        self.close(json);
    }

    fn cancelled(&mut self, request_id: IdRef<'_>, cause: CancelCause) {
        let mut json = self.open("cancelled");
        id(&mut json, "requestId", request_id);
        if let CancelCause::TimedOut(kind) = cause {
            text(&mut json, "timeout", Some(kind.as_str()));
            json.key("message");
            // "Request 7 timed out", "Request "7" timed out" (`RequestId`'s `Display`).
            let mut message = Json(String::from("Request "));
            match request_id {
                IdRef::Number(n) => message.number(n),
                IdRef::Str(s) => with_text(s, |t| {
                    message.0.push('"');
                    message.0.push_str(t);
                    message.0.push('"');
                }),
            }
            message.0.push_str(match kind {
                TimeoutKind::MaxTotal => " exceeded its maximum total timeout",
                _ => " timed out",
            });
            json.string(&message.0);
        }
        self.close(json);
    }

    fn settled(&mut self, request_id: IdRef<'_>, inbound: bool) {
        let mut json = self.open(if inbound { "inboundSettled" } else { "settled" });
        id(&mut json, "requestId", request_id);
        self.close(json);
    }

    fn peer_cancelled(&mut self, request_id: IdRef<'_>, reason: Option<&str>, watched: bool) {
        let mut json = self.open("peerCancelled");
        id(&mut json, "requestId", request_id);
        text(&mut json, "reason", reason);
        json.key("watched");
        json.0.push_str(if watched { "true" } else { "false" });
        self.close(json);
    }

    fn event(&mut self, e: EventRef<'_>) {
        let mut json = self.open("event");
        json.key("event");
        event(&mut json, &e);
        self.close(json);
    }

    fn take_settled(&mut self, request_id: IdRef<'_>) -> bool {
        if self.count != 1 {
            return false;
        }
        let mut only = Records::default();
        only.settled(request_id, false);
        let taken = only.json == self.json;
        if taken {
            self.json.clear();
            self.count = 0;
        }
        taken
    }
}

/// `f` of a string id's text (a packed one unpacked on the stack).
fn with_text(s: StrId<'_>, f: impl FnOnce(&str)) {
    match s {
        StrId::Text(t) => f(t),
        StrId::Packed(p) => f(p.text(&mut [0; 16])),
    }
}

/// `,"name":id` (a number or a string).
fn id(json: &mut Json, name: &str, id: IdRef<'_>) {
    json.key(name);
    match id {
        IdRef::Number(n) => json.number(n),
        IdRef::Str(s) => with_text(s, |t| json.string(t)),
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
pub(super) fn event_json(e: &crate::core::Event) -> String {
    let mut json = Json(String::with_capacity(96));
    event(&mut json, &e.as_event_ref());
    json.0
}

/// An event as the object `onEvent` gets: `{ direction, type, requestId, … }`, the members in
/// the order and with the names the core's `Serialize` gives them (absent options left out).
fn event(json: &mut Json, event: &EventRef<'_>) {
    json.0.push_str("{\"direction\":");
    json.string(event.direction.as_str());
    json.key("type");
    json.string(event.kind.type_name());
    match event.kind {
        EventKindOf::CancelSent { request_id, method, via, reason, task_id } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
            text(json, "via", Some(via.as_str()));
            text(json, "reason", reason);
            text(json, "taskId", task_id);
        }
        EventKindOf::CancelDeferred { request_id, method }
        | EventKindOf::LateResponseDropped { request_id, method }
        | EventKindOf::ResponseSuppressed { request_id, method }
        | EventKindOf::DuplicateRequestId { request_id, method }
        | EventKindOf::InboundForgotten { request_id, method } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
        }
        EventKindOf::TimedOut { request_id, method, kind } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
            text(json, "kind", Some(kind.as_str()));
        }
        EventKindOf::TaskCancelAnswered { request_id, task_id, outcome, code } => {
            id(json, "requestId", request_id);
            text(json, "taskId", Some(task_id));
            text(json, "outcome", Some(outcome.as_str()));
            if let Some(code) = code {
                json.key("code");
                json.number(code);
            }
        }
        EventKindOf::ListenEnded { request_id, reason } => {
            id(json, "requestId", request_id);
            text(json, "reason", reason);
        }
        EventKindOf::RevisionNegotiated { version, revision, known } => {
            text(json, "version", Some(version));
            text(json, "revision", Some(revision.as_str()));
            json.key("known");
            json.0.push_str(if known { "true" } else { "false" });
        }
        EventKindOf::CancelNotSent { request_id, method, why } => {
            id(json, "requestId", request_id);
            text(json, "method", method);
            text(json, "why", Some(why.as_str()));
        }
        EventKindOf::CancelReceived { request_id, method, reason } => {
            id(json, "requestId", request_id);
            text(json, "method", Some(method));
            text(json, "reason", reason);
        }
        EventKindOf::CancelIgnored { request_id, why, detail, reason } => {
            if let Some(request_id) = request_id {
                id(json, "requestId", request_id);
            }
            text(json, "why", Some(why.as_str()));
            text(json, "detail", detail);
            text(json, "reason", reason);
        }
        EventKindOf::LateProgressDropped { request_id, method, progress_token } => {
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
            event(&mut json, &e.as_event_ref());
            let shipped: serde_json::Value = serde_json::from_str(&json.0).unwrap();
            assert_eq!(shipped, serde_json::to_value(&e).unwrap());
        }
    }
}
