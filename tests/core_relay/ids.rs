//! The id map: clients with overlapping ids sharing one upstream, answers and cancels crossing
//! to the mapped request only (in the form each side's revision requires), late answers
//! dropped, disconnects, timeouts, batches, the in-flight limit.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

/// The upstream cancel of the relay's request `up` by closing its stream (2026-07-28 over
/// Streamable HTTP).
fn close_stream_upstream(up: u64) -> RelayOutput {
    let u = n(up as i64);
    RelayOutput::Transmit(Side::Upstream, Transmit { request_id: u.clone(), action: CancelAction::CloseStream(u) })
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
