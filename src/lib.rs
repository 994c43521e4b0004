//! # mcp-cancel
//!
//! Bookkeeping of MCP (Model Context Protocol) request cancellation — the
//! `notifications/cancelled`, timeouts and `tasks/cancel` rules of every spec revision from
//! 2024-11-05 to 2026-07-28 — as a
//! sans-IO state machine, compiled to WebAssembly for JS MCP clients.
//!
//! - [`core`]: the pure state machine ([`core::Session`]). Deterministic: no I/O, no
//!   clock, no wasm. Use it from Rust directly.
//! - `wasm` (only on `wasm32`): the `wasm-bindgen` layer that JS sees as
//!   `CancellationSession`, bridging requests to `AbortSignal`.
//!
//! Features: `std` (default) — without it the crate is `no_std` + `alloc`, as the npm
//! package's `.wasm` is built (no panic machinery, no `core::fmt`: a smaller module); `relay`
//! — the wasm class of the relay, in its own `.wasm`.
//!
//! ```
//! use mcp_cancel::core::{CancelAction, Output, Reason, RequestId, ResponseInfo, ResponseVerdict, Session, Transmit};
//!
//! let mut session = Session::default();
//! let id = RequestId::Number(7);
//! session.track_request(id.clone(), "tools/call", None)?;
//! assert!(session.cancel(&id, &Reason::Text("user pressed stop".into()))?);
//! // What to do comes out of one queue, in order: first what goes on the wire.
//! let Some(Output::Transmit(Transmit { action: CancelAction::Notify(cancel), .. })) =
//!     std::iter::from_fn(|| session.poll_output()).find(|o| !matches!(o, Output::Event(_)))
//! else {
//!     unreachable!("a plain request in flight is cancelled with a notification");
//! };
//! assert_eq!(cancel.reason.as_deref(), Some("user pressed stop"));
//! // The server's result arrives anyway: it is late, drop it.
//! assert_eq!(session.handle_response(&id, &ResponseInfo::default()), ResponseVerdict::Late);
//! # Ok::<(), mcp_cancel::core::UsageError>(())
//! ```

#![warn(missing_docs)]
// Without the default feature `std`, `no_std` + `alloc`: the package's .wasm (Cargo.toml says why).
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod core;
mod prelude;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
