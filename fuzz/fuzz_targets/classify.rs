//! Raw bytes from a peer → JSON → the message classification the hosts do: a cancel's params,
//! a response's id, a progress token, a request's id. Nothing a peer sends may panic, and a
//! peer's message never creates a tombstone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_cancel::core::{CancelledParams, Config, PeerValue, RequestId, ResponseInfo, Session};

fuzz_target!(|data: &[u8]| {
    let Ok(message) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let mut session = Session::new(Config { tombstone_capacity: 4, ..Config::default() });
    // Some state for the peer's messages to hit.
    session.track_request(RequestId::Number(0), "initialize", None).ok();
    session.track_request(RequestId::Number(1), "tools/call", Some(RequestId::Number(1))).ok();
    session.handle_request(RequestId::Number(0), "sampling/createMessage");
    session.handle_request(RequestId::from("1"), "roots/list");

    let method = message.get("method").and_then(|m| m.as_str());
    let params = message.get("params");
    match method {
        Some("notifications/cancelled") => {
            let _ = session.handle_cancelled(&CancelledParams::from_json(params));
        }
        Some("notifications/progress") => {
            let token = PeerValue::from_json(params.and_then(|p| p.get("progressToken")));
            if let Ok(token) = token.to_request_id() {
                let _ = session.handle_progress(&token, 0);
            }
        }
        Some(version) if version.starts_with("20") => {
            session.set_protocol_version(version);
        }
        Some(m) => {
            if let Some(Ok(id)) = message.get("id").map(RequestId::from_json) {
                session.handle_request(id, m);
            }
        }
        None => {
            if let Some(Ok(id)) = message.get("id").map(RequestId::from_json) {
                let info = ResponseInfo {
                    task_id: message.pointer("/result/task/taskId").and_then(|t| t.as_str()).map(str::to_owned),
                    error_code: message.pointer("/error/code").and_then(|c| c.as_i64()),
                    ..ResponseInfo::default()
                };
                let _ = session.handle_response(&id, &info);
            }
        }
    }
    while session.poll_event().is_some() {}
    assert_eq!(session.tombstones(), 0, "a peer's message created a tombstone");
    assert!(session.inbound_in_flight() <= 3);
});
