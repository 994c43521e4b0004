//! An `Arbitrary` sequence of operations replayed against the core (the shape of
//! quinn-proto's `fuzz/fuzz_targets/streams.rs`): no panic, memory within the configured
//! bounds, every cancel for a request that was in flight and not the handshake, and the
//! output queue consistent: each request's caller told at most once that it was cancelled,
//! only watched requests settled, the peer's cancels only for its requests in flight.
//!
//! `Op` is the encoding of the checked-in seeds (`fuzz/seeds/ops/`): new knobs are read
//! from bits the fields already carry (the high bit of a method byte: watch; an odd-length
//! reason: the SDK's own `notifications/cancelled` through `handle_outgoing`), so the seeds
//! still decode to the sequences they were saved for.
#![no_main]

use std::collections::HashSet;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_cancel::core::{
    CancelAction, CancelCause, CancelledParams, Config, IdRef, Message, MessageFields, Method, MethodName, Output,
    PeerValue, Reason, RequestId, RequestState, ResponseInfo, Session, Timeout, TrackRequest, Transmit,
};

/// An id borrowed as a host's boundary holds it ([`str_id`] for a string).
fn id_ref(id: &RequestId, words: bool) -> IdRef<'_> {
    match id {
        RequestId::Number(n) => IdRef::Number(*n),
        RequestId::String(s) => IdRef::Str(str_id(s, words)),
    }
}

/// An id as a message's member.
fn peer_value(id: &RequestId) -> PeerValue<'_> {
    match id {
        RequestId::Number(n) => PeerValue::Number(*n as f64),
        RequestId::String(s) => PeerValue::String(s),
    }
}

/// A string id as a host's boundary holds it: packed from words (as a JS host crosses
/// an ASCII id of up to 11 bytes) when `words` and it packs, else as text.
fn str_id(s: &str, words: bool) -> mcp_cancel::core::StrId<'_> {
    use mcp_cancel::core::{PackedStr, StrId};
    let mut w = [0u32; 3];
    for (i, b) in s.bytes().enumerate().take(PackedStr::MAX_BYTES) {
        w[i / 4] |= u32::from(b) << (8 * (i % 4));
    }
    match PackedStr::from_words(s.len() as u32, w[0], w[1], w[2]) {
        Some(p) if words => StrId::Packed(p),
        _ => StrId::Text(s),
    }
}

#[derive(Arbitrary, Debug)]
enum Id {
    Num(u8),
    Str(u8),
}

/// Integer ids at the edges of the core's window of counter ids: its first
/// length, its growth, its most slots (1024), a slide past requests in flight, negatives; in
/// any order, so the window also moves back down (a counter that wraps around).
const EDGES: [i64; 16] = [15, 16, 17, 31, 1022, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 9000, -1, -2, 3];

impl Id {
    fn id(&self) -> RequestId {
        match self {
            // A number of 128 or more is an edge id; below, one of eight small ids.
            Id::Num(n) if *n >= 128 => RequestId::Number(EDGES[usize::from(*n) % EDGES.len()]),
            Id::Num(n) => RequestId::Number(i64::from(*n % 8)),
            // A string of 128 or more is longer than the table's packed keys.
            Id::Str(s) if *s >= 128 => RequestId::String(format!("a-long-request-id-{}", s % 8)),
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
    /// Our request `child` was sent for the peer's request `parent`.
    Relate { child: Id, parent: Id },
}

const METHODS: [&str; 5] = ["tools/call", "initialize", "subscriptions/listen", "tasks/get", "sampling/createMessage"];
const VERSIONS: [&str; 6] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01"];

/// Where the invariants of the output queue are kept between operations.
#[derive(Default)]
struct Seen {
    /// Requests whose caller was told they were cancelled, since each was last tracked.
    told: HashSet<RequestId>,
    /// Ids ever tracked (or marked) as watched.
    watched: HashSet<RequestId>,
    /// Ids of the peer's requests ever watched.
    watched_inbound: HashSet<RequestId>,
}

/// The SDK's own `notifications/cancelled` for our request `id`, as `handle_outgoing` sees it.
fn sdk_cancel<'a>(id: &'a RequestId, reason: &'a str) -> Message<'a> {
    let mut m = Message::new(PeerValue::Absent, MethodName::Known(Method::Cancelled));
    m.params = PeerValue::Object;
    m.request_id = match id {
        RequestId::Number(n) => PeerValue::Number(*n as f64),
        RequestId::String(s) => PeerValue::String(s),
    };
    m.reason = PeerValue::String(reason);
    m.read = MessageFields::PARAMS.with(MessageFields::REQUEST_ID).with(MessageFields::REASON);
    m
}

fuzz_target!(|ops: Vec<Op>| {
    let capacity = 4;
    let inbound_capacity = 4;
    // Without events on a third of the inputs (the one paths' shortcuts then skip no event).
    let events = ops.len() % 3 != 0;
    let mut session =
        Session::new(Config { tombstone_capacity: capacity, inbound_capacity, events, ..Config::default() });
    let mut seen = Seen::default();
    let mut now = 0u64;
    for (step, op) in ops.into_iter().enumerate() {
        // Every other step, the way a host's boundary calls: the ids borrowed, the peer's
        // messages and our responses as `Message`s, a response first with nothing read. Each
        // reaches the one path of its kind, whose shortcuts must do what the general path does.
        let fast = step % 2 == 0;
        // The request this op cancels, and its state before (`None`: no cancel is made).
        let mut cancelling: Option<(RequestId, Option<RequestState>)> = None;
        let mut peer_cancels_allowed = 0;
        // A valid peer cancel was output this step (its nested requests cascade after it).
        let mut peer_cancel_made = false;
        // The tombstones a peer cancel changed (only its cascade may: the nested requests it
        // cancels), and whether one cascaded.
        let mut tombstones_changed = false;
        let mut cascaded = false;
        match op {
            Op::Track { id, method, token, task, timeout } => {
                let watch = method >= 128;
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
                    watch,
                };
                let tracked = if fast && request.timeout.is_none() {
                    // As a host that sees the message (the session's timeouts: none).
                    let mut message = Message::new(peer_value(&request.id), MethodName::from_name(&request.method));
                    message.read = MessageFields(u32::MAX);
                    message.progress_token = request.progress_token.as_ref().map_or(PeerValue::Absent, peer_value);
                    message.task = task;
                    message.task_id = request.task_ref.as_deref();
                    session.handle_outgoing(&message, now, watch).is_ok()
                } else {
                    session.track(request, now).is_ok()
                };
                if tracked {
                    seen.told.remove(&id.id());
                    if watch {
                        seen.watched.insert(id.id());
                    }
                }
            }
            Op::Cancel { id, reason } => {
                let id = id.id();
                let before = session.request_state(&id);
                match reason {
                    // The cancel an SDK sends itself: the same one cancel path, its reason
                    // classified (`String(reason)` of an abort).
                    Some(reason) if reason.len() % 2 == 1 => {
                        let verdict = session.handle_outgoing(&sdk_cancel(&id, &reason), now, false);
                        assert!(matches!(verdict, Ok(mcp_cancel::core::Verdict::Drop)), "{verdict:?}");
                    }
                    reason => {
                        let reason = reason.map_or(Reason::None, Reason::Text);
                        let plain = session.outbound_in_flight();
                        let made = if fast {
                            session.cancel(id_ref(&id, step % 4 == 0), &reason)
                        } else {
                            session.cancel(&id, &reason)
                        };
                        if let Ok(true) = made {
                            assert!(
                                matches!(before, Some(RequestState::InFlight | RequestState::TaskRunning)),
                                "cancel for {id} in state {before:?}"
                            );
                            // A request in flight that is cancelled (not deferred, not a
                            // task's) is a tombstone now.
                            if session.outbound_in_flight() < plain {
                                assert_eq!(session.request_state(&id), Some(RequestState::Cancelled), "cancel of {id}");
                            }
                        }
                    }
                }
                cancelling = Some((id, before));
            }
            Op::Response { id, task_id, error } => {
                let info = ResponseInfo {
                    task_id: task_id.map(|t| format!("t{}", t % 4)),
                    error_code: error.map(i64::from),
                    task_status: task_id.map(|t| (format!("t{}", t % 4), "completed".to_owned())),
                    protocol_version: None,
                };
                match id.id() {
                    id if fast => {
                        // As the wasm layer's `response`: nothing read first, then what the
                        // core asks for.
                        let borrowed = id_ref(&id, step % 4 == 0);
                        let verdict = session.handle_incoming_response(borrowed, MessageFields::NONE, None);
                        if let mcp_cancel::core::Verdict::NeedFields(read) = verdict {
                            let _ = session.handle_incoming_response(borrowed, read, Some(&info));
                        }
                    }
                    id => {
                        let _ = session.handle_response(&id, &info);
                    }
                }
            }
            Op::Progress { token } => {
                let token = token.id();
                let _ = if fast {
                    session.handle_progress(id_ref(&token, step % 4 == 0), now)
                } else {
                    session.handle_progress(&token, now)
                };
            }
            Op::TaskStatus { task_id, terminal } => {
                session
                    .handle_task_status(&format!("t{}", task_id % 4), if terminal { "cancelled" } else { "working" });
            }
            Op::InboundRequest { id, method } => {
                let name = METHODS[usize::from(method) % METHODS.len()];
                // Whether a request of the peer's has this id now (this one, or the first one
                // with its id).
                let in_flight = if fast {
                    // As a host that sees the message (`params.task` read).
                    let id = id.id();
                    let mut message = Message::new(peer_value(&id), MethodName::from_name(name));
                    message.read = MessageFields(u32::MAX);
                    message.task = step % 4 == 0;
                    let verdict = session.handle_incoming(&message, now);
                    assert_eq!(verdict, mcp_cancel::core::Verdict::Pass, "a peer's request passes");
                    true
                } else {
                    session.handle_request(id.id(), name)
                };
                if in_flight && method >= 128 {
                    assert!(session.watch_inbound(&id.id()));
                    seen.watched_inbound.insert(id.id());
                }
            }
            Op::InboundCancel { params, id, reason } => {
                let request_id = id.map(|i| i.id());
                let cancel = CancelledParams {
                    params: if params % 5 == 0 { PeerValue::Array } else { PeerValue::Object },
                    request_id: match &request_id {
                        None => PeerValue::Absent,
                        Some(RequestId::Number(n)) => PeerValue::Number(*n as f64),
                        Some(RequestId::String(s)) => PeerValue::String(s),
                    },
                    reason: reason.as_deref().map_or(PeerValue::Absent, PeerValue::String),
                };
                let tombstones = session.tombstones();
                let inbound = session.inbound_in_flight();
                if fast {
                    // As a host that sees the message.
                    let mut message = Message::new(PeerValue::Absent, MethodName::Known(Method::Cancelled));
                    message.read = MessageFields(u32::MAX);
                    (message.params, message.request_id, message.reason) =
                        (cancel.params, cancel.request_id, cancel.reason);
                    let verdict = session.handle_incoming(&message, now);
                    if verdict == mcp_cancel::core::Verdict::Pass && session.inbound_in_flight() + 1 == inbound {
                        assert!(
                            request_id.as_ref().is_some_and(|id| session.is_cancelled_by_peer(id)),
                            "an abort of no request"
                        );
                    }
                    if verdict == mcp_cancel::core::Verdict::Drop {
                        assert_eq!(session.inbound_in_flight(), inbound, "an ignored cancel forgot a request");
                    }
                } else {
                    let _ = session.handle_cancelled(&cancel);
                }
                tombstones_changed = session.tombstones() != tombstones;
                peer_cancels_allowed = inbound - session.inbound_in_flight();
                assert!(peer_cancels_allowed <= 1);
            }
            Op::OutgoingResponse { id } => {
                if fast {
                    let id = id.id();
                    let verdict =
                        session.handle_outgoing(&Message::new(peer_value(&id), MethodName::Absent), now, false);
                    assert!(verdict.is_ok(), "our response is never refused");
                } else {
                    let _ = session.handle_outgoing_response(&id.id());
                }
            }
            Op::Tick { ms } => {
                now += u64::from(ms);
                session.handle_timeout(now);
                if let Some(next) = session.poll_timeout() {
                    assert!(next > now, "a deadline at or before now survived handle_timeout");
                }
            }
            Op::Revision { index } => {
                session.set_protocol_version(VERSIONS[usize::from(index) % VERSIONS.len()]);
            }
            Op::Relate { child, parent } => {
                let (child, parent) = (child.id(), parent.id());
                // Ours and not yet answered (a task's deferred cancel included).
                let recorded =
                    matches!(session.request_state(&child), Some(RequestState::InFlight | RequestState::CancelPending));
                if session.relate(&child, &parent) {
                    assert!(recorded, "{child} related, not in flight");
                }
            }
        }
        while let Some(output) = session.poll_output() {
            match output {
                Output::Transmit(Transmit { request_id, action }) => {
                    match &action {
                        CancelAction::Notify(n) => assert_eq!(n.request_id, request_id),
                        CancelAction::CloseStream(closed) => assert_eq!(*closed, request_id),
                        CancelAction::CancelTask(t) => assert_eq!(t.cancels, request_id),
                        other => panic!("an action the target does not know: {other:?}"),
                    }
                    if let (Some((id, _)), CancelAction::Notify(_) | CancelAction::CloseStream(_)) =
                        (&cancelling, &action)
                    {
                        assert_eq!(*id, request_id, "a cancel of {id} sent one for {request_id}");
                    }
                }
                Output::Cancelled { request_id, cause } => {
                    if let CancelCause::Cancelled = cause {
                        // Either path (`cancel`, the SDK's own cancel): only a request in flight.
                        let Some((id, before)) = &cancelling else { panic!("{request_id} cancelled by no cancel") };
                        assert_eq!(*id, request_id);
                        assert!(
                            matches!(before, Some(RequestState::InFlight | RequestState::TaskRunning)),
                            "cancel for {id} in state {before:?}"
                        );
                    }
                    if let CancelCause::ParentCancelled = cause {
                        assert!(peer_cancel_made, "{request_id} cascaded by no peer cancel");
                        cascaded = true;
                    }
                    if let CancelCause::TimedOut(_) = cause {
                        assert!(
                            session.request_state(&request_id) != Some(RequestState::InFlight)
                                || session.handshake_method().is_some()
                        );
                    }
                    // A request that stays in flight (the handshake's timeout) was not cancelled.
                    if session.request_state(&request_id) != Some(RequestState::InFlight) {
                        assert!(seen.told.insert(request_id.clone()), "{request_id} was told twice it was cancelled");
                    }
                }
                Output::Settled(id) => assert!(seen.watched.contains(&id), "{id} settled, never watched"),
                Output::InboundSettled(id) => {
                    assert!(seen.watched_inbound.contains(&id), "peer request {id} settled, never watched")
                }
                Output::PeerCancelled { .. } => {
                    assert!(peer_cancels_allowed > 0, "a PeerCancelled without a valid peer cancel");
                    peer_cancels_allowed -= 1;
                    peer_cancel_made = true;
                }
                _ => {}
            }
        }
        assert!(!tombstones_changed || cascaded, "a peer cancel changed the tombstones, and cancelled no nested request");
        if let Some((id, _)) = &cancelling {
            if session.watch(id) {
                // Still cancellable (the handshake, a task whose cancel is deferred): watch it.
                seen.watched.insert(id.clone());
            }
        }
        assert!(session.tombstones() <= capacity);
        assert!(session.inbound_in_flight() <= inbound_capacity);
        assert!(session.outbound_in_flight() <= 8 * 2 + 64, "in flight: {}", session.outbound_in_flight());
    }
});
