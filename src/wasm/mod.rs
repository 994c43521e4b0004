//! The `wasm-bindgen` layer: [`SessionCore`], the class the package's JS
//! `CancellationSession` drives, bridging the [`crate::core::Session`] to `AbortSignal`,
//! `setTimeout` and callbacks. It decides nothing: every rule is the core's.
//!
//! - `bindings`: the class, one entry point per message (scalars in, a number out);
//! - `convert`: JS values ↔ core values (ids, reasons, messages, events);
//! - `options`: the session's and `track()`'s options, checked strictly;
//! - `errors`: the typed JS errors (`InvalidArgumentError`, `UsageError`);
//! - `values`: JS values made once (property names) or from core values (request ids), at
//!   the bottom: it uses no other module of the layer;
//! - `relay` (feature `relay`, its own .wasm): `RelayCore`, the class the package's JS relay
//!   drives (the core's `Relay`).
//!
//! Rules of this layer:
//! - it converts at the boundary (ids validated, never cast; peer strings bounded by the
//!   JS reader before they cross) and turns core errors into JS errors with a `code`;
//! - it never holds the session borrowed while calling into JS (`send`, `onEvent`,
//!   `AbortController.abort`, …), so callbacks may call the session again;
//! - a callback that throws is reported as a `send-failed` event, never a panic;
//! - one `setTimeout` per session drives every request's timeout.

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
