//! Behaviour of the core `Session`, one test per rule of the spec (2024-11-05 .. 2025-06-18
//! §Cancellation), each asserting the wire message (or its absence) and the event.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

// The same tests run natively (`cargo test`) and in wasm (`wasm-pack test --node`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use mcp_cancel::core::{
    CancelAction, CancelCause, CancelNotification, CancelledParams, Config, Direction, Event, EventKind, Ignored,
    InboundCancelVerdict, NotSent, OutgoingResponseVerdict, Output, ProgressVerdict, Reason, ReasonPolicy, RequestId,
    RequestState, ResponseInfo, ResponseVerdict, Session, TrackRequest, Transmit, UsageError, Via,
};
use serde_json::json;

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

fn s(v: &str) -> RequestId {
    RequestId::from(v)
}

/// Everything queued, in order.
fn outputs(session: &mut Session) -> Vec<Output> {
    std::iter::from_fn(|| session.poll_output()).collect()
}

/// The events of [`outputs`] (everything else queued is dropped).
fn events(session: &mut Session) -> Vec<Event> {
    outputs(session)
        .into_iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        })
        .collect()
}

/// Cancels `id` and drains the queue: the `notifications/cancelled` it queued (if any) and
/// the events. Whatever else was queued must be what a cancel queues: nothing when none
/// was made, else the notification and then the request's `Cancelled`.
fn cancel_with(session: &mut Session, id: &RequestId, reason: &Reason) -> (Option<CancelNotification>, Vec<Event>) {
    let made = session.cancel(id, reason).unwrap();
    let (mut events, mut rest) = (Vec::new(), Vec::new());
    let mut sent = None;
    for output in outputs(session) {
        match output {
            Output::Event(e) => events.push(e),
            Output::Transmit(Transmit { request_id, action: CancelAction::Notify(n) }) if sent.is_none() => {
                assert_eq!(&request_id, id);
                assert_eq!(&n.request_id, id);
                sent = Some(n);
            }
            other => rest.push(other),
        }
    }
    if made {
        assert!(sent.is_some(), "a cancel made for a plain request is a notification");
        assert_eq!(rest, vec![Output::Cancelled { request_id: id.clone(), cause: CancelCause::Cancelled }]);
    } else {
        assert!(sent.is_none() && rest.is_empty(), "no cancel made, yet queued {sent:?} {rest:?}");
    }
    (sent, events)
}

fn cancel_json(session: &mut Session, id: &RequestId, reason: &str) -> Option<serde_json::Value> {
    cancel_with(session, id, &Reason::Text(reason.into())).0.map(|c| c.to_json())
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
    assert_eq!(session.cancel(&n(3), &Reason::Text("user pressed stop".into())), Ok(true));
    assert_eq!(session.request_state(&n(3)), Some(RequestState::Cancelled));
    let queued = outputs(&mut session);
    let notification = CancelNotification { request_id: n(3), reason: Some("user pressed stop".into()) };
    assert_eq!(
        notification.to_json(),
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 3, "reason": "user pressed stop"}
        })
    );
    // The event, the message on the wire, then the local caller: in that order, once each.
    assert_eq!(
        queued,
        vec![
            Output::Event(Event {
                direction: Direction::Outbound,
                kind: EventKind::CancelSent {
                    request_id: n(3),
                    method: "tools/call".into(),
                    via: Via::Notification,
                    reason: Some("user pressed stop".into()),
                    task_id: None,
                }
            }),
            Output::Transmit(Transmit { request_id: n(3), action: CancelAction::Notify(notification) }),
            Output::Cancelled { request_id: n(3), cause: CancelCause::Cancelled },
        ]
    );
}

#[test]
fn a_cancel_without_reason_leaves_reason_out_of_the_wire_message() {
    let mut session = Session::default();
    session.track_request(s("a"), "tools/call", None).unwrap();
    let sent = cancel_with(&mut session, &s("a"), &Reason::None).0.unwrap();
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
    let (second, events) = cancel_with(&mut session, &n(1), &Reason::Text("second".into()));
    assert_eq!(second, None);
    assert_eq!(
        events,
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
    assert!(outputs(&mut session).is_empty());
    let mut events = Vec::new();
    for (id, reason) in [(n(1), "too late"), (n(99), "never sent")] {
        let (sent, evs) = cancel_with(&mut session, &id, &Reason::Text(reason.into()));
        assert_eq!(sent, None);
        events.extend(evs);
    }
    let whys: Vec<_> = events
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
    // Only the event: nothing to send, and its caller keeps waiting.
    assert!(matches!(
        outputs(&mut session).as_slice(),
        [Output::Event(Event { kind: EventKind::CancelNotSent { why: NotSent::Handshake, .. }, .. })]
    ));
}

#[test]
fn responses_classify_as_deliver_late_or_unknown() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    session.track_request(n(2), "tools/call", None).unwrap();
    assert!(session.cancel(&n(2), &Reason::None).unwrap());
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
    assert!(session.cancel(&n(1), &Reason::None).unwrap());
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
    assert!(session.cancel(&n(1), &Reason::None).unwrap());
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
    assert!(session.cancel(&n(1), &Reason::None).unwrap());
    session.track_request(n(1), "tools/call", None).unwrap();
    assert_eq!(session.request_state(&n(1)), Some(RequestState::InFlight));
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Deliver);
}

#[test]
fn tombstones_are_bounded_and_the_oldest_is_forgotten_first() {
    let mut session = Session::new(Config { tombstone_capacity: 3, ..Config::default() });
    for i in 0..10 {
        session.track_request(n(i), "tools/call", Some(n(1000 + i))).unwrap();
        assert!(session.cancel(&n(i), &Reason::None).unwrap());
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
    assert_eq!(cancel_with(&mut closed, &n(1), &leak).0.unwrap().reason.as_deref(), Some("Request cancelled"));

    let mut open = Session::new(Config {
        reason: ReasonPolicy { expose_error_reasons: true, ..ReasonPolicy::default() },
        ..Config::default()
    });
    open.track_request(n(1), "tools/call", None).unwrap();
    assert_eq!(
        cancel_with(&mut open, &n(1), &leak).0.unwrap().reason.as_deref(),
        Some("Error: connect ECONNREFUSED 10.0.0.7:5432")
    );
}

#[test]
fn long_reasons_are_capped_on_the_wire() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    let sent = cancel_with(&mut session, &n(1), &Reason::Text("é".repeat(2000))).0.unwrap();
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
    // The host hears of the cancel once (to abort the work), between the two events.
    assert_eq!(
        outputs(&mut session),
        vec![
            Output::Event(Event {
                direction: Direction::Inbound,
                kind: EventKind::CancelReceived {
                    request_id: n(5),
                    method: "sampling/createMessage".into(),
                    reason: Some("user closed the dialog".into())
                }
            }),
            Output::PeerCancelled { request_id: n(5), reason: Some("user closed the dialog".into()), watched: false },
            Output::Event(Event {
                direction: Direction::Inbound,
                kind: EventKind::ResponseSuppressed { request_id: n(5), method: "sampling/createMessage".into() }
            }),
        ]
    );
}

#[test]
fn a_peer_cancel_for_request_id_zero_works() {
    let mut session = Session::default();
    session.handle_request(n(0), "roots/list");
    assert!(matches!(peer_cancel(&mut session, json!({"requestId": 0})), InboundCancelVerdict::Abort { .. }));
    assert!(outputs(&mut session).contains(&Output::PeerCancelled { request_id: n(0), reason: None, watched: false }));
}

#[test]
fn responses_to_requests_not_cancelled_are_sent() {
    let mut session = Session::default();
    session.handle_request(s("r"), "ping");
    assert_eq!(session.handle_outgoing_response(&s("r")), OutgoingResponseVerdict::Send);
    assert_eq!(session.handle_outgoing_response(&s("never")), OutgoingResponseVerdict::Send);
    assert!(outputs(&mut session).is_empty(), "no event, and nothing settled: the request was not watched");
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
        // The event alone: no `PeerCancelled`, nothing to abort.
        let queued = outputs(&mut session);
        match queued.as_slice() {
            [Output::Event(Event {
                direction: Direction::Inbound,
                kind: EventKind::CancelIgnored { why, detail, .. },
            })] => {
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
    let queued = outputs(&mut session);
    assert_eq!(queued.len(), 3);
    for output in queued {
        let reason = match output {
            Output::PeerCancelled { reason, .. } => reason,
            Output::Event(Event {
                kind: EventKind::CancelReceived { reason, .. } | EventKind::CancelIgnored { reason, .. },
                ..
            }) => reason,
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
        assert!(session.cancel(&n(-i - 1), &Reason::None).unwrap());
        while session.poll_output().is_some() {}
    }
    assert_eq!(session.tombstones(), 16);
    assert_eq!(session.inbound_in_flight(), 0);
    assert_eq!(session.outbound_in_flight(), 0);
}

#[test]
fn events_serialize_for_js_with_kebab_case_types_and_camel_case_fields() {
    let mut session = Session::default();
    session.track_request(n(4), "tools/call", Some(s("p"))).unwrap();
    assert!(session.cancel(&n(4), &Reason::Text("stop".into())).unwrap());
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
    assert!(session.cancel(&n(2), &Reason::None).unwrap());
    session.handle_request(n(1), "ping");
    outputs(&mut session);
    session.close();
    assert_eq!((session.outbound_in_flight(), session.inbound_in_flight(), session.tombstones()), (0, 0, 0));
    assert_eq!(response(&mut session, &n(2)), ResponseVerdict::Unknown);
    assert!(outputs(&mut session).is_empty(), "nothing is sent on close, and nothing was watched");
}

// ----- watched requests: the host keeps resources for them until they settle -----

/// What was queued besides events, in order.
fn non_events(session: &mut Session) -> Vec<Output> {
    outputs(session).into_iter().filter(|o| !matches!(o, Output::Event(_))).collect()
}

fn watched(id: RequestId) -> TrackRequest {
    TrackRequest { watch: true, ..TrackRequest::new(id, "tools/call") }
}

#[test]
fn a_watched_request_is_settled_once_when_it_completes_or_is_cancelled() {
    let mut session = Session::default();
    session.track(watched(n(1)), 0).unwrap();
    session.track(watched(n(2)), 0).unwrap();
    session.track(TrackRequest::new(n(3), "tools/call"), 0).unwrap();
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Deliver);
    assert_eq!(non_events(&mut session), vec![Output::Settled(n(1))]);
    assert!(session.cancel(&n(2), &Reason::None).unwrap());
    assert_eq!(
        non_events(&mut session),
        vec![
            Output::Transmit(Transmit {
                request_id: n(2),
                action: CancelAction::Notify(CancelNotification { request_id: n(2), reason: None })
            }),
            Output::Cancelled { request_id: n(2), cause: CancelCause::Cancelled },
            Output::Settled(n(2)),
        ]
    );
    // Its late response settles nothing a second time.
    assert_eq!(response(&mut session, &n(2)), ResponseVerdict::Late);
    assert!(non_events(&mut session).is_empty());
    // A request that is not watched is never reported settled.
    assert_eq!(response(&mut session, &n(3)), ResponseVerdict::Deliver);
    assert!(non_events(&mut session).is_empty());
}

#[test]
fn watch_marks_only_a_request_in_flight() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    assert!(session.watch(&n(1)));
    assert!(!session.watch(&n(2)), "never sent");
    assert!(session.cancel(&n(1), &Reason::None).unwrap());
    assert_eq!(non_events(&mut session).last(), Some(&Output::Settled(n(1))));
    assert!(!session.watch(&n(1)), "a cancelled request is no longer in flight");
}

#[test]
fn a_watched_peer_request_is_settled_by_our_response_but_not_once_the_peer_cancelled_it() {
    let mut session = Session::default();
    for id in [n(1), n(2)] {
        assert!(session.handle_request(id.clone(), "sampling/createMessage"));
        assert!(session.watch_inbound(&id));
    }
    assert!(!session.watch_inbound(&n(3)), "the peer sent no request 3");
    assert_eq!(session.handle_outgoing_response(&n(1)), OutgoingResponseVerdict::Send);
    assert_eq!(non_events(&mut session), vec![Output::InboundSettled(n(1))]);
    assert!(matches!(peer_cancel(&mut session, json!({"requestId": 2})), InboundCancelVerdict::Abort { .. }));
    assert_eq!(session.handle_outgoing_response(&n(2)), OutgoingResponseVerdict::Suppress);
    assert_eq!(non_events(&mut session), vec![Output::PeerCancelled { request_id: n(2), reason: None, watched: true }]);
}

#[test]
fn closing_settles_every_watched_request_and_sends_nothing() {
    let mut session = Session::default();
    session.track(watched(n(1)), 0).unwrap();
    session.track_request(n(2), "tools/call", None).unwrap();
    session.handle_request(s("in"), "ping");
    session.handle_request(s("other"), "ping");
    assert!(session.watch_inbound(&s("in")));
    session.close();
    let queued = non_events(&mut session);
    assert_eq!(queued.len(), 2, "{queued:?}");
    assert!(queued.contains(&Output::Settled(n(1))));
    assert!(queued.contains(&Output::InboundSettled(s("in"))));
}

#[test]
fn in_flight_count_counts_requests_that_can_still_be_cancelled() {
    let mut session = Session::default();
    session.track_request(n(1), "tools/call", None).unwrap();
    session.track_request(n(2), "tools/call", None).unwrap();
    assert_eq!(session.in_flight_count(), 2);
    assert!(session.is_in_flight(&n(2)));
    assert!(session.cancel(&n(2), &Reason::None).unwrap());
    assert_eq!(session.in_flight_count(), 1, "a cancelled request is a tombstone, not in flight");
    assert!(!session.is_in_flight(&n(2)));
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Deliver);
    assert_eq!(session.in_flight_count(), 0);
}

#[test]
fn with_events_off_nothing_but_the_work_is_queued() {
    let mut session = Session::new(Config { events: false, ..Config::default() });
    session.track_request(n(1), "tools/call", None).unwrap();
    assert!(session.cancel(&n(1), &Reason::None).unwrap());
    assert_eq!(session.cancel(&n(1), &Reason::None), Ok(false));
    assert_eq!(response(&mut session, &n(1)), ResponseVerdict::Late);
    session.handle_request(n(5), "ping");
    let _ = peer_cancel(&mut session, json!({"requestId": 5}));
    let _ = peer_cancel(&mut session, json!({"requestId": "unknown"}));
    let queued = outputs(&mut session);
    assert!(queued.iter().all(|o| !matches!(o, Output::Event(_))), "{queued:?}");
    assert_eq!(queued.len(), 3, "the notification, the local cancel, the peer's cancel: {queued:?}");
}
