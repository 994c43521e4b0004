//! The relay (`core::Relay`), through its public API, a file per part in `core_relay/`:
//! - `ids`: clients with overlapping ids sharing one upstream, cancels crossing to the mapped
//!   request in the form each side's revision requires, late answers dropped on both sides,
//!   disconnects, timeouts;
//! - `handshake`: the shared handshake;
//! - `vanish`: clients that vanish without a word;
//! - `http`: the HTTP classification and 2026-07-28 clients beside a 2025-era server;
//! - `server_requests`: the server's own requests;
//! - `property`: clients that cancel at random never cancel one another's requests.
//!
//! The helpers below are the parts' common ones.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use mcp_cancel::core::{
    classify_http, discover_result, modern_answer, relay_handshake, Backward, CancelAction, CancelNotification,
    ClientEvent, Envelope, Failure, Forward, HttpBody, HttpEntry, HttpRefusal, HttpRequest, Link, Message,
    MessageFields, Relay, RelayConfig, RelayOutput, RequestId, ResponseInfo, Revision, Side, StreamClosed, Timeout,
    Transmit, TransportKind, Vanish,
};
use serde_json::{json, Value};

// The same tests run natively (`cargo test`) and in wasm (`wasm-pack test --node`, each part
// naming `wasm_bindgen_test` its `test`); the property test natively only.
mod handshake;
mod http;
mod ids;
#[cfg(not(target_arch = "wasm32"))]
mod property;
mod server_requests;
mod vanish;

fn n(i: i64) -> RequestId {
    RequestId::Number(i)
}

fn down(relay: &mut Relay, link: Link, message: &Value) -> Forward {
    let mut info = ResponseInfo::default();
    relay.handle_downstream(link, &Message::from_json(message, &mut info), 0)
}

fn up(relay: &mut Relay, message: &Value) -> Backward {
    let mut info = ResponseInfo::default();
    relay.handle_upstream(&Message::from_json(message, &mut info), 0)
}

fn outputs(relay: &mut Relay) -> Vec<RelayOutput> {
    std::iter::from_fn(|| relay.poll_output())
        .filter(|o| !matches!(o, RelayOutput::Event(..) | RelayOutput::ClientEvent(..)))
        .collect()
}

fn call(id: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "slow" } })
}

fn cancel(id: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id, "reason": "stop" } })
}

fn result(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [] } })
}

/// A client's `initialize` (2025-11-25) with this id.
fn initialize(id: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": { "protocolVersion": "2025-11-25" } })
}

/// The server's answer to the relay's `initialize`, forwarded as upstream id `up`.
fn handshake_answer(up: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": up, "result": { "protocolVersion": "2025-11-25", "capabilities": {} } })
}

fn notify_upstream(id: i64, reason: Option<&str>) -> RelayOutput {
    RelayOutput::Transmit(
        Side::Upstream,
        Transmit {
            request_id: n(id),
            action: CancelAction::Notify(CancelNotification { request_id: n(id), reason: reason.map(str::to_owned) }),
        },
    )
}

/// A relay with the upstream on 2025-11-25 over stdio.
fn relay() -> Relay {
    let mut config = RelayConfig::default();
    config.upstream.revision = Revision::parse("2025-11-25");
    Relay::new(config)
}

fn forwarded_id(forward: &Forward) -> u64 {
    match forward {
        Forward::Upstream { id: Some(id), .. } => *id,
        other => panic!("not forwarded with an id: {other:?}"),
    }
}

/// `down` at `now` (ms).
fn down_at(relay: &mut Relay, link: Link, message: &Value, now: u64) -> Forward {
    let mut info = ResponseInfo::default();
    relay.handle_downstream(link, &Message::from_json(message, &mut info), now)
}

/// A relay with the upstream and one client (Streamable HTTP) on 2025-11-25, the client
/// connected at 0 with `vanish`, and events on.
fn vanishing(vanish: Vanish) -> (Relay, Link) {
    let mut config = RelayConfig::default();
    config.upstream.revision = Revision::parse("2025-11-25");
    config.downstream.events = true;
    let mut r = Relay::new(config);
    let h = r.connect_with(TransportKind::StreamableHttp, vanish, 0);
    (r, h)
}
