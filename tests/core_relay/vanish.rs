//! Vanished clients: a closed response stream not resumed within its grace, a client silent
//! for its idle time to live.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

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
