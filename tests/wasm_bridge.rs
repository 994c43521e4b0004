//! The wasm `SessionCore` (the class the package's JS `CancellationSession` drives), in a
//! real JS engine: Node (`wasm-pack test --node`) and headless Chromium
//! (`WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome`). The entry points take
//! scalars — an id as an `ID`'s five, a string as its length — as the package's JS encoder
//! passes them; what the core says to do comes out of `takeOutput()` as records, which these
//! tests read (the JS layer that does them, js/output.js, is tested in pkg-tests against real
//! peers).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use js_sys::{Array, Function, Object, Promise, Reflect};
use mcp_cancel::core::{MessageFields, Method};
use mcp_cancel::wasm::{exports, SessionCore};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

/// Evaluates a JS function body with `args` bound to `a`, `b`, `c`.
fn js(body: &str, args: &[JsValue]) -> JsValue {
    let f = Function::new_with_args("a, b, c", body);
    let arr: Array = args.iter().collect();
    f.apply(&JsValue::UNDEFINED, &arr).unwrap()
}

/// A session with the settings of `extra` (members of an options object, as js/options.js
/// reads them), `send` as its exit and events on.
fn session_with(extra: &str) -> SessionCore {
    let options = js(&format!("return {{ {extra} }};"), &[]);
    with_options(&options, 1)
}

/// `verdicts.busy`: added to what a call returns when it left work for the JS layer's
/// `flush()` (output, or the timer to arm).
const BUSY: u32 = 0x4000_0000;

/// The member `name` of `o` as a number (`NaN` when it is not one), as js/options.js passes
/// a setting (these tests give only valid options: their checks are the JS layer's, tested
/// in pkg-tests).
fn number(o: &JsValue, name: &str) -> f64 {
    Reflect::get(o, &name.into()).ok().and_then(|v| v.as_f64()).unwrap_or(f64::NAN)
}

/// The member `path` of `SessionCore.constantsJson()`, as the JS layer reads it.
fn constant(path: &str) -> JsValue {
    let constants = js_sys::JSON::parse(&SessionCore::constants_json()).unwrap();
    js(&format!("return a.{path};"), &[constants])
}

/// The `optionFlags` of `o`'s `exposeErrorReasons` and timeouts (`role`/`transport`: the
/// defaults in these tests).
fn flags(o: &JsValue) -> u32 {
    let flag = |name: &str| constant(&format!("optionFlags.{name}")).as_f64().unwrap() as u32;
    let member = |name: &str| Reflect::get(o, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let mut flags = 0;
    if let Some(expose) = member("exposeErrorReasons").as_bool() {
        flags |= flag("exposeGiven") | if expose { flag("expose") } else { 0 };
    }
    let reset = member("resetTimeoutOnProgress").as_bool();
    if !number(o, "timeout").is_nan() || !number(o, "maxTotalTimeout").is_nan() || reset.is_some() {
        flags |= flag("timeoutGiven");
    }
    if reset == Some(true) {
        flags |= flag("resetOnProgress");
    }
    flags
}

/// `new SessionCore` with the settings of the options object `options` as the JS layer
/// reads them (js/options.js), `exits` (`constantsJson().exits` bits), events on.
fn with_options(options: &JsValue, exits: u32) -> SessionCore {
    SessionCore::new(
        flags(options),
        number(options, "tombstoneCapacity"),
        number(options, "inboundCapacity"),
        number(options, "maxReasonBytes"),
        number(options, "timeout"),
        number(options, "maxTotalTimeout"),
        exits,
        true,
        1.0,
    )
}

/// js/records.js's `RecordReader` (the JS layer's reader of `takeOutput()`'s bytes), bound to
/// the core's schema: `(bytes) => records`.
fn record_reader() -> Function {
    let source = include_str!("../js/records.js").replace("export class", "class");
    let read = Function::new_with_args(
        "bytes, schema",
        &format!("{source}\nreturn new RecordReader(schema).read(bytes.buffer, bytes.byteOffset, bytes.length);"),
    );
    let schema = js("return JSON.parse(a).records;", &[SessionCore::constants_json().into()]);
    js("return (bytes) => a(bytes, b);", &[read.into(), schema]).unchecked_into()
}

/// The `n` bytes `takeOutput()` or `takeError()` took, as JS reads them: in place, at
/// `outputAt()`.
fn taken(s: &mut SessionCore, n: u32) -> js_sys::Uint8Array {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    js_sys::Uint8Array::new_with_byte_offset_and_length(&memory.buffer(), s.output_at(), n)
}

/// The records `takeOutput()` gives now (none: an empty list), read as the JS layer reads them.
fn records(s: &mut SessionCore) -> Vec<Value> {
    match s.take_output() {
        0 => Vec::new(),
        n => {
            let read = record_reader().call1(&JsValue::UNDEFINED, &taken(s, n)).unwrap();
            let text = js_sys::JSON::stringify(&read).unwrap().as_string().unwrap();
            match serde_json::from_str(&text).unwrap() {
                Value::Array(records) => records,
                other => panic!("not an array: {other}"),
            }
        }
    }
}

/// What each record says to do, as `o` (an event: `event <type>`).
fn kinds(records: &[Value]) -> Vec<String> {
    let kind = |r: &Value| match r["o"].as_str().unwrap() {
        "event" => format!("event {}", r["event"]["type"].as_str().unwrap()),
        o => o.to_owned(),
    };
    records.iter().map(kind).collect()
}

/// `NO_STRING` of `SessionCore.constantsJson()`: the length of an absent string argument.
const NO: u32 = u32::MAX;

/// `numberId` of `SessionCore.constantsJson()`: the `len` of an id that crosses as a number.
const NUMBER_ID: u32 = u32::MAX;

/// `inBuffer` of `SessionCore.constantsJson()`: the bit of an id's `len` that says its string
/// is the next of the call's strings.
const IN_BUFFER: u32 = 0x8000_0000;

/// `idLen[tag]` of `SessionCore.constantsJson()`: the `len` of an id that is neither a number
/// nor a string (`tags`: absent 0, null 1, boolean 2, array 5, object 6, oversized 7).
fn id_len(tag: u32) -> u32 {
    u32::MAX - 1 - tag
}

/// An id as the JS encoder crosses it: the five scalars of an `ID`, and its string when it
/// is written with the call's strings (at its place among them).
#[derive(Clone)]
struct Id {
    num: f64,
    len: u32,
    w: [u32; 3],
    text: Option<String>,
}

impl Id {
    /// `id` crossed: a number as itself, an ASCII string of up to 11 bytes packed into words
    /// (unless `buffered`), any other string in the buffer, anything else by its tag.
    fn of(id: &JsValue, buffered: bool) -> Id {
        let tagged = |tag| Id { num: 0.0, len: id_len(tag), w: [0; 3], text: None };
        match (id.as_f64(), id.as_string()) {
            (Some(n), _) => Id { num: n, len: NUMBER_ID, w: [0; 3], text: None },
            (_, Some(text)) if !buffered && text.len() <= 11 && text.is_ascii() => {
                let mut w = [0u32; 3];
                for (i, b) in text.bytes().enumerate() {
                    w[i / 4] |= u32::from(b) << (8 * (i % 4));
                }
                Id { num: 0.0, len: text.len() as u32, w, text: None }
            }
            (_, Some(text)) => Id { num: 0.0, len: IN_BUFFER | text.len() as u32, w: [0; 3], text: Some(text) },
            _ if id.is_null() => tagged(1),
            _ if id.as_bool().is_some() => tagged(2),
            _ if id.is_undefined() => tagged(0),
            _ if Array::is_array(id) => tagged(5),
            _ => tagged(6),
        }
    }

    /// [`Id::of`], a string packed when it can be.
    fn new(id: &JsValue) -> Id {
        Id::of(id, false)
    }

    /// An absent id (`idLen.absent`).
    fn absent() -> Id {
        Id::new(&JsValue::UNDEFINED)
    }

    fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }
}

/// Writes the strings of the next call as js/encoder.js's `Encoder.open`/`put` do — their UTF-8 one
/// after the other into the session's scratch buffer, or a buffer `input()` makes when they
/// need more — and returns each one's length in bytes (`NO` when absent), in order.
fn put(s: &mut SessionCore, strings: &[Option<&str>]) -> Vec<u32> {
    let bytes: Vec<u8> = strings.iter().flatten().flat_map(|t| t.bytes()).collect();
    let scratch_bytes = constant("scratchBytes").as_f64().unwrap() as usize;
    let at = if bytes.len() <= scratch_bytes { s.scratch_at() } else { s.input_at(bytes.len() as u32) };
    assert_ne!(at, 0, "somewhere to write");
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    js_sys::Uint8Array::new(&memory.buffer()).set(&js_sys::Uint8Array::from(&bytes[..]), at);
    strings.iter().map(|t| t.map_or(NO, |t| t.len() as u32)).collect()
}

/// An id crossed, its string (if any) written with `put` as the call's only string.
fn id_put(s: &mut SessionCore, id: &JsValue) -> Id {
    let id = Id::new(id);
    put(s, &[id.text()]);
    id
}

/// A cancel's reason as the JS class crosses it (js/encoder.js `Encoder.crossReason`): its kind
/// (`constantsJson().reasons`) and its strings.
fn crossed_reason(reason: &JsValue) -> (u32, Option<String>, Option<String>) {
    if let Some(text) = reason.as_string() {
        return (1, Some(text), None);
    }
    if reason.is_undefined() {
        return (0, None, None);
    }
    if reason.is_object() {
        let member = |name: &str| Reflect::get(reason, &name.into()).unwrap_or(JsValue::UNDEFINED).as_string();
        if let Some(name) = member("name") {
            return (2, Some(name), member("message"));
        }
    }
    (3, js_sys::JSON::stringify(reason).ok().and_then(|s| s.as_string()), None)
}

/// The error of a refused call (`verdicts.failed`): `SessionCore.takeError()`'s record, read.
fn refusal(s: &mut SessionCore) -> JsValue {
    let n = s.take_error();
    assert_ne!(n, 0, "a refused call keeps its error");
    let records = record_reader().call1(&JsValue::UNDEFINED, &taken(s, n)).unwrap();
    Reflect::get_u32(&records, 0).unwrap()
}

/// `verdicts.failed`.
const FAILED: u32 = 8;

/// `cancel` as the JS layer's listener calls it when the caller's signal aborted: the id
/// and the reason as scalars; what it returns.
fn signal_aborted(s: &mut SessionCore, id: JsValue, reason: JsValue) -> u32 {
    let i = Id::new(&id);
    let (kind, first, second) = crossed_reason(&reason);
    let l = put(s, &[i.text(), first.as_deref(), second.as_deref()]);
    s.cancel(true, i.num, i.len, i.w[0], i.w[1], i.w[2], kind, l[1], l[2])
}

/// `cancel` as the JS class calls it: whether a cancel was made, or the refusal.
fn cancel(s: &mut SessionCore, id: JsValue, reason: JsValue) -> Result<bool, JsValue> {
    let i = Id::new(&id);
    let (kind, first, second) = crossed_reason(&reason);
    let l = put(s, &[i.text(), first.as_deref(), second.as_deref()]);
    match s.cancel(false, i.num, i.len, i.w[0], i.w[1], i.w[2], kind, l[1], l[2]) & !BUSY {
        FAILED => Err(refusal(s)),
        made => Ok(made == 1),
    }
}

/// `isInFlight` as the JS class calls it.
fn in_flight(s: &mut SessionCore, id: JsValue) -> bool {
    let i = id_put(s, &id);
    s.is_in_flight(i.num, i.len, i.w[0], i.w[1], i.w[2])
}

/// `watch` (`signal(id)`, or with `inbound` `inboundSignal(id)`) as the JS class calls it.
fn watch(s: &mut SessionCore, inbound: bool, id: JsValue) -> u32 {
    let i = id_put(s, &id);
    s.watch(inbound, i.num, i.len, i.w[0], i.w[1], i.w[2])
}

fn code(method: &str) -> i32 {
    Method::from_name(method).map_or(0, |m| m.code() as i32)
}

/// `track` as the JS class calls it, with `options` (an object or `undefined`) read as
/// js/options.js reads them.
fn track(s: &mut SessionCore, id: JsValue, method: &str, options: JsValue) -> Result<(), JsValue> {
    let i = Id::new(&id);
    let name = (code(method) == 0).then(|| method.to_owned());
    let member = |o: &JsValue, name: &str| {
        if o.is_object() {
            Reflect::get(o, &name.into()).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    };
    let (timeout, max_total) = (number(&options, "timeout"), number(&options, "maxTotalTimeout"));
    let flags = if options.is_object() { flags(&options) } else { 0 };
    let signal = member(&options, "signal");
    let signal_state = match member(&signal, "aborted").as_bool() {
        _ if signal.is_undefined() => 0,
        Some(true) => 2,
        _ => 1,
    };
    let params = member(&options, "params");
    let token = Id::new(&member(&member(&params, "_meta"), "progressToken"));
    let task = member(&params, "task").is_object();
    let task_id = member(&params, "taskId").as_string();
    let l = put(s, &[i.text(), name.as_deref(), token.text(), task_id.as_deref()]);
    let verdict = s.track(
        i.num,
        i.len,
        i.w[0],
        i.w[1],
        i.w[2],
        code(method),
        l[1],
        signal_state,
        token.num,
        token.len,
        token.w[0],
        token.w[1],
        token.w[2],
        task,
        l[3],
        timeout,
        max_total,
        flags,
    );
    match verdict & !BUSY {
        0 => Ok(()),
        FAILED => Err(refusal(s)),
        // `verdicts.aborted`: the JS class throws the signal's reason.
        4 => Err(member(&signal, "reason")),
        v => panic!("track: verdict {v}"),
    }
}

/// `verdicts.settled` of `SessionCore.constantsJson()`: added to a response's verdict when it
/// settled a watched request (the JS layer then releases its objects itself).
const SETTLED: u32 = 0x80;

fn response_verdict(s: &mut SessionCore, id: JsValue) -> u32 {
    let i = id_put(s, &id);
    s.response(i.num, i.len, i.w[0], i.w[1], i.w[2], 0, NO, NO, NO, NO, NO, false, f64::NAN) & !BUSY
}

fn should_drop_response(s: &mut SessionCore, id: JsValue) -> bool {
    response_verdict(s, id) & !SETTLED == 1
}

fn should_drop_progress(s: &mut SessionCore, token: JsValue) -> bool {
    let t = id_put(s, &token);
    s.progress(t.num, t.len, t.w[0], t.w[1], t.w[2]) & !BUSY == 1
}

/// `incoming` of a message whose `id` and `arg` crossed as `id` and `arg`, its strings (the
/// method's name, the reason, `params.taskId`, `params.status`) written with theirs, in the
/// order of the arguments.
#[allow(clippy::too_many_arguments)]
fn incoming(
    s: &mut SessionCore,
    id: &Id,
    method: &str,
    read: u32,
    params_tag: u32,
    arg: &Id,
    (reason_tag, reason): (u32, Option<&str>),
    task: bool,
) -> u32 {
    let name = (code(method) == 0).then_some(method);
    let l = put(s, &[id.text(), name, arg.text(), reason, None, None]);
    s.incoming(
        id.num,
        id.len,
        id.w[0],
        id.w[1],
        id.w[2],
        code(method),
        l[1],
        read,
        params_tag,
        arg.num,
        arg.len,
        arg.w[0],
        arg.w[1],
        arg.w[2],
        reason_tag,
        l[3],
        l[4],
        l[5],
        task,
    )
}

/// `outgoing` of a message with `signal`, whose `id` crossed as `id` (no `arg`, reason or
/// task id read).
fn outgoing(s: &mut SessionCore, signal: u32, id: &Id, method_code: i32, read: u32) -> u32 {
    let arg = Id::absent();
    put(s, &[id.text()]);
    s.outgoing(
        signal,
        id.num,
        id.len,
        id.w[0],
        id.w[1],
        id.w[2],
        method_code,
        NO,
        read,
        0,
        arg.num,
        arg.len,
        arg.w[0],
        arg.w[1],
        arg.w[2],
        0,
        NO,
        NO,
        false,
    )
}

/// A request from the peer (`id`, `method`), as `shouldDropIncoming` passes it.
fn peer_request(s: &mut SessionCore, id: JsValue, method: &str) -> u32 {
    // `params.task` read (absent): a request that may be task-augmented needs it.
    incoming(s, &Id::new(&id), method, MessageFields::TASK.0, 0, &Id::absent(), (0, None), false)
}

/// A `notifications/cancelled { requestId, reason }` from the peer.
fn peer_cancel(s: &mut SessionCore, id: JsValue, reason: &str) -> u32 {
    let read = MessageFields::PARAMS.with(MessageFields::REQUEST_ID).with(MessageFields::REASON).0;
    incoming(s, &Id::absent(), "notifications/cancelled", read, 6, &Id::new(&id), (4, Some(reason)), false)
}

/// Our response to the peer's request `id` (`beforeSend`): the verdict (`1` = suppressed).
fn our_response(s: &mut SessionCore, id: JsValue) -> u32 {
    outgoing(s, 0, &Id::new(&id), -1, 0)
}

fn track_options(signal: &JsValue, token: Option<f64>) -> JsValue {
    let o = Object::new();
    Reflect::set(&o, &"signal".into(), signal).unwrap();
    if let Some(t) = token {
        js("a.params = { _meta: { progressToken: b } };", &[o.clone().into(), t.into()]);
    }
    o.into()
}

async fn sleep(ms: u32) {
    let p: Promise = js("return new Promise((r) => setTimeout(r, a));", &[ms.into()]).unchecked_into();
    JsFuture::from(p).await.unwrap();
}

#[wasm_bindgen_test]
fn the_constants_are_json_with_every_method_at_its_code_and_the_verdicts_the_entry_points_return() {
    let methods: Array = constant("methods").dyn_into().unwrap();
    assert_eq!(methods.length() as usize, Method::ALL.len());
    for m in Method::ALL {
        assert_eq!(methods.get(m.code() - 1).as_string().as_deref(), Some(m.name()));
        let fields = constant(&format!("incoming[{}]", m.code())).as_f64().unwrap();
        assert_eq!(fields as u32, Method::fields(Some(m), true).0, "{}", m.name());
    }
    assert_eq!(constant("incoming.length").as_f64(), Some((Method::ALL.len() + 1) as f64));
    assert_eq!(constant("fields.reason").as_f64(), Some(f64::from(MessageFields::REASON.0)));
    assert_eq!(constant("tags.oversized").as_f64(), Some(7.0));
    assert_eq!(constant("verdicts.settled").as_f64(), Some(f64::from(SETTLED)));
    assert_eq!(constant("maxPeerString").as_f64(), Some(1024.0));
    assert_eq!(constant("maxReasonBytes").as_f64(), Some(4096.0));
    let meta = constant("fields.metaProtocolVersion").as_f64();
    assert_eq!(meta, Some(f64::from(MessageFields::META_PROTOCOL_VERSION.0)));
    let text = |path: &str| constant(path).as_string();
    assert_eq!(text("names.cancelled").as_deref(), Some("notifications/cancelled"));
    assert_eq!(text("names.tasksCancel").as_deref(), Some("tasks/cancel"));
    assert_eq!(text("names.metaProtocolVersion").as_deref(), Some("io.modelcontextprotocol/protocolVersion"));
    assert_eq!(constant("timeoutError.code").as_f64(), Some(-32001.0));
    assert_eq!(text("timeoutError.message").as_deref(), Some("Request timed out"));
    for (name, value) in [("aborted", 4.0), ("tracked", 32.0), ("watched", 64.0)] {
        assert_eq!(constant(&format!("verdicts.{name}")).as_f64(), Some(value), "{name}");
    }
    assert_eq!(constant("numberId").as_f64(), Some(f64::from(NUMBER_ID)));
    assert_eq!(constant("inBuffer").as_f64(), Some(f64::from(IN_BUFFER)));
    for (name, tag) in [("absent", 0), ("null", 1), ("boolean", 2), ("array", 5), ("object", 6), ("oversized", 7)] {
        assert_eq!(constant(&format!("idLen.{name}")).as_f64(), Some(f64::from(id_len(tag))), "{name}");
        assert_eq!(constant(&format!("tags.{name}")).as_f64(), Some(f64::from(tag)), "{name}");
    }
    assert_eq!(constant("maxWordsId").as_f64(), Some(11.0));
    assert!(constant("watchBit").is_undefined());
    assert_eq!(constant("exits.send").as_f64(), Some(1.0));
    assert_eq!(constant("exits.closeStream").as_f64(), Some(2.0));
}

#[wasm_bindgen_test]
fn a_message_sent_with_a_signal_that_aborted_is_refused_only_when_it_is_a_request() {
    let mut s = session_with("");
    let read = Method::fields(None, false).0;
    let send = |s: &mut SessionCore, method: &str, id: Option<f64>, signal: u32| {
        let id = id.map_or_else(Id::absent, |n| Id::new(&n.into()));
        outgoing(s, signal, &id, code(method), read)
    };
    // Aborted: not tracked, not to be sent.
    assert_eq!(send(&mut s, "tools/call", Some(1.0), 2), 4);
    assert!(!in_flight(&mut s, JsValue::from(1)));
    // Live: tracked and watched; none: tracked.
    assert_eq!(send(&mut s, "tools/call", Some(2.0), 1), 0x20 | 0x40);
    assert_eq!(send(&mut s, "tools/call", Some(3.0), 0), 0x20);
    assert!(in_flight(&mut s, JsValue::from(2)) && in_flight(&mut s, JsValue::from(3)));
    // A notification with an aborted signal is sent: no signal can belong to it.
    assert_eq!(send(&mut s, "notifications/progress", None, 2), 0);
    assert_eq!(records(&mut s), Vec::<Value>::new());
    // A "notifications/cancelled" with an id is a request (a malformed one): tracked and
    // watched like any other, and the JS layer is told so.
    let all = u32::MAX;
    let cancelled = outgoing(&mut s, 1, &Id::new(&9.into()), code("notifications/cancelled"), all);
    assert_eq!(cancelled, 0x20 | 0x40);
    assert!(in_flight(&mut s, JsValue::from(9)));
}

#[wasm_bindgen_test]
fn a_request_sent_with_a_live_signal_needs_send() {
    let mut bare = with_options(&Object::new().into(), 0);
    let read = Method::fields(Method::from_name("tools/call"), false).0;
    let send = |bare: &mut SessionCore, signal: u32, num: f64| {
        outgoing(bare, signal, &Id::new(&num.into()), code("tools/call"), read)
    };
    assert_eq!(send(&mut bare, 1, 1.0) & !BUSY, FAILED, "with a live signal");
    let err = refusal(&mut bare);
    assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_SEND_REQUIRED"));
    assert_eq!(Reflect::get(&err, &"of".into()).unwrap(), JsValue::from("id"));
    let message = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
    assert!(message.starts_with("beforeSend(): a request with a `signal`"), "{message}");
    assert!(!in_flight(&mut bare, 1.into()));
    // A fraction is no id: that is said first.
    assert_eq!(send(&mut bare, 1, 1.5) & !BUSY, FAILED);
    assert_eq!(Reflect::get(&refusal(&mut bare), &"code".into()).unwrap(), JsValue::from("ERR_INVALID_REQUEST_ID"));
    // Without a signal: tracked.
    assert_eq!(send(&mut bare, 0, 2.0) & !BUSY, 0x20);
    assert!(in_flight(&mut bare, 2.into()));
}

#[wasm_bindgen_test]
fn an_already_aborted_signal_throws_its_reason_and_queues_nothing() {
    let mut session = session_with("");
    let controller = js("const ctl = new AbortController(); ctl.abort(a); return ctl;", &["early".into()]);
    let signal = Reflect::get(&controller, &"signal".into()).unwrap();
    let err = track(&mut session, 1.into(), "tools/call", track_options(&signal, None)).unwrap_err();
    assert_eq!(err, JsValue::from("early"));
    assert_eq!(records(&mut session), Vec::<Value>::new());
    assert_eq!(session.next_deadline(), -2.0, "no timer to arm");
    assert!(!in_flight(&mut session, 1.into()));
}

#[wasm_bindgen_test]
fn a_signal_aborting_during_the_request_queues_one_cancel_with_the_string_reason() {
    let mut session = session_with("");
    let signal = js("return new AbortController().signal;", &[]);
    track(&mut session, 7.into(), "tools/call", track_options(&signal, Some(7.0))).unwrap();
    assert_eq!(
        signal_aborted(&mut session, 7.into(), "user pressed stop".into()),
        1 | BUSY,
        "made, and work for flush()"
    );
    let out = records(&mut session);
    assert_eq!(kinds(&out), ["event cancel-sent", "notify", "cancelled", "settled"]);
    assert_eq!(
        out[0]["event"],
        json!({"direction":"outbound","type":"cancel-sent","requestId":7,"method":"tools/call","via":"notification","reason":"user pressed stop"})
    );
    assert_eq!(out[1], json!({"o":"notify","requestId":7,"reason":"user pressed stop"}));
    assert_eq!(out[2], json!({"o":"cancelled","requestId":7,"cascaded":false}));
    assert_eq!(out[3], json!({"o":"settled","requestId":7}));
    // Again: nothing more goes on the wire (an event says why).
    signal_aborted(&mut session, 7.into(), "again".into());
    assert_eq!(kinds(&records(&mut session)), ["event cancel-not-sent"]);
    // Late progress and the late result are dropped.
    assert!(should_drop_progress(&mut session, 7.into()));
    assert!(should_drop_response(&mut session, 7.into()));
}

#[wasm_bindgen_test]
fn the_default_abort_error_is_not_sent_to_the_peer() {
    let notify = |s: &mut SessionCore| records(s).into_iter().find(|r| r["o"] == "notify").unwrap();
    let mut session = session_with("");
    let signal = js("return new AbortController().signal;", &[]);
    track(&mut session, "a".into(), "tools/call", track_options(&signal, None)).unwrap();
    let abort = js("return new DOMException('This operation was aborted', 'AbortError');", &[]);
    signal_aborted(&mut session, "a".into(), abort);
    assert_eq!(notify(&mut session)["reason"], "Request cancelled");

    let mut open = session_with("exposeErrorReasons: true");
    track(&mut open, "b".into(), "tools/call", track_options(&signal, None)).unwrap();
    signal_aborted(&mut open, "b".into(), js("return new Error('db password rejected');", &[]));
    assert_eq!(notify(&mut open)["reason"], "Error: db password rejected");

    let mut timed = session_with("");
    track(&mut timed, 3.into(), "tools/call", track_options(&signal, None)).unwrap();
    signal_aborted(&mut timed, 3.into(), js("return new DOMException('signal timed out', 'TimeoutError');", &[]));
    assert_eq!(notify(&mut timed)["reason"], "Request timed out");
}

#[wasm_bindgen_test]
fn a_response_settles_a_watched_request_and_a_later_abort_sends_nothing() {
    let mut session = session_with("");
    let signal = js("return new AbortController().signal;", &[]);
    track(&mut session, 1.into(), "tools/call", track_options(&signal, None)).unwrap();
    let i = id_put(&mut session, &1.into());
    assert_eq!(
        session.response(i.num, i.len, i.w[0], i.w[1], i.w[2], 0, NO, NO, NO, NO, NO, false, f64::NAN),
        SETTLED,
        "delivered, and it settled the watched request: no output (not BUSY), the JS layer removes the listener \
         itself, told by the verdict"
    );
    signal_aborted(&mut session, 1.into(), "late".into());
    assert_eq!(kinds(&records(&mut session)), ["event cancel-not-sent"]);
}

#[wasm_bindgen_test]
fn the_js_layers_flush_may_call_back_into_the_session() {
    let holder = Object::new();
    let seen = Array::new();
    let h = exports::new_session(0, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, 1, true, 1.0);
    assert_ne!(h, 0);
    Reflect::set(&holder, &"h".into(), &h.into()).unwrap();
    Reflect::set(&holder, &"exports".into(), &wasm_bindgen::exports()).unwrap();
    Reflect::set(&holder, &"memory".into(), &wasm_bindgen::memory()).unwrap();
    // flush() as the JS layer's: after a call that says BUSY, takes the output and, doing it,
    // calls the session again (whose own BUSY it flushes the same way). Through the module's
    // exports, by handle, as pkg/web/mcp_cancel_calls.js (scripts/write-calls.mjs) calls them.
    let flush: Function = js(
        "const x = a.exports, h = a.h; \
         const flush = () => { let n; while ((n = x.takeOutput(h)) !== 0) \
           for (const r of c(new Uint8Array(a.memory.buffer, x.outputAt(h), n))) { \
           b.push(r.o === 'event' ? r.event.type : r.o); \
           if (r.o === 'notify' && (x.response(h, r.requestId, -1, 0, 0, 0, 0, -1, -1, -1, -1, -1, false, NaN) & 0x40000000)) flush(); } }; \
         return flush;",
        &[holder.clone().into(), seen.clone().into(), record_reader().into()],
    )
    .unchecked_into();
    js(
        "const x = a.exports, h = a.h; \
         if (x.track(h, 9, -1, 0, 0, 0, 8, -1, 1, 0, -2, 0, 0, 0, false, -1, NaN, NaN, 0) !== 0) throw new Error('refused'); \
         new Uint8Array(a.memory.buffer, x.scratch(h), 4).set([115, 116, 111, 112]); \
         if (!(x.cancel(h, true, 9, -1, 0, 0, 0, 1, 4, -1) & 0x40000000)) throw new Error('not busy'); \
         b();",
        &[holder.clone().into(), flush.into()],
    );
    // The nested call's output is done by its own flush(), before the rest of the outer one's.
    let types = js("return a.join(',');", &[seen.into()]);
    assert_eq!(types, JsValue::from("cancel-sent,notify,late-response-dropped,cancelled,settled"));
    // Still usable afterwards.
    js(
        "const x = a.exports, h = a.h; \
         x.track(h, 10, -1, 0, 0, 0, 8, -1, 0, 0, -2, 0, 0, 0, false, -1, NaN, NaN, 0); \
         if (!x.isInFlight(h, 10, -1, 0, 0, 0)) throw new Error('not tracked');",
        &[holder.into()],
    );
    exports::free_session(h);
}

#[wasm_bindgen_test]
fn a_handle_names_one_session_until_it_is_freed() {
    let session = || exports::new_session(0, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, 1, true, 1.0);
    let (a, b) = (session(), session());
    assert!(a != 0 && b != 0 && a != b);
    let track = |h: u32, n: f64| {
        let absent = id_len(0);
        exports::track(
            h,
            n,
            NUMBER_ID,
            0,
            0,
            0,
            code("tools/call"),
            NO,
            0,
            0.0,
            absent,
            0,
            0,
            0,
            false,
            NO,
            f64::NAN,
            f64::NAN,
            0,
        )
    };
    assert_eq!(track(a, 1.0) & !BUSY, 0);
    assert_eq!(exports::in_flight_count(a), 1);
    assert_eq!(exports::in_flight_count(b), 0, "each handle its own session");
    exports::free_session(a);
    // A freed handle names nothing: each entry point does nothing and says so.
    assert_eq!(exports::in_flight_count(a), 0);
    assert_eq!(track(a, 2.0), FAILED, "refused");
    assert_eq!(exports::response(a, 1.0, NUMBER_ID, 0, 0, 0, 0, NO, NO, NO, NO, NO, false, f64::NAN), 0, "passed");
    assert!(!exports::is_in_flight(a, 1.0, NUMBER_ID, 0, 0, 0));
    assert_eq!(exports::take_output(a), 0);
    exports::free_session(a);
    // Its place is taken by the next session, under another handle; the stale one still
    // names nothing.
    let c = session();
    assert!(c != a && c != 0);
    assert_eq!(exports::in_flight_count(a), 0);
    assert_eq!(track(c, 1.0) & !BUSY, 0);
    assert_eq!(exports::in_flight_count(c), 1);
    // Handles that were never given.
    for h in [0, u32::MAX, 0x00ff_ffff, 0x0100_0000] {
        assert_eq!(exports::in_flight_count(h), 0, "{h:#x}");
        exports::free_session(h);
    }
    assert_eq!(exports::in_flight_count(c), 1);
    assert_eq!(exports::in_flight_count(b), 0);
    exports::free_session(b);
    exports::free_session(c);
}

#[wasm_bindgen_test]
fn a_peer_cancel_hands_the_peers_reason_to_the_js_layer_and_our_response_is_suppressed() {
    let mut session = session_with("");
    assert_eq!(peer_request(&mut session, 0.into(), "sampling/createMessage"), 0);
    assert_eq!(watch(&mut session, true, 0.into()), 1, "its signal was asked for");
    assert_eq!(watch(&mut session, true, 1.into()), 0, "no such request");
    assert_eq!(
        peer_cancel(&mut session, 0.into(), "user closed it"),
        BUSY,
        "a valid cancel is passed on (its records below)"
    );
    let out = records(&mut session);
    assert_eq!(kinds(&out), ["event cancel-received", "peerCancelled"]);
    assert_eq!(out[1], json!({"o":"peerCancelled","requestId":0,"reason":"user closed it","watched":true}));
    assert_eq!(our_response(&mut session, 0.into()), 1 | BUSY, "our response is suppressed (its records below)");
    assert_eq!(kinds(&records(&mut session)), ["event response-suppressed"]);
}

#[wasm_bindgen_test]
fn a_watched_request_cancelled_by_cancel_gets_its_reason_and_settles() {
    let mut session = session_with("");
    track(&mut session, 5.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert_eq!(watch(&mut session, false, 5.into()), 1);
    assert!(cancel(&mut session, 5.into(), "stop\n\"quoted\"\u{1}".into()).unwrap(), "a cancel was made");
    let out = records(&mut session);
    assert_eq!(kinds(&out), ["event cancel-sent", "notify", "cancelled", "settled"]);
    assert_eq!(out[1]["reason"], "stop\n\"quoted\"\u{1}", "escaped in JSON, the same text");
    assert_eq!(watch(&mut session, false, 5.into()), 0, "not in flight any more");
    // A completed request settles without being cancelled.
    track(&mut session, 6.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert_eq!(watch(&mut session, false, 6.into()), 1);
    assert_eq!(response_verdict(&mut session, 6.into()), SETTLED, "delivered; the verdict says it settled");
    assert_eq!(records(&mut session), Vec::<Value>::new());
}

#[wasm_bindgen_test]
async fn a_timeout_arms_the_js_layers_timer_and_cancels_when_it_fires() {
    let mut session = session_with("timeout: 20");
    track(&mut session, 8.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert_eq!(watch(&mut session, false, 8.into()), 1);
    let delay = session.next_deadline();
    // The deadline is in whole ms of the host's clock, which may have a fraction.
    assert!((0.0..21.0).contains(&delay), "armed for the deadline: {delay} ms");
    assert_eq!(session.next_deadline(), -2.0, "where it is");
    sleep(60).await;
    assert_eq!(session.fire_timer(), BUSY, "work for flush(): the output below");
    let out = records(&mut session);
    assert_eq!(kinds(&out), ["event timed-out", "event cancel-sent", "notify", "cancelled", "settled"]);
    assert_eq!(out[2]["reason"], "Request timed out");
    assert_eq!(
        out[3],
        json!({"o":"cancelled","requestId":8,"timeout":"timeout","message":"Request 8 timed out","cascaded":false})
    );
    assert_eq!(session.next_deadline(), -2.0, "nothing left to time, and the timer that fired is gone");
    // A deadline that goes away before its timer fires disarms it.
    track(&mut session, 9.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert!(session.next_deadline() >= 0.0);
    assert_eq!(response_verdict(&mut session, 9.into()), 0);
    assert_eq!(session.next_deadline(), -1.0, "disarm it");
}

#[wasm_bindgen_test]
fn the_settings_that_are_strings_come_by_configure() {
    let mut session = session_with("");
    let l = put(&mut session, &[Some("stopped"), None, None, Some("2025-06-18")]);
    assert_eq!(session.configure(l[0], l[1], l[2], l[3]), BUSY, "the protocol version's event");
    let out = records(&mut session);
    assert_eq!(kinds(&out), ["event revision-negotiated"]);
    assert_eq!(out[0]["event"]["revision"], "2025-06-18");
    // The generic reason replaces an error's text (not exposed by default).
    track(&mut session, 1.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert!(cancel(&mut session, 1.into(), js("return new Error('secret');", &[])).unwrap());
    let notify = records(&mut session).into_iter().find(|r| r["o"] == "notify").unwrap();
    assert_eq!(notify["reason"], "stopped");
    // Nothing given: nothing to do.
    let mut plain = session_with("");
    assert_eq!(plain.configure(NO, NO, NO, NO), 0);
    assert_eq!(records(&mut plain), Vec::<Value>::new());
}

#[wasm_bindgen_test]
fn bad_ids_throw_typed_errors() {
    let mut session = session_with("");
    for bad in
        [JsValue::from(1.5), JsValue::NULL, JsValue::from(true), JsValue::from(f64::NAN), JsValue::from(2f64.powi(53))]
    {
        let err = track(&mut session, bad, "tools/call", JsValue::UNDEFINED).unwrap_err();
        assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_INVALID_REQUEST_ID"));
        assert_eq!(Reflect::get(&err, &"name".into()).unwrap(), JsValue::from("InvalidArgumentError"));
        // About the caller's own value, which the JS class has.
        assert_eq!(Reflect::get(&err, &"of".into()).unwrap(), JsValue::from("id"));
        let message = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
        assert!(message.starts_with("track(): request id: a "), "{message}");
    }
    assert_eq!(session.take_error(), 0, "taken once");
    track(&mut session, 0.into(), "initialize", JsValue::UNDEFINED).unwrap();
    let err = cancel(&mut session, 0.into(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_HANDSHAKE_NOT_CANCELLABLE"));
    assert_eq!(Reflect::get(&err, &"name".into()).unwrap(), JsValue::from("UsageError"));
    // About the core's request id, which it names.
    assert_eq!(Reflect::get(&err, &"requestId".into()).unwrap(), JsValue::from(0));
    assert_eq!(watch(&mut session, false, JsValue::NULL), FAILED, "a null id");
    let err = refusal(&mut session);
    assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_INVALID_REQUEST_ID"));
    let message = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
    assert_eq!(message, "signal(): request id: a request id must be a string or an integer number, not null");
}

#[wasm_bindgen_test]
fn an_id_is_the_same_id_however_it_crosses() {
    let mut s = session_with("");
    // Packed into words (ASCII, up to 11 bytes), or in the buffer: one id.
    for (text, buffered_first) in [("req-1", false), ("req-2", true), ("abcdefghijk", false), ("", true)] {
        let id = JsValue::from(text);
        let first = Id::of(&id, buffered_first);
        let l = put(&mut s, &[first.text()]);
        let absent = Id::absent();
        let tracked = s.track(
            first.num,
            first.len,
            first.w[0],
            first.w[1],
            first.w[2],
            code("tools/call"),
            NO,
            0,
            absent.num,
            absent.len,
            0,
            0,
            0,
            false,
            NO,
            f64::NAN,
            f64::NAN,
            0,
        );
        assert_eq!(tracked, 0, "{text:?}: {l:?}");
        let other = Id::of(&id, !buffered_first);
        put(&mut s, &[other.text()]);
        assert!(s.is_in_flight(other.num, other.len, other.w[0], other.w[1], other.w[2]), "{text:?}");
        assert!(!in_flight(&mut s, JsValue::from(format!("{text}x"))));
        assert_eq!(response_verdict(&mut s, id.clone()), 0, "{text:?} delivered");
        assert!(!in_flight(&mut s, id));
    }
    // Longer than 11 bytes, or not ASCII: in the buffer.
    for text in ["a-request-id-longer-than-words", "réq-1", "\u{1F600}"] {
        track(&mut s, text.into(), "tools/call", JsValue::UNDEFINED).unwrap();
        assert!(Id::new(&text.into()).text.is_some());
        assert!(in_flight(&mut s, text.into()), "{text:?}");
        assert!(cancel(&mut s, text.into(), "stop".into()).unwrap());
        let out = records(&mut s);
        assert_eq!(out.iter().find(|r| r["o"] == "notify").unwrap()["requestId"], json!(text));
    }
    // An id in the buffer among the call's other strings, each read at its place: the
    // method's name, the progress token's, the task id.
    let options = js("return { params: { _meta: { progressToken: 'a-long-progress-token' }, taskId: 't' } };", &[]);
    track(&mut s, "a-long-request-id".into(), "vendor/custom", options).unwrap();
    let out = {
        let token = Id::new(&"a-long-progress-token".into());
        let method = "notifications/progress";
        let read = Method::fields(Method::from_name(method), true).0;
        assert_eq!(incoming(&mut s, &Id::absent(), method, read, 6, &token, (0, None), false), 0, "delivered");
        assert!(cancel(&mut s, "a-long-request-id".into(), JsValue::UNDEFINED).unwrap());
        records(&mut s)
    };
    assert_eq!(out[0]["event"]["method"], "vendor/custom", "{out:?}");
    assert!(should_drop_progress(&mut s, "a-long-progress-token".into()), "late: its request was cancelled");
}

#[wasm_bindgen_test]
fn a_value_that_is_no_id_is_refused_as_its_type() {
    let mut s = session_with("");
    let oversized = Id { num: 0.0, len: id_len(7), w: [0; 3], text: None };
    for (value, words) in [
        (Id::new(&JsValue::NULL), "not null"),
        (Id::new(&JsValue::TRUE), "not boolean"),
        (Id::new(&Array::new().into()), "not array"),
        (Id::new(&Object::new().into()), "not object"),
        (Id::absent(), "not undefined"),
        (Id::new(&1.5.into()), "must be an integer"),
        (oversized, "longer than accepted"),
    ] {
        let absent = Id::absent();
        let verdict = s.track(
            value.num,
            value.len,
            0,
            0,
            0,
            code("tools/call"),
            NO,
            0,
            absent.num,
            absent.len,
            0,
            0,
            0,
            false,
            NO,
            f64::NAN,
            f64::NAN,
            0,
        );
        assert_eq!(verdict, FAILED);
        let message = Reflect::get(&refusal(&mut s), &"message".into()).unwrap().as_string().unwrap();
        assert!(message.starts_with("track(): request id: ") && message.contains(words), "{message}");
        // Not a request id of ours: a response with it passes, untouched.
        assert_eq!(s.response(value.num, value.len, 0, 0, 0, 0, NO, NO, NO, NO, NO, false, f64::NAN), 0);
        assert!(!s.is_in_flight(value.num, value.len, 0, 0, 0));
    }
    // Words that are no ASCII string of their length name no id.
    assert_eq!(s.watch(false, 0.0, 2, 0x0000_ff61, 0, 0), FAILED, "a byte beyond the length");
    let _ = refusal(&mut s);
    assert_eq!(s.watch(false, 0.0, 1, 0x80, 0, 0), FAILED, "not ASCII");
    let _ = refusal(&mut s);
}

#[wasm_bindgen_test]
fn our_response_to_a_watched_peer_request_settles_it_in_its_answer_when_that_is_all() {
    let mut s = session_with("");
    assert_eq!(peer_request(&mut s, "p-1".into(), "sampling/createMessage"), 0);
    assert_eq!(peer_request(&mut s, "p-2".into(), "sampling/createMessage"), 0);
    assert_eq!(watch(&mut s, true, "p-1".into()), 1);
    assert_eq!(our_response(&mut s, "p-1".into()), SETTLED, "sent, settled: no record, not BUSY");
    assert_eq!(records(&mut s), Vec::<Value>::new());
    assert_eq!(our_response(&mut s, "p-2".into()), 0, "not watched: nothing to release");
    assert_eq!(our_response(&mut s, "p-3".into()), 0, "not the peer's: sent");
    // Behind other output the record stays, in its place.
    assert_eq!(peer_request(&mut s, "p-4".into(), "sampling/createMessage"), 0);
    assert_eq!(watch(&mut s, true, "p-4".into()), 1);
    track(&mut s, 1.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert!(cancel(&mut s, 1.into(), JsValue::UNDEFINED).unwrap());
    assert_eq!(our_response(&mut s, "p-4".into()), BUSY);
    assert_eq!(kinds(&records(&mut s)), ["event cancel-sent", "notify", "cancelled", "inboundSettled"]);
}
