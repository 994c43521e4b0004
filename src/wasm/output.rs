//! [`Records`]: the session's [`Sink`], which writes each output, as the core makes it, as a
//! record of numbers and UTF-8 for `SessionCore.takeOutput()` — no owned copy of an id or a
//! text, no queue of Rust values, no JSON (each would add to the `.wasm`'s size). The JS class reads
//! the records with [`schema`] (js/records.js, `constantsJson().records`) into the objects it
//! acts on (sends the cancel, aborts or releases a request's JS objects, calls `onTimeout`
//! and `onEvent`).
//!
//! A record is its kind (a byte: its index in `records.kinds`), then its fields in the order
//! `records.fields[kind]` lists them; an event's are its type (a byte: its index in
//! `records.events`), its direction, then the fields `records.events[type]` lists. A field is
//! written by its [`kind`](field): little-endian numbers, a text as its length (`u32`) and its
//! UTF-8, an optional field (its kind ends in `?`) after a byte that says whether it is there,
//! and a name from a fixed set (a revision, a `via`, …) as its index in `records.names`.

use crate::prelude::*;

use super::json::Json;
use crate::core::output::sealed;
use crate::core::{
    CancelCause, Direction, EventKindOf, EventRef, IdRef, Ignored, NotSent, Revision, Sink, StrId, TaskCancelOutcome,
    TimeoutKind, Via,
};

/// The kinds of the records, by their byte (their index in [`KINDS`]).
mod record {
    pub const NOTIFY: u8 = 0;
    pub const CLOSE: u8 = 1;
    pub const TASKS_CANCEL: u8 = 2;
    pub const CANCELLED: u8 = 3;
    pub const SETTLED: u8 = 4;
    pub const INBOUND_SETTLED: u8 = 5;
    pub const PEER_CANCELLED: u8 = 6;
    pub const EVENT: u8 = 7;
    pub const REFUSED: u8 = 8;
}

/// How each field is written (`constants_json().records`'s field kinds).
mod field {
    /// A request id: `0` and the number (`f64`), or `1` and the text.
    pub const ID: &str = "id";
    /// [`ID`] or nothing.
    pub const OPT_ID: &str = "id?";
    /// A text.
    pub const TEXT: &str = "text";
    /// A text or nothing.
    pub const OPT_TEXT: &str = "text?";
    /// `0` or `1`.
    pub const BOOL: &str = "bool";
    /// A number (`f64`): only ever optional here, named by `Reader` once the `?` is read.
    #[cfg_attr(not(any(feature = "relay", test)), allow(dead_code))]
    pub const NUMBER: &str = "number";
    /// [`NUMBER`] or nothing.
    pub const OPT_NUMBER: &str = "number?";
    /// An event: its type, its direction ([`DIRECTION`]), then the type's fields.
    pub const EVENT: &str = "event";
    /// Names, by their index in `records.names.<kind>` (a byte).
    pub const DIRECTION: &str = "direction";
    pub const VIA: &str = "via";
    pub const TIMEOUT: &str = "timeout";
    pub const OPT_TIMEOUT: &str = "timeout?";
    pub const OUTCOME: &str = "outcome";
    pub const REVISION: &str = "revision";
    pub const NOT_SENT: &str = "notSent";
    pub const IGNORED: &str = "ignored";
}

use field::*;

/// The record kinds' names and fields, by their byte (the members of the objects the JS layer
/// makes of them, in the order they are written).
const KINDS: [(&str, &[(&str, &str)]); 9] = [
    ("notify", &[("requestId", ID), ("reason", OPT_TEXT)]),
    ("close", &[("requestId", ID)]),
    ("tasksCancel", &[("requestId", ID), ("id", ID), ("taskId", TEXT)]),
    ("cancelled", &[("requestId", ID), ("timeout", OPT_TIMEOUT), ("message", OPT_TEXT), ("cascaded", BOOL)]),
    ("settled", &[("requestId", ID)]),
    ("inboundSettled", &[("requestId", ID)]),
    ("peerCancelled", &[("requestId", ID), ("reason", OPT_TEXT), ("watched", BOOL)]),
    ("event", &[("event", EVENT)]),
    // Not output: what `SessionCore.takeError()` gives, alone (`Records::refused`).
    ("refused", &[("name", TEXT), ("code", TEXT), ("message", TEXT), ("of", OPT_TEXT), ("requestId", OPT_ID)]),
];

/// The event types and their fields after `direction`, by their byte (the members of the
/// core's `Serialize`, in its order: `onEvent`'s objects are the same).
const EVENTS: [(&str, &[(&str, &str)]); 15] = [
    ("cancel-sent", &[("requestId", ID), ("method", TEXT), ("via", VIA), ("reason", OPT_TEXT), ("taskId", OPT_TEXT)]),
    ("cancel-deferred", &[("requestId", ID), ("method", TEXT)]),
    ("timed-out", &[("requestId", ID), ("method", TEXT), ("kind", TIMEOUT)]),
    ("task-cancel-answered", &[("requestId", ID), ("taskId", TEXT), ("outcome", OUTCOME), ("code", OPT_NUMBER)]),
    ("listen-ended", &[("requestId", ID), ("reason", OPT_TEXT)]),
    ("revision-negotiated", &[("version", TEXT), ("revision", REVISION), ("known", BOOL)]),
    ("cancel-not-sent", &[("requestId", ID), ("method", OPT_TEXT), ("why", NOT_SENT)]),
    ("cancel-received", &[("requestId", ID), ("method", TEXT), ("reason", OPT_TEXT)]),
    ("cancel-ignored", &[("requestId", OPT_ID), ("why", IGNORED), ("detail", OPT_TEXT), ("reason", OPT_TEXT)]),
    ("late-response-dropped", &[("requestId", ID), ("method", TEXT)]),
    ("late-progress-dropped", &[("requestId", ID), ("method", TEXT), ("progressToken", ID)]),
    ("response-suppressed", &[("requestId", ID), ("method", TEXT)]),
    ("duplicate-request-id", &[("requestId", ID), ("method", TEXT)]),
    ("inbound-forgotten", &[("requestId", ID), ("method", TEXT)]),
    ("cancel-cascaded", &[("requestId", ID), ("method", TEXT), ("parentId", ID)]),
];

/// `,"records":{"kinds":[…],"fields":[…],"events":[…],"names":{…}}`: how the JS layer reads
/// the records ([`KINDS`], [`EVENTS`], and the names of each set by index — the enums'
/// discriminants, which `as u8` writes).
pub(super) fn schema(json: &mut Json) {
    let fields = |json: &mut Json, fields: &&[(&str, &str)]| {
        json.array(fields.iter(), |json, (name, kind)| json.array([name, kind], |json, s| json.string(s)));
    };
    json.key("records");
    json.0.push_str("{\"kinds\":");
    json.array(KINDS.iter(), |json, (name, _)| json.string(name));
    json.key("fields");
    json.array(KINDS.iter(), |json, (_, f)| fields(json, f));
    json.key("events");
    json.array(EVENTS.iter(), |json, (name, f)| {
        json.0.push('[');
        json.string(name);
        json.0.push(',');
        fields(json, f);
        json.0.push(']');
    });
    json.key("names");
    json.0.push('{');
    json.items(NAME_SETS, |json, set| {
        json.string(set);
        json.0.push(':');
        json.array((0..).map_while(|i| name(set, i)), |json, n| json.string(n));
    });
    json.0.push_str("}}");
}

/// The field kinds that are a name of a set (`records.names`).
const NAME_SETS: [&str; 7] = [DIRECTION, VIA, TIMEOUT, OUTCOME, REVISION, NOT_SENT, IGNORED];

/// The `i`-th name of the set `set` (the member whose discriminant is `i`, which `as u8`
/// writes); `None` past the last, or for a kind that is no set.
fn name(set: &str, i: usize) -> Option<&'static str> {
    match set {
        DIRECTION => Direction::ALL.get(i).map(|d| d.as_str()),
        VIA => Via::ALL.get(i).map(|v| v.as_str()),
        TIMEOUT => TimeoutKind::ALL.get(i).map(|k| k.as_str()),
        OUTCOME => TaskCancelOutcome::ALL.get(i).map(|o| o.as_str()),
        REVISION => Revision::ALL.get(i).map(|r| r.as_str()),
        NOT_SENT => NotSent::ALL.get(i).map(|n| n.as_str()),
        IGNORED => Ignored::ALL.get(i).map(|n| n.as_str()),
        _ => None,
    }
}

/// The records written since the last [`Records::take_into`], oldest first.
#[derive(Debug, Default)]
pub(super) struct Records {
    bytes: Vec<u8>,
}

impl Records {
    /// A refused call, as `SessionCore.takeError()` gives it: one record of its own
    /// (`"refused"`) — `name` the JS class to throw, `code` its `ERR_…`, `message` its text,
    /// and either `of`, what the error's `requestId` is (a value the JS class holds), or
    /// `requestId`, a request id of the core's.
    pub(super) fn refused(
        name: &str,
        code: &str,
        message: &str,
        of: Option<&str>,
        request_id: Option<IdRef<'_>>,
    ) -> Vec<u8> {
        let mut r = Records::default();
        r.byte(record::REFUSED);
        r.text(name);
        r.text(code);
        r.text(message);
        r.opt_text(of);
        r.byte(u8::from(request_id.is_some()));
        if let Some(id) = request_id {
            r.id(id);
        }
        r.bytes
    }

    /// Moves the records' bytes into `into` (emptied first), and none are left: their room
    /// is `into`'s, which the next records take.
    pub(super) fn take_into(&mut self, into: &mut Vec<u8>) {
        into.clear();
        ::core::mem::swap(&mut self.bytes, into);
    }

    fn byte(&mut self, b: u8) {
        self.bytes.push(b);
    }

    fn number(&mut self, n: f64) {
        self.bytes.extend_from_slice(&n.to_le_bytes());
    }

    fn text(&mut self, t: &str) {
        self.bytes.extend_from_slice(&(t.len() as u32).to_le_bytes());
        self.bytes.extend_from_slice(t.as_bytes());
    }

    /// An event record's start: its kind, the type's index in `EVENTS`, the direction and the
    /// `requestId` when the type has one.
    fn event_head(&mut self, kind: u8, direction: u8, request_id: Option<IdRef<'_>>) {
        self.byte(record::EVENT);
        self.byte(kind);
        self.byte(direction);
        if let Some(id) = request_id {
            self.id(id);
        }
    }

    /// [`Self::event_head`] of a type whose next field is its `method`, and that field.
    fn event_method(&mut self, kind: u8, direction: u8, request_id: IdRef<'_>, method: &str) {
        self.event_head(kind, direction, Some(request_id));
        self.text(method);
    }

    fn opt_text(&mut self, t: Option<&str>) {
        self.byte(u8::from(t.is_some()));
        if let Some(t) = t {
            self.text(t);
        }
    }

    fn id(&mut self, id: IdRef<'_>) {
        match id {
            IdRef::Number(n) => {
                self.byte(0);
                // An id is within ±(2^53 − 1): exact as an `f64`.
                self.number(n as f64);
            }
            IdRef::Str(StrId::Text(t)) => {
                self.byte(1);
                self.text(t);
            }
            IdRef::Str(StrId::Packed(p)) => {
                self.byte(1);
                self.text(p.text(&mut [0; 16]));
            }
        }
    }
}

impl sealed::Sealed for Records {}

impl Sink for Records {
    fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn notify(&mut self, request_id: IdRef<'_>, reason: Option<&str>) {
        self.byte(record::NOTIFY);
        self.id(request_id);
        self.opt_text(reason);
    }

    fn close_stream(&mut self, request_id: IdRef<'_>) {
        self.byte(record::CLOSE);
        self.id(request_id);
    }

    fn tasks_cancel(&mut self, request_id: IdRef<'_>, cancel_id: IdRef<'_>, task_id: &str) {
        self.byte(record::TASKS_CANCEL);
        self.id(request_id);
        self.id(cancel_id);
        self.text(task_id);
    }

    fn cancelled(&mut self, request_id: IdRef<'_>, cause: CancelCause) {
        self.byte(record::CANCELLED);
        self.id(request_id);
        let CancelCause::TimedOut(kind) = cause else {
            // No `timeout`, no `message`; whether the request it was sent for was cancelled.
            self.byte(0);
            self.byte(0);
            self.byte(u8::from(cause == CancelCause::ParentCancelled));
            return;
        };
        self.byte(1);
        self.byte(kind as u8);
        // The `TimeoutError`'s text: "Request 7 timed out", "Request "7" timed out" (the id
        // as `RequestId`'s `Display` shows it).
        let mut message = String::from("Request ");
        request_id.push_to(&mut message);
        message.push_str(match kind {
            TimeoutKind::MaxTotal => " exceeded its maximum total timeout",
            _ => " timed out",
        });
        self.opt_text(Some(&message));
        self.byte(0);
    }

    fn settled(&mut self, request_id: IdRef<'_>, inbound: bool) {
        self.byte(if inbound { record::INBOUND_SETTLED } else { record::SETTLED });
        self.id(request_id);
    }

    fn peer_cancelled(&mut self, request_id: IdRef<'_>, reason: Option<&str>, watched: bool) {
        self.byte(record::PEER_CANCELLED);
        self.id(request_id);
        self.opt_text(reason);
        self.byte(u8::from(watched));
    }

    fn event(&mut self, e: EventRef<'_>) {
        // The type's byte is its index in `EVENTS`; every type but two starts with its
        // `requestId`; then the fields `EVENTS` lists, in its order.
        let d = e.direction as u8;
        match e.kind {
            EventKindOf::CancelSent { request_id, method, via, reason, task_id } => {
                self.event_head(0, d, Some(request_id));
                self.text(method);
                self.byte(via as u8);
                self.opt_text(reason);
                self.opt_text(task_id);
            }
            EventKindOf::CancelDeferred { request_id, method } => self.event_method(1, d, request_id, method),
            EventKindOf::TimedOut { request_id, method, kind } => {
                self.event_method(2, d, request_id, method);
                self.byte(kind as u8);
            }
            EventKindOf::TaskCancelAnswered { request_id, task_id, outcome, code } => {
                self.event_head(3, d, Some(request_id));
                self.text(task_id);
                self.byte(outcome as u8);
                self.byte(u8::from(code.is_some()));
                if let Some(code) = code {
                    self.number(code as f64);
                }
            }
            EventKindOf::ListenEnded { request_id, reason } => {
                self.event_head(4, d, Some(request_id));
                self.opt_text(reason);
            }
            EventKindOf::RevisionNegotiated { version, revision, known } => {
                self.event_head(5, d, None);
                self.text(version);
                self.byte(revision as u8);
                self.byte(u8::from(known));
            }
            EventKindOf::CancelNotSent { request_id, method, why } => {
                self.event_head(6, d, Some(request_id));
                self.opt_text(method);
                self.byte(why as u8);
            }
            EventKindOf::CancelReceived { request_id, method, reason } => {
                self.event_method(7, d, request_id, method);
                self.opt_text(reason);
            }
            EventKindOf::CancelIgnored { request_id, why, detail, reason } => {
                self.event_head(8, d, None);
                self.byte(u8::from(request_id.is_some()));
                if let Some(id) = request_id {
                    self.id(id);
                }
                self.byte(why as u8);
                self.opt_text(detail);
                self.opt_text(reason);
            }
            EventKindOf::LateResponseDropped { request_id, method } => self.event_method(9, d, request_id, method),
            EventKindOf::LateProgressDropped { request_id, method, progress_token } => {
                self.event_method(10, d, request_id, method);
                self.id(progress_token);
            }
            EventKindOf::ResponseSuppressed { request_id, method } => self.event_method(11, d, request_id, method),
            EventKindOf::DuplicateRequestId { request_id, method } => self.event_method(12, d, request_id, method),
            EventKindOf::InboundForgotten { request_id, method } => self.event_method(13, d, request_id, method),
            EventKindOf::CancelCascaded { request_id, method, parent_id } => {
                self.event_method(14, d, request_id, method);
                self.id(parent_id);
            }
        }
    }

    /// Nothing written (the common case after a response) is decided inline, with no write.
    #[inline]
    fn take_settled(&mut self, request_id: IdRef<'_>, inbound: bool) -> bool {
        !self.bytes.is_empty() && self.take_lone_settled(request_id, inbound)
    }
}

impl Records {
    /// [`Sink::take_settled`] with something written.
    #[inline(never)]
    fn take_lone_settled(&mut self, request_id: IdRef<'_>, inbound: bool) -> bool {
        let at = self.bytes.len();
        // The record it would be, written after what is there and compared with it: no
        // allocation once the room is there.
        self.settled(request_id, inbound);
        let taken = self.bytes.get(..at) == self.bytes.get(at..);
        self.bytes.truncate(if taken { 0 } else { at });
        taken
    }
}

/// An event as JSON text (the relay's events, `wasm::relay`): the members and their order
/// the core's `Serialize` gives them (absent options left out).
#[cfg(feature = "relay")]
pub(super) fn event_json(e: &crate::core::Event) -> String {
    let e = e.as_event_ref();
    let mut records = Records::default();
    records.event(e);
    let mut json = Json(String::with_capacity(96));
    Reader { bytes: &records.bytes, at: 1 }.event(&mut json);
    json.0
}

/// Reads records back as the JSON of the objects the JS layer makes of them (js/records.js
/// does the same in JS): for the relay's events, and to test the records against the core's
/// `Serialize`.
#[cfg(any(feature = "relay", test))]
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

#[cfg(any(feature = "relay", test))]
impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let all: &'a [u8] = self.bytes;
        let bytes = all.get(self.at..self.at + n).unwrap_or_default();
        self.at += n;
        bytes
    }

    fn byte(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or_default()
    }

    fn number(&mut self) -> f64 {
        f64::from_le_bytes(self.take(8).try_into().unwrap_or_default())
    }

    fn text(&mut self) -> &'a str {
        let len = u32::from_le_bytes(self.take(4).try_into().unwrap_or_default());
        ::core::str::from_utf8(self.take(len as usize)).unwrap_or_default()
    }

    /// `{"event":…}`'s value: `{"direction":…,"type":…,…}`.
    fn event(&mut self, json: &mut Json) {
        let (name, fields) = EVENTS.get(usize::from(self.byte())).copied().unwrap_or(("", &[]));
        json.0.push('{');
        json.string("direction");
        json.0.push(':');
        self.value(json, DIRECTION);
        json.key("type");
        json.string(name);
        self.fields(json, fields);
        json.0.push('}');
    }

    /// `,"name":value` of each field (an absent optional one left out).
    fn fields(&mut self, json: &mut Json, fields: &[(&str, &str)]) {
        for (name, kind) in fields {
            let kind = match kind.strip_suffix('?') {
                Some(kind) => {
                    if self.byte() == 0 {
                        continue;
                    }
                    kind
                }
                None => kind,
            };
            json.key(name);
            self.value(json, kind);
        }
    }

    fn value(&mut self, json: &mut Json, kind: &str) {
        match kind {
            ID if self.byte() == 0 => json.number(self.number() as i64),
            // A string id (its tag read above) or a text.
            ID | TEXT => json.string(self.text()),
            BOOL => json.0.push_str(if self.byte() == 1 { "true" } else { "false" }),
            NUMBER => json.number(self.number() as i64),
            EVENT => self.event(json),
            set => {
                let i = self.byte();
                json.string(name(set, usize::from(i)).unwrap_or_default());
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::{Json, Reader, Records, EVENTS, KINDS};
    use crate::core::{
        CancelCause, Direction, Event, EventKind, IdRef, Ignored, NotSent, PackedStr, RequestId, Revision, Sink, StrId,
        TaskCancelOutcome, TimeoutKind, Via,
    };
    use crate::prelude::*;

    include!("../../tests/common/every_event.rs");

    /// Each record, read back as the JS layer reads it.
    fn read_all(bytes: &[u8]) -> Vec<serde_json::Value> {
        let mut reader = Reader { bytes, at: 0 };
        let mut out = Vec::new();
        while reader.at < bytes.len() {
            let (name, fields) = KINDS[usize::from(reader.byte())];
            let mut json = Json(String::from("{\"o\":"));
            json.string(name);
            reader.fields(&mut json, fields);
            json.0.push('}');
            out.push(serde_json::from_str(&json.0).unwrap());
        }
        out
    }

    /// The event schema is written once, by the core's `Serialize` (which the typings are
    /// checked against, tests/typings.rs); the records `onEvent`'s objects are read from are
    /// written by hand here, with their schema beside them, so this checks both against it,
    /// member by member, value by value, in order.
    #[wasm_bindgen_test]
    fn every_event_reaches_on_event_as_the_core_serializes_it() {
        let mut seen = Vec::new();
        for e in every_kind() {
            let mut records = Records::default();
            records.event(e.as_event_ref());
            let read = read_all(&records.bytes);
            assert_eq!(read.len(), 1);
            let shipped = read[0].get("event").unwrap();
            let expected = serde_json::to_value(&e).unwrap();
            assert_eq!(shipped, &expected);
            // The same members in the same order (what `onEvent`'s objects list).
            let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(shipped), keys(&expected));
            seen.push(e.kind.type_name());
        }
        for (name, _) in EVENTS {
            assert!(seen.contains(&name), "{name} is not in every_kind()");
        }
    }

    /// Every other record, read back.
    #[wasm_bindgen_test]
    fn records_read_back_as_the_js_layer_acts_on_them() {
        let id = RequestId::String("a \"b\" é".into());
        let packed = IdRef::Str(StrId::Packed(PackedStr::new("req-7").unwrap()));
        let mut r = Records::default();
        r.notify(id.as_id_ref(), Some("why"));
        r.notify(IdRef::Number(-9_007_199_254_740_991), None);
        r.close_stream(packed);
        r.tasks_cancel(IdRef::Number(3), packed, "task-1");
        r.cancelled(IdRef::Number(4), CancelCause::Cancelled);
        r.cancelled(packed, CancelCause::TimedOut(TimeoutKind::MaxTotal));
        r.cancelled(IdRef::Number(5), CancelCause::TimedOut(TimeoutKind::Timeout));
        r.cancelled(IdRef::Number(8), CancelCause::ParentCancelled);
        r.settled(IdRef::Number(6), false);
        r.settled(packed, true);
        r.peer_cancelled(IdRef::Number(7), None, true);
        r.peer_cancelled(id.as_id_ref(), Some(""), false);
        let expected = serde_json::json!([
            { "o": "notify", "requestId": "a \"b\" é", "reason": "why" },
            { "o": "notify", "requestId": -9_007_199_254_740_991_i64 },
            { "o": "close", "requestId": "req-7" },
            { "o": "tasksCancel", "requestId": 3, "id": "req-7", "taskId": "task-1" },
            { "o": "cancelled", "requestId": 4, "cascaded": false },
            { "o": "cancelled", "requestId": "req-7", "timeout": "max-total", "message": "Request \"req-7\" exceeded its maximum total timeout", "cascaded": false },
            { "o": "cancelled", "requestId": 5, "timeout": "timeout", "message": "Request 5 timed out", "cascaded": false },
            { "o": "cancelled", "requestId": 8, "cascaded": true },
            { "o": "settled", "requestId": 6 },
            { "o": "inboundSettled", "requestId": "req-7" },
            { "o": "peerCancelled", "requestId": 7, "watched": true },
            { "o": "peerCancelled", "requestId": "a \"b\" é", "reason": "", "watched": false },
        ]);
        assert_eq!(serde_json::Value::Array(read_all(&r.bytes)), expected);
        let refusals = [
            Records::refused("UsageError", "ERR_X", "it \"failed\"", None, Some(packed)),
            Records::refused("InvalidArgumentError", "ERR_Y", "", Some("id"), None),
        ]
        .concat();
        assert_eq!(
            serde_json::Value::Array(read_all(&refusals)),
            serde_json::json!([
                { "o": "refused", "name": "UsageError", "code": "ERR_X", "message": "it \"failed\"", "requestId": "req-7" },
                { "o": "refused", "name": "InvalidArgumentError", "code": "ERR_Y", "message": "", "of": "id" },
            ])
        );
        let mut taken = vec![1, 2, 3];
        r.take_into(&mut taken);
        assert!(!taken.is_empty() && r.is_empty());
        let room = taken.capacity();
        r.take_into(&mut taken);
        assert!(taken.is_empty(), "nothing since");
        assert!(r.bytes.capacity() >= room, "the next records take the room of the ones read");
    }

    /// A settled record is taken when it is all there is, and only then.
    #[wasm_bindgen_test]
    fn a_lone_settled_record_is_taken() {
        let mut r = Records::default();
        assert!(!r.take_settled(IdRef::Number(1), false), "nothing there");
        r.settled(IdRef::Number(1), false);
        assert!(!r.take_settled(IdRef::Number(2), false));
        assert!(!r.take_settled(IdRef::Str(StrId::Text("1")), false));
        assert!(r.take_settled(IdRef::Number(1), false));
        assert!(r.is_empty());
        r.settled(IdRef::Str(StrId::Text("req-1")), false);
        assert!(r.take_settled(IdRef::Str(StrId::Packed(PackedStr::new("req-1").unwrap())), false), "packed or not");
        r.settled(IdRef::Number(1), false);
        r.settled(IdRef::Number(1), false);
        assert!(!r.take_settled(IdRef::Number(1), false), "not all there is");
        let mut both = Vec::new();
        r.take_into(&mut both);
        assert_eq!(read_all(&both).len(), 2, "what was not taken is left as it was");
        r.settled(IdRef::Number(1), true);
        assert!(!r.take_settled(IdRef::Number(1), false), "the peer's");
        assert!(r.take_settled(IdRef::Number(1), true), "the peer's, asked for");
        assert!(r.is_empty());
    }

    /// The names' indexes are the enums' discriminants, which the records write.
    #[wasm_bindgen_test]
    fn names_are_written_by_their_index() {
        fn in_order<T: Copy>(all: &[T], discriminant: fn(T) -> usize) {
            for (i, x) in all.iter().enumerate() {
                assert_eq!(discriminant(*x), i);
            }
        }
        in_order(&Direction::ALL, |d| d as usize);
        in_order(&Via::ALL, |v| v as usize);
        in_order(&TimeoutKind::ALL, |k| k as usize);
        in_order(&TaskCancelOutcome::ALL, |o| o as usize);
        in_order(&Revision::ALL, |r| r as usize);
        in_order(&NotSent::ALL, |n| n as usize);
        in_order(&Ignored::ALL, |n| n as usize);
    }
}
