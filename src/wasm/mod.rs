//! The `wasm-bindgen` layer: [`SessionCore`], the session the package's JS
//! `CancellationSession` drives, bridging the [`crate::core::Session`] to the JS layer's
//! `AbortSignal`s, timer and callbacks. It decides nothing: every rule is the core's.
//!
//! - [`exports`]: the `.wasm`'s entry points, one function per method of [`SessionCore`],
//!   each taking the session's handle first;
//! - `sessions`: the sessions by handle (a table: no wasm-bindgen class, whose glue checked
//!   a pointer, counted references and borrowed a cell in every export);
//! - `bindings`: the session, one method per message (numbers in — a string as its length,
//!   its UTF-8 in the session's scratch buffer —, a number out; no JS value crosses);
//! - `output`: the core's output, written as it is made as the records (bytes) the JS layer
//!   reads in place with their schema and does (`takeOutput`, `outputAt`, js/records.js);
//! - `errors`: what a refused call refuses, as one record the JS layer throws from
//!   (`takeError`: `InvalidArgumentError`, `UsageError`);
//! - `json`: the small JSON writer of the tables (`constants_json`, in the relay's build);
//! - `convert`: the tags of the members the JS reader read, and the host's clock;
//! - `options`: the session's and `track()`'s settings as JS passes them;
//! - `values` (feature `relay`): the JS values the relay's class makes, at the bottom: it
//!   uses no other module of the layer;
//! - `relay` (feature `relay`, its own .wasm): `RelayCore`, the class the package's JS relay
//!   drives (the core's `Relay`).
//!
//! Rules of this layer:
//! - it converts at the boundary (ids validated, never cast; peer strings bounded by the
//!   JS reader before they cross) and returns the core's refusals as numbers, their errors
//!   kept for the JS layer to throw with a `code`;
//! - it calls no JS but the host's clock and, on a panic, `console.error`: a call that leaves
//!   output or a new next deadline says so (`BUSY` in what it returns), and the JS layer's
//!   `flush()` takes the output, sends, aborts, calls back and arms the one timer per session
//!   right after the call returns — with nothing borrowed, so callbacks may call the session
//!   again.

mod bindings;
mod convert;
mod errors;
pub mod exports;
mod json;
mod options;
mod output;
#[cfg(not(feature = "std"))]
mod panic;
#[cfg(feature = "relay")]
mod relay;
mod sessions;
#[cfg(feature = "relay")]
mod values;

pub use bindings::SessionCore;
#[cfg(feature = "relay")]
pub use relay::RelayCore;

/// With the standard library (tests, `wasm-pack test`): a panic prints its message
/// (`console_error_panic_hook`). The package's `.wasm` is `no_std`: `panic` does the same.
#[cfg(feature = "std")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The allocator of the `.wasm`: rlsf's TLSF (allocation and free in constant time) with its
/// options set for code size, `SmallGlobalTlsf` (a reallocation is an allocation, a copy and a
/// free): measured against talc, 420 bytes gzip less with the bench scenarios at 0.92–1.07×
/// in an A/B and the memory per request in flight within a byte; talc itself is 2.6 KiB
/// gzip less than the standard library's dlmalloc. Its memory comes from `memory.grow`.
/// Single-threaded: the package's `.wasm` is built without the `atomics` feature, and rlsf's
/// wasm lock does nothing.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: rlsf::SmallGlobalTlsf = rlsf::SmallGlobalTlsf::new();
