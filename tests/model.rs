//! Model-based test: a small reference model of the cancellation rules (plain maps, written
//! from the spec, not from the core) and random sequences of operations — track, cancel,
//! response, progress, inbound request, inbound cancel (valid, malformed, unknown, wrong
//! direction), our response, timeout ticks, revision changes — checked step by step against
//! the core: same verdicts, same messages, no cancel for an id not in flight or for the
//! handshake, tombstones within their capacity.
//!
//! Scope: plain (not task-augmented) requests on a message transport; tasks and the
//! stream-close cancel have their own table tests (`core_revisions.rs`).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::{HashMap, VecDeque};

use mcp_cancel::core::{
    CancelAction, CancelledParams, Config, Expired, InboundCancelVerdict, OutgoingResponseVerdict, ProgressVerdict,
    Reason, RequestId, ResponseInfo, ResponseVerdict, Revision, Session, Timeout, TimeoutKind, TrackRequest,
    UsageError,
};
use proptest::prelude::*;
use serde_json::json;

const CAPACITY: usize = 3;

#[derive(Clone, Debug)]
enum Op {
    Track { id: RequestId, handshake: bool, token: bool, timeout: Option<Timeout> },
    Cancel { id: RequestId },
    Response { id: RequestId },
    Progress { token: RequestId },
    InboundRequest { id: RequestId, handshake: bool },
    InboundCancel { params: serde_json::Value },
    OutgoingResponse { id: RequestId },
    Tick { ms: u64 },
    SetRevision { revision: Revision },
}

fn id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        (0i64..6).prop_map(RequestId::Number),
        prop_oneof![Just("0"), Just("1"), Just(""), Just("a")].prop_map(RequestId::from),
    ]
}

fn timeout() -> impl Strategy<Value = Option<Timeout>> {
    prop_oneof![
        Just(None),
        (prop::option::of(1u64..50), any::<bool>(), prop::option::of(1u64..80))
            .prop_map(|(t, reset, max)| Some(Timeout { timeout_ms: t, reset_on_progress: reset, max_total_ms: max })),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (id(), prop::bool::weighted(0.1), any::<bool>(), timeout())
            .prop_map(|(id, handshake, token, timeout)| Op::Track { id, handshake, token, timeout }),
        3 => id().prop_map(|id| Op::Cancel { id }),
        3 => id().prop_map(|id| Op::Response { id }),
        2 => id().prop_map(|token| Op::Progress { token }),
        2 => (id(), prop::bool::weighted(0.1)).prop_map(|(id, handshake)| Op::InboundRequest { id, handshake }),
        3 => prop_oneof![
            id().prop_map(|id| json!({ "requestId": id.to_json(), "reason": "r" })),
            id().prop_map(|id| json!({ "requestId": id.to_json() })),
            Just(json!(null)),
            Just(json!([1])),
            Just(json!("1")),
            Just(json!({})),
            Just(json!({ "requestId": null })),
            Just(json!({ "requestId": true })),
            Just(json!({ "requestId": 1.5 })),
            Just(json!({ "requestId": 1, "reason": 7 })),
        ]
        .prop_map(|params| Op::InboundCancel { params }),
        2 => id().prop_map(|id| Op::OutgoingResponse { id }),
        2 => (0u64..40).prop_map(|ms| Op::Tick { ms }),
        1 => prop_oneof![
            Just(Revision::V2024_11_05),
            Just(Revision::V2025_06_18),
            Just(Revision::V2025_11_25),
            Just(Revision::V2026_07_28),
        ]
        .prop_map(|revision| Op::SetRevision { revision }),
    ]
}

/// An outbound request in the model: method, progress token, idle deadline, max deadline,
/// its timeouts.
type ModelRequest = (String, Option<RequestId>, Option<u64>, Option<u64>, Timeout);

/// The reference model: what the spec says, with plain maps.
#[derive(Default)]
struct Model {
    now: u64,
    revision: Option<Revision>,
    /// id → (method, progress token, idle deadline, max deadline, timeout)
    outbound: HashMap<RequestId, ModelRequest>,
    /// When each request's deadline was last (re)scheduled: deadlines due at the same ms
    /// expire in that order (and so are tombstoned, and evicted, in that order).
    scheduled: HashMap<RequestId, u64>,
    next_seq: u64,
    /// Cancelled ids, oldest first, with their progress tokens.
    tombstones: VecDeque<(RequestId, Option<RequestId>)>,
    /// The peer's requests in flight: id → method.
    inbound: HashMap<RequestId, String>,
    /// The peer's requests it cancelled, awaiting our response, oldest first (bounded).
    peer_cancelled: VecDeque<RequestId>,
}

impl Model {
    fn handshake(&self) -> Option<&'static str> {
        match self.revision {
            Some(Revision::V2026_07_28) => None,
            _ => Some("initialize"),
        }
    }

    fn tombstone(&mut self, id: RequestId, token: Option<RequestId>) {
        self.tombstones.retain(|(t, _)| *t != id);
        self.tombstones.push_back((id, token));
        while self.tombstones.len() > CAPACITY {
            self.tombstones.pop_front();
        }
    }

    fn track(&mut self, id: &RequestId, method: &str, token: Option<RequestId>, timeout: Timeout) -> Result<(), ()> {
        if self.outbound.contains_key(id) {
            return Err(());
        }
        if let Some(t) = &token {
            if self.outbound.values().any(|o| o.1.as_ref() == Some(t)) {
                return Err(());
            }
        }
        self.tombstones.retain(|(t, _)| t != id);
        let exempt = Some(method) == self.handshake();
        let (idle, max) = if exempt {
            (None, None)
        } else {
            (timeout.timeout_ms.map(|t| self.now + t), timeout.max_total_ms.map(|t| self.now + t))
        };
        self.outbound.insert(id.clone(), (method.to_owned(), token, idle, max, timeout));
        self.next_seq += 1;
        self.scheduled.insert(id.clone(), self.next_seq);
        Ok(())
    }

    /// `Ok(true)`: a notification is sent; `Ok(false)`: nothing to cancel; `Err`: handshake.
    fn cancel(&mut self, id: &RequestId) -> Result<bool, ()> {
        let Some(o) = self.outbound.get(id) else { return Ok(false) };
        if Some(o.0.as_str()) == self.handshake() {
            return Err(());
        }
        let (_, token, ..) = self.outbound.remove(id).unwrap();
        self.tombstone(id.clone(), token);
        Ok(true)
    }

    fn response(&mut self, id: &RequestId) -> ResponseVerdict {
        if self.outbound.remove(id).is_some() {
            return ResponseVerdict::Deliver;
        }
        if let Some(pos) = self.tombstones.iter().position(|(t, _)| t == id) {
            self.tombstones.remove(pos);
            return ResponseVerdict::Late;
        }
        ResponseVerdict::Unknown
    }

    fn progress(&mut self, token: &RequestId) -> ProgressVerdict {
        let now = self.now;
        if let Some((id, o)) = self.outbound.iter_mut().find(|(_, o)| o.1.as_ref() == Some(token)) {
            if o.4.reset_on_progress && o.2.is_some() {
                o.2 = o.4.timeout_ms.map(|t| now + t);
                self.next_seq += 1;
                self.scheduled.insert(id.clone(), self.next_seq);
            }
            return ProgressVerdict::Deliver;
        }
        if self.tombstones.iter().any(|(_, t)| t.as_ref() == Some(token)) {
            return ProgressVerdict::Late;
        }
        ProgressVerdict::Unknown
    }

    fn inbound_cancel(&mut self, params: &serde_json::Value) -> InboundCancelVerdict {
        let Some(obj) = params.as_object() else { return InboundCancelVerdict::Ignore };
        let Some(id) = obj.get("requestId").and_then(|v| RequestId::from_json(v).ok()) else {
            return InboundCancelVerdict::Ignore;
        };
        let reason = match obj.get("reason") {
            None => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(_) => return InboundCancelVerdict::Ignore,
        };
        if self.revision == Some(Revision::V2026_07_28) {
            if self.outbound.get(&id).is_some_and(|o| o.0 == "subscriptions/listen") {
                self.outbound.remove(&id);
                return InboundCancelVerdict::ListenEnded { request_id: id };
            }
            return InboundCancelVerdict::Ignore;
        }
        let handshake = self.handshake();
        match self.inbound.get(&id) {
            Some(method) if Some(method.as_str()) != handshake => {
                self.inbound.remove(&id);
                self.peer_cancelled.retain(|c| *c != id);
                self.peer_cancelled.push_back(id.clone());
                while self.peer_cancelled.len() > CAPACITY {
                    self.peer_cancelled.pop_front();
                }
                InboundCancelVerdict::Abort { request_id: id, reason }
            }
            _ => InboundCancelVerdict::Ignore,
        }
    }

    fn outgoing_response(&mut self, id: &RequestId) -> OutgoingResponseVerdict {
        if self.inbound.remove(id).is_some() {
            return OutgoingResponseVerdict::Send;
        }
        match self.peer_cancelled.iter().position(|c| c == id) {
            Some(pos) => {
                self.peer_cancelled.remove(pos);
                OutgoingResponseVerdict::Suppress
            }
            None => OutgoingResponseVerdict::Send,
        }
    }

    /// Advances the clock; returns what expired (deadline order) and whether each was
    /// cancelled on the wire.
    fn tick(&mut self, ms: u64) -> Vec<(RequestId, TimeoutKind, bool)> {
        self.now += ms;
        let now = self.now;
        let mut expired: Vec<(u64, RequestId, TimeoutKind)> = self
            .outbound
            .iter()
            .filter_map(|(id, o)| {
                let deadline = match (o.2, o.3) {
                    (Some(a), Some(b)) => a.min(b),
                    (a, b) => a.or(b)?,
                };
                (deadline <= now).then(|| {
                    let kind = if o.3.is_some_and(|m| m <= now) { TimeoutKind::MaxTotal } else { TimeoutKind::Timeout };
                    (deadline, id.clone(), kind)
                })
            })
            .collect();
        expired.sort_by_key(|(deadline, id, _)| (*deadline, self.scheduled.get(id).copied().unwrap_or(0)));
        let mut out = Vec::new();
        for (_, id, kind) in expired {
            // Each deadline fires once: a request that could not be cancelled (the handshake,
            // after a revision change) keeps no deadline.
            if let Some(o) = self.outbound.get_mut(&id) {
                o.2 = None;
                o.3 = None;
            }
            let sent = self.cancel(&id).unwrap_or(false);
            out.push((id, kind, sent));
        }
        out
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut log = Vec::new();
    run_logged(ops, &mut log).map_err(|e| TestCaseError::fail(format!("{e}\n--- trace ---\n{}", log.join("\n"))))
}

fn run_logged(ops: Vec<Op>, log: &mut Vec<String>) -> Result<(), TestCaseError> {
    let mut core = Session::new(Config { tombstone_capacity: CAPACITY, ..Config::default() });
    let mut model = Model::default();
    for (step, op) in ops.into_iter().enumerate() {
        log.push(format!(
            "step {step}: {op:?} | model revision={:?} now={} out={:?} tomb={:?} in={:?}",
            model.revision, model.now, model.outbound, model.tombstones, model.inbound
        ));
        match &op {
            Op::Track { id, handshake, token, timeout } => {
                let method = if *handshake {
                    "initialize"
                } else if step % 7 == 3 {
                    "subscriptions/listen"
                } else {
                    "tools/call"
                };
                let token = token.then(|| RequestId::String(format!("tok-{id}")));
                let t = timeout.unwrap_or(Timeout::NONE);
                let request = TrackRequest {
                    progress_token: token.clone(),
                    timeout: Some(t),
                    ..TrackRequest::new(id.clone(), method)
                };
                let got = core.track(request, model.now);
                let want = model.track(id, method, token, t);
                prop_assert_eq!(got.is_ok(), want.is_ok(), "step {} {:?}: {:?}", step, op, got);
                if let Err(e) = got {
                    prop_assert!(matches!(e, UsageError::AlreadyInFlight(_) | UsageError::ProgressTokenInUse(_)));
                }
            }
            Op::Cancel { id } => {
                let got = core.cancel(id, &Reason::Text("r".into()));
                let want = model.cancel(id);
                match (got, want) {
                    (Ok(Some(CancelAction::Notify(n))), Ok(true)) => prop_assert_eq!(&n.request_id, id),
                    (Ok(None), Ok(false)) => {}
                    (Err(UsageError::HandshakeNotCancellable(_)), Err(())) => {}
                    (got, want) => prop_assert!(false, "step {} {:?}: core {:?}, model {:?}", step, op, got, want),
                }
            }
            Op::Response { id } => {
                let got = core.handle_response(id, &ResponseInfo::default());
                prop_assert_eq!(got, model.response(id), "step {} {:?}", step, op);
            }
            Op::Progress { token } => {
                let token = RequestId::String(format!("tok-{token}"));
                prop_assert_eq!(
                    core.handle_progress(&token, model.now),
                    model.progress(&token),
                    "step {} {:?}",
                    step,
                    op
                );
            }
            Op::InboundRequest { id, handshake } => {
                let method = if *handshake { "initialize" } else { "sampling/createMessage" };
                let fresh = !model.inbound.contains_key(id);
                if fresh {
                    model.peer_cancelled.retain(|c| c != id);
                    model.inbound.insert(id.clone(), method.to_owned());
                }
                prop_assert_eq!(core.handle_request(id.clone(), method), fresh, "step {} {:?}", step, op);
            }
            Op::InboundCancel { params } => {
                let got = core.handle_cancelled(&CancelledParams::from_json(Some(params)));
                prop_assert_eq!(got, model.inbound_cancel(params), "step {} {:?}", step, op);
            }
            Op::OutgoingResponse { id } => {
                prop_assert_eq!(
                    core.handle_outgoing_response(id),
                    model.outgoing_response(id),
                    "step {} {:?}",
                    step,
                    op
                );
            }
            Op::Tick { ms } => {
                let want = model.tick(*ms);
                let got: Vec<Expired> = core.handle_timeout(model.now);
                let sent: Vec<RequestId> = std::iter::from_fn(|| core.poll_transmit())
                    .map(|t| match t.action {
                        CancelAction::Notify(n) => {
                            assert_eq!(n.reason.as_deref(), Some("Request timed out"));
                            n.request_id
                        }
                        other => panic!("unexpected {other:?}"),
                    })
                    .collect();
                let mut got_ids: Vec<_> = got.iter().map(|e| (e.request_id.clone(), e.kind)).collect();
                let mut want_ids: Vec<_> = want.iter().map(|(id, k, _)| (id.clone(), *k)).collect();
                got_ids.sort();
                want_ids.sort();
                prop_assert_eq!(got_ids, want_ids, "step {} {:?}", step, op);
                let mut want_sent: Vec<_> = want.iter().filter(|w| w.2).map(|w| w.0.clone()).collect();
                let mut sent = sent;
                want_sent.sort();
                sent.sort();
                prop_assert_eq!(sent, want_sent, "step {} {:?}: cancels on timeout", step, op);
            }
            Op::SetRevision { revision } => {
                core.set_protocol_version(revision.as_str());
                model.revision = Some(*revision);
            }
        }
        while core.poll_event().is_some() {}
        prop_assert!(core.tombstones() <= CAPACITY);
        prop_assert_eq!(core.outbound_in_flight(), model.outbound.len(), "step {}: in flight", step);
        prop_assert_eq!(core.tombstones(), model.tombstones.len(), "step {}: tombstones", step);
        prop_assert_eq!(core.inbound_in_flight(), model.inbound.len(), "step {}: inbound", step);
        prop_assert_eq!(core.inbound_cancelled(), model.peer_cancelled.len(), "step {}: inbound cancelled", step);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, max_shrink_iters: 4000, ..ProptestConfig::default() })]

    #[test]
    fn the_core_follows_the_reference_model(ops in prop::collection::vec(op(), 1..60)) {
        run(ops)?;
    }
}
