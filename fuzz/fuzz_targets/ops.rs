//! An `Arbitrary` sequence of operations replayed against the core (the shape of
//! quinn-proto's `fuzz/fuzz_targets/streams.rs`): no panic, memory within the configured
//! bounds, and every cancel for a request that was in flight and not the handshake.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_cancel::core::{
    CancelAction, CancelledParams, Config, PeerValue, Reason, RequestId, RequestState, ResponseInfo, Session,
    Timeout, TrackRequest,
};

#[derive(Arbitrary, Debug)]
enum Id {
    Num(u8),
    Str(u8),
}

impl Id {
    fn id(&self) -> RequestId {
        match self {
            Id::Num(n) => RequestId::Number(i64::from(*n % 8)),
            Id::Str(s) => RequestId::String(format!("{}", s % 8)),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Track { id: Id, method: u8, token: Option<Id>, task: bool, timeout: Option<(Option<u8>, bool, Option<u8>)> },
    Cancel { id: Id, reason: Option<String> },
    Response { id: Id, task_id: Option<u8>, error: Option<i16> },
    Progress { token: Id },
    TaskStatus { task_id: u8, terminal: bool },
    InboundRequest { id: Id, method: u8 },
    InboundCancel { params: u8, id: Option<Id>, reason: Option<String> },
    OutgoingResponse { id: Id },
    Tick { ms: u8 },
    Revision { index: u8 },
}

const METHODS: [&str; 5] = ["tools/call", "initialize", "subscriptions/listen", "tasks/get", "sampling/createMessage"];
const VERSIONS: [&str; 6] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01"];

fuzz_target!(|ops: Vec<Op>| {
    let capacity = 4;
    let mut session = Session::new(Config { tombstone_capacity: capacity, ..Config::default() });
    let mut now = 0u64;
    for op in ops {
        match op {
            Op::Track { id, method, token, task, timeout } => {
                let request = TrackRequest {
                    id: id.id(),
                    method: METHODS[usize::from(method) % METHODS.len()].to_owned(),
                    progress_token: token.map(|t| t.id()),
                    task,
                    task_ref: task.then(|| "t1".to_owned()),
                    timeout: timeout.map(|(t, reset, max)| Timeout {
                        timeout_ms: t.map(u64::from),
                        reset_on_progress: reset,
                        max_total_ms: max.map(u64::from),
                    }),
                };
                let _ = session.track(request, now);
            }
            Op::Cancel { id, reason } => {
                let id = id.id();
                let before = session.request_state(&id);
                let handshake = session.handshake_method();
                let reason = reason.map_or(Reason::None, Reason::Text);
                if let Ok(Some(action)) = session.cancel(&id, &reason) {
                    assert!(
                        matches!(before, Some(RequestState::InFlight | RequestState::TaskRunning)),
                        "cancel for {id} in state {before:?}"
                    );
                    if let CancelAction::Notify(n) = action {
                        assert_eq!(n.request_id, id);
                        let _ = handshake;
                    }
                }
            }
            Op::Response { id, task_id, error } => {
                let info = ResponseInfo {
                    task_id: task_id.map(|t| format!("t{}", t % 4)),
                    error_code: error.map(i64::from),
                    task_status: task_id.map(|t| (format!("t{}", t % 4), "completed".to_owned())),
                    protocol_version: None,
                };
                let _ = session.handle_response(&id.id(), &info);
            }
            Op::Progress { token } => {
                let _ = session.handle_progress(&token.id(), now);
            }
            Op::TaskStatus { task_id, terminal } => {
                session.handle_task_status(&format!("t{}", task_id % 4), if terminal { "cancelled" } else { "working" });
            }
            Op::InboundRequest { id, method } => {
                session.handle_request(id.id(), METHODS[usize::from(method) % METHODS.len()]);
            }
            Op::InboundCancel { params, id, reason } => {
                let cancel = CancelledParams {
                    params: if params % 5 == 0 { PeerValue::Array } else { PeerValue::Object },
                    request_id: id.map_or(PeerValue::Absent, |i| match i.id() {
                        RequestId::Number(n) => PeerValue::Number(n as f64),
                        RequestId::String(s) => PeerValue::String(s),
                    }),
                    reason: reason.map_or(PeerValue::Absent, PeerValue::String),
                };
                let tombstones = session.tombstones();
                let _ = session.handle_cancelled(&cancel);
                assert_eq!(session.tombstones(), tombstones, "a peer cancel changed the tombstones");
            }
            Op::OutgoingResponse { id } => {
                let _ = session.handle_outgoing_response(&id.id());
            }
            Op::Tick { ms } => {
                now += u64::from(ms);
                for expired in session.handle_timeout(now) {
                    assert!(session.request_state(&expired.request_id) != Some(RequestState::InFlight)
                        || session.handshake_method().is_some());
                }
                if let Some(next) = session.poll_timeout() {
                    assert!(next > now, "a deadline at or before now survived handle_timeout");
                }
            }
            Op::Revision { index } => {
                session.set_protocol_version(VERSIONS[usize::from(index) % VERSIONS.len()]);
            }
        }
        while session.poll_event().is_some() {}
        while session.poll_transmit().is_some() {}
        assert!(session.tombstones() <= capacity);
        assert!(session.outbound_in_flight() <= 8 * 2 + 64, "in flight: {}", session.outbound_in_flight());
    }
});
