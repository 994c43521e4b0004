//! The server's own requests: to which client they go, under which id, and their answer when
//! the call they serve is over or their client goes.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

#[test]
fn the_servers_own_request_goes_to_its_only_client_and_its_cancel_follows() {
    let mut r = relay();
    let a = r.connect(TransportKind::Messages);
    let sampling = json!({ "jsonrpc": "2.0", "id": 40, "method": "sampling/createMessage", "params": {} });
    // Under an id of the relay's (from 1: the MCP SDK 1.x ignores a cancel of id 0).
    assert_eq!(
        up(&mut r, &sampling),
        Backward::Downstream { link: a, id: Some(n(1)), progress_token: None, related: None }
    );
    let server_cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 40, "reason": "enough" } });
    assert_eq!(up(&mut r, &server_cancel), Backward::Drop);
    assert_eq!(
        outputs(&mut r),
        vec![RelayOutput::Transmit(
            Side::Downstream(a),
            Transmit {
                request_id: n(1),
                action: CancelAction::Notify(CancelNotification { request_id: n(1), reason: Some("enough".into()) }),
            }
        )]
    );
    // The client's late answer is dropped.
    assert_eq!(down(&mut r, a, &result(1)), Forward::Drop);

    // With two clients, nobody can take it.
    let _b = r.connect(TransportKind::Messages);
    assert_eq!(up(&mut r, &sampling), Backward::Refuse);
}

fn sampling(id: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "sampling/createMessage", "params": {} })
}

/// The server's request, to client `link` under the relay's id `id`.
fn to(link: Link, id: i64) -> Backward {
    Backward::Downstream { link, id: Some(n(id)), progress_token: None, related: None }
}

fn answer_server(id: i64) -> Forward {
    Forward::AnswerServer { id: n(id) }
}

#[test]
fn with_several_clients_the_servers_request_goes_to_the_only_one_waiting_for_the_server() {
    let mut r = relay();
    let (a, b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    // Nobody waits for the server: nobody takes it.
    assert_eq!(up(&mut r, &sampling(40)), Backward::Refuse);
    // Only a has a call in flight: the server's request is for it.
    let ua = forwarded_id(&down(&mut r, a, &call(json!(1))));
    assert_eq!(up(&mut r, &sampling(41)), to(a, 1));
    // b's answer to it is not b's to give; a's goes up under the server's id.
    assert_eq!(down(&mut r, b, &result(1)), Forward::Drop);
    assert_eq!(down(&mut r, a, &result(1)), answer_server(41));
    // Both wait: it could be for either, and goes to neither.
    let ub = forwarded_id(&down(&mut r, b, &call(json!(1))));
    assert_eq!(up(&mut r, &sampling(42)), Backward::Refuse);
    // a's call is answered: b is the only one waiting.
    let _ = up(&mut r, &result(ua));
    assert_eq!(up(&mut r, &sampling(43)), to(b, 2));
    // The server's cancel reaches b, with the id b knows.
    let server_cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 43, "reason": "enough" } });
    assert_eq!(up(&mut r, &server_cancel), Backward::Drop);
    assert_eq!(
        outputs(&mut r),
        vec![RelayOutput::Transmit(
            Side::Downstream(b),
            Transmit {
                request_id: n(2),
                action: CancelAction::Notify(CancelNotification { request_id: n(2), reason: Some("enough".into()) }),
            }
        )]
    );
    let _ = up(&mut r, &result(ub));
    assert_eq!(up(&mut r, &sampling(44)), Backward::Refuse);
    // The handshake in flight is not a call: a client initializing is not waiting for a tool.
    let c = r.connect(TransportKind::Messages);
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } } });
    let _ = forwarded_id(&down(&mut r, c, &init));
    assert_eq!(up(&mut r, &sampling(45)), Backward::Refuse);
}

#[test]
fn the_servers_request_is_answered_with_an_error_when_the_call_it_serves_is_cancelled() {
    let mut r = relay();
    let (a, _b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let ua = forwarded_id(&down(&mut r, a, &call(json!(7))));
    assert_eq!(up(&mut r, &sampling(40)), to(a, 1));
    let _ = outputs(&mut r);
    // a cancels its call: the call is cancelled upstream, the server's request is answered
    // with an error (the server would wait for it forever), and a is told to stop on it.
    assert_eq!(down(&mut r, a, &cancel(json!(7))), Forward::Drop);
    assert_eq!(
        outputs(&mut r),
        vec![
            notify_upstream(ua as i64, Some("stop")),
            RelayOutput::Refuse { id: n(40), failure: Failure::CallCancelled },
            RelayOutput::Transmit(
                Side::Downstream(a),
                Transmit {
                    request_id: n(1),
                    action: CancelAction::Notify(CancelNotification {
                        request_id: n(1),
                        reason: Some("The request it was sent for was cancelled".into())
                    }),
                }
            ),
        ]
    );
    // a's late answer does not go up; the server's late cancel is nobody's.
    assert_eq!(down(&mut r, a, &result(1)), Forward::Drop);
    let server_cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 40 } });
    assert_eq!(up(&mut r, &server_cancel), Backward::Drop);
    assert_eq!(outputs(&mut r), vec![]);
    assert_eq!(Failure::CallCancelled.code(), -32000);
}

#[test]
fn a_servers_request_for_several_calls_of_one_client_waits_for_the_last_of_them() {
    let mut r = relay();
    let (a, _b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let _ = down(&mut r, a, &call(json!(1)));
    let u2 = forwarded_id(&down(&mut r, a, &call(json!(2))));
    assert_eq!(up(&mut r, &sampling(40)), to(a, 1));
    let _ = outputs(&mut r);
    let _ = down(&mut r, a, &cancel(json!(1)));
    assert!(
        !outputs(&mut r).iter().any(|o| matches!(o, RelayOutput::Refuse { .. })),
        "call 2 may be the one it serves"
    );
    // Call 2 answered: the server's request stays a's to answer.
    let _ = up(&mut r, &result(u2));
    assert_eq!(down(&mut r, a, &result(1)), answer_server(40));
}

#[test]
fn the_servers_request_is_answered_with_an_error_when_its_client_vanishes() {
    let mut r = relay();
    let a = r.connect_with(TransportKind::StreamableHttp, Vanish { resume_grace: Some(0), idle_ttl: None }, 0);
    let _b = r.connect(TransportKind::Messages);
    let _ = down(&mut r, a, &call(json!(1)));
    assert_eq!(up(&mut r, &sampling(40)), to(a, 1));
    let _ = outputs(&mut r);
    assert_eq!(r.handle_downstream_stream_closed(a, &n(1), 5), StreamClosed::Cancelled);
    let out = outputs(&mut r);
    assert!(out.contains(&RelayOutput::Refuse { id: n(40), failure: Failure::CallCancelled }), "{out:?}");
    // A client that disconnects: its server requests are refused as before.
    let c = r.connect(TransportKind::Messages);
    let _ = down(&mut r, c, &call(json!(1)));
    assert_eq!(up(&mut r, &sampling(41)), to(c, 2));
    let _ = outputs(&mut r);
    r.disconnect(c);
    let out = outputs(&mut r);
    assert!(out.contains(&RelayOutput::Refuse { id: n(41), failure: Failure::ClientGone }), "{out:?}");
}

#[test]
fn the_servers_ids_are_mapped_so_that_two_of_its_requests_never_share_an_id_on_a_client() {
    let mut r = relay();
    let a = r.connect(TransportKind::Messages);
    // The server's ids, whatever they are (0, a string, one it reuses after an answer), reach
    // the client as fresh numbers from 1, and its answers go back under the server's own.
    let s = |id: Value| json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {} });
    assert_eq!(up(&mut r, &s(json!(0))), to(a, 1));
    assert_eq!(up(&mut r, &s(json!("e"))), to(a, 2));
    assert_eq!(down(&mut r, a, &result(2)), Forward::AnswerServer { id: RequestId::from("e") });
    assert_eq!(down(&mut r, a, &result(1)), answer_server(0));
    assert_eq!(up(&mut r, &s(json!(0))), to(a, 3));
    // An answer to an id the relay never gave, or a string one, is nobody's.
    assert_eq!(down(&mut r, a, &result(9)), Forward::Drop);
    assert_eq!(down(&mut r, a, &json!({ "jsonrpc": "2.0", "id": "3", "result": {} })), Forward::Drop);
    assert_eq!(down(&mut r, a, &result(3)), answer_server(0));
}
