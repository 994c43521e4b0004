//! The relay under arbitrary traffic: each input line is a JSON message from one of three
//! clients or from the server (the first byte of the line chooses), or a disconnect, a closed
//! or resumed client stream, a client heard from, a timeout, the upstream closing. The third
//! client (Streamable HTTP) has a resume grace and an idle time to live, and comes back on a
//! new link when it is ended. Nothing may panic; every cancel the relay
//! sends upstream names a request it forwarded and that was neither answered nor cancelled
//! before; every answer a client gets names a request that client had in flight; every request of the
//! server's a client gets has an id the relay never gave before.
#![no_main]

use std::collections::{HashMap, HashSet};

use libfuzzer_sys::fuzz_target;
use mcp_cancel::core::{
    Backward, Config, Forward, Link, Message, Relay, RelayConfig, RelayOutput, RequestId, ResponseInfo, Side, Timeout,
    TransportKind, Vanish,
};

fuzz_target!(|data: &[u8]| {
    let config = RelayConfig {
        upstream: Config { timeout: Timeout { timeout_ms: Some(50), ..Timeout::NONE }, ..Config::default() },
        max_in_flight_per_link: 8,
        ..RelayConfig::default()
    };
    let mut relay = Relay::new(config);
    let vanish = Vanish { resume_grace: Some(40), idle_ttl: Some(120) };
    let mut links: Vec<Link> = (0..3)
        .map(|i| {
            if i == 2 {
                relay.connect_with(TransportKind::StreamableHttp, vanish, 0)
            } else {
                relay.connect(TransportKind::Messages)
            }
        })
        .collect();
    // Upstream ids forwarded and still open (not answered, not cancelled).
    let mut open: HashSet<u64> = HashSet::new();
    // What each client has in flight through the relay: (link, its id).
    let mut client_ids: HashMap<(u32, RequestId), u64> = HashMap::new();
    // The ids the relay gave the server's requests it sent to a client.
    let mut server_ids: HashSet<RequestId> = HashSet::new();
    // The `initialize` requests held for the shared handshake: (link, id). A client that reuses
    // the id of one (or of a request in flight) has its second request dropped.
    let mut held: HashMap<(u32, RequestId), ()> = HashMap::new();
    let mut now = 0;
    for line in data.split(|b| *b == b'\n') {
        let Some((&op, rest)) = line.split_first() else { continue };
        let parsed = serde_json::from_slice::<serde_json::Value>(rest).ok();
        match op % 8 {
            0..=2 => {
                let Some(message) = &parsed else { continue };
                let link = links[usize::from(op % 8)];
                let mut info = ResponseInfo::default();
                let m = Message::from_json(message, &mut info);
                match relay.handle_downstream(link, &m, now) {
                    Forward::Upstream { id: Some(up), .. } => {
                        assert!(open.insert(up), "an upstream id is never reused");
                        if let Some(Ok(id)) = message.get("id").map(RequestId::from_json) {
                            assert!(!held.contains_key(&(link.0, id.clone())), "an id held for the handshake is not forwarded");
                            assert!(client_ids.insert((link.0, id), up).is_none(), "an id in flight is not forwarded again");
                        }
                    }
                    Forward::Hold => {
                        if let Some(Ok(id)) = message.get("id").map(RequestId::from_json) {
                            assert!(!client_ids.contains_key(&(link.0, id.clone())), "an id in flight is not held");
                            assert!(held.insert((link.0, id), ()).is_none(), "an id is held once");
                        }
                    }
                    _ => {}
                }
            }
            3 | 4 => {
                let Some(message) = &parsed else { continue };
                let mut info = ResponseInfo::default();
                let m = Message::from_json(message, &mut info);
                let answered = match message.get("id").map(RequestId::from_json) {
                    Some(Ok(RequestId::Number(n))) if message.get("method").is_none() && n > 0 => Some(n as u64),
                    _ => None,
                };
                let server_request = m.is_request();
                if let Backward::Downstream { link, id: Some(id), .. } = relay.handle_upstream(&m, now) {
                    if server_request {
                        // A request of the server's goes to one client with an id the relay
                        // chose: a number from 1, never given before.
                        assert!(matches!(id, RequestId::Number(n) if n >= 1), "a relay id for a server request: {id:?}");
                        assert!(server_ids.insert(id), "a relay id for a server request is never reused");
                    } else {
                        let up = client_ids.remove(&(link.0, id));
                        assert!(up.is_some() && up == answered, "an answer goes to the client whose request it is");
                        assert!(open.remove(&answered.unwrap_or(0)), "only an open request is answered");
                    }
                }
            }
            5 => {
                let link = links[usize::from(rest.first().copied().unwrap_or(0) % 3)];
                relay.disconnect(link);
                client_ids.retain(|(l, _), _| *l != link.0);
                held.retain(|(l, _), _| *l != link.0);
                if rest.len() > 1 {
                    // The same client again, on a new link.
                    links[usize::from(rest[0] % 3)] = relay.connect(TransportKind::Messages);
                }
            }
            6 => {
                let id = RequestId::Number(i64::from(rest.first().copied().unwrap_or(0) % 64));
                match rest.get(1).copied().unwrap_or(0) % 3 {
                    0 => {
                        let _ = relay.handle_downstream_stream_closed(links[2], &id, now);
                    }
                    1 => {
                        let _ = relay.handle_downstream_stream_resumed(links[2], &id);
                    }
                    _ => relay.heard(links[2], now),
                }
            }
            _ => {
                if rest.first() == Some(&0) {
                    relay.upstream_closed();
                    open.clear();
                    client_ids.clear();
                } else {
                    now += 25;
                    relay.handle_timeout(now);
                }
            }
        }
        while let Some(out) = relay.poll_output() {
            if let RelayOutput::Transmit(Side::Upstream, t) = out {
                let RequestId::Number(up) = t.request_id else { continue };
                assert!(open.remove(&(up as u64)), "a cancel names an open forwarded request, once");
                client_ids.retain(|_, u| *u != up as u64);
            } else if let RelayOutput::Fail { link, id, .. } = out {
                // A held `initialize`'s failure (the handshake failed, the upstream closed).
                if held.remove(&(link.0, id.clone())).is_some() {
                    continue;
                }
                if let Some(up) = client_ids.remove(&(link.0, id)) {
                    open.remove(&up);
                }
            } else if let RelayOutput::AnswerHandshake { link, id } = out {
                held.remove(&(link.0, id));
            } else if let RelayOutput::EndClient(link) = out {
                // Its requests were failed (above) and cancelled; it comes back as a new link.
                client_ids.retain(|(l, _), _| *l != link.0);
                held.retain(|(l, _), _| *l != link.0);
                if links[2] == link {
                    links[2] = relay.connect_with(TransportKind::StreamableHttp, vanish, now);
                }
            }
        }
    }
});
