//! The `.wasm`'s entry points: one function per operation, each a method of [`SessionCore`]
//! taking the session's handle first and the method's numbers after it, as the JS layer's
//! `CancellationSession` calls them (`core.wasm.track(core.h, …)`). An id-like argument (a
//! request id, a progress token, a cancel's `requestId`) crosses as an `ID`: the five
//! scalars `<x>_num: f64, <x>_len: u32, <x>_w0: u32, <x>_w1: u32, <x>_w2: u32`, decoded by the
//! wasm layer in one place (`Strings::id`); a string as `<x>_len: u32`, its UTF-8 written by
//! JS into the scratch buffer in the order of the arguments. [`new_session`] makes a session and gives its handle (a `u32`, never `0`),
//! [`free_session`] frees it; the `.wasm` keeps its sessions in a table, so a handle that
//! names no session (never made, freed, or another instance's) finds nothing — never memory
//! that is not a session's. Each function does what its method's documentation says; for a
//! handle that names no session it returns the value after `none:` in the list below
//! (nothing done: a peer's message passes, a caller's call is refused).
//!
//! Not a wasm-bindgen class, for size: a class's every method checks a null pointer, counts a
//! reference up and down and borrows a cell of its own, each with a path that throws, on
//! top of the session's own borrow: 2.5 KB of the `.wasm` (1.2 KB gzip) that one borrow of
//! the table replaces.

use wasm_bindgen::prelude::*;

use super::bindings::{code, SessionCore};
use super::sessions;

/// Defines each entry point: `js_name => fn method(arguments) -> type, none: value;`, one
/// per entry, the single list of the exports (scripts/write-calls.mjs writes the JS caller
/// of each from it, with these argument names). `[hot(…)]` before `fn`: the session is found
/// inline (`sessions::with_hot`), for the two entry points of bench scenario 1b (a plain
/// request's track and response); the names in it are the arguments their commonest call
/// gives, every other absent (scripts/write-calls.mjs writes its caller, `<js>Common`).
/// `[common(…)]`: that caller alone, the session found as for any other entry point.
macro_rules! entry_points {
    ($(
        $(#[$doc:meta])*
        $js:ident => $([$hot:ident $(($($common:ident),*))?])? fn $method:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty, none: $none:expr;
    )*) => {$(
        $(#[$doc])*
        #[wasm_bindgen(js_name = $js)]
        #[allow(clippy::too_many_arguments)] // numbers only
        #[must_use]
        pub fn $method(session: u32, $($arg: $ty),*) -> $ret {
            entry_points!(@with $($hot)?)(session, |s| s.$method($($arg),*)).unwrap_or_else(|| $none)
        }
    )*};
    (@with) => { sessions::with };
    (@with hot) => { sessions::with_hot };
    (@with common) => { sessions::with };
}

/// A new session ([`SessionCore::new`]'s arguments): its handle, `0` when none could be
/// made (16,777,215 sessions alive at once in one instance are the most).
#[wasm_bindgen(js_name = newSession)]
#[allow(clippy::too_many_arguments)] // the settings, positional
#[must_use]
pub fn new_session(
    flags: u32,
    tombstone_capacity: f64,
    inbound_capacity: f64,
    max_reason_bytes: f64,
    timeout_ms: f64,
    max_total_ms: f64,
    exits: u32,
    events: bool,
    seed: f64,
) -> u32 {
    sessions::insert(SessionCore::new(
        flags,
        tombstone_capacity,
        inbound_capacity,
        max_reason_bytes,
        timeout_ms,
        max_total_ms,
        exits,
        events,
        seed,
    ))
}

/// Frees the session `session`: every request is forgotten, nothing is sent and no output is
/// made (the JS layer's `close()` releases the JS objects it held for them); its memory goes
/// back to the allocator and the handle names no session from now on. Nothing for a handle
/// that names none.
#[wasm_bindgen(js_name = freeSession)]
pub fn free_session(session: u32) {
    sessions::remove(session);
}

entry_points! {
    /// [`SessionCore::configure`].
    configure => fn configure(generic_reason_len: u32, timeout_reason_len: u32, cascade_reason_len: u32, protocol_version_len: u32) -> u32, none: 0;
    /// [`SessionCore::take_output`].
    takeOutput => fn take_output() -> u32, none: 0;
    /// [`SessionCore::output_at`].
    outputAt => fn output_at() -> u32, none: 0;
    /// [`SessionCore::take_error`].
    takeError => fn take_error() -> u32, none: 0;
    /// [`SessionCore::scratch_at`].
    scratch => fn scratch_at() -> u32, none: 0;
    /// [`SessionCore::input_at`].
    input => fn input_at(bytes: u32) -> u32, none: 0;
    /// [`SessionCore::next_deadline`].
    nextDeadline => fn next_deadline() -> f64, none: -2.0;
    /// [`SessionCore::fire_timer`].
    fireTimer => fn fire_timer() -> u32, none: 0;
    /// [`SessionCore::set_protocol_version`].
    setProtocolVersion => fn set_protocol_version(version_len: u32) -> u32, none: 0;
    /// [`SessionCore::accepts_batches`].
    acceptsBatches => fn accepts_batches() -> bool, none: false;
    /// [`SessionCore::revision`].
    revision => fn revision() -> u32, none: 0;
    /// [`SessionCore::in_flight_count`].
    inFlightCount => fn in_flight_count() -> usize, none: 0;
    /// [`SessionCore::tombstone_count`].
    tombstoneCount => fn tombstone_count() -> usize, none: 0;
    /// [`SessionCore::track`].
    track => [hot(id, method_code)] fn track(
        id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32, method_code: i32, method_len: u32, signal: u32,
        token_num: f64, token_len: u32, token_w0: u32, token_w1: u32, token_w2: u32, task: bool, task_ref_len: u32,
        timeout_ms: f64, max_total_ms: f64, flags: u32,
    ) -> u32, none: code::FAILED;
    /// [`SessionCore::response`].
    response => [hot(id)] fn response(
        id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32, read: u32, task_task_id_len: u32,
        result_type_len: u32, result_task_id_len: u32, result_status_len: u32, protocol_version_len: u32,
        has_error: bool, error_code: f64,
    ) -> u32, none: code::PASS;
    /// [`SessionCore::progress`].
    progress => fn progress(token_num: f64, token_len: u32, token_w0: u32, token_w1: u32, token_w2: u32) -> u32, none: code::PASS;
    /// [`SessionCore::cancel`].
    cancel => fn cancel(
        aborted: bool, id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32, reason_kind: u32, reason_len: u32,
        message_len: u32,
    ) -> u32, none: if aborted { 0 } else { code::FAILED };
    /// [`SessionCore::watch`].
    watch => fn watch(inbound: bool, id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32) -> u32, none: code::FAILED;
    /// [`SessionCore::incoming`].
    incoming => fn incoming(
        id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32, method_code: i32, method_len: u32, read: u32,
        params_tag: u32, arg_num: f64, arg_len: u32, arg_w0: u32, arg_w1: u32, arg_w2: u32, reason_tag: u32,
        reason_len: u32, task_id_len: u32, status_len: u32, task: bool,
    ) -> u32, none: code::PASS;
    /// [`SessionCore::outgoing`].
    outgoing => [common(id, signal, method_code, read, params_tag)] fn outgoing(
        signal: u32, id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32, method_code: i32, method_len: u32,
        read: u32, params_tag: u32, arg_num: f64, arg_len: u32, arg_w0: u32, arg_w1: u32, arg_w2: u32,
        reason_tag: u32, reason_len: u32, task_id_len: u32, task: bool,
    ) -> u32, none: code::FAILED;
    /// [`SessionCore::relate`].
    relate => fn relate(
        child_num: f64, child_len: u32, child_w0: u32, child_w1: u32, child_w2: u32,
        parent_num: f64, parent_len: u32, parent_w0: u32, parent_w1: u32, parent_w2: u32,
    ) -> u32, none: 0;
    /// [`SessionCore::is_in_flight`].
    isInFlight => fn is_in_flight(id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32) -> bool, none: false;
}
