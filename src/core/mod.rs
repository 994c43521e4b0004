//! The cancellation core: pure Rust, sans-IO, no clock, no wasm.
//!
//! Everything here is deterministic: the host (the wasm layer, a test, a fuzzer) tells
//! the [`Session`] what crossed the wire and does what it answers. Nothing here imports
//! `wasm_bindgen` or `js_sys`, and nothing reads a clock.

mod event;
mod id;
mod reason;
mod revision;
mod session;
mod timer;
mod tombstones;
mod wire;

pub use event::{Direction, Event, EventKind, Ignored, NotSent, TaskCancelOutcome, Via};
pub use id::{InvalidRequestId, ProgressToken, RequestId, MAX_SAFE_INTEGER};
pub use reason::{Reason, ReasonPolicy};
pub use revision::{PeerCancels, Revision, Rules, TaskCancel};
pub use session::{
    CancelAction, CancelNotification, Config, Expired, Fields, InboundCancelVerdict, OutgoingResponseVerdict,
    ProgressVerdict, RequestState, ResponseInfo, ResponseVerdict, Session, TaskCancelRequest, TrackRequest, Transmit,
    TransportKind, UsageError, INVALID_PARAMS,
};
pub use timer::{Millis, Timeout, TimeoutKind};
pub use wire::{
    cap_utf8, CancelledParams, MalformedCancel, PeerValue, CANCELLED_METHOD, INITIALIZE_METHOD, LISTEN_METHOD,
    PROGRESS_METHOD, TASKS_CANCEL_METHOD, TASKS_RESULT_METHOD, TASK_STATUS_METHOD,
};
