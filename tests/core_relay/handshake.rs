//! The shared handshake: made once upstream, never cancelled, held `initialize` requests
//! answered from its result, and completed for the others when its first client goes.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

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
