//! The cancellation core: pure Rust, sans-IO, no clock, no wasm.
//!
//! Everything here is deterministic: the host (the wasm layer, a test, a fuzzer) tells
//! the [`Session`] what crossed the wire and does what it answers. Nothing here imports
//! `wasm_bindgen` or `js_sys`, and nothing reads a clock.

mod event;
mod id;
mod reason;
mod session;
mod tombstones;
mod wire;

pub use event::{Direction, Event, EventKind, Ignored, NotSent};
pub use id::{InvalidRequestId, ProgressToken, RequestId, MAX_SAFE_INTEGER};
pub use reason::{Reason, ReasonPolicy};
pub use session::{
    CancelNotification, Config, InboundCancelVerdict, OutgoingResponseVerdict, ProgressVerdict, RequestState,
    ResponseVerdict, Session, UsageError,
};
pub use wire::{cap_utf8, CancelledParams, MalformedCancel, PeerValue, CANCELLED_METHOD, INITIALIZE_METHOD, PROGRESS_METHOD};
