// One event of every kind, for the tests that check the event schema mechanically: the
// typings against the core's `Serialize` (tests/typings.rs), and the objects the wasm layer
// hands to `onEvent` against it (src/wasm/convert.rs). Included with `include!`: the
// includer imports `Direction`, `Event`, `EventKind`, `Ignored`, `NotSent`, `RequestId`,
// `Revision`, `TaskCancelOutcome`, `TimeoutKind` and `Via`.

/// One event of every kind, with every optional member present.
fn every_kind() -> Vec<Event> {
    let id = RequestId::Number(1);
    let m = || "tools/call".to_owned();
    let s = || Some("x".to_owned());
    let kinds = vec![
        (
            Direction::Outbound,
            EventKind::CancelSent {
                request_id: id.clone(),
                method: m(),
                via: Via::Notification,
                reason: s(),
                task_id: s(),
            },
        ),
        (
            Direction::Outbound,
            EventKind::CancelNotSent { request_id: id.clone(), method: s(), why: NotSent::NotInFlight },
        ),
        (Direction::Outbound, EventKind::CancelCascaded { request_id: id.clone(), method: m(), parent_id: id.clone() }),
        (Direction::Outbound, EventKind::CancelDeferred { request_id: id.clone(), method: m() }),
        (Direction::Outbound, EventKind::TimedOut { request_id: id.clone(), method: m(), kind: TimeoutKind::Timeout }),
        (
            Direction::Outbound,
            EventKind::TaskCancelAnswered {
                request_id: id.clone(),
                task_id: m(),
                outcome: TaskCancelOutcome::Cancelled,
                code: Some(-32602),
            },
        ),
        (Direction::Outbound, EventKind::ListenEnded { request_id: id.clone(), reason: s() }),
        (
            Direction::Session,
            EventKind::RevisionNegotiated { version: m(), revision: Revision::V2025_06_18, known: true },
        ),
        (Direction::Inbound, EventKind::CancelReceived { request_id: id.clone(), method: m(), reason: s() }),
        (
            Direction::Inbound,
            EventKind::CancelIgnored {
                request_id: Some(id.clone()),
                why: Ignored::Malformed,
                detail: s(),
                reason: s(),
            },
        ),
        (Direction::Outbound, EventKind::LateResponseDropped { request_id: id.clone(), method: m() }),
        (
            Direction::Outbound,
            EventKind::LateProgressDropped { request_id: id.clone(), method: m(), progress_token: id.clone() },
        ),
        (Direction::Inbound, EventKind::ResponseSuppressed { request_id: id.clone(), method: m() }),
        (Direction::Inbound, EventKind::DuplicateRequestId { request_id: id.clone(), method: m() }),
        (Direction::Inbound, EventKind::InboundForgotten { request_id: id, method: m() }),
    ];
    kinds.into_iter().map(|(direction, kind)| Event { direction, kind }).collect()
}
