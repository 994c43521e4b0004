//! The `wasm-bindgen` layer: [`SessionCore`], the class the package's JS
//! `CancellationSession` drives, bridging the [`crate::core::Session`] to the JS layer's
//! `AbortSignal`s, timer and callbacks. It decides nothing: every rule is the core's.
//!
//! - `bindings`: the class, one entry point per message (numbers and strings in, a number
//!   out; no JS value crosses but the JS layer's `flush` function, given once);
//! - `output`: the core's output, written as it is made as the records (bytes) the JS layer
//!   reads with their schema and does (`takeOutput`, js/records.js);
//! - `errors`: what a refused call refuses, as the JSON the JS layer throws from
//!   (`takeError`: `InvalidArgumentError`, `UsageError`);
//! - `json`: the small JSON writer of the errors and the tables;
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
//! - it never holds the session borrowed while calling into JS (`flush()`), so callbacks
//!   may call the session again;
//! - it calls into JS only through `flush()`, when the core has output or a new next
//!   deadline: the JS layer sends, aborts, calls back and arms the one timer per session.

mod bindings;
mod convert;
mod errors;
mod json;
mod options;
mod output;
#[cfg(not(feature = "std"))]
mod panic;
#[cfg(feature = "relay")]
mod relay;
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

/// The allocator of the `.wasm`: talc instead of the standard library's dlmalloc — 2.6 KiB
/// gzip smaller (BENCHMARKS.md "Size"), and no slower on the per-message path (bench/ab.mjs).
/// Single-threaded: the package's `.wasm` is built without the `atomics` feature.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
