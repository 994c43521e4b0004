//! Hostile peers against the core: floods, wrong-direction and confused ids, huge reasons,
//! malformed shapes, duplicate and reused ids. Each asserts the exact outcome and that memory
//! stays within its bounds (tombstones, requests, queued events).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use mcp_cancel::core::{
    CancelledParams, Config, Event, EventKind, Ignored, InboundCancelVerdict, OutgoingResponseVerdict, Output,
    ProgressVerdict, Reason, RequestId, RequestState, ResponseInfo, ResponseVerdict, Session,
};
use serde_json::json;

/// A million natively; a tenth of that in the (debug) wasm test runs.
#[cfg(not(target_arch = "wasm32"))]
const FLOOD: i64 = 1_000_000;
#[cfg(target_arch = "wasm32")]
const FLOOD: i64 = 100_000;

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

fn cancel(s: &mut Session, params: serde_json::Value) -> InboundCancelVerdict {
    s.handle_cancelled(&CancelledParams::from_json(Some(&params)))
}

/// Drains the output queue, returning how many outputs there were and the last one's `why`,
/// if it was an ignored cancel's event.
fn drain(s: &mut Session) -> (usize, Option<Ignored>) {
    let mut count = 0;
    let mut why = None;
    while let Some(output) = s.poll_output() {
        count += 1;
        if let Output::Event(Event { kind: EventKind::CancelIgnored { why: w, .. }, .. }) = output {
            why = Some(w);
        }
    }
    (count, why)
}

#[test]
fn a_million_cancels_for_unknown_ids_change_nothing() {
    let mut s = Session::new(Config { tombstone_capacity: 64, ..Config::default() });
    s.handle_request(n(-1), "sampling/createMessage");
    for i in 0..FLOOD {
        let params = CancelledParams {
            params: mcp_cancel::core::PeerValue::Object,
            request_id: mcp_cancel::core::PeerValue::Number(i as f64),
            reason: mcp_cancel::core::PeerValue::Absent,
        };
        assert_eq!(s.handle_cancelled(&params), InboundCancelVerdict::Ignore);
        assert_eq!(drain(&mut s), (1, Some(Ignored::NotInFlight)));
    }
    assert_eq!((s.tombstones(), s.inbound_in_flight(), s.outbound_in_flight()), (0, 1, 0));
    assert!(!s.is_cancelled_by_peer(&n(-1)));
}

#[test]
fn a_million_cancels_for_our_own_ids_are_wrong_direction_and_cancel_nothing() {
    let mut s = Session::default();
    for i in 0..8 {
        s.track_request(n(i), "tools/call", None).unwrap();
    }
    for i in 0..FLOOD {
        let params = CancelledParams {
            params: mcp_cancel::core::PeerValue::Object,
            request_id: mcp_cancel::core::PeerValue::Number((i % 8) as f64),
            reason: mcp_cancel::core::PeerValue::String("go away"),
        };
        assert_eq!(s.handle_cancelled(&params), InboundCancelVerdict::Ignore);
        assert_eq!(drain(&mut s), (1, Some(Ignored::WrongDirection)));
    }
    for i in 0..8 {
        assert_eq!(s.request_state(&n(i)), Some(RequestState::InFlight));
    }
    assert_eq!(s.tombstones(), 0);
}

#[test]
fn a_million_late_and_unknown_responses_keep_memory_flat() {
    let mut s = Session::new(Config { tombstone_capacity: 32, ..Config::default() });
    for i in 0..FLOOD {
        s.track_request(n(i), "tools/call", Some(n(i))).unwrap();
        assert!(s.cancel(&n(i), &Reason::None).unwrap());
        assert_eq!(s.handle_progress(&n(i), 0), ProgressVerdict::Late);
        assert_eq!(s.handle_response(&n(i), &ResponseInfo::default()), ResponseVerdict::Late);
        assert_eq!(s.handle_response(&n(FLOOD + i), &ResponseInfo::default()), ResponseVerdict::Unknown);
        // The notification, the local cancel, and the events of the cancel and the late messages.
        assert_eq!(drain(&mut s).0, 5);
    }
    assert_eq!((s.tombstones(), s.outbound_in_flight()), (0, 0));
}

#[test]
fn string_and_number_ids_are_never_confused_and_zero_and_empty_work() {
    let mut s = Session::default();
    s.handle_request(n(2), "roots/list");
    s.handle_request(RequestId::from(""), "roots/list");
    s.handle_request(n(0), "roots/list");
    assert_eq!(cancel(&mut s, json!({ "requestId": "2" })), InboundCancelVerdict::Ignore);
    assert!(!s.is_cancelled_by_peer(&n(2)));
    assert!(matches!(cancel(&mut s, json!({ "requestId": 2 })), InboundCancelVerdict::Abort { .. }));
    assert!(matches!(cancel(&mut s, json!({ "requestId": 0 })), InboundCancelVerdict::Abort { .. }));
    assert!(matches!(cancel(&mut s, json!({ "requestId": "" })), InboundCancelVerdict::Abort { .. }));
    assert_eq!(cancel(&mut s, json!({ "requestId": "0" })), InboundCancelVerdict::Ignore);
}

#[test]
fn ten_megabyte_reasons_are_capped_everywhere() {
    let mut s = Session::default();
    s.handle_request(n(1), "roots/list");
    let huge = "x".repeat(10 * 1024 * 1024);
    match cancel(&mut s, json!({ "requestId": 1, "reason": huge })) {
        InboundCancelVerdict::Abort { reason, .. } => assert_eq!(reason.map(|r| r.len()), Some(1024)),
        other => panic!("{other:?}"),
    }
    let _ = cancel(&mut s, json!({ "requestId": 99, "reason": "y".repeat(10 * 1024 * 1024) }));
    let mut events = 0;
    while let Some(output) = s.poll_output() {
        match output {
            Output::Event(e) => {
                events += 1;
                let json = serde_json::to_string(&e).unwrap();
                assert!(json.len() < 2048, "an event of {} bytes", json.len());
            }
            Output::PeerCancelled { reason, .. } => assert_eq!(reason.map(|r| r.len()), Some(1024)),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(events, 2);
}

#[test]
fn malformed_shapes_are_ignored_as_malformed() {
    let mut s = Session::default();
    s.handle_request(n(1), "roots/list");
    let mut deep = json!(1);
    for _ in 0..64 {
        deep = json!({ "requestId": deep });
    }
    for params in [json!([1, 2]), json!("requestId"), json!(42), json!(null), json!({ "requestId": [1] }), deep] {
        assert_eq!(cancel(&mut s, params.clone()), InboundCancelVerdict::Ignore, "{params}");
        assert_eq!(drain(&mut s).1, Some(Ignored::Malformed), "{params}");
    }
    assert!(!s.is_cancelled_by_peer(&n(1)));
}

#[test]
fn duplicate_and_reused_inbound_ids() {
    let mut s = Session::default();
    assert!(s.handle_request(n(5), "roots/list"));
    assert!(!s.handle_request(n(5), "sampling/createMessage"), "a duplicate in flight is reported, the first kept");
    assert!(matches!(cancel(&mut s, json!({ "requestId": 5 })), InboundCancelVerdict::Abort { .. }));
    assert_eq!(s.handle_outgoing_response(&n(5)), OutgoingResponseVerdict::Suppress);
    // The peer reuses the cancelled id for a new request: it is a new request, answered.
    assert!(s.handle_request(n(5), "roots/list"));
    assert!(!s.is_cancelled_by_peer(&n(5)));
    assert_eq!(s.handle_outgoing_response(&n(5)), OutgoingResponseVerdict::Send);
    assert_eq!(s.inbound_in_flight(), 0);
}

#[test]
fn a_response_with_both_result_and_error_is_classified_by_its_id_alone() {
    let mut s = Session::default();
    s.track_request(n(1), "tools/call", None).unwrap();
    s.track_request(n(2), "tools/call", None).unwrap();
    assert!(s.cancel(&n(2), &Reason::None).unwrap());
    let both = ResponseInfo { error_code: Some(-32603), ..ResponseInfo::default() };
    assert_eq!(s.handle_response(&n(1), &both), ResponseVerdict::Deliver);
    assert_eq!(s.handle_response(&n(2), &both), ResponseVerdict::Late);
}

#[test]
fn a_peer_that_cancels_and_never_hears_back_cannot_grow_memory() {
    let mut s = Session::new(Config { tombstone_capacity: 16, ..Config::default() });
    for i in 0..FLOOD / 10 {
        assert!(s.handle_request(n(i), "sampling/createMessage"));
        assert!(matches!(cancel(&mut s, json!({ "requestId": i })), InboundCancelVerdict::Abort { .. }));
        // The application stops the work and never answers (as the TS SDK does).
        assert_eq!(drain(&mut s).0, 2, "the event and the one PeerCancelled");
    }
    assert_eq!((s.inbound_in_flight(), s.inbound_cancelled()), (0, 16));
    // The most recent ones are still suppressed if an answer does come.
    assert_eq!(s.handle_outgoing_response(&n(FLOOD / 10 - 1)), OutgoingResponseVerdict::Suppress);
}
