//! Behaviour of the core `Session`, one test per rule of the spec (2024-11-05 .. 2025-06-18
//! §Cancellation), each asserting the wire message (or its absence) and the event.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

// The same tests run natively (`cargo test`) and in wasm (`wasm-pack test --node`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use mcp_cancel::core::{
    CancelAction, CancelNotification, CancelledParams, Config, Direction, Event, EventKind, Ignored,
    InboundCancelVerdict, NotSent, OutgoingResponseVerdict, ProgressVerdict, Reason, ReasonPolicy, RequestId,
    RequestState, ResponseInfo, ResponseVerdict, Session, UsageError, Via,
};
use serde_json::json;

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

fn s(v: &str) -> RequestId {
    RequestId::from(v)
}

fn events(session: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| session.poll_event()).collect()
}

fn notification(action: Option<CancelAction>) -> Option<CancelNotification> {
    match action {
        Some(CancelAction::Notify(n)) => Some(n),
        None => None,
        Some(other) => panic!("expected a notification, got {other:?}"),
    }
}

fn cancel_json(session: &mut Session, id: &RequestId, reason: &str) -> Option<serde_json::Value> {
    notification(session.cancel(id, &Reason::Text(reason.into())).unwrap()).map(|c| c.to_json())
}

fn response(session: &mut Session, id: &RequestId) -> ResponseVerdict {
    session.handle_response(id, &ResponseInfo::default())
}

fn peer_cancel(session: &mut Session, params: serde_json::Value) -> InboundCancelVerdict {
    session.handle_cancelled(&CancelledParams::from_json(Some(&params)))
}

#[test]
fn cancelling_a_request_in_flight_produces_the_notification_and_a_tombstone() {
    let mut session = Session::default();
    session.track_request(n(3), "tools/call", Some(n(3))).unwrap();
    assert_eq!(
        cancel_json(&mut session, &n(3), "user pressed stop"),
        Some(json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 3, "reason": "user pressed stop"}
        }))
    );
    assert_eq!(session.request_state(&n(3)), Some(RequestState::Cancelled));
    assert_eq!(
        events(&mut session),
        vec![Event {
            direction: Direction::Outbound,
            kind: EventKind::CancelSent {
                request_id: n(3),
                method: "tools/call".into(),
                via: Via::Notification,
                reason: Some("user pressed stop".into()),
                task_id: None,
            }
        }]
    );
}

#[test]
fn a_cancel_without_reason_leaves_reason_out_of_the_wire_message() {
    let mut session = Session::default();
    session.track_request(s("a"), "tools/call", None).unwrap();
    let sent = notification(session.cancel(&s("a"), &Reason::None).unwrap()).unwrap();
    assert_eq!(
        sent.to_json(),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}})
    );
}

#[test]
fn cancel_is_idempotent_and_the_first_reason_wins() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    assert!(cancel_json(&mut session, &n(1), "first").is_some());
    events(&mut session);
    assert_eq!(cancel_json(&mut session, &n(1), "second"), None);
    assert_eq!(
        events(&mut session),
        vec![Event {
            direction: Direction::Outbound,
            kind: EventKind::CancelNotSent {
                request_id: n(1),
                method: Some("tools/call".into()),
                why: NotSent::NotInFlight
            }
        }]
    );
}

#[test]
fn no_cancel_is_produced_for_a_request_that_already_completed_or_was_never_sent() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Deliver);
    assert_eq!(cancel_json(&mut session, &n(1), "too late"), None);
    assert_eq!(cancel_json(&mut session, &n(99), "never sent"), None);
    let whys: Vec<_> = events(&mut session)
        .into_iter()
        .map(|e| match e.kind {
            EventKind::CancelNotSent { why, .. } => why,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(whys, vec![NotSent::NotInFlight, NotSent::NotInFlight]);
}

#[test]
fn cancelling_initialize_is_refused_and_it_stays_in_flight() {
    let mut session = Session::default();
    session.track_request(n(0), "initialize", None).unwrap();
    assert_eq!(session.cancel(&n(0), &Reason::Timeout), Err(UsageError::HandshakeNotCancellable(n(0))));
    assert_eq!(session.request_state(&n(0)), Some(RequestState::InFlight));
    assert_eq!(response(&mut session, &n(0)), ResponseVerdict::Deliver);
    assert!(matches!(
        events(&mut session).as_slice(),
        [Event { kind: EventKind::CancelNotSent { why: NotSent::Handshake, .. }, .. }]
    ));
}

#[test]
fn responses_classify_as_deliver_late_or_unknown() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    session.track_request(n(2), "tools/call", None).unwrap();
    session.cancel(&n(2), &Reason::None).unwrap();
    events(&mut session);
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Deliver);
    assert_eq!(response(&mut session, &n(2)), ResponseVerdict::Late);
    assert_eq!(response(&mut session, &n(3)), ResponseVerdict::Unknown);
    // A response is the end of a request: a second one is unknown.
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Unknown);
    assert_eq!(response(&mut session, &n(2)), ResponseVerdict::Unknown);
    assert_eq!(
        events(&mut session),
        vec![Event {
            direction: Direction::Outbound,
            kind: EventKind::LateResponseDropped { request_id: n(2), method: "tools/call".into() }
        }]
    );
}

#[test]
fn string_and_number_ids_never_match_each_other() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    session.cancel(&n(1), &Reason::None).unwrap();
    assert_eq!(response(&mut session, &s("1")), ResponseVerdict::Unknown);
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Late);
}

#[test]
fn zero_and_empty_string_are_ordinary_ids() {
    let mut session = Session::default();
    session.track_request(n(0), "tools/call", None).unwrap();
    session.track_request(s(""), "tools/call", None).unwrap();
    assert!(cancel_json(&mut session, &n(0), "x").is_some());
    assert!(cancel_json(&mut session, &s(""), "x").is_some());
    assert_eq!(response(&mut session, &n(0)), ResponseVerdict::Late);
    assert_eq!(response(&mut session, &s("")), ResponseVerdict::Late);
}

#[test]
fn late_progress_after_a_cancel_is_dropped_and_live_progress_delivered() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", Some(s("tok-1"))).unwrap();
    session.track_request(n(2), "tools/call", Some(n(2))).unwrap();
    assert_eq!(session.handle_progress(&s("tok-1"), 0), ProgressVerdict::Deliver);
    session.cancel(&n(1), &Reason::None).unwrap();
    events(&mut session);
    assert_eq!(session.handle_progress(&s("tok-1"), 0), ProgressVerdict::Late);
    assert_eq!(session.handle_progress(&n(2), 0), ProgressVerdict::Deliver);
    assert_eq!(session.handle_progress(&s("nobody"), 0), ProgressVerdict::Unknown);
    assert_eq!(
        events(&mut session),
        vec![Event {
            direction: Direction::Outbound,
            kind: EventKind::LateProgressDropped {
                request_id: n(1),
                method: "tools/call".into(),
                progress_token: s("tok-1")
            }
        }]
    );
    // Once the late response came, the request is over: its token is unknown again.
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Late);
    assert_eq!(session.handle_progress(&s("tok-1"), 0), ProgressVerdict::Unknown);
}

#[test]
fn tracking_an_id_or_progress_token_already_in_flight_is_an_error() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", Some(n(10))).unwrap();
    assert_eq!(session.track_request(n(1), "ping", None), Err(UsageError::AlreadyInFlight(n(1))));
    assert_eq!(session.track_request(n(2), "tools/call", Some(n(10))), Err(UsageError::ProgressTokenInUse(n(10))));
    assert_eq!(session.outbound_in_flight(), 1);
}

#[test]
fn reusing_a_cancelled_id_makes_it_in_flight_again() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    session.cancel(&n(1), &Reason::None).unwrap();
    session.track_request(n(1), "tools/call", None).unwrap();
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Deliver);
}

#[test]
fn tombstones_are_bounded_and_the_oldest_is_forgotten_first() {
    let mut session = Session::new(Config { tombstone_capacity: 3, ..Config::default() });
    for i in 0..10 {
        session.track_request(n(i), "tools/call", Some(n(1000 + i))).unwrap();
        session.cancel(&n(i), &Reason::None).unwrap();
    }
    events(&mut session);
    assert_eq!(session.tombstones(), 3);
    assert_eq!(response(&mut session, &n(6)), ResponseVerdict::Unknown);
    assert_eq!(session.handle_progress(&n(1006), 0), ProgressVerdict::Unknown);
    assert_eq!(session.handle_progress(&n(1007), 0), ProgressVerdict::Late);
    assert_eq!(response(&mut session, &n(9)), ResponseVerdict::Late);
}

#[test]
fn error_reasons_are_replaced_by_the_generic_reason_unless_exposed() {
    let leak = Reason::Error("Error: connect ECONNREFUSED 10.0.0.7:5432".into());
    let mut closed = Session::default();
    closed.track_request(n(1), "tools/call", None).unwrap();
    assert_eq!(
        notification(closed.cancel(&n(1), &leak).unwrap()).unwrap().reason.as_deref(),
        Some("Request cancelled")
    );

    let mut open = Session::new(Config {
        reason: ReasonPolicy { expose_error_reasons: true, ..ReasonPolicy::default() },
        ..Config::default()
    });
    open.track_request(n(1), "tools/call", None).unwrap();
    assert_eq!(
        notification(open.cancel(&n(1), &leak).unwrap()).unwrap().reason.as_deref(),
        Some("Error: connect ECONNREFUSED 10.0.0.7:5432")
    );
}

#[test]
fn long_reasons_are_capped_on_the_wire() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    let sent = notification(session.cancel(&n(1), &Reason::Text("é".repeat(2000))).unwrap()).unwrap();
    let reason = sent.reason.unwrap();
    assert_eq!(reason.len(), 1024);
    assert!(reason.chars().all(|c| c == 'é'));
}

// ----- inbound -----

#[test]
fn a_valid_peer_cancel_aborts_its_request_and_suppresses_our_response() {
    let mut session = Session::default();
    assert!(session.handle_request(n(5), "sampling/createMessage"));
    assert_eq!(
        peer_cancel(&mut session, json!({"requestId": 5, "reason": "user closed the dialog"})),
        InboundCancelVerdict::Abort { request_id: n(5), reason: Some("user closed the dialog".into()) }
    );
    assert!(session.is_cancelled_by_peer(&n(5)));
    assert_eq!(session.handle_outgoing_response(&n(5)), OutgoingResponseVerdict::Suppress);
    assert_eq!(session.inbound_in_flight(), 0);
    assert_eq!(
        events(&mut session),
        vec![
            Event {
                direction: Direction::Inbound,
                kind: EventKind::CancelReceived {
                    request_id: n(5),
                    method: "sampling/createMessage".into(),
                    reason: Some("user closed the dialog".into())
                }
            },
            Event {
                direction: Direction::Inbound,
                kind: EventKind::ResponseSuppressed { request_id: n(5), method: "sampling/createMessage".into() }
            },
        ]
    );
}

#[test]
fn a_peer_cancel_for_request_id_zero_works() {
    let mut session = Session::default();
    session.handle_request(n(0), "roots/list");
    assert!(matches!(peer_cancel(&mut session, json!({"requestId": 0})), InboundCancelVerdict::Abort { .. }));
}

#[test]
fn responses_to_requests_not_cancelled_are_sent() {
    let mut session = Session::default();
    session.handle_request(s("r"), "ping");
    assert_eq!(session.handle_outgoing_response(&s("r")), OutgoingResponseVerdict::Send);
    assert_eq!(session.handle_outgoing_response(&s("never")), OutgoingResponseVerdict::Send);
    assert!(events(&mut session).is_empty());
}

/// Each invalid inbound cancel: ignored, with the reason why, and no state change.
#[test]
fn invalid_peer_cancels_are_ignored_and_reported_with_why() {
    struct Case {
        name: &'static str,
        params: Option<serde_json::Value>,
        why: Ignored,
        detail: Option<&'static str>,
    }
    let cases = [
        Case { name: "no params", params: None, why: Ignored::Malformed, detail: Some("params missing") },
        Case {
            name: "params an array",
            params: Some(json!([7])),
            why: Ignored::Malformed,
            detail: Some("params is array, not an object"),
        },
        Case {
            name: "params a string",
            params: Some(json!("7")),
            why: Ignored::Malformed,
            detail: Some("params is string, not an object"),
        },
        Case {
            name: "requestId missing",
            params: Some(json!({"reason": "x"})),
            why: Ignored::Malformed,
            detail: Some("params.requestId missing"),
        },
        Case {
            name: "requestId null",
            params: Some(json!({"requestId": null})),
            why: Ignored::Malformed,
            detail: Some("params.requestId invalid: a request id must be a string or an integer number, not null"),
        },
        Case {
            name: "requestId bool",
            params: Some(json!({"requestId": true})),
            why: Ignored::Malformed,
            detail: Some("params.requestId invalid: a request id must be a string or an integer number, not boolean"),
        },
        Case {
            name: "requestId object",
            params: Some(json!({"requestId": {"id": 7}})),
            why: Ignored::Malformed,
            detail: Some("params.requestId invalid: a request id must be a string or an integer number, not object"),
        },
        Case {
            name: "reason a number",
            params: Some(json!({"requestId": 7, "reason": 42})),
            why: Ignored::Malformed,
            detail: Some("params.reason is number, not a string"),
        },
        Case { name: "unknown id", params: Some(json!({"requestId": 8})), why: Ignored::NotInFlight, detail: None },
        Case {
            name: "string \"7\" for numeric 7",
            params: Some(json!({"requestId": "7"})),
            why: Ignored::NotInFlight,
            detail: None,
        },
        Case {
            name: "our own request (wrong direction)",
            params: Some(json!({"requestId": 100})),
            why: Ignored::WrongDirection,
            detail: None,
        },
        Case { name: "initialize", params: Some(json!({"requestId": "init"})), why: Ignored::Handshake, detail: None },
    ];
    for case in cases {
        let mut session = Session::default();
        session.handle_request(n(7), "sampling/createMessage");
        session.handle_request(s("init"), "initialize");
        session.track_request(n(100), "tools/call", None).unwrap();
        let verdict = session.handle_cancelled(&CancelledParams::from_json(case.params.as_ref()));
        assert_eq!(verdict, InboundCancelVerdict::Ignore, "{}", case.name);
        let evs = events(&mut session);
        match evs.as_slice() {
            [Event { direction: Direction::Inbound, kind: EventKind::CancelIgnored { why, detail, .. } }] => {
                assert_eq!(*why, case.why, "{}", case.name);
                assert_eq!(detail.as_deref(), case.detail, "{}", case.name);
            }
            other => panic!("{}: unexpected events {other:?}", case.name),
        }
        // Nothing changed: request 7 still runs and its response is sent; ours is in flight.
        assert!(!session.is_cancelled_by_peer(&n(7)), "{}", case.name);
        assert_eq!(session.request_state(&n(100)), Some(RequestState::InFlight), "{}", case.name);
        assert_eq!(session.tombstones(), 0, "{}: a peer cancel never creates a tombstone", case.name);
    }
}

#[test]
fn a_second_peer_cancel_for_the_same_request_is_ignored() {
    let mut session = Session::default();
    session.handle_request(n(1), "elicitation/create");
    assert!(matches!(peer_cancel(&mut session, json!({"requestId": 1})), InboundCancelVerdict::Abort { .. }));
    assert_eq!(peer_cancel(&mut session, json!({"requestId": 1, "reason": "again"})), InboundCancelVerdict::Ignore);
    let last = events(&mut session).pop().unwrap();
    assert!(matches!(last.kind, EventKind::CancelIgnored { why: Ignored::AlreadyCancelled, .. }));
}

#[test]
fn a_peer_cancel_after_our_response_went_out_is_ignored() {
    let mut session = Session::default();
    session.handle_request(n(1), "roots/list");
    assert_eq!(session.handle_outgoing_response(&n(1)), OutgoingResponseVerdict::Send);
    assert_eq!(peer_cancel(&mut session, json!({"requestId": 1})), InboundCancelVerdict::Ignore);
}

#[test]
fn a_duplicate_inbound_request_id_is_reported_and_the_first_kept() {
    let mut session = Session::default();
    assert!(session.handle_request(n(1), "ping"));
    assert!(!session.handle_request(n(1), "roots/list"));
    assert!(matches!(events(&mut session).as_slice(), [Event { kind: EventKind::DuplicateRequestId { .. }, .. }]));
    assert_eq!(session.inbound_in_flight(), 1);
}

#[test]
fn peer_reasons_are_capped_in_verdicts_and_events() {
    let mut session =
        Session::new(Config { reason: ReasonPolicy { max_bytes: 16, ..ReasonPolicy::default() }, ..Config::default() });
    session.handle_request(n(1), "ping");
    let huge = "x".repeat(10 * 1024 * 1024);
    let verdict = peer_cancel(&mut session, json!({"requestId": 1, "reason": huge}));
    assert_eq!(verdict, InboundCancelVerdict::Abort { request_id: n(1), reason: Some("x".repeat(16)) });
    let ignored = peer_cancel(&mut session, json!({"requestId": 99, "reason": "y".repeat(100)}));
    assert_eq!(ignored, InboundCancelVerdict::Ignore);
    for e in events(&mut session) {
        let reason = match e.kind {
            EventKind::CancelReceived { reason, .. } | EventKind::CancelIgnored { reason, .. } => reason,
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(reason.map(|r| r.len()), Some(16));
    }
}

#[test]
fn a_flood_of_unknown_cancels_and_late_responses_leaves_memory_bounded() {
    let mut session = Session::new(Config { tombstone_capacity: 16, ..Config::default() });
    for i in 0..100_000 {
        assert_eq!(peer_cancel(&mut session, json!({"requestId": i})), InboundCancelVerdict::Ignore);
        assert_eq!(response(&mut session, &n(i)), ResponseVerdict::Unknown);
        session.track_request(n(-i - 1), "tools/call", None).unwrap();
        session.cancel(&n(-i - 1), &Reason::None).unwrap();
        while session.poll_event().is_some() {}
    }
    assert_eq!(session.tombstones(), 16);
    assert_eq!(session.inbound_in_flight(), 0);
    assert_eq!(session.outbound_in_flight(), 0);
}

#[test]
fn events_serialize_for_js_with_kebab_case_types_and_camel_case_fields() {
    let mut session = Session::default();
    session.track_request(n(4), "tools/call", Some(s("p"))).unwrap();
    session.cancel(&n(4), &Reason::Text("stop".into())).unwrap();
    let _ = session.handle_progress(&s("p"), 0);
    let json: Vec<_> = events(&mut session).iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    assert_eq!(
        json,
        vec![
            json!({"direction": "outbound", "type": "cancel-sent", "requestId": 4, "method": "tools/call", "via": "notification", "reason": "stop"}),
            json!({"direction": "outbound", "type": "late-progress-dropped", "requestId": 4, "method": "tools/call", "progressToken": "p"}),
        ]
    );
}

#[test]
fn close_forgets_every_request() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    session.track_request(n(2), "tools/call", None).unwrap();
    session.cancel(&n(2), &Reason::None).unwrap();
    session.handle_request(n(1), "ping");
    session.close();
    assert_eq!((session.outbound_in_flight(), session.inbound_in_flight(), session.tombstones()), (0, 0, 0));
    assert_eq!(response(&mut session, &n(2)), ResponseVerdict::Unknown);
}
