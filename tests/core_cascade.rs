//! Nested requests ([`Session::relate`]): a request of ours sent while handling the peer's
//! request is cancelled when the peer cancels that request, and only then (every revision
//! §Cancellation "Behavior Requirements": the receiver of a cancel SHOULD stop processing
//! the request and free its resources).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use mcp_cancel::core::{
    CancelAction, CancelCause, CancelledParams, Config, EventKind, InboundCancelVerdict, OutgoingResponseVerdict,
    Output, ReasonPolicy, RequestId, ResponseInfo, ResponseVerdict, Role, Session, TrackRequest, Transmit,
};
use serde_json::json;

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

fn outputs(session: &mut Session) -> Vec<Output> {
    std::iter::from_fn(|| session.poll_output()).collect()
}

/// A server session handling the peer's `tools/call` 7, which sent the elicitation 0 for it.
fn handling() -> Session {
    let mut session = Session::new(Config { role: Role::Server, ..Config::default() });
    assert!(session.handle_request(n(7), "tools/call"));
    session.track(TrackRequest::new(n(0), "elicitation/create"), 0).unwrap();
    assert!(session.relate(&n(0), &n(7)));
    assert!(outputs(&mut session).is_empty(), "relating makes no output");
    session
}

fn peer_cancel(session: &mut Session, id: i64) -> InboundCancelVerdict {
    session.handle_cancelled(&CancelledParams::from_json(Some(&json!({ "requestId": id, "reason": "stop" }))))
}

#[test]
fn the_peers_cancel_of_a_request_cancels_its_nested_request_with_the_cascade_reason() {
    let mut session = handling();
    assert!(matches!(peer_cancel(&mut session, 7), InboundCancelVerdict::Abort { .. }));
    let out = outputs(&mut session);
    let kinds: Vec<_> = out
        .iter()
        .map(|o| match o {
            Output::Event(e) => e.kind.type_name(),
            Output::Transmit(_) => "transmit",
            Output::Cancelled { .. } => "cancelled",
            Output::PeerCancelled { .. } => "peer-cancelled",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["cancel-received", "peer-cancelled", "cancel-cascaded", "cancel-sent", "transmit", "cancelled"]);
    let cascaded = out.iter().find_map(|o| match o {
        Output::Event(e) => match &e.kind {
            EventKind::CancelCascaded { request_id, method, parent_id } => Some((request_id, method, parent_id)),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(cascaded, Some((&n(0), &"elicitation/create".to_owned(), &n(7))));
    let notify = out.iter().find_map(|o| match o {
        Output::Transmit(Transmit { action: CancelAction::Notify(c), .. }) => Some(c),
        _ => None,
    });
    assert_eq!(notify.unwrap().request_id, n(0));
    assert_eq!(notify.unwrap().reason.as_deref(), Some("The request it was sent for was cancelled"));
    assert!(out.contains(&Output::Cancelled { request_id: n(0), cause: CancelCause::ParentCancelled }));
    // The nested request's answer, arriving now, is late.
    assert_eq!(session.handle_response(&n(0), &ResponseInfo::default()), ResponseVerdict::Late);
}

#[test]
fn the_cascade_reason_is_the_sessions() {
    let reason = ReasonPolicy { cascade_reason: "call cancelled".into(), ..ReasonPolicy::default() };
    let mut session = Session::new(Config { role: Role::Server, reason, ..Config::default() });
    session.handle_request(n(7), "tools/call");
    session.track(TrackRequest::new(n(0), "sampling/createMessage"), 0).unwrap();
    session.relate(&n(0), &n(7));
    let _ = peer_cancel(&mut session, 7);
    let reason = outputs(&mut session).into_iter().find_map(|o| match o {
        Output::Transmit(Transmit { action: CancelAction::Notify(c), .. }) => c.reason,
        _ => None,
    });
    assert_eq!(reason.as_deref(), Some("call cancelled"));
}

#[test]
fn a_request_whose_parent_ended_by_our_response_is_not_touched() {
    let mut session = handling();
    assert_eq!(session.handle_outgoing_response(&n(7)), OutgoingResponseVerdict::Send);
    assert!(session.is_in_flight(&n(0)));
    // A late cancel of the answered call cascades nothing.
    assert!(matches!(peer_cancel(&mut session, 7), InboundCancelVerdict::Ignore));
    assert!(!outputs(&mut session).iter().any(|o| matches!(o, Output::Transmit(_) | Output::Cancelled { .. })));
    assert!(session.is_in_flight(&n(0)));
}

#[test]
fn a_parent_cancelled_twice_cascades_once() {
    let mut session = handling();
    let _ = peer_cancel(&mut session, 7);
    outputs(&mut session);
    assert!(matches!(peer_cancel(&mut session, 7), InboundCancelVerdict::Ignore));
    assert!(!outputs(&mut session).iter().any(|o| matches!(o, Output::Transmit(_))));
}

#[test]
fn a_nested_request_answered_before_the_cancel_is_not_cancelled() {
    let mut session = handling();
    assert_eq!(session.handle_response(&n(0), &ResponseInfo::default()), ResponseVerdict::Deliver);
    let _ = peer_cancel(&mut session, 7);
    let out = outputs(&mut session);
    assert!(!out.iter().any(|o| matches!(o, Output::Transmit(_) | Output::Cancelled { .. })), "{out:?}");
}

#[test]
fn nothing_is_related_to_a_parent_the_session_does_not_have_in_flight() {
    let mut session = Session::new(Config { role: Role::Server, ..Config::default() });
    session.track(TrackRequest::new(n(0), "elicitation/create"), 0).unwrap();
    assert!(!session.relate(&n(0), &n(7)), "never seen");
    session.handle_request(n(7), "tools/call");
    assert!(!session.relate(&n(1), &n(7)), "the child is not in flight");
    assert_eq!(session.handle_outgoing_response(&n(7)), OutgoingResponseVerdict::Send);
    assert!(!session.relate(&n(0), &n(7)), "the parent ended");
}

#[test]
fn a_forgotten_parent_cascades_nothing() {
    let mut session = Session::new(Config { role: Role::Server, inbound_capacity: 1, ..Config::default() });
    session.handle_request(n(7), "tools/call");
    session.track(TrackRequest::new(n(0), "elicitation/create"), 0).unwrap();
    assert!(session.relate(&n(0), &n(7)));
    // A second request of the peer's: the first is forgotten (the capacity is 1).
    session.handle_request(n(8), "tools/call");
    outputs(&mut session);
    let _ = peer_cancel(&mut session, 7);
    assert!(!outputs(&mut session).iter().any(|o| matches!(o, Output::Transmit(_))));
    assert!(session.is_in_flight(&n(0)));
}

#[test]
fn a_request_has_one_parent_the_first_given() {
    let mut session = handling();
    session.handle_request(n(8), "tools/call");
    assert!(session.relate(&n(0), &n(8)), "both in flight");
    let _ = peer_cancel(&mut session, 8);
    assert!(!outputs(&mut session).iter().any(|o| matches!(o, Output::Transmit(_))), "8 is not its parent");
    let _ = peer_cancel(&mut session, 7);
    assert!(outputs(&mut session).iter().any(|o| matches!(o, Output::Transmit(_))));
}
