//! The `.wasm`'s entry points: one function per method of [`SessionCore`],
//! each taking the session's handle first and the method's numbers after it, as the JS
//! layer's `CancellationSession` calls them (`core.wasm.trackPlain(core.h, …)`,
//! js/session.js). [`new_session`] makes a session and gives its handle (a `u32`, never `0`),
//! [`free_session`] frees it; the `.wasm` keeps its sessions in a table, so a handle that
//! names no session (never made, freed, or another instance's) finds nothing — never memory
//! that is not a session's. Each function does what its method's documentation says; for a
//! handle that names no session it returns the value after `none:` in the list below
//! (nothing done: a peer's message passes, a caller's call is refused, a fast path sends the
//! JS layer to its general path).
//!
//! Not a wasm-bindgen class, for size: a class's every method checks a null pointer, counts a
//! reference up and down and borrows a cell of its own, each with a path that throws, on
//! top of the session's own borrow: 2.5 KB of the `.wasm` (1.2 KB gzip) that one borrow of
//! the table replaces.

use wasm_bindgen::prelude::*;

use super::bindings::{code, SessionCore};
use super::sessions;

/// Defines each entry point: `js_name => fn method(arguments) -> type, none: value;`.
/// `[hot]` before `fn`: the session is found inline (`sessions::with_hot`), for the two
/// entry points of bench scenario 1b (a plain request's track and response).
macro_rules! entry_points {
    ($(
        $(#[$doc:meta])*
        $js:ident => $([$hot:ident])? fn $method:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty, none: $none:expr;
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
    configure => fn configure(generic_reason_len: u32, timeout_reason_len: u32, protocol_version_len: u32) -> u32, none: 0;
    /// [`SessionCore::take_output`].
    takeOutput => fn take_output() -> u32, none: 0;
    /// [`SessionCore::output_at`].
    outputAt => fn output_at() -> u32, none: 0;
    /// [`SessionCore::next_deadline`].
    nextDeadline => fn next_deadline() -> f64, none: -2.0;
    /// [`SessionCore::fire_timer`].
    fireTimer => fn fire_timer() -> u32, none: 0;
    /// [`SessionCore::progress`].
    progress => fn progress(token_tag: u32, token_num: f64, token_len: u32) -> u32, none: code::PASS;
    /// [`SessionCore::message`].
    message => fn message(
        how: u32, method_code: i32, method_len: u32, id_tag: u32, id_num: f64, id_len: u32, read: u32,
        params_tag: u32, arg_tag: u32, arg_num: f64, arg_len: u32, reason_tag: u32, reason_len: u32,
        task_id_len: u32, status_len: u32, task: bool,
    ) -> u32, none: if how == 0 { code::PASS } else { code::FAILED };
    /// [`SessionCore::response`].
    response => fn response(
        id_tag: u32, id_num: f64, id_len: u32, read: u32, task_task_id_len: u32, result_type_len: u32,
        result_task_id_len: u32, result_status_len: u32, protocol_version_len: u32, has_error: bool,
        error_code: f64,
    ) -> u32, none: code::PASS;
    /// [`SessionCore::track_plain`].
    trackPlain => [hot] fn track_plain(method_code: u32, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32, none: 1;
    /// [`SessionCore::scratch_at`].
    scratch => fn scratch_at() -> u32, none: 0;
    /// [`SessionCore::input_at`].
    input => fn input_at(bytes: u32) -> u32, none: 0;
    /// [`SessionCore::response_plain`].
    responsePlain => [hot] fn response_plain(num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32, none: code::NEED_FIELDS;
    /// [`SessionCore::peer_request`].
    peerRequest => fn peer_request(method_code: u32, task: bool, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32, none: code::NEED_FIELDS;
    /// [`SessionCore::peer_cancel`].
    peerCancel => fn peer_cancel(reason_bytes: u32, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32, none: code::NEED_FIELDS;
    /// [`SessionCore::cancel_fast`].
    cancelFast => fn cancel_fast(reason_bytes: u32, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32, none: code::NEED_FIELDS;
    /// [`SessionCore::sent_response`].
    sentResponse => fn sent_response(num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32, none: code::NEED_FIELDS;
    /// [`SessionCore::track`].
    track => fn track(
        id_tag: u32, id_num: f64, id_len: u32, method_code: i32, method_len: u32, signal: u32, token_tag: u32,
        token_num: f64, token_len: u32, task: bool, task_ref_len: u32, timeout_ms: f64, max_total_ms: f64,
        flags: u32,
    ) -> u32, none: code::FAILED;
    /// [`SessionCore::watch_plain`].
    watchPlain => fn watch_plain(inbound: bool, id_tag: u32, id_num: f64, id_len: u32) -> u32, none: code::FAILED;
    /// [`SessionCore::watch_peer_request`].
    watchPeerRequest => fn watch_peer_request(num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32, none: code::NEED_FIELDS;
    /// [`SessionCore::cancel`].
    cancel => fn cancel(
        aborted: bool, id_tag: u32, id_num: f64, id_len: u32, reason_kind: u32, reason_len: u32, message_len: u32,
    ) -> u32, none: if aborted { 0 } else { code::FAILED };
    /// [`SessionCore::set_protocol_version`].
    setProtocolVersion => fn set_protocol_version(version_len: u32) -> u32, none: 0;
    /// [`SessionCore::take_error`].
    takeError => fn take_error() -> u32, none: 0;
    /// [`SessionCore::accepts_batches`].
    acceptsBatches => fn accepts_batches() -> bool, none: false;
    /// [`SessionCore::revision`].
    revision => fn revision() -> u32, none: 0;
    /// [`SessionCore::is_in_flight`].
    isInFlight => fn is_in_flight(id_tag: u32, id_num: f64, id_len: u32) -> bool, none: false;
    /// [`SessionCore::in_flight_count`].
    inFlightCount => fn in_flight_count() -> usize, none: 0;
    /// [`SessionCore::tombstone_count`].
    tombstoneCount => fn tombstone_count() -> usize, none: 0;
}
