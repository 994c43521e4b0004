//! Raw bytes from a peer → JSON → the message classification: the per-method calls a host
//! makes (a cancel's params, a response's id, a progress token, a request's id), and the
//! whole-message classification `Session::handle_incoming` (the message from the peer) and
//! `Session::handle_outgoing` (the same message sent by us) on `Message::from_json`.
//! Nothing may panic; a peer's message never creates a tombstone; a message read whole is
//! never answered `NeedFields`; one message cancels at most one request.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_cancel::core::{
    CancelledParams, Config, Message, Output, PeerValue, RequestId, ResponseInfo, Session, TrackRequest, Verdict,
};

/// A session with some state for the messages to hit: our `initialize` (0), a request with
/// a progress token (1), a task-augmented request (2) and the peer's requests 0 and "1".
fn session() -> Session {
    let mut session = Session::new(Config { tombstone_capacity: 4, inbound_capacity: 3, ..Config::default() });
    session.track_request(RequestId::Number(0), "initialize", None).ok();
    session.track_request(RequestId::Number(1), "tools/call", Some(RequestId::Number(1))).ok();
    session
        .track(TrackRequest { task: true, watch: true, ..TrackRequest::new(RequestId::Number(2), "tools/call") }, 0)
        .ok();
    session.handle_request(RequestId::Number(0), "sampling/createMessage");
    session.handle_request(RequestId::from("1"), "roots/list");
    session.watch_inbound(&RequestId::from("1"));
    session
}

/// Drains the output queue; returns how many cancels were put on the wire.
fn drain(session: &mut Session) -> usize {
    std::iter::from_fn(|| session.poll_output()).filter(|o| matches!(o, Output::Transmit(_))).count()
}

fuzz_target!(|data: &[u8]| {
    let Ok(message) = serde_json::from_slice::<serde_json::Value>(data) else { return };

    // The per-method calls.
    let mut s = session();
    let method = message.get("method").and_then(|m| m.as_str());
    let params = message.get("params");
    match method {
        Some("notifications/cancelled") => {
            let _ = s.handle_cancelled(&CancelledParams::from_json(params));
        }
        Some("notifications/progress") => {
            let token = PeerValue::from_json(params.and_then(|p| p.get("progressToken")));
            if let Ok(token) = token.to_request_id() {
                let _ = s.handle_progress(&token, 0);
            }
        }
        Some(version) if version.starts_with("20") => {
            s.set_protocol_version(version);
        }
        Some(m) => {
            if let Some(Ok(id)) = message.get("id").map(RequestId::from_json) {
                s.handle_request(id, m);
            }
        }
        None => {
            if let Some(Ok(id)) = message.get("id").map(RequestId::from_json) {
                let info = ResponseInfo {
                    task_id: message.pointer("/result/task/taskId").and_then(|t| t.as_str()).map(str::to_owned),
                    error_code: message.pointer("/error/code").and_then(|c| c.as_i64()),
                    ..ResponseInfo::default()
                };
                let _ = s.handle_response(&id, &info);
            }
        }
    }
    assert_eq!(drain(&mut s), 0, "a peer's message put a cancel on the wire");
    assert_eq!(s.tombstones(), 0, "a peer's message created a tombstone");
    assert!(s.inbound_in_flight() <= 3);

    // The whole message from the peer, twice at two times (a duplicate, a late message).
    let mut s = session();
    for now in [0, 10] {
        let mut info = ResponseInfo::default();
        let verdict = s.handle_incoming(&Message::from_json(&message, &mut info), now);
        assert!(!matches!(verdict, Verdict::NeedFields(_)), "{verdict:?} for a message read whole");
        // A late `CreateTaskResult` of a task cancelled before its id was known is the one
        // incoming message that sends something: that task's `tasks/cancel`. Nothing here
        // was cancelled, so nothing goes out.
        assert_eq!(drain(&mut s), 0, "a peer's message put a cancel on the wire");
        assert_eq!(s.tombstones(), 0, "a peer's message created a tombstone");
        assert!(s.inbound_in_flight() <= 3);
    }

    // The same message sent by us: at most one cancel on the wire (an SDK's own cancel).
    let mut s = session();
    let mut info = ResponseInfo::default();
    match s.handle_outgoing(&Message::from_json(&message, &mut info), 0, true) {
        Ok(Verdict::NeedFields(fields)) => panic!("NeedFields({fields:?}) for a message read whole"),
        Ok(_) | Err(_) => {}
    }
    assert!(drain(&mut s) <= 1, "one message, more than one cancel");
    assert!(s.tombstones() <= 1);
});
