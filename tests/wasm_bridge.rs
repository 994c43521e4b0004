//! The AbortSignal bridge of the wasm `SessionCore` (the class the package's JS
//! `CancellationSession` drives), in a real JS engine: Node (`wasm-pack test --node`) and
//! headless Chromium (`WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome`).
//! Each test asserts what was handed to `send`. The entry points take tagged scalars; the
//! helpers below pass them as the package's JS reader does.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use js_sys::{Array, Function, Object, Promise, Reflect};
use mcp_cancel::core::{MessageFields, Method};
use mcp_cancel::wasm::SessionCore;
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

/// A session whose `send` and `onEvent` push into arrays, and whose JS hooks (what the
/// package's JS layer does with a watched request's objects) record their calls as
/// `"hook id reason"` strings (`take` and `takeInbound` give a request's id as its objects); returns
/// (session, sent, events, hook calls).
fn session_with(extra: &str) -> (SessionCore, Array, Array, Array) {
    let sent = Array::new();
    let events = Array::new();
    let calls = Array::new();
    let options = js(
        &format!("return {{ send: (m) => a.push(m), onEvent: (e) => b.push(e), {extra} }};"),
        &[sent.clone().into(), events.clone().into()],
    );
    let hooks = js(
        "const r = (v) => v === undefined ? 'undefined' : typeof v === 'string' ? v : v.name; \
         return { take: (id) => id, \
                  requestCancelled: (id, why) => a.push(`requestCancelled ${id} ${r(why)}`), \
                  settled: (id) => a.push(`settled ${id}`), \
                  takeInbound: (id) => id, \
                  peerCancelled: (id, why) => a.push(`peerCancelled ${id} ${r(why)}`) };",
        &[calls.clone().into()],
    );
    let session = with_hooks(options, &hooks);
    (session, sent, events, calls)
}

/// The member `name` of `o` as a function, if it is one.
fn function(o: &JsValue, name: &str) -> Option<Function> {
    if !o.is_object() {
        return None;
    }
    Reflect::get(o, &name.into()).ok().and_then(|f| f.dyn_into::<Function>().ok())
}

/// The member `name` of `o` as a number (`NaN` when it is not one), as js/options.js passes
/// a setting (these tests give only valid options: their checks are the JS layer's, tested
/// in pkg-tests).
fn number(o: &JsValue, name: &str) -> f64 {
    Reflect::get(o, &name.into()).ok().and_then(|v| v.as_f64()).unwrap_or(f64::NAN)
}

/// The bit of the core's `optionFlags` named `name` (`SessionCore.constantsJson()`, as the JS
/// layer reads it).
fn option_flag(name: &str) -> u32 {
    let constants = js_sys::JSON::parse(&SessionCore::constants_json()).unwrap();
    let flags = Reflect::get(&constants, &"optionFlags".into()).unwrap();
    number(&flags, name) as u32
}

/// The `optionFlags` of `o`'s `exposeErrorReasons` and timeouts (`role`/`transport`: the
/// defaults in these tests).
fn flags(o: &JsValue) -> u32 {
    let member = |name: &str| Reflect::get(o, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let mut flags = 0;
    if let Some(expose) = member("exposeErrorReasons").as_bool() {
        flags |= option_flag("exposeGiven") | if expose { option_flag("expose") } else { 0 };
    }
    let reset = member("resetTimeoutOnProgress").as_bool();
    if !number(o, "timeout").is_nan() || !number(o, "maxTotalTimeout").is_nan() || reset.is_some() {
        flags |= option_flag("timeoutGiven");
    }
    if reset == Some(true) {
        flags |= option_flag("resetOnProgress");
    }
    flags
}

/// `new SessionCore` with the settings of the options object `options` as the JS layer
/// reads them (js/options.js), and the hooks that are functions among the members of
/// `hooks` (as the JS layer passes its own: `cancelled`, `tasksCancel`, `requestCancelled`,
/// `settled`, `peerCancelled`, `takeInbound`, `take`).
fn with_hooks(options: JsValue, hooks: &JsValue) -> SessionCore {
    let hook = |name: &str| function(hooks, name);
    SessionCore::new(
        flags(&options),
        number(&options, "tombstoneCapacity"),
        number(&options, "inboundCapacity"),
        number(&options, "maxReasonBytes"),
        number(&options, "timeout"),
        number(&options, "maxTotalTimeout"),
        None,
        None,
        None,
        function(&options, "send"),
        function(&options, "closeStream"),
        function(&options, "onTimeout"),
        function(&options, "onEvent"),
        1.0,
        hook("cancelled"),
        hook("tasksCancel"),
        hook("requestCancelled"),
        hook("settled"),
        hook("peerCancelled"),
        hook("takeInbound"),
        hook("take"),
    )
}

fn calls_of(calls: &Array) -> String {
    calls.join("; ").as_string().unwrap()
}

/// (tag, number, string) of an id, as the JS reader passes it.
fn tagged(id: &JsValue) -> (u32, f64, Option<String>) {
    match (id.as_f64(), id.as_string()) {
        (Some(n), _) => (3, n, None),
        (_, Some(s)) => (4, 0.0, Some(s)),
        _ if id.is_null() => (1, 0.0, None),
        _ if id.as_bool().is_some() => (2, 0.0, None),
        _ => (0, 0.0, None),
    }
}

/// `signalAborted` as the JS layer's listener calls it: the id and a string reason as
/// scalars too.
fn signal_aborted(s: &SessionCore, id: JsValue, reason: JsValue) {
    let (t, n, st) = tagged(&id);
    let text = reason.as_string();
    s.signal_aborted(id, t, n, st, reason, text);
}

/// `cancel` as the JS class calls it.
fn cancel(s: &SessionCore, id: JsValue, reason: JsValue) -> Result<JsValue, JsValue> {
    let (t, n, st) = tagged(&id);
    let text = reason.as_string();
    s.cancel(id, t, n, st, reason, text)
}

fn code(method: &str) -> i32 {
    Method::from_name(method).map_or(0, |m| m.code() as i32)
}

/// `track` as the JS class calls it, with `options` (an object or `undefined`) read as
/// js/options.js reads them.
fn track(s: &SessionCore, id: JsValue, method: &str, options: JsValue) -> Result<(), JsValue> {
    let (t, n, st) = tagged(&id);
    let name = (code(method) == 0).then(|| method.to_owned());
    let member = |name: &str| {
        if options.is_object() {
            Reflect::get(&options, &name.into()).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    };
    let (timeout, max_total) = (number(&options, "timeout"), number(&options, "maxTotalTimeout"));
    let flags = if options.is_object() { flags(&options) } else { 0 };
    s.track(
        t,
        n,
        st,
        code(method),
        name,
        member("signal"),
        member("params"),
        timeout,
        max_total,
        flags,
        JsValue::UNDEFINED,
    )
}

fn should_drop_response(s: &SessionCore, id: JsValue) -> bool {
    response_verdict(s, id) & !SETTLED == 1
}

/// `verdicts.settled` of `SessionCore.constantsJson()`: added to a response's verdict when it
/// settled a watched request (the JS layer then releases its objects; no `settled` hook).
const SETTLED: u32 = 0x80;

fn response_verdict(s: &SessionCore, id: JsValue) -> u32 {
    let (t, n, st) = tagged(&id);
    s.response(t, n, st)
}

fn should_drop_progress(s: &SessionCore, token: JsValue) -> bool {
    let (t, n, st) = tagged(&token);
    s.progress(t, n, st) == 1
}

/// A request from the peer (`id`, `method`), as `shouldDropIncoming` passes it.
fn peer_request(s: &SessionCore, id: JsValue, method: &str) -> u32 {
    let (t, n, st) = tagged(&id);
    let name = (code(method) == 0).then(|| method.to_owned());
    // `params.task` read (absent): a request that may be task-augmented needs it.
    s.incoming(code(method), name, t, n, st, MessageFields::TASK.0, 0, 0, 0.0, None, 0, None, None, None, false)
}

/// A `notifications/cancelled { requestId, reason }` from the peer (the id and reason
/// strings also as values, as the JS reader passes them).
fn peer_cancel(s: &SessionCore, id: JsValue, reason: &str) -> u32 {
    let (t, n, st) = tagged(&id);
    s.echo(id.clone(), JsValue::from_str(reason));
    let read = MessageFields::PARAMS.with(MessageFields::REQUEST_ID).with(MessageFields::REASON).0;
    s.incoming(
        code("notifications/cancelled"),
        None,
        0,
        0.0,
        None,
        read,
        6,
        t,
        n,
        st,
        4,
        Some(reason.to_owned()),
        None,
        None,
        false,
    )
}

/// Our response to the peer's request `id` (`beforeSend`): the verdict (`1` = suppressed).
fn our_response(s: &SessionCore, id: JsValue) -> u32 {
    let (t, n, st) = tagged(&id);
    s.outgoing(-1, None, t, n, st, 0, 0, 0, 0.0, None, 0, None, None, false, 0).unwrap()
}

fn track_options(signal: &JsValue, token: Option<f64>) -> JsValue {
    let o = Object::new();
    Reflect::set(&o, &"signal".into(), signal).unwrap();
    if let Some(t) = token {
        js("a.params = { _meta: { progressToken: b } };", &[o.clone().into(), t.into()]);
    }
    o.into()
}

fn json(v: &JsValue) -> String {
    js_sys::JSON::stringify(v).unwrap().as_string().unwrap()
}

async fn sleep(ms: u32) {
    let p: Promise = js("return new Promise((r) => setTimeout(r, a));", &[ms.into()]).unchecked_into();
    JsFuture::from(p).await.unwrap();
}

#[wasm_bindgen_test]
fn the_constants_are_json_with_every_method_at_its_code_and_the_verdicts_the_entry_points_return() {
    let c = js_sys::JSON::parse(&SessionCore::constants_json()).unwrap();
    let get = |path: &str| js(&format!("return a.{path};"), std::slice::from_ref(&c));
    let methods: Array = get("methods").dyn_into().unwrap();
    assert_eq!(methods.length() as usize, Method::ALL.len());
    for m in Method::ALL {
        assert_eq!(methods.get(m.code() - 1).as_string().as_deref(), Some(m.name()));
        let fields = get(&format!("incoming[{}]", m.code())).as_f64().unwrap();
        assert_eq!(fields as u32, Method::fields(Some(m), true).0, "{}", m.name());
    }
    assert_eq!(get("incoming.length").as_f64(), Some((Method::ALL.len() + 1) as f64));
    assert_eq!(get("fields.reason").as_f64(), Some(f64::from(MessageFields::REASON.0)));
    assert_eq!(get("tags.oversized").as_f64(), Some(7.0));
    assert_eq!(get("verdicts.settled").as_f64(), Some(f64::from(SETTLED)));
    assert_eq!(get("maxPeerString").as_f64(), Some(1024.0));
    assert_eq!(get("maxReasonBytes").as_f64(), Some(4096.0));
    assert_eq!(get("fields.metaProtocolVersion").as_f64(), Some(f64::from(MessageFields::META_PROTOCOL_VERSION.0)));
    let text = |path: &str| get(path).as_string();
    assert_eq!(text("names.cancelled").as_deref(), Some("notifications/cancelled"));
    assert_eq!(text("names.tasksCancel").as_deref(), Some("tasks/cancel"));
    assert_eq!(text("names.metaProtocolVersion").as_deref(), Some("io.modelcontextprotocol/protocolVersion"));
    assert_eq!(get("timeoutError.code").as_f64(), Some(-32001.0));
    assert_eq!(text("timeoutError.message").as_deref(), Some("Request timed out"));
    for (name, value) in [("aborted", 4.0), ("tracked", 32.0), ("watched", 64.0)] {
        assert_eq!(get(&format!("verdicts.{name}")).as_f64(), Some(value), "{name}");
    }
}

#[wasm_bindgen_test]
fn a_message_sent_with_a_signal_that_aborted_is_refused_only_when_it_is_a_request() {
    let (s, sent, ..) = session_with("");
    let read = Method::fields(None, false).0;
    let send = |s: &SessionCore, method: &str, id: Option<f64>, signal: u32| {
        let (tag, num) = id.map_or((0, 0.0), |n| (3, n));
        s.outgoing(code(method), None, tag, num, None, read, 0, 0, 0.0, None, 0, None, None, false, signal).unwrap()
    };
    // Aborted: not tracked, not to be sent.
    assert_eq!(send(&s, "tools/call", Some(1.0), 2), 4);
    assert!(!s.is_in_flight(JsValue::from(1)));
    // Live: tracked and watched; none: tracked.
    assert_eq!(send(&s, "tools/call", Some(2.0), 1), 0x20 | 0x40);
    assert_eq!(send(&s, "tools/call", Some(3.0), 0), 0x20);
    assert!(s.is_in_flight(JsValue::from(2)) && s.is_in_flight(JsValue::from(3)));
    // A notification with an aborted signal is sent: no signal can belong to it.
    assert_eq!(send(&s, "notifications/progress", None, 2), 0);
    assert_eq!(sent.length(), 0);
    // A "notifications/cancelled" with an id is a request (a malformed one): tracked and
    // watched like any other, and the JS layer is told so.
    let all = u32::MAX;
    let cancelled =
        s.outgoing(code("notifications/cancelled"), None, 3, 9.0, None, all, 0, 0, 0.0, None, 0, None, None, false, 1);
    assert_eq!(cancelled.unwrap(), 0x20 | 0x40);
    assert!(s.is_in_flight(JsValue::from(9)));
}

#[wasm_bindgen_test]
fn an_already_aborted_signal_throws_its_reason_and_sends_nothing() {
    let (session, sent, _, _) = session_with("");
    let controller = js("const ctl = new AbortController(); ctl.abort(a); return ctl;", &["early".into()]);
    let signal = Reflect::get(&controller, &"signal".into()).unwrap();
    let err = track(&session, 1.into(), "tools/call", track_options(&signal, None)).unwrap_err();
    assert_eq!(err, JsValue::from("early"));
    assert_eq!(sent.length(), 0);
    assert!(!session.is_in_flight(1.into()));
}

#[wasm_bindgen_test]
fn a_signal_aborting_during_the_request_sends_one_cancel_with_the_string_reason() {
    let (session, sent, events, calls) = session_with("");
    let signal = js("return new AbortController().signal;", &[]);
    track(&session, 7.into(), "tools/call", track_options(&signal, Some(7.0))).unwrap();
    signal_aborted(&session, 7.into(), "user pressed stop".into());
    signal_aborted(&session, 7.into(), "again".into());
    assert_eq!(sent.length(), 1);
    assert_eq!(
        json(&sent.get(0)),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user pressed stop"}}"#
    );
    assert_eq!(
        json(&events.get(0)),
        r#"{"direction":"outbound","type":"cancel-sent","requestId":7,"method":"tools/call","via":"notification","reason":"user pressed stop"}"#
    );
    // The request's objects: its signal aborts with the caller's reason, then they go.
    assert_eq!(calls_of(&calls), "requestCancelled 7 user pressed stop; settled 7");
    // Late progress and the late result are dropped.
    assert!(should_drop_progress(&session, 7.into()));
    assert!(should_drop_response(&session, 7.into()));
}

#[wasm_bindgen_test]
fn the_default_abort_error_is_not_sent_to_the_peer() {
    let (session, sent, _, _) = session_with("");
    let signal = js("return new AbortController().signal;", &[]);
    track(&session, "a".into(), "tools/call", track_options(&signal, None)).unwrap();
    signal_aborted(
        &session,
        "a".into(),
        js("return new DOMException('This operation was aborted', 'AbortError');", &[]),
    );
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("Request cancelled"));

    let (open, sent, _, _) = session_with("exposeErrorReasons: true");
    track(&open, "b".into(), "tools/call", track_options(&signal, None)).unwrap();
    signal_aborted(&open, "b".into(), js("return new Error('db password rejected');", &[]));
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("Error: db password rejected"));
}

#[wasm_bindgen_test]
fn a_response_settles_a_watched_request_and_a_later_abort_sends_nothing() {
    let (session, sent, _, calls) = session_with("");
    let signal = js("return new AbortController().signal;", &[]);
    track(&session, 1.into(), "tools/call", track_options(&signal, None)).unwrap();
    assert_eq!(response_verdict(&session, 1.into()), SETTLED, "delivered, and it settled the watched request");
    assert_eq!(calls_of(&calls), "", "no hook call: the JS layer removes the listener itself, told by the verdict");
    signal_aborted(&session, 1.into(), "late".into());
    assert_eq!(sent.length(), 0);
}

#[wasm_bindgen_test]
fn a_timeout_error_reason_sends_the_timeout_reason() {
    let (session, sent, _, _) = session_with("");
    let signal = js("return new AbortController().signal;", &[]);
    track(&session, 3.into(), "tools/call", track_options(&signal, None)).unwrap();
    signal_aborted(&session, 3.into(), js("return new DOMException('signal timed out', 'TimeoutError');", &[]));
    assert_eq!(sent.length(), 1);
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("Request timed out"));
}

#[wasm_bindgen_test]
fn callbacks_may_call_back_into_the_session_and_a_throwing_send_is_reported() {
    let events = Array::new();
    let holder = Object::new();
    let options = js(
        "return { send: (m) => { a.session.response(3, m.params.requestId, undefined); throw new Error('pipe closed'); }, \
                  onEvent: (e) => b.push(e) };",
        &[holder.clone().into(), events.clone().into()],
    );
    let session = with_hooks(options, &JsValue::UNDEFINED);
    let session_js: JsValue = session.into();
    Reflect::set(&holder, &"session".into(), &session_js).unwrap();
    let controller = js("return new AbortController();", &[]);
    js(
        "a.track(3, 9, undefined, 8, undefined, b.signal, undefined, NaN, NaN, 0, undefined); a.signalAborted(9, 3, 9, undefined, 'stop', 'stop');",
        &[session_js.clone(), controller],
    );
    let types = js("return a.map((e) => e.type).join(',');", &[events.into()]);
    assert_eq!(types, JsValue::from("cancel-sent,late-response-dropped,send-failed"));
    // Still usable afterwards.
    js(
        "a.track(3, 10, undefined, 8, undefined, undefined, undefined, NaN, NaN, 0, undefined); if (!a.isInFlight(10)) throw new Error('not tracked');",
        &[session_js],
    );
}

#[wasm_bindgen_test]
fn a_peer_cancel_hands_the_peers_reason_to_the_js_layer_and_our_response_is_suppressed() {
    let (session, _, events, calls) = session_with("");
    assert_eq!(peer_request(&session, 0.into(), "sampling/createMessage"), 0);
    assert!(session.watch_inbound(0.into()).unwrap(), "its signal was asked for");
    assert!(!session.watch_inbound(1.into()).unwrap(), "no such request");
    assert_eq!(peer_cancel(&session, 0.into(), "user closed it"), 0, "a valid cancel is passed on");
    assert_eq!(calls_of(&calls), "peerCancelled 0 user closed it");
    assert_eq!(our_response(&session, 0.into()), 1, "our response is suppressed");
    assert_eq!(
        js("return a.map((e) => e.type).join(',');", &[events.into()]),
        JsValue::from("cancel-received,response-suppressed")
    );
}

#[wasm_bindgen_test]
fn a_watched_request_cancelled_by_cancel_gets_its_reason_and_settles() {
    let (session, sent, _, calls) = session_with("");
    track(&session, 5.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert!(session.watch(5.into()).unwrap());
    assert!(cancel(&session, 5.into(), "stop".into()).unwrap().is_undefined(), "with `send`, cancel() returns nothing");
    assert_eq!(sent.length(), 1);
    assert_eq!(calls_of(&calls), "requestCancelled 5 stop; settled 5");
    assert!(!session.watch(5.into()).unwrap(), "not in flight any more");
    // A completed request settles without being cancelled.
    track(&session, 6.into(), "tools/call", JsValue::UNDEFINED).unwrap();
    assert!(session.watch(6.into()).unwrap());
    assert_eq!(response_verdict(&session, 6.into()), SETTLED, "delivered; the verdict says it settled");
    assert_eq!(calls_of(&calls), "requestCancelled 5 stop; settled 5");
}

#[wasm_bindgen_test]
async fn a_timeout_cancels_on_the_wire_then_hands_a_timeout_error_to_the_js_layer_and_on_timeout() {
    let (session, sent, _, calls) = session_with("onTimeout: (id, e) => a.push({ timeout: id, name: e.name }),");
    let options = js("return { timeout: 20 };", &[]);
    track(&session, 8.into(), "tools/call", options).unwrap();
    assert!(session.watch(8.into()).unwrap());
    sleep(120).await;
    assert_eq!(sent.length(), 2, "the cancel, then onTimeout (it pushes into the same array here)");
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("Request timed out"));
    assert_eq!(json(&sent.get(1)), r#"{"timeout":8,"name":"TimeoutError"}"#);
    assert_eq!(calls_of(&calls), "requestCancelled 8 TimeoutError; settled 8");
}

#[wasm_bindgen_test]
fn bad_ids_throw_typed_errors() {
    let (session, _, _, _) = session_with("");
    for bad in
        [JsValue::from(1.5), JsValue::NULL, JsValue::from(true), JsValue::from(f64::NAN), JsValue::from(2f64.powi(53))]
    {
        let err = track(&session, bad, "tools/call", JsValue::UNDEFINED).unwrap_err();
        assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_INVALID_REQUEST_ID"));
        assert!(err.is_instance_of::<js_sys::Error>());
        // No error classes registered here: a plain `Error` with the class's name.
        assert_eq!(Reflect::get(&err, &"name".into()).unwrap(), JsValue::from("InvalidArgumentError"));
    }
    track(&session, 0.into(), "initialize", JsValue::UNDEFINED).unwrap();
    let err = cancel(&session, 0.into(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_HANDSHAKE_NOT_CANCELLABLE"));
    assert_eq!(Reflect::get(&err, &"name".into()).unwrap(), JsValue::from("UsageError"));
    let err = session.watch(JsValue::NULL).unwrap_err();
    assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_INVALID_REQUEST_ID"));
}
