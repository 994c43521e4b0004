//! The cancellation core: pure Rust, sans-IO, no clock, no wasm.
//!
//! Everything here is deterministic: the host (the wasm layer, a test, a fuzzer) tells
//! the [`Session`] what crossed the wire and does what it answers. Nothing here imports
//! `wasm_bindgen` or `js_sys`, and nothing reads a clock.

mod children;
mod deadlines;
pub(crate) mod decimal;
mod event;
pub(crate) mod float;
pub(crate) mod id;
mod inbound;
mod keys;
mod message;
mod method;
mod outbound;
pub(crate) mod output;
mod peer_requests;
mod pool;
mod reason;
mod records;
mod relay;
mod requests;
mod response;
mod revision;
mod running;
mod session;
mod slots;
mod tasks;
mod timer;
mod verdict;
mod window;
mod wire;

pub use deadlines::{Millis, Timeout, TimeoutKind};
pub use event::{
    Direction, Event, EventKind, EventKindOf, EventOf, EventRef, Ignored, NotSent, TaskCancelOutcome, Via,
};
pub use id::{IdRef, InvalidRequestId, PackedStr, ProgressToken, RequestId, StrId, MAX_SAFE_INTEGER};
pub use message::{Message, OutgoingError, META_PROTOCOL_VERSION};
pub use method::{Fields as MessageFields, Method, MethodName};
pub use outbound::{RequestState, TrackRequest};
pub use output::{CancelAction, CancelCause, CancelNotification, Output, Queue, Sink, TaskCancelRequest, Transmit};
pub use reason::{Reason, ReasonPolicy};
pub use records::INVALID_PARAMS;
pub use relay::{
    classify_http, discover_result, http_served_revisions, http_session_revisions, modern_answer, relay_handshake,
    Backward, ClientEvent, Envelope, Failure, Forward, HttpBody, HttpEntry, HttpRefusal, HttpRequest, Link, Relay,
    RelayConfig, RelayOutput, Side, StreamClosed, Vanish, HTTP_HEADER_MISMATCH, HTTP_UNSUPPORTED_PROTOCOL_VERSION,
};
pub use response::{Fields, ResponseInfo, ResponseMembers};
pub use revision::{PeerCancels, Revision, Rules, TaskCancel};
pub use session::{Config, Role, Session, TransportKind, UsageError};
pub use verdict::{InboundCancelVerdict, OutgoingResponseVerdict, ProgressVerdict, ResponseVerdict, Verdict};
pub use wire::{
    cap_utf8, CancelledParams, MalformedCancel, PeerValue, CANCELLED_METHOD, INITIALIZE_METHOD, LISTEN_METHOD,
    PROGRESS_METHOD, TASKS_CANCEL_METHOD, TASKS_RESULT_METHOD, TASK_STATUS_METHOD,
};

/// The relay's maps keyed by request id: hashbrown's hash map with foldhash, seeded per
/// session ([`Config::hash_seed`]) — the hasher of the session's own table too (`slots`).
///
/// Why this hasher: SipHash (std's default) is ~15% of the cost of a request in flight,
/// and ids are short. The trade-off is flooding: the peer chooses the ids of its requests,
/// and foldhash does not claim resistance to crafted collisions. What bounds the damage:
/// the peer's requests, and its cancelled ones, are each held in bounded numbers
/// ([`Config::inbound_capacity`], [`Config::tombstone_capacity`]), so a flood of colliding
/// ids makes each lookup at most that many comparisons more (in the session's one table,
/// a lookup of any kind of record), and never grows memory; the seed is per session and the
/// wasm layer draws it from the host's random source, so an attacker cannot precompute
/// collisions for it. Our own ids (outbound) are chosen by us.
pub(crate) type IdMap<V> = hashbrown::HashMap<RequestId, V, foldhash::fast::FixedState>;

/// An empty [`IdMap`] (or any map with the same hasher) seeded with `seed`.
pub(crate) fn seeded<K, V>(seed: u64) -> hashbrown::HashMap<K, V, foldhash::fast::FixedState> {
    hashbrown::HashMap::with_hasher(foldhash::fast::FixedState::with_seed(seed))
}
