//! The AbortSignal bridge of `CancellationSession`, in a real JS engine: Node
//! (`wasm-pack test --node`) and headless Chromium (`WASM_BINDGEN_USE_BROWSER=1
//! wasm-pack test --headless --chrome`). Each test asserts what was handed to `send`.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use js_sys::{Array, Function, Object, Promise, Reflect};
use mcp_cancel::wasm::CancellationSession;
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

/// A session whose `send` and `logger` push into arrays; returns (session, sent, events).
fn session_with(extra: &str) -> (CancellationSession, Array, Array) {
    let sent = Array::new();
    let events = Array::new();
    let options = js(
        &format!("return {{ send: (m) => a.push(m), logger: (e) => b.push(e), {extra} }};"),
        &[sent.clone().into(), events.clone().into()],
    );
    let session = CancellationSession::new(Some(options.unchecked_into())).unwrap();
    (session, sent, events)
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
fn an_already_aborted_signal_throws_its_reason_and_sends_nothing() {
    let (session, sent, _) = session_with("");
    let controller = js("const ctl = new AbortController(); ctl.abort(a); return ctl;", &["early".into()]);
    let signal = Reflect::get(&controller, &"signal".into()).unwrap();
    let err = session.track(1.into(), "tools/call", Some(track_options(&signal, None).unchecked_into())).unwrap_err();
    assert_eq!(err, JsValue::from("early"));
    assert_eq!(sent.length(), 0);
    assert!(!session.is_in_flight(1.into()));
}

#[wasm_bindgen_test]
fn aborting_during_the_request_sends_one_cancel_with_the_string_reason() {
    let (session, sent, events) = session_with("");
    let controller = js("return new AbortController();", &[]);
    let signal = Reflect::get(&controller, &"signal".into()).unwrap();
    session.track(7.into(), "tools/call", Some(track_options(&signal, Some(7.0)).unchecked_into())).unwrap();
    js("a.abort('user pressed stop'); a.abort('again');", &[controller]);
    assert_eq!(sent.length(), 1);
    assert_eq!(
        json(&sent.get(0)),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user pressed stop"}}"#
    );
    assert_eq!(
        json(&events.get(0)),
        r#"{"direction":"outbound","type":"cancel-sent","requestId":7,"method":"tools/call","via":"notification","reason":"user pressed stop"}"#
    );
    // Late progress and the late result are dropped.
    assert!(session.should_drop_progress(7.into()));
    assert!(session.should_drop_response(7.into()));
}

#[wasm_bindgen_test]
fn the_default_abort_error_is_not_sent_to_the_peer() {
    let (session, sent, _) = session_with("");
    let controller = js("return new AbortController();", &[]);
    let signal = Reflect::get(&controller, &"signal".into()).unwrap();
    session.track("a".into(), "tools/call", Some(track_options(&signal, None).unchecked_into())).unwrap();
    js("a.abort(); ", std::slice::from_ref(&controller));
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("Request cancelled"));

    let (open, sent, _) = session_with("exposeErrorReasons: true");
    let signal = js("return AbortSignal.abort !== undefined && new AbortController();", &[]);
    let s = Reflect::get(&signal, &"signal".into()).unwrap();
    open.track("b".into(), "tools/call", Some(track_options(&s, None).unchecked_into())).unwrap();
    js("a.abort(new Error('db password rejected'));", &[signal]);
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("Error: db password rejected"));
}

#[wasm_bindgen_test]
fn aborting_after_the_response_sends_nothing_and_the_listener_is_removed() {
    let (session, sent, _) = session_with("");
    // A signal that counts its listeners.
    let signal = js(
        "const t = new EventTarget(); t.aborted = false; t.reason = undefined; t.live = 0; \
         const add = t.addEventListener.bind(t), rm = t.removeEventListener.bind(t); \
         t.addEventListener = (k, f) => { t.live++; add(k, f); }; \
         t.removeEventListener = (k, f) => { t.live--; rm(k, f); }; return t;",
        &[],
    );
    session.track(1.into(), "tools/call", Some(track_options(&signal, None).unchecked_into())).unwrap();
    assert_eq!(Reflect::get(&signal, &"live".into()).unwrap(), JsValue::from(1));
    assert!(!session.should_drop_response(1.into()));
    assert_eq!(Reflect::get(&signal, &"live".into()).unwrap(), JsValue::from(0));
    js("a.aborted = true; a.reason = 'late'; a.dispatchEvent(new Event('abort'));", &[signal]);
    assert_eq!(sent.length(), 0);
}

#[wasm_bindgen_test]
fn one_signal_reused_for_many_requests_does_not_accumulate_listeners() {
    let (session, sent, _) = session_with("");
    let signal = js(
        "const t = new EventTarget(); t.aborted = false; t.live = 0; \
         const add = t.addEventListener.bind(t), rm = t.removeEventListener.bind(t); \
         t.addEventListener = (k, f) => { t.live++; add(k, f); }; \
         t.removeEventListener = (k, f) => { t.live--; rm(k, f); }; return t;",
        &[],
    );
    for i in 0..100 {
        session.track(i.into(), "tools/call", Some(track_options(&signal, None).unchecked_into())).unwrap();
        let _ = session.should_drop_response(i.into());
    }
    assert_eq!(Reflect::get(&signal, &"live".into()).unwrap(), JsValue::from(0));
    assert_eq!(sent.length(), 0);
}

#[wasm_bindgen_test]
async fn abort_signal_timeout_sends_the_timeout_reason() {
    let (session, sent, _) = session_with("");
    let signal = js("return AbortSignal.timeout(5);", &[]);
    session.track(3.into(), "tools/call", Some(track_options(&signal, None).unchecked_into())).unwrap();
    sleep(60).await;
    assert_eq!(sent.length(), 1);
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("Request timed out"));
}

#[wasm_bindgen_test]
fn abort_signal_any_cancels_with_the_reason_of_the_signal_that_fired() {
    let (session, sent, _) = session_with("");
    let pair = js("const a1 = new AbortController(), b1 = new AbortController(); return [a1, b1];", &[]);
    let any = js("return AbortSignal.any([a[0].signal, a[1].signal]);", std::slice::from_ref(&pair));
    session.track(4.into(), "tools/call", Some(track_options(&any, None).unchecked_into())).unwrap();
    js("a[1].abort('second source');", &[pair]);
    assert_eq!(sent.length(), 1);
    assert_eq!(js("return a.params.reason;", &[sent.get(0)]), JsValue::from("second source"));
}

#[wasm_bindgen_test]
fn callbacks_may_call_back_into_the_session_and_a_throwing_send_is_reported() {
    let events = Array::new();
    let holder = Object::new();
    let options = js(
        "return { send: (m) => { a.session.shouldDropResponse(m.params.requestId); throw new Error('pipe closed'); }, \
                  logger: (e) => b.push(e) };",
        &[holder.clone().into(), events.clone().into()],
    );
    let session = CancellationSession::new(Some(options.unchecked_into())).unwrap();
    let session_js: JsValue = session.into();
    Reflect::set(&holder, &"session".into(), &session_js).unwrap();
    let controller = js("return new AbortController();", &[]);
    js("a.track(9, 'tools/call', { signal: b.signal }); b.abort('stop');", &[session_js.clone(), controller]);
    let types = js("return a.map((e) => e.type).join(',');", &[events.into()]);
    assert_eq!(types, JsValue::from("cancel-sent,late-response-dropped,send-failed"));
    // Still usable afterwards.
    js("a.track(10, 'tools/call'); if (!a.isInFlight(10)) throw new Error('not tracked');", &[session_js]);
}

#[wasm_bindgen_test]
fn a_peer_cancel_aborts_the_inbound_signal_with_an_abort_error_carrying_the_reason() {
    let (session, _, events) = session_with("");
    let request = js("return { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: {} };", &[]);
    assert!(session.receive(request));
    let signal = session.inbound_signal(0.into());
    assert!(!signal.is_undefined());
    let cancel = js(
        "return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: 'user closed it' } };",
        &[],
    );
    assert!(session.receive(cancel));
    assert_eq!(
        js("return [a.aborted, a.reason.name, a.reason.message].join('|');", &[signal]),
        JsValue::from("true|AbortError|user closed it")
    );
    let response = js("return { jsonrpc: '2.0', id: 0, result: {} };", &[]);
    assert!(session.before_send(response).unwrap().is_undefined());
    assert_eq!(
        js("return a.map((e) => e.type).join(',');", &[events.into()]),
        JsValue::from("cancel-received,response-suppressed")
    );
}

#[wasm_bindgen_test]
fn bad_ids_and_options_throw_typed_errors() {
    let (session, _, _) = session_with("");
    for bad in
        [JsValue::from(1.5), JsValue::NULL, JsValue::from(true), JsValue::from(f64::NAN), JsValue::from(2f64.powi(53))]
    {
        let err = session.track(bad, "tools/call", None).unwrap_err();
        assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_INVALID_REQUEST_ID"));
        assert!(err.is_instance_of::<js_sys::Error>());
    }
    session.track(0.into(), "initialize", None).unwrap();
    let err = session.cancel(0.into(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_HANDSHAKE_NOT_CANCELLABLE"));
    let bad_options = js("return { tombstoneCapacity: -1 };", &[]);
    let err = CancellationSession::new(Some(bad_options.unchecked_into())).err().unwrap();
    assert_eq!(Reflect::get(&err, &"code".into()).unwrap(), JsValue::from("ERR_INVALID_OPTION"));
}
