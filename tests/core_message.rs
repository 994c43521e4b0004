//! The whole-message classification: `Session::handle_incoming` and
//! `Session::handle_outgoing` on real JSON-RPC messages (`Message::from_json`), one test per
//! kind of message, and on hand-filled `Message` views where the host reads only what it is
//! asked for (`Verdict::NeedFields`) or crossed an oversized string.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

// The same tests run natively (`cargo test`) and in wasm (`wasm-pack test --node`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use mcp_cancel::core::{
    CancelAction, CancelCause, CancelNotification, Config, Event, EventKind, Ignored, InvalidRequestId, Message,
    MessageFields, Method, MethodName, NotSent, OutgoingError, Output, PeerValue, RequestId, RequestState,
    ResponseInfo, ResponseMembers, Revision, Session, TaskCancelRequest, Transmit, TransportKind, Verdict,
};
use serde_json::{json, Value};

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

fn s(v: &str) -> RequestId {
    RequestId::from(v)
}

/// A message from the peer, read whole.
fn incoming(session: &mut Session, message: &Value) -> Verdict {
    let mut info = ResponseInfo::default();
    session.handle_incoming(&Message::from_json(message, &mut info), 0)
}

/// A message we send, read whole (not watched).
fn outgoing(session: &mut Session, message: &Value) -> Result<Verdict, OutgoingError> {
    let mut info = ResponseInfo::default();
    session.handle_outgoing(&Message::from_json(message, &mut info), 0, false)
}

fn outputs(session: &mut Session) -> Vec<Output> {
    std::iter::from_fn(|| session.poll_output()).collect()
}

/// The outputs but the events, in order.
fn work(session: &mut Session) -> Vec<Output> {
    outputs(session).into_iter().filter(|o| !matches!(o, Output::Event(_))).collect()
}

fn events(session: &mut Session) -> Vec<EventKind> {
    outputs(session)
        .into_iter()
        .filter_map(|o| match o {
            Output::Event(Event { kind, .. }) => Some(kind),
            _ => None,
        })
        .collect()
}

fn request(id: Value, method: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": {} })
}

fn result(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn cancelled(params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": params })
}

fn session_at(revision: Revision) -> Session {
    let mut session = Session::default();
    session.set_protocol_version(revision.as_str());
    outputs(&mut session);
    session
}

// ----- messages from the peer -----

#[test]
fn a_request_from_the_peer_is_recorded_in_flight_and_our_response_to_it_passes() {
    let mut session = Session::default();
    assert_eq!(incoming(&mut session, &request(json!(5), "sampling/createMessage")), Verdict::Pass);
    assert_eq!(session.inbound_in_flight(), 1);
    assert_eq!(outgoing(&mut session, &result(json!(5), json!({ "content": [] }))), Ok(Verdict::Pass));
    assert_eq!(session.inbound_in_flight(), 0);
    assert!(outputs(&mut session).is_empty());
}

#[test]
fn a_notification_that_is_not_about_cancellation_passes_and_changes_nothing() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", Some(n(1))).unwrap();
    for method in ["notifications/message", "notifications/tools/list_changed", "notifications/whatever"] {
        let message = json!({ "jsonrpc": "2.0", "method": method, "params": { "requestId": 1, "progressToken": 1 } });
        assert_eq!(incoming(&mut session, &message), Verdict::Pass, "{method}");
    }
    assert_eq!(session.request_state(&n(1)), Some(RequestState::InFlight));
    assert_eq!((session.inbound_in_flight(), session.tombstones()), (0, 0));
    assert!(outputs(&mut session).is_empty());
}

#[test]
fn a_response_passes_when_it_completes_our_request_or_is_not_ours_and_is_dropped_when_late() {
    let mut session = Session::default();
    assert_eq!(outgoing(&mut session, &request(json!(1), "tools/call")), Ok(Verdict::Pass));
    assert_eq!(outgoing(&mut session, &request(json!("two"), "tools/call")), Ok(Verdict::Pass));
    assert!(session.cancel(&s("two"), &mcp_cancel::core::Reason::None).unwrap());
    outputs(&mut session);
    assert_eq!(incoming(&mut session, &result(json!(1), json!({}))), Verdict::Pass);
    assert_eq!(session.request_state(&n(1)), None, "completed");
    let error = json!({ "jsonrpc": "2.0", "id": "two", "error": { "code": -32603, "message": "x" } });
    assert_eq!(incoming(&mut session, &error), Verdict::Drop, "late: we cancelled it");
    assert_eq!(incoming(&mut session, &result(json!(99), json!({}))), Verdict::Pass, "never ours: the host decides");
    assert_eq!(incoming(&mut session, &result(json!(null), json!({}))), Verdict::Pass, "no id of ours");
    assert_eq!(
        events(&mut session),
        vec![EventKind::LateResponseDropped { request_id: s("two"), method: "tools/call".into() }]
    );
}

#[test]
fn a_valid_peer_cancel_passes_and_aborts_its_request_and_our_response_to_it_is_dropped() {
    let mut session = Session::default();
    assert_eq!(incoming(&mut session, &request(json!("r-1"), "sampling/createMessage")), Verdict::Pass);
    assert!(session.watch_inbound(&s("r-1")));
    let cancel = cancelled(json!({ "requestId": "r-1", "reason": "user closed the dialog" }));
    assert_eq!(incoming(&mut session, &cancel), Verdict::Pass);
    assert_eq!(
        work(&mut session),
        vec![Output::PeerCancelled {
            request_id: s("r-1"),
            reason: Some("user closed the dialog".into()),
            watched: true
        }]
    );
    assert_eq!(outgoing(&mut session, &result(json!("r-1"), json!({}))), Ok(Verdict::Drop));
    assert_eq!(session.tombstones(), 0, "a peer's cancel never creates a tombstone");
    assert!(work(&mut session).is_empty(), "not settled: it was cancelled");
}

#[test]
fn a_malformed_or_invalid_peer_cancel_is_dropped_and_reported() {
    let mut session = Session::default();
    assert_eq!(incoming(&mut session, &request(json!(7), "roots/list")), Verdict::Pass);
    session.track_request(n(100), "tools/call", None).unwrap();
    let cases = [
        (json!({ "jsonrpc": "2.0", "method": "notifications/cancelled" }), Ignored::Malformed),
        (cancelled(json!([7])), Ignored::Malformed),
        (cancelled(json!({ "reason": "x" })), Ignored::Malformed),
        (cancelled(json!({ "requestId": null })), Ignored::Malformed),
        (cancelled(json!({ "requestId": 7.5 })), Ignored::Malformed),
        (cancelled(json!({ "requestId": 7, "reason": 42 })), Ignored::Malformed),
        (cancelled(json!({ "requestId": "7" })), Ignored::NotInFlight),
        (cancelled(json!({ "requestId": 100 })), Ignored::WrongDirection),
    ];
    for (message, want) in cases {
        assert_eq!(incoming(&mut session, &message), Verdict::Drop, "{message}");
        match outputs(&mut session).as_slice() {
            [Output::Event(Event { kind: EventKind::CancelIgnored { why, .. }, .. })] => {
                assert_eq!(*why, want, "{message}")
            }
            other => panic!("{message}: {other:?}"),
        }
    }
    assert_eq!(session.inbound_in_flight(), 1);
    assert_eq!(session.request_state(&n(100)), Some(RequestState::InFlight));
    assert_eq!(session.tombstones(), 0);
}

#[test]
fn progress_after_our_cancel_is_dropped_and_live_progress_passes() {
    let mut session = Session::default();
    let with_token = |id: i64, token: &str| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "_meta": { "progressToken": token } } });
    let progress = |token: &str| json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": token, "progress": 1 } });
    assert_eq!(outgoing(&mut session, &with_token(1, "p-1")), Ok(Verdict::Pass));
    assert_eq!(outgoing(&mut session, &with_token(2, "p-2")), Ok(Verdict::Pass));
    assert!(session.cancel(&n(1), &mcp_cancel::core::Reason::None).unwrap());
    outputs(&mut session);
    assert_eq!(incoming(&mut session, &progress("p-1")), Verdict::Drop);
    assert_eq!(incoming(&mut session, &progress("p-2")), Verdict::Pass);
    assert_eq!(incoming(&mut session, &progress("nobody")), Verdict::Pass);
    assert!(
        matches!(events(&mut session).as_slice(), [EventKind::LateProgressDropped { request_id, .. }] if *request_id == n(1))
    );
}

#[test]
fn a_terminal_task_status_ends_the_task_and_nothing_is_sent_for_it() {
    let mut session = session_at(Revision::V2025_11_25);
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "x", "task": { "ttl": 60000 } } });
    assert_eq!(outgoing(&mut session, &call), Ok(Verdict::Pass));
    let created = result(json!(1), json!({ "task": { "taskId": "t-1", "status": "working" } }));
    assert_eq!(incoming(&mut session, &created), Verdict::Pass);
    assert_eq!(session.request_state(&n(1)), Some(RequestState::TaskRunning));
    let status = |s: &str| json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": { "taskId": "t-1", "status": s } });
    assert_eq!(incoming(&mut session, &status("working")), Verdict::Pass);
    assert_eq!(session.request_state(&n(1)), Some(RequestState::TaskRunning));
    assert_eq!(incoming(&mut session, &status("completed")), Verdict::Pass);
    assert_eq!((session.request_state(&n(1)), session.running_tasks()), (None, 0));
    assert_eq!(session.cancel(&n(1), &mcp_cancel::core::Reason::None), Ok(false));
    assert!(work(&mut session).is_empty());
}

#[test]
fn the_initialize_result_sets_the_revision() {
    let mut session = Session::default();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }
    });
    assert_eq!(outgoing(&mut session, &initialize), Ok(Verdict::Pass));
    let answer = result(json!(0), json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {} }));
    assert_eq!(incoming(&mut session, &answer), Verdict::Pass);
    assert_eq!(session.revision(), Some(Revision::V2025_06_18));
    assert!(matches!(
        events(&mut session).as_slice(),
        [EventKind::RevisionNegotiated { revision: Revision::V2025_06_18, known: true, .. }]
    ));
}

#[test]
fn a_response_to_a_task_request_needs_its_task_id_and_is_handled_on_the_second_call() {
    let mut session = session_at(Revision::V2025_11_25);
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "task": {} } });
    assert_eq!(outgoing(&mut session, &call), Ok(Verdict::Pass));
    // The host read the id only: the session asks for `result.task.taskId` and does nothing.
    let bare = Message::new(PeerValue::Number(1.0), MethodName::Absent);
    assert_eq!(session.handle_incoming(&bare, 0), Verdict::NeedFields(MessageFields::RESULT_TASK_ID));
    assert_eq!(session.request_state(&n(1)), Some(RequestState::InFlight));
    assert!(outputs(&mut session).is_empty());
    // The same message with the member read.
    let info = ResponseInfo { task_id: Some("t-1".into()), ..ResponseInfo::default() };
    let mut read = bare;
    read.read = MessageFields::RESULT_TASK_ID;
    read.response = Some(&info);
    assert_eq!(session.handle_incoming(&read, 0), Verdict::Pass);
    assert_eq!(session.request_state(&n(1)), Some(RequestState::TaskRunning));
    // Cancelling it now is the task's `tasks/cancel`.
    assert!(session.cancel(&n(1), &mcp_cancel::core::Reason::None).unwrap());
    assert!(matches!(
        work(&mut session).as_slice(),
        [Output::Transmit(Transmit { action: CancelAction::CancelTask(t), .. }), Output::Cancelled { .. }] if t.task_id == "t-1"
    ));
}

#[test]
fn a_message_missing_the_members_its_method_needs_is_answered_with_them_and_nothing_is_done() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", Some(s("p"))).unwrap();
    session.handle_request(n(2), "roots/list");
    let cancel = Message::new(PeerValue::Absent, MethodName::Known(Method::Cancelled));
    let need = MessageFields::PARAMS.with(MessageFields::REQUEST_ID).with(MessageFields::REASON);
    assert_eq!(session.handle_incoming(&cancel, 0), Verdict::NeedFields(need));
    let progress = Message::new(PeerValue::Absent, MethodName::Known(Method::Progress));
    assert_eq!(session.handle_incoming(&progress, 0), Verdict::NeedFields(MessageFields::PROGRESS_TOKEN));
    let ours = Message::new(PeerValue::Number(3.0), MethodName::Known(Method::ToolsCall));
    let need = MessageFields::META_PROGRESS_TOKEN.with(MessageFields::TASK).with(MessageFields::TASK_ID);
    assert_eq!(session.handle_outgoing(&ours, 0, false), Ok(Verdict::NeedFields(need)));
    // Nothing changed.
    assert_eq!(session.request_state(&n(3)), None);
    assert_eq!((session.outbound_in_flight(), session.inbound_in_flight()), (1, 1));
    assert!(outputs(&mut session).is_empty());
}

// ----- the cancel an SDK sends itself -----

#[test]
fn an_sdks_own_cancel_is_dropped_and_sent_once_with_the_reason_policy_applied() {
    let mut session = Session::default();
    assert_eq!(outgoing(&mut session, &request(json!(7), "tools/call")), Ok(Verdict::Pass));
    let sdk = cancelled(json!({ "requestId": 7, "reason": "AbortError: This operation was aborted" }));
    assert_eq!(outgoing(&mut session, &sdk), Ok(Verdict::Drop));
    assert_eq!(
        work(&mut session),
        vec![
            Output::Transmit(Transmit {
                request_id: n(7),
                action: CancelAction::Notify(CancelNotification {
                    request_id: n(7),
                    reason: Some("Request cancelled".into())
                })
            }),
            Output::Cancelled { request_id: n(7), cause: CancelCause::Cancelled },
        ]
    );
    // The SDK sends it again (or the caller aborts too): nothing more goes out.
    assert_eq!(outgoing(&mut session, &sdk), Ok(Verdict::Drop));
    assert!(work(&mut session).is_empty());
    assert_eq!(incoming(&mut session, &result(json!(7), json!({}))), Verdict::Drop, "its late answer");
}

#[test]
fn an_sdks_own_timeout_cancel_is_sent_with_the_timeout_reason_and_a_plain_reason_as_is() {
    let mut session = Session::default();
    for (id, reason, sent) in [
        (1, "McpError: MCP error -32001: Request timed out", "Request timed out"),
        (2, "user pressed stop", "user pressed stop"),
    ] {
        assert_eq!(outgoing(&mut session, &request(json!(id), "tools/call")), Ok(Verdict::Pass));
        assert_eq!(outgoing(&mut session, &cancelled(json!({ "requestId": id, "reason": reason }))), Ok(Verdict::Drop));
        match work(&mut session).as_slice() {
            [Output::Transmit(Transmit { action: CancelAction::Notify(c), .. }), Output::Cancelled { .. }] => {
                assert_eq!(c.reason.as_deref(), Some(sent))
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn an_sdks_own_cancel_of_the_handshake_or_of_nothing_is_dropped_and_nothing_is_sent() {
    let mut session = Session::default();
    assert_eq!(outgoing(&mut session, &request(json!(0), "initialize")), Ok(Verdict::Pass));
    assert_eq!(outgoing(&mut session, &cancelled(json!({ "requestId": 0 }))), Ok(Verdict::Drop));
    assert_eq!(outgoing(&mut session, &cancelled(json!({ "requestId": 99 }))), Ok(Verdict::Drop));
    assert_eq!(outgoing(&mut session, &cancelled(json!({ "requestId": null }))), Ok(Verdict::Drop));
    let whys: Vec<NotSent> = events(&mut session)
        .into_iter()
        .map(|e| match e {
            EventKind::CancelNotSent { why, .. } => why,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(whys, vec![NotSent::Handshake, NotSent::NotInFlight]);
    assert_eq!(session.request_state(&n(0)), Some(RequestState::InFlight));
}

#[test]
fn over_streamable_http_in_2026_an_sdks_own_cancel_closes_the_stream() {
    let mut session = Session::new(Config { transport: TransportKind::StreamableHttp, ..Config::default() });
    session.set_protocol_version("2026-07-28");
    assert_eq!(outgoing(&mut session, &request(json!("a"), "tools/call")), Ok(Verdict::Pass));
    assert_eq!(outgoing(&mut session, &cancelled(json!({ "requestId": "a" }))), Ok(Verdict::Drop));
    let transmits: Vec<_> = work(&mut session)
        .into_iter()
        .filter_map(|o| match o {
            Output::Transmit(t) => Some(t.action),
            _ => None,
        })
        .collect();
    assert_eq!(transmits, vec![CancelAction::CloseStream(s("a"))]);
}

// ----- bounds and ids -----

#[test]
fn the_peers_requests_are_bounded_and_the_oldest_is_forgotten_first() {
    let mut session = Session::default();
    assert_eq!(session.config().inbound_capacity, 4096);
    for i in 0..4097 {
        assert_eq!(incoming(&mut session, &request(json!(i), "tools/call")), Verdict::Pass);
        if i == 0 {
            assert!(session.watch_inbound(&n(0)));
        }
    }
    assert_eq!(session.inbound_in_flight(), 4096);
    assert_eq!(
        outputs(&mut session),
        vec![
            Output::InboundSettled(n(0)),
            Output::Event(Event {
                direction: mcp_cancel::core::Direction::Inbound,
                kind: EventKind::InboundForgotten { request_id: n(0), method: "tools/call".into() }
            }),
        ]
    );
    // The forgotten request is unknown now: its cancel is ignored, our response passes.
    assert_eq!(incoming(&mut session, &cancelled(json!({ "requestId": 0 }))), Verdict::Drop);
    assert_eq!(outgoing(&mut session, &result(json!(0), json!({}))), Ok(Verdict::Pass));
    assert!(matches!(incoming(&mut session, &cancelled(json!({ "requestId": 1 }))), Verdict::Pass));
    outputs(&mut session);
    // A peer that never hears back cannot grow memory.
    for i in 10_000..60_000 {
        let _ = incoming(&mut session, &request(json!(i), "tools/call"));
        while session.poll_output().is_some() {}
    }
    assert_eq!(session.inbound_in_flight(), 4096);
}

#[test]
fn our_own_tasks_cancel_never_takes_an_id_the_application_uses() {
    let mut session = session_at(Revision::V2025_11_25);
    // The application's own ids of the same shape: one in flight, one cancelled.
    assert_eq!(outgoing(&mut session, &request(json!("mcp-cancel:1"), "tools/call")), Ok(Verdict::Pass));
    assert_eq!(outgoing(&mut session, &request(json!("mcp-cancel:2"), "tools/call")), Ok(Verdict::Pass));
    assert!(session.cancel(&s("mcp-cancel:2"), &mcp_cancel::core::Reason::None).unwrap());
    let call = json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": { "task": {} } });
    assert_eq!(outgoing(&mut session, &call), Ok(Verdict::Pass));
    assert_eq!(incoming(&mut session, &result(json!(9), json!({ "task": { "taskId": "t" } }))), Verdict::Pass);
    outputs(&mut session);
    assert!(session.cancel(&n(9), &mcp_cancel::core::Reason::None).unwrap());
    let ours = s("mcp-cancel:3");
    assert_eq!(
        work(&mut session).first(),
        Some(&Output::Transmit(Transmit {
            request_id: n(9),
            action: CancelAction::CancelTask(TaskCancelRequest {
                id: ours.clone(),
                task_id: "t".into(),
                cancels: n(9)
            })
        }))
    );
    // Each answer goes to its own request.
    assert_eq!(incoming(&mut session, &result(json!("mcp-cancel:1"), json!({}))), Verdict::Pass, "the application's");
    assert_eq!(incoming(&mut session, &result(json!("mcp-cancel:3"), json!({}))), Verdict::Drop, "ours");
    assert_eq!(session.running_tasks(), 0);
}

#[test]
fn oversized_ids_never_match_anything() {
    let mut session = Session::default();
    // Our request whose id is long, and the peer's request.
    let long = "x".repeat(2048);
    session.track_request(RequestId::String(long.clone()), "tools/call", Some(s("p"))).unwrap();
    session.handle_request(n(1), "roots/list");
    let too_long = |id: PeerValue<'static>, method: MethodName<'static>| {
        let mut m = Message::new(id, method);
        m.read = MessageFields(u32::MAX);
        m
    };
    // A response with an oversized id is no answer to anything of ours.
    let response = too_long(PeerValue::Oversized, MethodName::Absent);
    assert_eq!(session.handle_incoming(&response, 0), Verdict::Pass);
    assert_eq!(session.request_state(&RequestId::String(long)), Some(RequestState::InFlight));
    // A request with an oversized id is not recorded.
    let peer_request = too_long(PeerValue::Oversized, MethodName::Other("roots/list"));
    assert_eq!(session.handle_incoming(&peer_request, 0), Verdict::Pass);
    assert_eq!(session.inbound_in_flight(), 1);
    // A cancel for an oversized id is malformed.
    let mut cancel = too_long(PeerValue::Absent, MethodName::Known(Method::Cancelled));
    cancel.params = PeerValue::Object;
    cancel.request_id = PeerValue::Oversized;
    assert_eq!(session.handle_incoming(&cancel, 0), Verdict::Drop);
    assert!(matches!(
        events(&mut session).as_slice(),
        [EventKind::CancelIgnored { request_id: None, why: Ignored::Malformed, .. }]
    ));
    // Progress with an oversized token belongs to nobody.
    let mut progress = too_long(PeerValue::Absent, MethodName::Known(Method::Progress));
    progress.progress_token = PeerValue::Oversized;
    assert_eq!(session.handle_incoming(&progress, 0), Verdict::Pass);
    // Ours: a request with an oversized id is refused, a cancel of one sends nothing.
    let ours = too_long(PeerValue::Oversized, MethodName::Known(Method::ToolsCall));
    assert_eq!(
        session.handle_outgoing(&ours, 0, false),
        Err(OutgoingError::InvalidRequestId(InvalidRequestId::TooLong))
    );
    assert_eq!(session.handle_outgoing(&cancel, 0, false), Ok(Verdict::Drop));
    assert!(outputs(&mut session).is_empty());
    assert_eq!((session.outbound_in_flight(), session.inbound_in_flight(), session.tombstones()), (1, 1, 0));
    assert!(!session.is_cancelled_by_peer(&n(1)));
}

#[test]
fn in_2026_a_result_of_type_task_starts_a_task_that_is_cancelled_with_tasks_cancel() {
    let mut session = session_at(Revision::V2026_07_28);
    assert_eq!(outgoing(&mut session, &request(json!(1), "tools/call")), Ok(Verdict::Pass));
    let answer = result(json!(1), json!({ "resultType": "task", "taskId": "t-2", "status": "working" }));
    assert_eq!(incoming(&mut session, &answer), Verdict::Pass);
    assert_eq!(session.request_state(&n(1)), Some(RequestState::TaskRunning));
    assert!(session.cancel(&n(1), &mcp_cancel::core::Reason::None).unwrap());
    assert!(matches!(
        work(&mut session).as_slice(),
        [Output::Transmit(Transmit { action: CancelAction::CancelTask(t), .. }), Output::Cancelled { .. }] if t.task_id == "t-2"
    ));
    // The extension's ack is a result: our `tasks/cancel` is consumed and the task is over.
    let ack = result(json!("mcp-cancel:1"), json!({ "resultType": "complete" }));
    assert_eq!(incoming(&mut session, &ack), Verdict::Drop);
    assert_eq!((session.request_state(&n(1)), session.running_tasks()), (None, 0));
}

#[test]
fn reusing_the_id_of_a_watched_request_whose_task_still_runs_settles_that_request_first() {
    let mut session = Session::new(Config { revision: Some(Revision::V2025_11_25), ..Config::default() });
    let call = json!({ "jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": { "name": "slow", "task": { "ttl": 60000 } } });
    let mut info = ResponseInfo::default();
    assert_eq!(session.handle_outgoing(&Message::from_json(&call, &mut info), 0, true), Ok(Verdict::Pass));
    let created =
        json!({ "jsonrpc": "2.0", "id": 10, "result": { "task": { "taskId": "t-10", "status": "working" } } });
    assert_eq!(incoming(&mut session, &created), Verdict::Pass);
    assert_eq!(session.request_state(&n(10)), Some(RequestState::TaskRunning));
    assert!(outputs(&mut session).iter().all(|o| !matches!(o, Output::Settled(_))), "its task runs: not settled");
    // The id is used again: the earlier request can no longer be cancelled through it.
    assert_eq!(outgoing(&mut session, &json!({ "jsonrpc": "2.0", "id": 10, "method": "ping" })), Ok(Verdict::Pass));
    assert_eq!(outputs(&mut session), vec![Output::Settled(n(10))]);
    // Its task ending later settles nothing more.
    assert_eq!(
        incoming(
            &mut session,
            &json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": { "taskId": "t-10", "status": "completed" } })
        ),
        Verdict::Pass
    );
    assert!(outputs(&mut session).iter().all(|o| !matches!(o, Output::Settled(_))));
}

#[test]
fn a_notification_never_cancels_the_peers_task_augmented_request_in_a_revision_with_tasks() {
    let request = |id: i64, task: bool| {
        let params = if task { json!({ "name": "slow", "task": { "ttl": 1000 } }) } else { json!({ "name": "slow" }) };
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
    };
    let cancel =
        |id: i64| json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id } });
    let mut s = Session::new(Config { revision: Revision::parse("2025-11-25"), ..Config::default() });
    assert_eq!(incoming(&mut s, &request(1, true)), Verdict::Pass);
    assert_eq!(incoming(&mut s, &request(2, false)), Verdict::Pass);
    assert_eq!(incoming(&mut s, &cancel(1)), Verdict::Drop, "2025-11-25: a task is cancelled with tasks/cancel");
    assert_eq!(incoming(&mut s, &cancel(2)), Verdict::Pass);
    let ignored: Vec<Event> = std::iter::from_fn(|| s.poll_output())
        .filter_map(|o| match o {
            Output::Event(e) if matches!(e.kind, EventKind::CancelIgnored { .. }) => Some(e),
            _ => None,
        })
        .collect();
    assert!(matches!(
        ignored.as_slice(),
        [Event { kind: EventKind::CancelIgnored { why: Ignored::TaskAugmented, .. }, .. }]
    ));

    // Before tasks existed, `params.task` means nothing: the request is cancelled like any other.
    let mut old = Session::new(Config { revision: Revision::parse("2025-06-18"), ..Config::default() });
    let _ = incoming(&mut old, &request(1, true));
    assert_eq!(incoming(&mut old, &cancel(1)), Verdict::Pass);

    // A host that reads only what it is asked: a tools/call request needs `params.task`.
    let mut fresh = Session::new(Config::default());
    let bare = Message::new(PeerValue::Number(3.0), MethodName::Known(Method::ToolsCall));
    assert_eq!(fresh.handle_incoming(&bare, 0), Verdict::NeedFields(MessageFields::TASK));
}

#[test]
fn a_responses_members_mean_the_same_read_from_json_or_by_a_host() {
    let text = |v: &str| Some(v.to_owned());
    // An error: its code when an integer, -32603 (Internal error) when not.
    for (code, expected) in [(-32001.0, -32001), (1.5, -32603), (f64::NAN, -32603), (1e300, -32603)] {
        let info = ResponseInfo::from_members(ResponseMembers { error_code: Some(code), ..ResponseMembers::default() });
        assert_eq!(info.error_code, Some(expected), "{code}");
    }
    let from_json = |v: Value| {
        let mut info = ResponseInfo::default();
        let _ = Message::from_json(&v, &mut info);
        info
    };
    assert_eq!(
        from_json(json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": "x", "message": "m" } })).error_code,
        Some(-32603)
    );
    assert_eq!(
        from_json(json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32000, "message": "m" } })).error_code,
        Some(-32000)
    );
    // A task: `result.task.taskId` (2025-11-25), or `result.taskId` of a "task" result (2026-07-28).
    let task = ResponseInfo::from_members(ResponseMembers {
        result_type: text("task"),
        result_task_id: text("T1"),
        result_status: text("working"),
        ..ResponseMembers::default()
    });
    assert_eq!(
        (task.task_id.as_deref(), task.task_status),
        (Some("T1"), Some(("T1".to_owned(), "working".to_owned())))
    );
    let complete =
        ResponseInfo::from_members(ResponseMembers { result_task_id: text("T1"), ..ResponseMembers::default() });
    assert_eq!(complete.task_id, None);
    assert_eq!(
        from_json(
            json!({ "jsonrpc": "2.0", "id": 1, "result": { "resultType": "task", "taskId": "T2", "status": "working" } })
        ),
        ResponseInfo::from_members(ResponseMembers {
            result_type: text("task"),
            result_task_id: text("T2"),
            result_status: text("working"),
            ..ResponseMembers::default()
        })
    );
}
