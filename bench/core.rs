//! Criterion benches of the core alone (native, no JS): the per-operation cost of the
//! bookkeeping that the wasm build adds to each MCP message, for scenarios 1-3 of
//! BENCHMARKS.md. `npm run bench` runs them with a short measurement time; alone:
//! `cargo bench --bench core`.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::hint::black_box;

    use criterion::{BenchmarkId, Criterion};
    use mcp_cancel::core::{
        CancelledParams, Config, PeerValue, Reason, RequestId, ResponseInfo, Session, TrackRequest,
    };

    const METHOD: &str = "tools/call";

    fn id(kind: &str, n: i64) -> RequestId {
        if kind == "number" {
            RequestId::Number(n)
        } else {
            RequestId::String(format!("req-{n}"))
        }
    }

    /// A request as the wasm layer tracks one with a signal (BENCHMARKS.md scenarios 1-2):
    /// watched, so its settling is reported.
    fn watched(id: RequestId) -> TrackRequest {
        TrackRequest { watch: true, ..TrackRequest::new(id, METHOD) }
    }

    /// A session with events on (the default) and `in_flight - 1` of our requests (or the
    /// peer's, when `inbound`) kept in flight, watched as the bench's own.
    fn session(kind: &str, in_flight: i64, inbound: bool) -> Session {
        let mut s = Session::new(Config::default());
        for i in 0..in_flight - 1 {
            let filler = id(kind, 1_000_000 + i);
            if inbound {
                let _ = s.handle_request(filler.clone(), METHOD);
                let _ = s.watch_inbound(&filler);
            } else {
                let _ = s.track(watched(filler), 0);
            }
        }
        s
    }

    /// Everything the host polls after a call: one queue.
    fn drain(s: &mut Session) {
        while black_box(s.poll_output()).is_some() {}
    }

    pub fn scenarios(c: &mut Criterion) {
        let none = ResponseInfo::default();
        for kind in ["number", "string"] {
            let ids: Vec<RequestId> = (0..4096).map(|n| id(kind, n)).collect();
            let mut group = c.benchmark_group(format!("1 track-response {kind}"));
            for in_flight in [1, 100, 10_000] {
                let mut s = session(kind, in_flight, false);
                let mut k = 0;
                group.bench_function(BenchmarkId::from_parameter(in_flight), |b| {
                    b.iter(|| {
                        k = (k + 1) % ids.len();
                        let Some(id) = ids.get(k) else { return };
                        let _ = s.track(watched(id.clone()), 0);
                        let _ = black_box(s.handle_response(id, &none));
                        drain(&mut s);
                    });
                });
            }
            group.finish();

            let mut group = c.benchmark_group(format!("2 track-cancel-late {kind}"));
            for in_flight in [1, 100] {
                let mut s = session(kind, in_flight, false);
                let mut k = 0;
                let reason = Reason::Text("user pressed stop".to_owned());
                group.bench_function(BenchmarkId::from_parameter(in_flight), |b| {
                    b.iter(|| {
                        k = (k + 1) % ids.len();
                        let Some(id) = ids.get(k) else { return };
                        let _ = s.track(watched(id.clone()), 0);
                        let _ = black_box(s.cancel(id, &reason));
                        let _ = black_box(s.handle_response(id, &none));
                        drain(&mut s);
                    });
                });
            }
            group.finish();

            let mut group = c.benchmark_group(format!("3 inbound-cancel-suppress {kind}"));
            for in_flight in [1, 100] {
                let mut s = session(kind, in_flight, true);
                let mut k = 0;
                group.bench_function(BenchmarkId::from_parameter(in_flight), |b| {
                    b.iter(|| {
                        k = (k + 1) % ids.len();
                        let Some(id) = ids.get(k) else { return };
                        let _ = s.handle_request(id.clone(), METHOD);
                        // The scenario's `inboundSignal(id)`.
                        let _ = s.watch_inbound(id);
                        let request_id = match id {
                            RequestId::Number(n) => PeerValue::Number(*n as f64),
                            RequestId::String(s) => PeerValue::String(s),
                        };
                        let params = CancelledParams {
                            params: PeerValue::Object,
                            request_id,
                            reason: PeerValue::String("stop"),
                        };
                        let _ = black_box(s.handle_cancelled(&params));
                        let _ = black_box(s.handle_outgoing_response(id));
                        drain(&mut s);
                    });
                });
            }
            group.finish();
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_group!(benches, native::scenarios);
#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(benches);
