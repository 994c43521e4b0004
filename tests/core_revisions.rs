//! The core across spec revisions: one table-driven test per behaviour × revision, the
//! timeouts on a simulated clock (no sleeps), tasks and the deferred `tasks/cancel`, and the
//! 2026-07-28 rules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

// The same tests run natively (`cargo test`) and in wasm (`wasm-pack test --node`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::ops::{Deref, DerefMut};

use mcp_cancel::core::{
    CancelAction, CancelCause, CancelledParams, Config, Event, EventKind, Ignored, InboundCancelVerdict, NotSent,
    Output, ProgressVerdict, Reason, RequestId, RequestState, ResponseInfo, ResponseVerdict, Revision, Session,
    TaskCancelOutcome, TaskCancelRequest, Timeout, TimeoutKind, TrackRequest, Transmit, TransportKind, UsageError, Via,
};
use serde_json::json;

use Revision::*;

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

/// A session and what it queued, not yet looked at: each kind of output is taken by its own
/// method, in queue order (the events by [`Host::events`], the transmits by
/// [`Host::transmits`], …), so a test asserts each kind when it wants to.
struct Host {
    session: Session,
    queued: Vec<Output>,
}

impl Deref for Host {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl DerefMut for Host {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

/// What one [`Session::cancel`] did.
#[derive(Debug, PartialEq)]
enum Cancel {
    /// A cancel was made and this goes on the wire now.
    Sent(CancelAction),
    /// A cancel was made and nothing goes on the wire now: a `tasks/cancel` deferred until
    /// the task's id is known, or a poll of a task whose `tasks/cancel` already went.
    Unsent,
    /// Nothing to cancel.
    NotMade,
}

impl Host {
    /// Takes the queued outputs `pick` returns a value for, leaving the others queued.
    fn take<T>(&mut self, pick: impl Fn(&Output) -> Option<T>) -> Vec<T> {
        self.queued.extend(std::iter::from_fn(|| self.session.poll_output()));
        let mut taken = Vec::new();
        self.queued.retain(|o| match pick(o) {
            Some(t) => {
                taken.push(t);
                false
            }
            None => true,
        });
        taken
    }

    fn events(&mut self) -> Vec<Event> {
        self.take(|o| match o {
            Output::Event(e) => Some(e.clone()),
            _ => None,
        })
    }

    fn transmits(&mut self) -> Vec<Transmit> {
        self.take(|o| match o {
            Output::Transmit(t) => Some(t.clone()),
            _ => None,
        })
    }

    /// The requests whose local caller was told they were cancelled, and why.
    fn cancelled(&mut self) -> Vec<(RequestId, CancelCause)> {
        self.take(|o| match o {
            Output::Cancelled { request_id, cause } => Some((request_id.clone(), *cause)),
            _ => None,
        })
    }

    /// [`Session::handle_timeout`] at `now`: the requests that expired (their caller told
    /// with a timeout), in order. Their cancels stay queued for [`Host::transmits`].
    fn timeout(&mut self, now: u64) -> Vec<(RequestId, TimeoutKind)> {
        self.session.handle_timeout(now);
        self.cancelled()
            .into_iter()
            .map(|(id, cause)| match cause {
                CancelCause::TimedOut(kind) => (id, kind),
                other => panic!("{id}: {other:?} on a timeout"),
            })
            .collect()
    }

    /// [`Session::cancel`] of `id`, and what it queued: at most one transmit, for `id`; and
    /// the request's caller told once, exactly when a cancel was made.
    fn cancel_now(&mut self, id: &RequestId, reason: &Reason) -> Result<Cancel, UsageError> {
        let made = self.session.cancel(id, reason)?;
        let mut sent = self.transmits();
        let cancelled = self.cancelled();
        if made {
            assert_eq!(cancelled, vec![(id.clone(), CancelCause::Cancelled)], "{id}");
        } else {
            assert!(cancelled.is_empty() && sent.is_empty(), "{id}: no cancel made, yet {cancelled:?} {sent:?}");
        }
        assert!(sent.len() <= 1, "{id}: {sent:?}");
        Ok(match sent.pop() {
            Some(t) => {
                match &t.action {
                    // A task's `tasks/cancel` is for the request that created the task (the
                    // poll's own, when `id` is a poll).
                    CancelAction::CancelTask(task) => assert_eq!(task.cancels, t.request_id),
                    CancelAction::Notify(c) => assert_eq!((&t.request_id, &c.request_id), (id, id)),
                    CancelAction::CloseStream(closed) => assert_eq!((&t.request_id, closed), (id, id)),
                    other => panic!("{id}: a cancel action this test does not know: {other:?}"),
                }
                Cancel::Sent(t.action)
            }
            None if made => Cancel::Unsent,
            None => Cancel::NotMade,
        })
    }

    /// Nothing but events is queued (the events are dropped).
    fn assert_only_events(&mut self) {
        self.events();
        assert!(self.queued.is_empty(), "{:?}", self.queued);
    }
}

fn session(revision: Revision, transport: TransportKind) -> Host {
    let mut s = Host { session: Session::new(Config { transport, ..Config::default() }), queued: Vec::new() };
    s.set_protocol_version(revision.as_str());
    s.assert_only_events();
    s
}

fn host(config: Config) -> Host {
    Host { session: Session::new(config), queued: Vec::new() }
}

fn task_request(id: i64) -> TrackRequest {
    TrackRequest { task: true, ..TrackRequest::new(n(id), "tools/call") }
}

fn created(task_id: &str) -> ResponseInfo {
    ResponseInfo { task_id: Some(task_id.into()), ..ResponseInfo::default() }
}

fn peer_cancel(s: &mut Host, id: i64) -> InboundCancelVerdict {
    s.handle_cancelled(&CancelledParams::from_json(Some(&json!({ "requestId": id, "reason": "r" }))))
}

/// What `cancel` does to a plain request in flight, per revision and transport.
#[test]
fn the_cancel_signal_depends_on_revision_and_transport() {
    use TransportKind::*;
    let table = [
        (V2024_11_05, Messages, "notify"),
        (V2024_11_05, StreamableHttp, "notify"),
        (V2025_03_26, StreamableHttp, "notify"),
        (V2025_06_18, StreamableHttp, "notify"),
        (V2025_11_25, StreamableHttp, "notify"),
        (V2026_07_28, Messages, "notify"),
        (V2026_07_28, StreamableHttp, "close-stream"),
    ];
    for (revision, transport, want) in table {
        let mut s = session(revision, transport);
        s.track_request(n(1), "tools/call", None).unwrap();
        let got = match s.cancel_now(&n(1), &Reason::Text("stop".into())).unwrap() {
            Cancel::Sent(CancelAction::Notify(c)) => {
                assert_eq!(c.reason.as_deref(), Some("stop"));
                "notify"
            }
            Cancel::Sent(CancelAction::CloseStream(id)) => {
                assert_eq!(id, n(1));
                "close-stream"
            }
            other => panic!("{revision} {transport:?}: {other:?}"),
        };
        assert_eq!(got, want, "{revision} {transport:?}");
        // Either way the late response is dropped.
        assert_eq!(s.handle_response(&n(1), &ResponseInfo::default()), ResponseVerdict::Late, "{revision}");
    }
}

/// The handshake that must not be cancelled is the revision's own.
#[test]
fn handshake_protection_follows_the_revision() {
    for revision in Revision::ALL {
        for method in ["initialize", "server/discover"] {
            let mut s = session(revision, TransportKind::Messages);
            s.track_request(n(0), method, None).unwrap();
            let protected = method == "initialize" && revision != V2026_07_28;
            match s.cancel_now(&n(0), &Reason::None) {
                Err(UsageError::HandshakeNotCancellable(id)) => {
                    assert!(protected && id == n(0), "{revision} {method}");
                    s.assert_only_events();
                }
                Ok(Cancel::Sent(CancelAction::Notify(_))) => assert!(!protected, "{revision} {method}"),
                other => panic!("{revision} {method}: {other:?}"),
            }
        }
    }
    // Before any revision is known, initialize is protected.
    let mut s = Session::default();
    s.track_request(n(0), "initialize", None).unwrap();
    assert!(s.cancel(&n(0), &Reason::None).is_err());
}

/// Who may cancel: either side up to 2025-11-25; in 2026-07-28 only the client, and the
/// server only to end our `subscriptions/listen`.
#[test]
fn inbound_cancels_follow_the_revision() {
    for revision in Revision::ALL {
        let mut s = session(revision, TransportKind::Messages);
        s.handle_request(n(5), "sampling/createMessage");
        s.track_request(n(9), "subscriptions/listen", None).unwrap();
        let peer_request = peer_cancel(&mut s, 5);
        let listen = peer_cancel(&mut s, 9);
        if revision == V2026_07_28 {
            assert_eq!(peer_request, InboundCancelVerdict::Ignore, "{revision}");
            assert_eq!(listen, InboundCancelVerdict::ListenEnded { request_id: n(9) }, "{revision}");
            assert!(!s.is_cancelled_by_peer(&n(5)));
            assert_eq!(s.request_state(&n(9)), None, "the listen request is over");
            assert!(s.take(|o| matches!(o, Output::PeerCancelled { .. }).then_some(())).is_empty());
            let whys: Vec<_> = s
                .events()
                .into_iter()
                .filter_map(|e| match e.kind {
                    EventKind::CancelIgnored { why, .. } => Some(why),
                    _ => None,
                })
                .collect();
            assert_eq!(whys, vec![Ignored::PeerMayNotCancel]);
        } else {
            assert!(matches!(peer_request, InboundCancelVerdict::Abort { .. }), "{revision}");
            assert_eq!(listen, InboundCancelVerdict::Ignore, "{revision}: wrong direction");
            assert_eq!(s.request_state(&n(9)), Some(RequestState::InFlight));
            let aborted = s.take(|o| match o {
                Output::PeerCancelled { request_id, reason, .. } => Some((request_id.clone(), reason.clone())),
                _ => None,
            });
            assert_eq!(aborted, vec![(n(5), Some("r".to_owned()))], "{revision}");
        }
    }
}

/// A task-augmented request: `tasks/cancel` from 2025-11-25 on, a plain cancel before.
#[test]
fn task_augmented_requests_are_cancelled_with_tasks_cancel_from_2025_11_25() {
    for revision in Revision::ALL {
        let mut s = session(revision, TransportKind::Messages);
        s.track(task_request(1), 0).unwrap();
        let tasks = revision >= V2025_11_25;
        assert_eq!(s.handle_response(&n(1), &created("t-1")), ResponseVerdict::Deliver);
        let action = s.cancel_now(&n(1), &Reason::None).unwrap();
        if tasks {
            assert_eq!(
                action,
                Cancel::Sent(CancelAction::CancelTask(TaskCancelRequest {
                    id: RequestId::from("mcp-cancel:1"),
                    task_id: "t-1".into(),
                    cancels: n(1)
                })),
                "{revision}"
            );
        } else {
            assert_eq!(action, Cancel::NotMade, "{revision}: the request completed; there is no task to cancel");
        }
    }
}

#[test]
fn an_abort_before_the_task_id_is_known_sends_tasks_cancel_when_it_arrives() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    assert_eq!(s.cancel_now(&n(1), &Reason::Text("stop".into())).unwrap(), Cancel::Unsent);
    assert_eq!(s.request_state(&n(1)), Some(RequestState::CancelPending));
    assert_eq!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::NotMade, "no second cancel");
    assert!(s.transmits().is_empty(), "nothing to send before the taskId");
    // The CreateTaskResult arrives: nobody waits for it, and the task is cancelled now.
    assert_eq!(s.handle_response(&n(1), &created("t-9")), ResponseVerdict::Late);
    assert_eq!(
        s.transmits(),
        vec![Transmit {
            request_id: n(1),
            action: CancelAction::CancelTask(TaskCancelRequest {
                id: RequestId::from("mcp-cancel:1"),
                task_id: "t-9".into(),
                cancels: n(1)
            })
        }]
    );
    let cancel_id = RequestId::from("mcp-cancel:1");
    assert_eq!(
        s.handle_response(&cancel_id, &ResponseInfo { error_code: None, ..ResponseInfo::default() }),
        ResponseVerdict::Consumed
    );
    assert_eq!(s.request_state(&n(1)), None);
    assert_eq!(s.running_tasks(), 0);
    let kinds: Vec<String> = s.events().iter().map(|e| serde_json::to_value(e).unwrap()["type"].to_string()).collect();
    assert_eq!(
        kinds,
        [
            r#""cancel-deferred""#,
            r#""cancel-not-sent""#,
            r#""cancel-sent""#,
            r#""late-response-dropped""#,
            r#""task-cancel-answered""#
        ]
    );
    assert!(s.queued.is_empty(), "the caller was told once, at the cancel: {:?}", s.queued);
}

#[test]
fn a_deferred_cancel_whose_task_was_never_created_sends_nothing() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    assert_eq!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::Unsent);
    let error = ResponseInfo { error_code: Some(-32603), ..ResponseInfo::default() };
    assert_eq!(s.handle_response(&n(1), &error), ResponseVerdict::Late);
    s.assert_only_events();
    assert_eq!(s.request_state(&n(1)), None);
}

#[test]
fn exactly_one_tasks_cancel_per_task_and_none_for_a_terminal_task() {
    // Terminal by status notification: nothing is sent.
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    let _ = s.handle_response(&n(1), &created("t-1"));
    s.handle_task_status("t-1", "working");
    assert_eq!(s.request_state(&n(1)), Some(RequestState::TaskRunning));
    s.handle_task_status("t-1", "completed");
    assert_eq!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::NotMade);

    // Terminal by a tasks/get result.
    s.track(task_request(2), 0).unwrap();
    let _ = s.handle_response(&n(2), &created("t-2"));
    s.track(TrackRequest { task_ref: Some("t-2".into()), ..TrackRequest::new(n(3), "tasks/get") }, 0).unwrap();
    assert!(s.response_fields(&n(3)).task_status);
    let status = ResponseInfo { task_status: Some(("t-2".into(), "failed".into())), ..ResponseInfo::default() };
    assert_eq!(s.handle_response(&n(3), &status), ResponseVerdict::Deliver);
    assert_eq!(s.cancel_now(&n(2), &Reason::None).unwrap(), Cancel::NotMade);

    // The host's own tasks/cancel counts as the one.
    s.track(task_request(4), 0).unwrap();
    let _ = s.handle_response(&n(4), &created("t-4"));
    s.track(TrackRequest { task_ref: Some("t-4".into()), ..TrackRequest::new(n(5), "tasks/cancel") }, 0).unwrap();
    assert_eq!(s.cancel_now(&n(4), &Reason::None).unwrap(), Cancel::NotMade);
    assert!(s.events().iter().any(|e| matches!(e.kind, EventKind::CancelNotSent { why: NotSent::TaskSettled, .. })));

    // Ours, then a second abort: one tasks/cancel; -32602 is a normal outcome.
    s.track(task_request(6), 0).unwrap();
    let _ = s.handle_response(&n(6), &created("t-6"));
    let Cancel::Sent(CancelAction::CancelTask(req)) = s.cancel_now(&n(6), &Reason::None).unwrap() else { panic!() };
    assert_eq!(s.cancel_now(&n(6), &Reason::None).unwrap(), Cancel::NotMade);
    let terminal = ResponseInfo { error_code: Some(-32602), ..ResponseInfo::default() };
    assert!(s.response_fields(&req.id).error_code);
    assert_eq!(s.handle_response(&req.id, &terminal), ResponseVerdict::Consumed);
    assert!(s.events().iter().any(|e| matches!(
        e.kind,
        EventKind::TaskCancelAnswered { outcome: TaskCancelOutcome::AlreadyTerminal, code: Some(-32602), .. }
    )));
    s.assert_only_events();
}

// ----- timeouts on a simulated clock -----

fn timed(id: i64, timeout: Timeout) -> TrackRequest {
    TrackRequest { timeout: Some(timeout), progress_token: Some(n(id)), ..TrackRequest::new(n(id), "tools/call") }
}

#[test]
fn a_timeout_cancels_with_the_timeout_reason_at_its_deadline() {
    let mut s = session(V2025_06_18, TransportKind::Messages);
    s.track(timed(1, Timeout { timeout_ms: Some(1000), ..Timeout::NONE }), 500).unwrap();
    assert_eq!(s.poll_timeout(), Some(1500));
    assert!(s.timeout(1499).is_empty());
    s.assert_only_events();
    s.handle_timeout(1500);
    // The cancel goes on the wire, then the caller gets its timeout: in that order.
    s.events();
    match s.take(|o| Some(o.clone())).as_slice() {
        [Output::Transmit(Transmit { action: CancelAction::Notify(c), .. }), Output::Cancelled { request_id, cause }] =>
        {
            assert_eq!(c.reason.as_deref(), Some("Request timed out"));
            assert_eq!((request_id, *cause), (&n(1), CancelCause::TimedOut(TimeoutKind::Timeout)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(s.handle_progress(&n(1), 1600), ProgressVerdict::Late);
    assert_eq!(s.handle_response(&n(1), &ResponseInfo::default()), ResponseVerdict::Late);
}

#[test]
fn progress_resets_the_timeout_but_the_maximum_total_fires_once_at_its_deadline() {
    let mut s = session(V2025_06_18, TransportKind::Messages);
    let t = Timeout { timeout_ms: Some(1000), reset_on_progress: true, max_total_ms: Some(2500) };
    s.track(timed(1, t), 0).unwrap();
    for at in [900, 1800, 2400] {
        assert_eq!(s.handle_progress(&n(1), at), ProgressVerdict::Deliver);
        assert!(s.timeout(at).is_empty());
    }
    assert_eq!(s.poll_timeout(), Some(2500), "the maximum total caps the reset");
    assert!(s.timeout(2499).is_empty());
    assert_eq!(s.timeout(2500), vec![(n(1), TimeoutKind::MaxTotal)]);
    assert_eq!(s.transmits().len(), 1);
    assert!(s.timeout(10_000).is_empty(), "fires exactly once");
    s.assert_only_events();
    assert_eq!(s.handle_progress(&n(1), 2600), ProgressVerdict::Late);
}

#[test]
fn without_reset_progress_does_not_move_the_deadline() {
    let mut s = session(V2025_06_18, TransportKind::Messages);
    s.track(timed(1, Timeout { timeout_ms: Some(1000), ..Timeout::NONE }), 0).unwrap();
    let _ = s.handle_progress(&n(1), 900);
    assert_eq!(s.poll_timeout(), Some(1000));
}

#[test]
fn deadlines_fire_in_order_and_only_when_due() {
    let mut s = session(V2025_06_18, TransportKind::Messages);
    s.track(timed(1, Timeout { timeout_ms: Some(300), ..Timeout::NONE }), 0).unwrap();
    s.track(timed(2, Timeout { max_total_ms: Some(100), ..Timeout::NONE }), 0).unwrap();
    s.track(timed(3, Timeout { timeout_ms: Some(500), ..Timeout::NONE }), 0).unwrap();
    assert_eq!(s.timeout(300), vec![(n(2), TimeoutKind::MaxTotal), (n(1), TimeoutKind::Timeout)]);
    let sent: Vec<_> = s.transmits().into_iter().map(|t| t.request_id).collect();
    assert_eq!(sent, vec![n(2), n(1)]);
    assert_eq!(s.poll_timeout(), Some(500));
    // A response before the deadline clears it.
    let _ = s.handle_response(&n(3), &ResponseInfo::default());
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn session_default_timeouts_apply_unless_a_request_sets_its_own_and_never_to_the_handshake() {
    let mut s = host(Config { timeout: Timeout { timeout_ms: Some(100), ..Timeout::NONE }, ..Config::default() });
    s.track(TrackRequest::new(n(0), "initialize"), 0).unwrap();
    s.track(TrackRequest::new(n(1), "tools/call"), 0).unwrap();
    s.track(TrackRequest { timeout: Some(Timeout::NONE), ..TrackRequest::new(n(2), "tools/call") }, 0).unwrap();
    let expired: Vec<_> = s.timeout(1000).into_iter().map(|(id, _)| id).collect();
    assert_eq!(expired, vec![n(1)]);
    assert_eq!(s.request_state(&n(0)), Some(RequestState::InFlight));
    assert_eq!(s.request_state(&n(2)), Some(RequestState::InFlight));
}

#[test]
fn a_timeout_before_the_task_id_is_known_defers_tasks_cancel() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    let mut r = task_request(1);
    r.timeout = Some(Timeout { timeout_ms: Some(50), ..Timeout::NONE });
    s.track(r, 0).unwrap();
    assert_eq!(s.timeout(50), vec![(n(1), TimeoutKind::Timeout)]);
    assert!(s.transmits().is_empty());
    assert_eq!(s.handle_response(&n(1), &created("t")), ResponseVerdict::Late);
    assert!(matches!(s.transmits().as_slice(), [Transmit { action: CancelAction::CancelTask(_), .. }]));
    s.assert_only_events();
}

#[test]
fn over_streamable_http_in_2026_a_timeout_closes_the_stream() {
    let mut s = session(V2026_07_28, TransportKind::StreamableHttp);
    s.track(timed(1, Timeout { timeout_ms: Some(10), ..Timeout::NONE }), 0).unwrap();
    assert_eq!(s.timeout(10), vec![(n(1), TimeoutKind::Timeout)]);
    assert_eq!(s.transmits(), vec![Transmit { request_id: n(1), action: CancelAction::CloseStream(n(1)) }]);
    let via: Vec<Via> = s
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::CancelSent { via, .. } => Some(via),
            _ => None,
        })
        .collect();
    assert_eq!(via, vec![Via::StreamClose]);
}

// ----- revision negotiation -----

#[test]
fn the_initialize_result_sets_the_revision() {
    let mut s = host(Config::default());
    s.track_request(n(0), "initialize", None).unwrap();
    assert!(s.response_fields(&n(0)).protocol_version);
    let info = ResponseInfo { protocol_version: Some("2025-11-25".into()), ..ResponseInfo::default() };
    assert_eq!(s.handle_response(&n(0), &info), ResponseVerdict::Deliver);
    assert_eq!(s.revision(), Some(V2025_11_25));
    assert!(s
        .events()
        .iter()
        .any(|e| matches!(&e.kind, EventKind::RevisionNegotiated { revision: V2025_11_25, known: true, .. })));
}

#[test]
fn an_unknown_version_follows_the_closest_known_rules_and_is_reported() {
    let mut s = host(Config::default());
    assert_eq!(s.set_protocol_version("2026-01-01"), V2025_11_25);
    assert!(matches!(
        s.events().as_slice(),
        [Event { kind: EventKind::RevisionNegotiated { known: false, revision: V2025_11_25, .. }, .. }]
    ));
    assert_eq!(s.set_protocol_version("not-a-version"), Revision::LATEST);
}

/// The TS SDK 1.x aborts a task's call and each of its `tasks/get` polls with one signal:
/// one `tasks/cancel` for the task, and the polls' late answers dropped.
#[test]
fn aborting_a_task_and_its_polls_sends_one_tasks_cancel() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    let _ = s.handle_response(&n(1), &created("t"));
    for poll in [2, 3] {
        let get = TrackRequest { task_ref: Some("t".into()), task: true, ..TrackRequest::new(n(poll), "tasks/get") };
        s.track(get, 0).unwrap();
        if poll == 2 {
            let _ = s.handle_response(
                &n(2),
                &ResponseInfo { task_status: Some(("t".into(), "working".into())), ..ResponseInfo::default() },
            );
        }
    }
    // The SDK's cancels arrive for ids 1, 2 (answered) and 3 (in flight).
    let actions: Vec<_> = [1, 2, 3].iter().map(|i| s.cancel_now(&n(*i), &Reason::None).unwrap()).collect();
    assert!(matches!(&actions[0], Cancel::Sent(CancelAction::CancelTask(t)) if t.task_id == "t" && t.cancels == n(1)));
    assert_eq!(actions[1], Cancel::NotMade, "poll 2 was answered");
    // Poll 3 is cancelled (its caller told, its late answer dropped) with no second tasks/cancel.
    assert_eq!(actions[2], Cancel::Unsent);
    assert_eq!(s.handle_response(&n(3), &ResponseInfo::default()), ResponseVerdict::Late);
    s.assert_only_events();
}

#[test]
fn params_task_on_a_method_that_cannot_be_task_augmented_is_ignored() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(TrackRequest { task: true, ..TrackRequest::new(n(1), "resources/read") }, 0).unwrap();
    assert!(matches!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::Sent(CancelAction::Notify(_))));
}

/// 2026-07-28 tasks extension: any request may be answered with `resultType: "task"`.
#[test]
fn in_2026_a_request_answered_as_a_task_is_cancelled_with_tasks_cancel() {
    let mut s = session(V2026_07_28, TransportKind::Messages);
    s.track_request(n(1), "tools/call", None).unwrap();
    assert!(s.response_fields(&n(1)).task_id);
    assert_eq!(s.handle_response(&n(1), &created("t-1")), ResponseVerdict::Deliver);
    assert!(
        matches!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::Sent(CancelAction::CancelTask(t)) if t.task_id == "t-1")
    );
    // The ack `{ resultType: "complete" }` is a result: cancelled.
    assert_eq!(
        s.handle_response(&RequestId::from("mcp-cancel:1"), &ResponseInfo::default()),
        ResponseVerdict::Consumed
    );
    assert_eq!(s.request_state(&n(1)), None);

    // Cancelled before the answer, which then turns out to be a task: it is cancelled too.
    s.track_request(n(2), "tools/call", None).unwrap();
    assert!(matches!(s.cancel_now(&n(2), &Reason::None).unwrap(), Cancel::Sent(CancelAction::Notify(_))));
    assert!(s.response_fields(&n(2)).task_id);
    assert_eq!(s.handle_response(&n(2), &created("t-2")), ResponseVerdict::Late);
    assert!(
        matches!(s.transmits().as_slice(), [Transmit { action: CancelAction::CancelTask(t), .. }] if t.task_id == "t-2")
    );
    s.assert_only_events();
}

/// Found by the `ops` fuzz target: an id whose request started a task that still runs, used
/// again for a new request. The id now names the new request: cancelling it cancels that
/// request (its timeout included), not the old task again.
#[test]
fn reusing_the_id_of_a_request_whose_task_still_runs_names_the_new_request() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    let _ = s.handle_response(&n(1), &created("t-1"));
    assert_eq!(s.request_state(&n(1)), Some(RequestState::TaskRunning));
    let again = TrackRequest {
        timeout: Some(Timeout { max_total_ms: Some(5), ..Timeout::NONE }),
        ..TrackRequest::new(n(1), "tools/call")
    };
    s.track(again, 0).unwrap();
    assert_eq!(s.request_state(&n(1)), Some(RequestState::InFlight));
    assert_eq!(s.timeout(5), vec![(n(1), TimeoutKind::MaxTotal)]);
    assert!(matches!(s.transmits().as_slice(), [Transmit { action: CancelAction::Notify(_), .. }]));
    assert_eq!(s.request_state(&n(1)), Some(RequestState::Cancelled));
    // The old task ending later does not touch the new request.
    s.handle_task_status("t-1", "completed");
    assert_eq!(s.request_state(&n(1)), Some(RequestState::Cancelled));
}

// ----- the polls of a task (`tasks/get`, `tasks/result`) -----

fn poll(id: i64, task_id: &str, timeout_ms: u64) -> TrackRequest {
    TrackRequest {
        task_ref: Some(task_id.into()),
        timeout: Some(Timeout { timeout_ms: Some(timeout_ms), ..Timeout::NONE }),
        ..TrackRequest::new(n(id), "tasks/get")
    }
}

/// A poll's timeout while its task runs stops the task: the task's one `tasks/cancel`
/// (for the request that created it), then the poll's caller gets its timeout.
#[test]
fn a_poll_that_times_out_while_its_task_runs_cancels_the_task() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    let _ = s.handle_response(&n(1), &created("t"));
    s.track(poll(2, "t", 10), 0).unwrap();
    assert_eq!(s.timeout(10), vec![(n(2), TimeoutKind::Timeout)]);
    assert!(matches!(
        s.transmits().as_slice(),
        [Transmit { request_id, action: CancelAction::CancelTask(t) }] if *request_id == n(1) && t.task_id == "t"
    ));
    assert_eq!(s.handle_response(&n(2), &ResponseInfo::default()), ResponseVerdict::Late);
    s.assert_only_events();
}

/// The task ended while its poll waited, then the poll timed out: nothing to send, and the
/// poll's caller is told of its timeout once, not twice.
#[test]
fn a_poll_that_times_out_after_its_task_ended_is_timed_out_once() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    let _ = s.handle_response(&n(1), &created("t"));
    s.track(poll(2, "t", 10), 0).unwrap();
    s.handle_task_status("t", "completed");
    assert_eq!(s.timeout(10), vec![(n(2), TimeoutKind::Timeout)]);
    assert!(s.transmits().is_empty(), "the task is over: no tasks/cancel");
    assert_eq!(s.handle_response(&n(2), &ResponseInfo::default()), ResponseVerdict::Late);
    s.assert_only_events();
}

/// The task's `tasks/cancel` already went, then a poll timed out: no second `tasks/cancel`,
/// and the poll's caller is told of its timeout once, not twice.
#[test]
fn a_poll_that_times_out_after_its_task_was_cancelled_is_timed_out_once() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    let _ = s.handle_response(&n(1), &created("t"));
    assert!(matches!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::Sent(CancelAction::CancelTask(_))));
    s.track(poll(2, "t", 10), 0).unwrap();
    assert_eq!(s.timeout(10), vec![(n(2), TimeoutKind::Timeout)]);
    assert!(s.transmits().is_empty(), "one tasks/cancel per task");
    s.assert_only_events();
}

/// Cancelling a poll is a cancel made (the poll's caller is told, its late answer dropped)
/// whether or not its task still needs its `tasks/cancel`.
#[test]
fn cancelling_a_poll_whose_task_is_already_being_cancelled_cancels_the_poll_alone() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    let _ = s.handle_response(&n(1), &created("t"));
    s.track(TrackRequest { task_ref: Some("t".into()), ..TrackRequest::new(n(2), "tasks/get") }, 0).unwrap();
    s.track(TrackRequest { task_ref: Some("t".into()), ..TrackRequest::new(n(3), "tasks/result") }, 0).unwrap();
    assert!(matches!(
        s.cancel_now(&n(2), &Reason::None).unwrap(),
        Cancel::Sent(CancelAction::CancelTask(t)) if t.cancels == n(1)
    ));
    assert_eq!(s.cancel_now(&n(3), &Reason::None).unwrap(), Cancel::Unsent);
    assert_eq!(s.request_state(&n(3)), Some(RequestState::Cancelled));
    assert_eq!(s.cancel_now(&n(3), &Reason::None).unwrap(), Cancel::NotMade, "once");
    s.assert_only_events();
}

/// Our own `tasks/cancel` is ours: not one of the application's requests to count.
#[test]
fn in_flight_count_counts_running_tasks_but_not_our_own_tasks_cancel() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.track(task_request(1), 0).unwrap();
    s.track(task_request(2), 0).unwrap();
    assert_eq!(s.in_flight_count(), 2);
    let _ = s.handle_response(&n(1), &created("t-1"));
    assert_eq!((s.in_flight_count(), s.outbound_in_flight()), (2, 1), "the task runs: it can still be cancelled");
    assert!(matches!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::Sent(CancelAction::CancelTask(_))));
    // The task ends before our `tasks/cancel` is answered: that request is still in flight,
    // and it is not one that can be cancelled.
    s.handle_task_status("t-1", "cancelled");
    assert_eq!(s.outbound_in_flight(), 2, "request 2 and our tasks/cancel");
    assert_eq!(s.in_flight_count(), 1, "request 2 alone");
    let answer = s.handle_response(&RequestId::from("mcp-cancel:1"), &ResponseInfo::default());
    assert_eq!(answer, ResponseVerdict::Consumed);
    assert_eq!((s.in_flight_count(), s.outbound_in_flight()), (1, 1));
}

/// Found by the `ops` fuzz target: progress for a task request whose cancel was deferred
/// re-armed the deadline the cancel had cleared (with `reset_on_progress`); its timeout
/// then told the caller a second time — a timeout after its cancel — and reported a
/// timeout and a cancel not sent that never were.
#[test]
fn progress_after_a_deferred_cancel_does_not_rearm_the_requests_timeout() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    let mut r = task_request(1);
    r.progress_token = Some(n(1));
    r.timeout = Some(Timeout { timeout_ms: Some(10), reset_on_progress: true, max_total_ms: None });
    s.track(r, 0).unwrap();
    assert_eq!(s.cancel_now(&n(1), &Reason::None).unwrap(), Cancel::Unsent);
    assert_eq!(s.poll_timeout(), None, "a request already cancelled has no deadline");
    let _ = s.handle_progress(&n(1), 5);
    assert_eq!(s.poll_timeout(), None, "progress does not give it one back");
    assert!(s.timeout(1000).is_empty(), "its caller was told once, at the cancel");
    assert!(!s.events().iter().any(|e| matches!(e.kind, EventKind::TimedOut { .. } | EventKind::CancelNotSent { .. })));
    // The task's cancel still goes out when its id arrives.
    assert_eq!(s.handle_response(&n(1), &created("t")), ResponseVerdict::Late);
    assert!(matches!(s.transmits().as_slice(), [Transmit { action: CancelAction::CancelTask(_), .. }]));
    s.assert_only_events();
}

/// A peer that answers two of our task-augmented requests with the same task id: the first
/// request is settled then (its objects are released), and re-tracking its id settles
/// nothing of the other one (found by the `ops` fuzz target).
#[test]
fn a_task_id_given_twice_settles_the_first_request_and_only_it() {
    let mut s = session(V2025_11_25, TransportKind::Messages);
    s.session.track(TrackRequest { watch: true, ..task_request(0) }, 0).unwrap();
    s.session.track(task_request(1), 0).unwrap();
    assert_eq!(s.session.handle_response(&n(0), &created("t")), ResponseVerdict::Deliver);
    assert_eq!(s.session.handle_response(&n(1), &created("t")), ResponseVerdict::Deliver);
    let settled = |s: &mut Host| -> Vec<Output> {
        std::iter::from_fn(|| s.session.poll_output()).filter(|o| matches!(o, Output::Settled(_))).collect()
    };
    assert_eq!(settled(&mut s), vec![Output::Settled(n(0))], "the watched request whose task id was taken over");
    // Request 1 (never watched) is tracked again: nothing is reported settled.
    s.session.track(task_request(1), 0).unwrap();
    assert_eq!(settled(&mut s), vec![]);
}
