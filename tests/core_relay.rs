//! The relay (`core::Relay`): clients with overlapping ids sharing one upstream, cancels
//! crossing to the mapped request in the form each side's revision requires, late answers
//! dropped on both sides, disconnects, timeouts, the shared handshake, the server's own
//! requests; and a property test: clients that cancel at random never cancel one another's
//! requests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

// The same tests run natively (`cargo test`) and in wasm (`wasm-pack test --node`); the
// property test natively only.
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use mcp_cancel::core::{
    classify_http, discover_result, modern_answer, relay_handshake, Backward, CancelAction, CancelNotification,
    ClientEvent, Envelope, Failure, Forward, HttpBody, HttpEntry, HttpRefusal, HttpRequest, Link, Message,
    MessageFields, Relay, RelayConfig, RelayOutput, RequestId, ResponseInfo, Revision, Side, StreamClosed, Timeout,
    Transmit, TransportKind, Vanish,
};
use serde_json::{json, Value};

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

fn down(relay: &mut Relay, link: Link, message: &Value) -> Forward {
    let mut info = ResponseInfo::default();
    relay.handle_downstream(link, &Message::from_json(message, &mut info), 0)
}

fn up(relay: &mut Relay, message: &Value) -> Backward {
    let mut info = ResponseInfo::default();
    relay.handle_upstream(&Message::from_json(message, &mut info), 0)
}

fn outputs(relay: &mut Relay) -> Vec<RelayOutput> {
    std::iter::from_fn(|| relay.poll_output())
        .filter(|o| !matches!(o, RelayOutput::Event(..) | RelayOutput::ClientEvent(..)))
        .collect()
}

fn call(id: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "slow" } })
}

fn cancel(id: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id, "reason": "stop" } })
}

fn result(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [] } })
}

/// A client's `initialize` (2025-11-25) with this id.
fn initialize(id: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": { "protocolVersion": "2025-11-25" } })
}

/// The server's answer to the relay's `initialize`, forwarded as upstream id `up`.
fn handshake_answer(up: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": up, "result": { "protocolVersion": "2025-11-25", "capabilities": {} } })
}

fn notify_upstream(id: i64, reason: Option<&str>) -> RelayOutput {
    RelayOutput::Transmit(
        Side::Upstream,
        Transmit {
            request_id: n(id),
            action: CancelAction::Notify(CancelNotification { request_id: n(id), reason: reason.map(str::to_owned) }),
        },
    )
}

/// A relay with the upstream on 2025-11-25 over stdio.
/// The upstream cancel of the relay's request `up` by closing its stream (2026-07-28 over
/// Streamable HTTP).
fn close_stream_upstream(up: u64) -> RelayOutput {
    let u = n(up as i64);
    RelayOutput::Transmit(Side::Upstream, Transmit { request_id: u.clone(), action: CancelAction::CloseStream(u) })
}

fn relay() -> Relay {
    let mut config = RelayConfig::default();
    config.upstream.revision = Revision::parse("2025-11-25");
    Relay::new(config)
}

fn forwarded_id(forward: &Forward) -> u64 {
    match forward {
        Forward::Upstream { id: Some(id), .. } => *id,
        other => panic!("not forwarded with an id: {other:?}"),
    }
}

#[test]
fn overlapping_ids_of_three_clients_go_upstream_under_distinct_ids_and_come_back_as_they_were() {
    let mut r = relay();
    let (a, b, c) =
        (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let ua = forwarded_id(&down(&mut r, a, &call(json!(1))));
    let ub = forwarded_id(&down(&mut r, b, &call(json!(1))));
    let uc = forwarded_id(&down(&mut r, c, &call(json!("1"))));
    assert!(ua != ub && ub != uc && ua != uc);
    assert_eq!(r.in_flight(), 3);
    assert_eq!(
        up(&mut r, &result(ub)),
        Backward::Downstream { link: b, id: Some(n(1)), progress_token: None, related: Some(n(1)) }
    );
    assert_eq!(
        up(&mut r, &result(uc)),
        Backward::Downstream {
            link: c,
            id: Some(RequestId::from("1")),
            progress_token: None,
            related: Some(RequestId::from("1"))
        }
    );
    assert_eq!(
        up(&mut r, &result(ua)),
        Backward::Downstream { link: a, id: Some(n(1)), progress_token: None, related: Some(n(1)) }
    );
    // Answered once: a second answer is nobody's.
    assert_eq!(up(&mut r, &result(ua)), Backward::Drop);
    assert_eq!(r.in_flight(), 0);
}

#[test]
fn a_cancel_crosses_to_the_mapped_request_only_and_its_late_answer_and_progress_are_dropped() {
    let mut r = relay();
    let (a, b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let with_token = json!({ "jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": { "name": "slow", "_meta": { "progressToken": "p" } } });
    let forward = down(&mut r, a, &with_token);
    let Forward::Upstream { id: Some(ua), progress_token: Some(ta) } = forward else { panic!("{forward:?}") };
    let ub = forwarded_id(&down(&mut r, b, &call(json!(0))));
    // Progress comes back under the client's own token.
    let progress = |token: u64| json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": token, "progress": 1 } });
    assert_eq!(
        up(&mut r, &progress(ta)),
        Backward::Downstream { link: a, id: None, progress_token: Some(RequestId::from("p")), related: Some(n(0)) }
    );

    assert_eq!(down(&mut r, a, &cancel(json!(0))), Forward::Drop, "the client's own cancel does not go up as it is");
    assert_eq!(outputs(&mut r), vec![notify_upstream(ua as i64, Some("stop"))]);
    assert_eq!(up(&mut r, &progress(ta)), Backward::Drop, "late progress");
    assert_eq!(up(&mut r, &result(ua)), Backward::Drop, "late result");
    // b's request 0 is untouched.
    assert_eq!(
        up(&mut r, &result(ub)),
        Backward::Downstream { link: b, id: Some(n(0)), progress_token: None, related: Some(n(0)) }
    );
    // A cancel for a finished request, an unknown one, a malformed one: nothing goes up.
    for bad in [cancel(json!(0)), cancel(json!(99)), json!({ "jsonrpc": "2.0", "method": "notifications/cancelled" })] {
        assert_eq!(down(&mut r, b, &bad), Forward::Drop);
    }
    assert_eq!(outputs(&mut r), vec![]);
}

#[test]
fn a_client_that_disconnects_has_its_requests_cancelled_upstream() {
    let mut r = relay();
    let (a, b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let u1 = forwarded_id(&down(&mut r, a, &call(json!(1))));
    let u2 = forwarded_id(&down(&mut r, a, &call(json!(2))));
    let ub = forwarded_id(&down(&mut r, b, &call(json!(1))));
    r.disconnect(a);
    assert_eq!(
        outputs(&mut r),
        vec![
            notify_upstream(u1 as i64, Some("Client disconnected")),
            notify_upstream(u2 as i64, Some("Client disconnected"))
        ]
    );
    assert_eq!(up(&mut r, &result(u1)), Backward::Drop);
    assert_eq!(
        up(&mut r, &result(ub)),
        Backward::Downstream { link: b, id: Some(n(1)), progress_token: None, related: Some(n(1)) }
    );
    assert_eq!(down(&mut r, a, &call(json!(3))), Forward::Drop, "a link that is gone");
}

#[test]
fn the_handshake_is_made_once_upstream_never_cancelled_and_shared() {
    let mut r = Relay::new(RelayConfig::default());
    let (a, b, c) =
        (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let u = forwarded_id(&down(&mut r, a, &initialize(0)));
    assert_eq!(down(&mut r, b, &initialize(0)), Forward::Hold);
    // initialize cannot be cancelled: nothing goes up.
    assert_eq!(down(&mut r, a, &cancel(json!(0))), Forward::Drop);
    assert_eq!(outputs(&mut r), vec![]);
    let answer = handshake_answer(u);
    assert_eq!(
        up(&mut r, &answer),
        Backward::Downstream { link: a, id: Some(n(0)), progress_token: None, related: Some(n(0)) }
    );
    assert_eq!(
        outputs(&mut r),
        vec![
            RelayOutput::KeepHandshakeResult,
            RelayOutput::UpstreamVersion("2025-11-25".into()),
            RelayOutput::AnswerHandshake { link: b, id: n(0) }
        ]
    );
    assert_eq!(down(&mut r, c, &initialize(7)), Forward::AnswerHandshake);
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(down(&mut r, a, &initialized), Forward::Upstream { id: None, progress_token: None });
    assert_eq!(down(&mut r, b, &initialized), Forward::Drop, "once upstream");
    // Every client follows the negotiated revision.
    for link in [a, b, c] {
        assert_eq!(r.downstream(link).unwrap().revision().map(|v| v.as_str()), Some("2025-11-25"));
    }
}

/// A client that reuses the id of a request it has in flight for a request the relay answers
/// or fails itself (`server/discover`, `initialize`): the second is dropped (its session
/// reports the duplicate), and the first keeps its route — the answer goes to it, and the id
/// stays taken. Found by the relay fuzz target (a discovery before the handshake failed the
/// second and forgot the first's route).
#[test]
fn a_reused_id_of_a_request_the_relay_answers_itself_leaves_the_first_request_routed() {
    let mut r = Relay::new(RelayConfig::default());
    let a = r.connect(TransportKind::Messages);
    let u = forwarded_id(&down(&mut r, a, &call(json!(0))));
    // Before any handshake: a discovery is failed by the relay — not this one.
    let discover = json!({ "jsonrpc": "2.0", "id": 0, "method": "server/discover" });
    assert_eq!(down(&mut r, a, &discover), Forward::Drop);
    let init = initialize(0);
    assert_eq!(down(&mut r, a, &init), Forward::Drop, "not held for the handshake either");
    assert_eq!(outputs(&mut r), vec![], "no failure for id 0");
    assert_eq!(down(&mut r, a, &call(json!(0))), Forward::Drop, "id 0 is still in flight");
    assert_eq!(
        up(&mut r, &result(u)),
        Backward::Downstream { link: a, id: Some(n(0)), progress_token: None, related: Some(n(0)) }
    );
    // Answered: the id is free again.
    assert!(matches!(down(&mut r, a, &call(json!(0))), Forward::Upstream { id: Some(_), .. }));
}

/// A client that reuses the id of its `initialize` held for the shared handshake: the second
/// request is dropped (not forwarded with the same id, whose two answers would cross), the
/// handshake's answer goes to the `initialize`, and the id is free again after it. Found by
/// the relay fuzz target, which had to allow for it.
#[test]
fn a_reused_id_of_a_held_initialize_is_dropped_and_the_handshake_answers_the_initialize() {
    let mut r = Relay::new(RelayConfig::default());
    let (a, b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let init = initialize(0);
    let u = forwarded_id(&down(&mut r, a, &init));
    assert_eq!(down(&mut r, b, &init), Forward::Hold);
    assert_eq!(down(&mut r, b, &call(json!(0))), Forward::Drop, "id 0 of b waits for the handshake");
    assert_eq!(down(&mut r, b, &init), Forward::Drop, "held once");
    let answer = handshake_answer(u);
    let _ = up(&mut r, &answer);
    let out = outputs(&mut r);
    assert_eq!(out.iter().filter(|o| matches!(o, RelayOutput::AnswerHandshake { .. })).count(), 1, "{out:?}");
    assert!(out.contains(&RelayOutput::AnswerHandshake { link: b, id: n(0) }));
    // Answered: the id is free again.
    assert!(matches!(down(&mut r, b, &call(json!(0))), Forward::Upstream { id: Some(_), .. }));
}

/// The `initialize` requests a client has held for the handshake count toward its
/// `max_in_flight_per_link`, as its forwarded requests do: a client cannot grow the list of
/// held requests without a bound while the server has not answered.
#[test]
fn held_initialize_requests_count_toward_the_in_flight_limit() {
    let mut r = Relay::new(RelayConfig { max_in_flight_per_link: 2, ..RelayConfig::default() });
    let (a, b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let _ = forwarded_id(&down(&mut r, a, &initialize(0)));
    assert_eq!(down(&mut r, b, &initialize(1)), Forward::Hold);
    let _ = forwarded_id(&down(&mut r, b, &call(json!(2))));
    assert_eq!(down(&mut r, b, &initialize(3)), Forward::Drop);
    assert_eq!(down(&mut r, b, &call(json!(4))), Forward::Drop);
    assert_eq!(
        outputs(&mut r),
        vec![
            RelayOutput::Fail { link: b, id: n(3), failure: Failure::TooManyRequests },
            RelayOutput::Fail { link: b, id: n(4), failure: Failure::TooManyRequests }
        ]
    );
}

#[test]
fn a_cancel_becomes_the_kind_each_side_requires_on_2026_07_28() {
    // Clients on stdio; the server over Streamable HTTP: the cancel is closing the stream.
    let mut config = RelayConfig::default();
    config.upstream.transport = TransportKind::StreamableHttp;
    let mut r = Relay::new(config);
    let a = r.connect(TransportKind::Messages);
    r.set_protocol_version(a, "2026-07-28");
    assert_eq!(outputs(&mut r), vec![RelayOutput::UpstreamVersion("2026-07-28".into())]);
    let u = forwarded_id(&down(&mut r, a, &call(json!(5))));
    let _ = down(&mut r, a, &cancel(json!(5)));
    assert_eq!(outputs(&mut r), vec![close_stream_upstream(u)]);

    // Clients over Streamable HTTP (their cancel is closing the stream); the server on stdio.
    let mut r = Relay::new(RelayConfig::default());
    let h = r.connect(TransportKind::StreamableHttp);
    r.set_protocol_version(h, "2026-07-28");
    let _ = outputs(&mut r);
    let u = forwarded_id(&down(&mut r, h, &call(json!(5))));
    assert_eq!(r.handle_downstream_stream_closed(h, &n(5), 0), StreamClosed::Cancelled);
    assert_eq!(outputs(&mut r), vec![notify_upstream(u as i64, None)]);
    assert_eq!(up(&mut r, &result(u)), Backward::Drop);

    // Before 2026-07-28 a closed stream is a disconnection, not a cancel: nothing crosses.
    let mut r = relay();
    let h = r.connect(TransportKind::StreamableHttp);
    r.set_protocol_version(h, "2025-11-25");
    let u = forwarded_id(&down(&mut r, h, &call(json!(5))));
    assert_eq!(r.handle_downstream_stream_closed(h, &n(5), 0), StreamClosed::Ignored);
    assert_eq!(outputs(&mut r), vec![]);
    assert_eq!(
        up(&mut r, &result(u)),
        Backward::Downstream { link: h, id: Some(n(5)), progress_token: None, related: Some(n(5)) }
    );
}

#[test]
fn a_clients_request_names_its_revision_in_meta_on_2026_07_28_and_the_relay_reads_it() {
    let mut config = RelayConfig::default();
    config.upstream.transport = TransportKind::StreamableHttp;
    let mut r = Relay::new(config);
    let a = r.connect(TransportKind::Messages);
    let versioned = |id: i64| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "slow", "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } })
    };
    // Read without the `_meta` version: while the client has no revision, the relay asks for it.
    let first = versioned(5);
    let mut info = ResponseInfo::default();
    let mut message = Message::from_json(&first, &mut info);
    assert_eq!(message.protocol_version, Some("2026-07-28"));
    message.read = message.read.without(MessageFields::META_PROTOCOL_VERSION);
    message.protocol_version = None;
    assert_eq!(r.handle_downstream(a, &message, 0), Forward::NeedFields(MessageFields::META_PROTOCOL_VERSION));
    assert_eq!(outputs(&mut r), vec![]);
    // With it: the client's revision and the upstream's are set (the upstream transport is
    // told before the request goes out), and the cancel is the one 2026-07-28 requires.
    let u = forwarded_id(&down(&mut r, a, &first));
    assert_eq!(outputs(&mut r), vec![RelayOutput::UpstreamVersion("2026-07-28".into())]);
    assert_eq!(r.downstream(a).and_then(|s| s.revision()), Some(Revision::V2026_07_28));
    let _ = down(&mut r, a, &cancel(json!(5)));
    assert_eq!(outputs(&mut r), vec![close_stream_upstream(u)]);
    // Once the client has a revision, its requests are not asked for it again.
    let second = versioned(6);
    let mut info = ResponseInfo::default();
    let mut message = Message::from_json(&second, &mut info);
    message.read = message.read.without(MessageFields::META_PROTOCOL_VERSION);
    message.protocol_version = None;
    assert!(matches!(r.handle_downstream(a, &message, 0), Forward::Upstream { id: Some(_), .. }));
}

#[test]
fn a_clients_batch_is_answered_with_an_error_and_the_servers_is_dropped() {
    let mut r = relay();
    let a = r.connect(TransportKind::Messages);
    r.handle_batch(Side::Downstream(a));
    assert_eq!(outputs(&mut r), vec![RelayOutput::RefuseBatch(a)]);
    assert_eq!(
        (Failure::Batch.code(), Failure::Batch.message()),
        (-32600, "mcp-cancel relay: JSON-RPC batches are not relayed")
    );
    r.handle_batch(Side::Upstream);
    r.handle_batch(Side::Downstream(Link(99)));
    assert_eq!(outputs(&mut r), vec![]);
}

#[test]
fn a_request_that_could_not_be_sent_upstream_fails_at_once_and_is_never_cancelled() {
    let mut r = relay();
    let a = r.connect(TransportKind::Messages);
    let u = forwarded_id(&down(&mut r, a, &call(json!(1))));
    r.upstream_send_failed(u);
    assert_eq!(outputs(&mut r), vec![RelayOutput::Fail { link: a, id: n(1), failure: Failure::SendFailed }]);
    assert_eq!(down(&mut r, a, &cancel(json!(1))), Forward::Drop);
    assert_eq!(outputs(&mut r), vec![]);
    assert_eq!(r.in_flight(), 0);
}

#[test]
fn an_upstream_timeout_cancels_upstream_and_fails_the_client_request() {
    let mut config = RelayConfig::default();
    config.upstream.timeout = Timeout { timeout_ms: Some(100), ..Timeout::NONE };
    let mut r = Relay::new(config);
    let a = r.connect(TransportKind::Messages);
    let u = forwarded_id(&down(&mut r, a, &call(json!("x"))));
    assert_eq!(r.poll_timeout(), Some(100));
    r.handle_timeout(100);
    assert_eq!(
        outputs(&mut r),
        vec![
            notify_upstream(u as i64, Some("Request timed out")),
            RelayOutput::Fail { link: a, id: RequestId::from("x"), failure: Failure::Timeout },
        ]
    );
    assert_eq!(up(&mut r, &result(u)), Backward::Drop);
}

#[test]
fn requests_in_flight_fail_when_the_upstream_closes() {
    let mut r = relay();
    let a = r.connect(TransportKind::Messages);
    let _ = down(&mut r, a, &call(json!(1)));
    r.upstream_closed();
    assert_eq!(outputs(&mut r), vec![RelayOutput::Fail { link: a, id: n(1), failure: Failure::UpstreamClosed }]);
    assert_eq!(r.in_flight(), 0);
}

#[test]
fn a_client_with_too_many_requests_in_flight_is_answered_by_the_relay() {
    let mut r = Relay::new(RelayConfig { max_in_flight_per_link: 2, ..RelayConfig::default() });
    let a = r.connect(TransportKind::Messages);
    let _ = down(&mut r, a, &call(json!(1)));
    let _ = down(&mut r, a, &call(json!(2)));
    assert_eq!(down(&mut r, a, &call(json!(3))), Forward::Drop);
    assert_eq!(outputs(&mut r), vec![RelayOutput::Fail { link: a, id: n(3), failure: Failure::TooManyRequests }]);
}

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

#[test]
fn a_task_augmented_call_is_cancelled_upstream_with_tasks_cancel() {
    let mut r = relay();
    let a = r.connect(TransportKind::Messages);
    let task_call = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "research", "task": { "ttl": 60000 } } });
    let u = forwarded_id(&down(&mut r, a, &task_call));
    let created = json!({ "jsonrpc": "2.0", "id": u, "result": { "task": { "taskId": "T1", "status": "working" } } });
    assert_eq!(
        up(&mut r, &created),
        Backward::Downstream { link: a, id: Some(n(3)), progress_token: None, related: Some(n(3)) }
    );
    // The client cancels its task the only way 2025-11-25 allows: tasks/cancel, a request.
    let tasks_cancel = json!({ "jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": { "taskId": "T1" } });
    let u4 = forwarded_id(&down(&mut r, a, &tasks_cancel));
    let ack = json!({ "jsonrpc": "2.0", "id": u4, "result": { "taskId": "T1", "status": "cancelled" } });
    assert_eq!(
        up(&mut r, &ack),
        Backward::Downstream { link: a, id: Some(n(4)), progress_token: None, related: Some(n(4)) }
    );
}

/// `down` at `now` (ms).
fn down_at(relay: &mut Relay, link: Link, message: &Value, now: u64) -> Forward {
    let mut info = ResponseInfo::default();
    relay.handle_downstream(link, &Message::from_json(message, &mut info), now)
}

/// A relay with the upstream and one client (Streamable HTTP) on 2025-11-25, the client
/// connected at 0 with `vanish`, and events on.
fn vanishing(vanish: Vanish) -> (Relay, Link) {
    let mut config = RelayConfig::default();
    config.upstream.revision = Revision::parse("2025-11-25");
    config.downstream.events = true;
    let mut r = Relay::new(config);
    let h = r.connect_with(TransportKind::StreamableHttp, vanish, 0);
    (r, h)
}

/// Every output, the relay's own client events included (the sessions' events left out).
fn outputs_and_client_events(relay: &mut Relay) -> Vec<RelayOutput> {
    std::iter::from_fn(|| relay.poll_output()).filter(|o| !matches!(o, RelayOutput::Event(..))).collect()
}

const VANISHED_500: &str = "Client vanished: its response stream closed and was not resumed within 500 ms";

#[test]
fn a_request_whose_stream_closed_is_cancelled_upstream_when_no_stream_resumes_it_within_the_grace() {
    let (mut r, h) = vanishing(Vanish { resume_grace: Some(500), idle_ttl: None });
    let u = forwarded_id(&down_at(&mut r, h, &call(json!(5)), 100));
    let _ = outputs(&mut r);
    assert_eq!(r.handle_downstream_stream_closed(h, &n(5), 1000), StreamClosed::AwaitingResume { until: 1500 });
    assert_eq!(
        outputs_and_client_events(&mut r),
        vec![RelayOutput::ClientEvent(h, ClientEvent::StreamLost { id: n(5), upstream_id: u, grace: 500 })]
    );
    assert_eq!(r.poll_timeout(), Some(1500));
    r.handle_timeout(1499);
    assert_eq!(outputs_and_client_events(&mut r), vec![], "not before the grace ends");
    r.handle_timeout(1500);
    assert_eq!(
        outputs_and_client_events(&mut r),
        vec![
            RelayOutput::ClientEvent(
                h,
                ClientEvent::NotResumed { id: n(5), upstream_id: u, grace: 500, reason: VANISHED_500.into() }
            ),
            notify_upstream(u as i64, Some(VANISHED_500)),
        ]
    );
    assert_eq!(r.in_flight(), 0);
    assert_eq!(r.poll_timeout(), None);
    // Its late answer goes nowhere; the client is still connected (its session goes on).
    assert_eq!(up(&mut r, &result(u)), Backward::Drop);
    assert_eq!(r.link_count(), 1);
    let v = forwarded_id(&down_at(&mut r, h, &call(json!(6)), 1600));
    assert_eq!(
        up(&mut r, &result(v)),
        Backward::Downstream { link: h, id: Some(n(6)), progress_token: None, related: Some(n(6)) }
    );
}

#[test]
fn a_request_resumed_within_the_grace_runs_on_and_its_answer_reaches_the_client() {
    let (mut r, h) = vanishing(Vanish { resume_grace: Some(500), idle_ttl: None });
    let u = forwarded_id(&down_at(&mut r, h, &call(json!(5)), 0));
    let _ = r.handle_downstream_stream_closed(h, &n(5), 0);
    let _ = outputs(&mut r);
    assert!(r.handle_downstream_stream_resumed(h, &n(5)));
    assert_eq!(
        outputs_and_client_events(&mut r),
        vec![RelayOutput::ClientEvent(h, ClientEvent::StreamResumed { id: n(5), upstream_id: Some(u) })]
    );
    assert!(!r.handle_downstream_stream_resumed(h, &n(5)), "once");
    r.handle_timeout(10_000);
    assert_eq!(outputs_and_client_events(&mut r), vec![], "no cancel");
    assert_eq!(
        up(&mut r, &result(u)),
        Backward::Downstream { link: h, id: Some(n(5)), progress_token: None, related: Some(n(5)) }
    );
    // Lost again, and resumed too late: cancelled, and the resume says so.
    let v = forwarded_id(&down_at(&mut r, h, &call(json!(6)), 20_000));
    let _ = r.handle_downstream_stream_closed(h, &n(6), 20_000);
    r.handle_timeout(20_500);
    assert!(outputs(&mut r).contains(&notify_upstream(v as i64, Some(VANISHED_500))));
    assert!(!r.handle_downstream_stream_resumed(h, &n(6)));
}

#[test]
fn a_grace_of_0_cancels_at_once_and_without_a_grace_a_closed_stream_is_nothing() {
    let (mut r, h) = vanishing(Vanish { resume_grace: Some(0), idle_ttl: None });
    let u = forwarded_id(&down_at(&mut r, h, &call(json!("a")), 0));
    assert_eq!(r.handle_downstream_stream_closed(h, &RequestId::from("a"), 7), StreamClosed::Cancelled);
    let reason = "Client vanished: its response stream closed and was not resumed within 0 ms";
    assert_eq!(outputs(&mut r), vec![notify_upstream(u as i64, Some(reason))]);
    assert_eq!(r.poll_timeout(), None);
    // A request not in flight (answered, cancelled, unknown) is nothing.
    assert_eq!(r.handle_downstream_stream_closed(h, &RequestId::from("a"), 8), StreamClosed::Ignored);

    let (mut r, h) = vanishing(Vanish::default());
    let _ = forwarded_id(&down_at(&mut r, h, &call(json!(1)), 0));
    assert_eq!(r.handle_downstream_stream_closed(h, &n(1), 0), StreamClosed::Ignored);
    assert_eq!(r.poll_timeout(), None);
}

#[test]
fn a_grace_that_ends_after_its_request_was_answered_never_cancels_a_later_request_with_the_same_id() {
    let (mut r, h) = vanishing(Vanish { resume_grace: Some(500), idle_ttl: None });
    let u = forwarded_id(&down_at(&mut r, h, &call(json!(1)), 0));
    let _ = r.handle_downstream_stream_closed(h, &n(1), 0);
    // Answered while lost (the host keeps it for a resume), then id 1 again.
    assert!(matches!(up(&mut r, &result(u)), Backward::Downstream { .. }));
    let v = forwarded_id(&down_at(&mut r, h, &call(json!(1)), 100));
    let _ = outputs(&mut r);
    r.handle_timeout(500);
    assert_eq!(outputs(&mut r), vec![], "the new request is not the lost one");
    assert_eq!(r.in_flight(), 1);
    assert!(matches!(up(&mut r, &result(v)), Backward::Downstream { .. }));
}

#[test]
fn a_client_silent_for_its_idle_ttl_is_ended_its_requests_failed_and_cancelled_upstream() {
    let (mut r, h) = vanishing(Vanish { resume_grace: None, idle_ttl: Some(1000) });
    let other = r.connect(TransportKind::StreamableHttp);
    assert_eq!(r.poll_timeout(), Some(1000));
    let u1 = forwarded_id(&down_at(&mut r, h, &call(json!(1)), 200));
    let u2 = forwarded_id(&down_at(&mut r, h, &call(json!(2)), 600));
    let uo = forwarded_id(&down_at(&mut r, other, &call(json!(1)), 600));
    r.heard(h, 700);
    // Due at 1000 for the time it was connected at; heard from since: due again at 1700.
    r.handle_timeout(1000);
    assert_eq!(outputs_and_client_events(&mut r), vec![]);
    assert_eq!(r.poll_timeout(), Some(1700));
    r.handle_timeout(1700);
    let reason = "Client session expired: no request for 1000 ms";
    assert_eq!(
        outputs_and_client_events(&mut r),
        vec![
            RelayOutput::ClientEvent(
                h,
                ClientEvent::SessionExpired {
                    ttl: 1000,
                    requests: vec![(n(1), u1), (n(2), u2)],
                    reason: reason.into()
                }
            ),
            notify_upstream(u1 as i64, Some(reason)),
            notify_upstream(u2 as i64, Some(reason)),
            RelayOutput::Fail { link: h, id: n(1), failure: Failure::SessionExpired },
            RelayOutput::Fail { link: h, id: n(2), failure: Failure::SessionExpired },
            RelayOutput::EndClient(h),
        ]
    );
    assert_eq!(r.link_count(), 1);
    assert_eq!(r.in_flight(), 1, "the other client's request runs on");
    assert_eq!(down_at(&mut r, h, &call(json!(3)), 1800), Forward::Drop, "a link that is gone");
    assert_eq!(up(&mut r, &result(u1)), Backward::Drop);
    assert!(matches!(up(&mut r, &result(uo)), Backward::Downstream { link, .. } if link == other));
    assert_eq!(r.poll_timeout(), None);
    assert_eq!(Failure::SessionExpired.code(), -32000);
}

#[test]
fn a_first_client_that_disconnects_during_initialize_leaves_the_handshake_to_complete_for_the_others() {
    let mut r = Relay::new(RelayConfig::default());
    let (a, b) = (r.connect(TransportKind::Messages), r.connect(TransportKind::Messages));
    let init = initialize(0);
    let u = forwarded_id(&down(&mut r, a, &init));
    assert_eq!(down(&mut r, b, &init), Forward::Hold);
    r.disconnect(a);
    assert_eq!(outputs(&mut r), vec![], "initialize is never cancelled");
    let answer = handshake_answer(u);
    assert_eq!(up(&mut r, &answer), Backward::Drop, "its client is gone");
    assert_eq!(
        outputs(&mut r),
        vec![
            RelayOutput::KeepHandshakeResult,
            RelayOutput::UpstreamVersion("2025-11-25".into()),
            RelayOutput::AnswerHandshake { link: b, id: n(0) }
        ]
    );
}

#[test]
fn a_first_client_gone_during_initialize_leaves_the_handshake_to_complete_for_the_others() {
    let (mut r, a) = vanishing(Vanish { resume_grace: Some(0), idle_ttl: Some(1000) });
    let b = r.connect(TransportKind::StreamableHttp);
    let u = forwarded_id(&down_at(&mut r, a, &initialize(0), 0));
    assert_eq!(down_at(&mut r, b, &initialize(0), 0), Forward::Hold);
    // Its stream closes, then it expires: initialize is never cancelled.
    assert_eq!(r.handle_downstream_stream_closed(a, &n(0), 10), StreamClosed::Ignored);
    r.handle_timeout(1000);
    let out = outputs(&mut r);
    assert!(out.iter().all(|o| !matches!(o, RelayOutput::Transmit(..))), "{out:?}");
    assert!(out.contains(&RelayOutput::EndClient(a)));
    let answer = handshake_answer(u);
    assert_eq!(up(&mut r, &answer), Backward::Drop, "its client is gone");
    assert!(outputs(&mut r).contains(&RelayOutput::AnswerHandshake { link: b, id: n(0) }));
}

/// A POST of `body` with these headers (`MCP-Protocol-Version`, `Mcp-Method`) and no session.
fn post<'a>(body: HttpBody<'a>, version: Option<&'a str>, method: Option<&'a str>) -> HttpRequest<'a> {
    HttpRequest { post: true, session_id: false, protocol_version: version, mcp_method: method, body }
}

/// A 2026-07-28 envelope naming `version` (with `clientCapabilities`).
fn envelope(version: &str) -> Envelope<'_> {
    Envelope { protocol_version: Some(Some(version)), client_capabilities: true }
}

fn refused(entry: &HttpEntry) -> (u16, i32) {
    match entry {
        HttpEntry::Refuse(HttpRefusal { status, code, .. }) => (*status, *code),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn an_http_request_is_classified_by_its_body_and_its_headers_are_checked_against_it() {
    let none = Envelope::default();
    let call = |envelope| HttpBody::Request { method: "tools/call", envelope };
    // 2025-era: initialize opens a session; everything else needs one.
    let init = HttpBody::Request { method: "initialize", envelope: none };
    assert_eq!(classify_http(&post(init, None, None), true), HttpEntry::OpenSession);
    assert_eq!(classify_http(&post(init, Some("2025-11-25"), None), true), HttpEntry::OpenSession);
    assert_eq!(refused(&classify_http(&post(call(none), None, None), true)), (400, -32000));
    let with_session = HttpRequest { session_id: true, ..post(call(none), Some("2025-11-25"), None) };
    assert_eq!(classify_http(&with_session, true), HttpEntry::Session);
    for body in [HttpBody::None, HttpBody::Batch, HttpBody::Response] {
        let get = HttpRequest { post: body != HttpBody::None, session_id: true, ..post(body, None, None) };
        assert_eq!(classify_http(&get, true), HttpEntry::Session);
    }
    assert_eq!(refused(&classify_http(&post(HttpBody::Invalid, None, None), true)), (400, -32600));
    // 2026-07-28: the envelope decides; no session needed.
    let modern = post(call(envelope("2026-07-28")), Some("2026-07-28"), Some("tools/call"));
    assert_eq!(classify_http(&modern, true), HttpEntry::Modern { version: "2026-07-28".into() });
    // A session id does not make it a session's.
    assert_eq!(
        classify_http(&HttpRequest { session_id: true, ..modern }, true),
        HttpEntry::Modern { version: "2026-07-28".into() }
    );
    // Not served: -32022 with the revisions that are, so that a client can fall back.
    match classify_http(&modern, false) {
        HttpEntry::Refuse(HttpRefusal {
            status: 400, code: -32022, unsupported: Some((supported, requested)), ..
        }) => {
            assert_eq!(supported, vec!["2025-03-26", "2025-06-18", "2025-11-25"]);
            assert_eq!(requested, "2026-07-28");
        }
        other => panic!("{other:?}"),
    }
    // Headers that disagree, or are missing on a request: -32020.
    for (version, method) in [
        (Some("2025-11-25"), Some("tools/call")),
        (Some("2026-07-28"), Some("tools/list")),
        (None, Some("tools/call")),
        (Some("2026-07-28"), None),
    ] {
        let r = post(call(envelope("2026-07-28")), version, method);
        assert_eq!(refused(&classify_http(&r, true)), (400, -32020), "{version:?} {method:?}");
    }
    // A malformed envelope, or a modern header with none: -32602.
    let bad = Envelope { protocol_version: Some(None), client_capabilities: true };
    assert_eq!(refused(&classify_http(&post(call(bad), None, None), true)), (400, -32602));
    let no_caps = Envelope { protocol_version: Some(Some("2026-07-28")), client_capabilities: false };
    assert_eq!(
        refused(&classify_http(&post(call(no_caps), Some("2026-07-28"), Some("tools/call")), true)),
        (400, -32602)
    );
    assert_eq!(refused(&classify_http(&post(call(none), Some("2026-07-28"), Some("tools/call")), true)), (400, -32602));
    assert_eq!(refused(&classify_http(&post(init, Some("2026-07-28"), None), true)), (400, -32020));
    // A later revision without a handshake is modern too, but not one served: -32022 naming those that are.
    let later = post(call(envelope("2027-01-01")), Some("2027-01-01"), Some("tools/call"));
    match classify_http(&later, true) {
        HttpEntry::Refuse(HttpRefusal {
            status: 400, code: -32022, unsupported: Some((supported, requested)), ..
        }) => {
            assert_eq!(supported, vec!["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
            assert_eq!(requested, "2027-01-01");
        }
        other => panic!("{other:?}"),
    }
    // An envelope naming a 2025 revision is not modern.
    let old = post(call(envelope("2025-11-25")), None, None);
    assert_eq!(refused(&classify_http(&old, true)), (400, -32000), "a 2025 request without a session");
    // A notification: its envelope, or the header alone (notifications need no clientCapabilities).
    let note = |envelope| HttpBody::Notification { method: "notifications/cancelled", envelope };
    let only_version = Envelope { protocol_version: Some(Some("2026-07-28")), client_capabilities: false };
    assert_eq!(
        classify_http(&post(note(only_version), None, None), true),
        HttpEntry::Modern { version: "2026-07-28".into() }
    );
    assert_eq!(
        classify_http(&post(note(none), Some("2026-07-28"), None), true),
        HttpEntry::Modern { version: "2026-07-28".into() }
    );
    assert_eq!(refused(&classify_http(&post(note(none), None, None), true)), (400, -32000));
}

/// A relay whose upstream (2025-11-25) made its handshake through the relay's own client
/// (`relay_handshake`), and the `initialize` result it keeps.
fn handshaken() -> Relay {
    let mut r = Relay::new(RelayConfig::default());
    let own = r.connect(TransportKind::Messages);
    let [init, initialized] = relay_handshake(json!({ "name": "mcp-cancel bridge", "version": "1.0.0" }));
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["capabilities"], json!({}));
    let u = forwarded_id(&down(&mut r, own, &init));
    let answer = handshake_answer(u);
    assert!(matches!(up(&mut r, &answer), Backward::Downstream { .. }));
    assert_eq!(down(&mut r, own, &initialized), Forward::Upstream { id: None, progress_token: None });
    r.disconnect(own);
    let _ = outputs(&mut r);
    r
}

/// A 2026-07-28 request with its envelope.
fn modern_call(id: Value, method: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": { "name": "slow", "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    } } })
}

#[test]
fn a_2026_07_28_client_of_one_request_beside_a_2025_server_discovers_calls_and_cancels_by_closing_its_stream() {
    let mut r = handshaken();
    let m = r.connect_with_version(TransportKind::StreamableHttp, "2026-07-28", 0);
    assert_eq!(r.downstream(m).unwrap().revision(), Revision::parse("2026-07-28"));
    assert_eq!(r.upstream().revision(), Revision::parse("2025-11-25"), "the upstream keeps its own");
    // Its discovery is the relay's to answer; nothing goes up.
    assert_eq!(down(&mut r, m, &modern_call(json!(1), "server/discover")), Forward::AnswerDiscover);
    assert_eq!(outputs(&mut r), vec![]);
    // Its call goes up; closing its stream is its cancel: a notification upstream (stdio, 2025-11-25).
    let u = forwarded_id(&down(&mut r, m, &modern_call(json!(1), "tools/call")));
    assert_eq!(r.handle_downstream_stream_closed(m, &n(1), 0), StreamClosed::Cancelled);
    assert_eq!(outputs(&mut r), vec![notify_upstream(u as i64, None)]);
    assert_eq!(up(&mut r, &result(u)), Backward::Drop);
    // It takes no broadcast and no request of the server's; a 2025-era client does.
    let legacy = r.connect(TransportKind::StreamableHttp);
    assert!(!r.takes_broadcast(m) && r.takes_broadcast(legacy));
    let sampling = json!({ "jsonrpc": "2.0", "id": 40, "method": "sampling/createMessage", "params": {} });
    assert_eq!(
        up(&mut r, &sampling),
        Backward::Downstream { link: legacy, id: Some(n(1)), progress_token: None, related: None }
    );
}

#[test]
fn a_discovery_before_any_handshake_fails_and_is_not_forwarded() {
    let mut r = relay();
    let m = r.connect_with_version(TransportKind::StreamableHttp, "2026-07-28", 0);
    assert_eq!(down(&mut r, m, &modern_call(json!("d"), "server/discover")), Forward::Drop);
    assert_eq!(
        outputs(&mut r),
        vec![RelayOutput::Fail { link: m, id: RequestId::from("d"), failure: Failure::HandshakeFailed }]
    );
}

#[test]
fn a_2025_answer_is_made_a_2026_07_28_one_and_discovery_comes_from_the_handshake() {
    let handshake = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": { "tools": { "listChanged": true }, "tasks": { "list": {} } },
        "serverInfo": { "name": "everything", "version": "2.0.0" },
        "instructions": "be kind",
    });
    assert_eq!(
        discover_result(&handshake),
        json!({
            "resultType": "complete",
            "supportedVersions": ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
            "capabilities": { "tools": { "listChanged": true } },
            "instructions": "be kind",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "everything", "version": "2.0.0" } },
        })
    );
    let tools = json!({ "jsonrpc": "2.0", "id": 3, "result": { "tools": [{ "name": "t", "inputSchema": {}, "execution": { "taskSupport": "optional" } }] } });
    assert_eq!(
        modern_answer("tools/list", tools),
        json!({ "jsonrpc": "2.0", "id": 3, "result": { "tools": [{ "name": "t", "inputSchema": {} }], "resultType": "complete", "ttlMs": 0, "cacheScope": "private" } })
    );
    let call = json!({ "jsonrpc": "2.0", "id": 4, "result": { "content": [], "resultType": "complete" } });
    assert_eq!(modern_answer("tools/call", call.clone()), call, "nothing to add, no cache fields");
    let missing = json!({ "jsonrpc": "2.0", "id": 5, "error": { "code": -32002, "message": "Resource not found" } });
    assert_eq!(modern_answer("resources/read", missing)["error"]["code"], -32602);
    let progress = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": 1, "progress": 1 } });
    assert_eq!(modern_answer("tools/call", progress.clone()), progress);
}

#[cfg(not(target_arch = "wasm32"))]
mod property {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{HashMap, HashSet};

    #[derive(Clone, Debug)]
    enum Step {
        /// Client `c` sends request `id` (0, 1 or "1").
        Send(usize, usize),
        /// Client `c` cancels request `id`.
        Cancel(usize, usize),
        /// The server answers the n-th request it has (modulo).
        Answer(usize),
        /// Client `c` disconnects.
        Disconnect(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0..3usize, 0..3usize).prop_map(|(c, i)| Step::Send(c, i)),
            3 => (0..3usize, 0..3usize).prop_map(|(c, i)| Step::Cancel(c, i)),
            3 => (0..8usize).prop_map(Step::Answer),
            1 => (0..3usize).prop_map(Step::Disconnect),
        ]
    }

    fn id_value(i: usize) -> Value {
        [json!(0), json!(1), json!("1")][i].clone()
    }

    fn request_id(i: usize) -> RequestId {
        [n(0), n(1), RequestId::from("1")][i].clone()
    }

    /// The upstream ids the relay asked to cancel since the last call.
    fn upstream_cancels(r: &mut Relay) -> Vec<u64> {
        std::iter::from_fn(|| r.poll_output())
            .filter_map(|out| match out {
                RelayOutput::Transmit(Side::Upstream, Transmit { request_id: RequestId::Number(u), .. }) => {
                    Some(u as u64)
                }
                _ => None,
            })
            .collect()
    }

    proptest! {
        #[test]
        fn clients_cancelling_at_random_never_cancel_one_anothers_requests(steps in proptest::collection::vec(step(), 1..60)) {
            let mut r = relay();
            let links: Vec<Link> = (0..3).map(|_| r.connect(TransportKind::Messages)).collect();
            let mut gone: HashSet<usize> = HashSet::new();
            // upstream id → (client, its id), for every request the relay sent up.
            let mut owner: HashMap<u64, (usize, usize)> = HashMap::new();
            // Sent up, not answered, not cancelled.
            let mut open: Vec<u64> = Vec::new();
            let mut cancelled: HashSet<u64> = HashSet::new();
            for step in steps {
                match step {
                    Step::Send(c, i) => {
                        let duplicate = open.iter().any(|u| owner[u] == (c, i));
                        match down(&mut r, links[c], &call(id_value(i))) {
                            Forward::Upstream { id: Some(u), .. } => {
                                prop_assert!(!gone.contains(&c) && !duplicate);
                                prop_assert!(!owner.contains_key(&u), "an upstream id is never reused");
                                owner.insert(u, (c, i));
                                open.push(u);
                            }
                            Forward::Drop => prop_assert!(gone.contains(&c) || duplicate),
                            other => prop_assert!(false, "unexpected {:?}", other),
                        }
                        prop_assert_eq!(upstream_cancels(&mut r), Vec::<u64>::new());
                    }
                    Step::Cancel(c, i) => {
                        let expected: Vec<u64> = open.iter().copied().filter(|u| owner[u] == (c, i)).collect();
                        let _ = down(&mut r, links[c], &cancel(id_value(i)));
                        let sent = upstream_cancels(&mut r);
                        prop_assert_eq!(&sent, &expected, "the cancel crosses to this client's request and no other");
                        open.retain(|u| !sent.contains(u));
                        cancelled.extend(sent);
                    }
                    Step::Answer(k) => {
                        let answered: Vec<u64> = owner.keys().copied().collect();
                        if answered.is_empty() { continue; }
                        let mut sorted = answered;
                        sorted.sort_unstable();
                        let u = sorted[k % sorted.len()];
                        let was_open = open.contains(&u);
                        match up(&mut r, &result(u)) {
                            Backward::Downstream { link, id: Some(id), .. } => {
                                let (c, i) = owner[&u];
                                prop_assert!(was_open, "only an open request's answer reaches a client");
                                prop_assert_eq!(link, links[c]);
                                prop_assert_eq!(id, request_id(i));
                            }
                            Backward::Drop => prop_assert!(!was_open, "an open request's answer is delivered"),
                            other => prop_assert!(false, "unexpected {:?}", other),
                        }
                        open.retain(|x| *x != u);
                        prop_assert_eq!(upstream_cancels(&mut r), Vec::<u64>::new());
                    }
                    Step::Disconnect(c) => {
                        let mut expected: Vec<u64> = open.iter().copied().filter(|u| owner[u].0 == c).collect();
                        expected.sort_unstable();
                        r.disconnect(links[c]);
                        gone.insert(c);
                        let sent = upstream_cancels(&mut r);
                        prop_assert_eq!(&sent, &expected, "a disconnect cancels exactly that client's requests");
                        open.retain(|u| !sent.contains(u));
                        cancelled.extend(sent);
                    }
                }
            }
        }
    }
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
