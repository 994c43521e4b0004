//! [`SessionCore`]: the wasm session behind the package's JS `CancellationSession`, which
//! calls its methods through the `.wasm`'s entry points (`wasm::exports`, by handle).
//!
//! The JS layer reads the members of a message that the core names (its method's code and
//! [`Method::fields`], or [`Verdict::NeedFields`]) and makes one call here per message,
//! with numbers only: a string's UTF-8 is written by JS into the session's scratch buffer
//! and crosses as its length (`Strings`). Nothing here, and
//! nothing in JS, decides a protocol rule: every verdict is the core's
//! ([`Session::handle_incoming`], [`Session::handle_outgoing`], [`Session::cancel`]), and
//! every consequence comes out of its one output queue, which the JS layer takes as records
//! ([`SessionCore::take_output`]) and does. This layer calls no JS: a call that leaves output
//! or a new next deadline says so (`code::BUSY` in what it returns) and the JS layer's
//! `flush()` runs right after it (for size: hooks, a timer's closure and events' objects
//! built in wasm would be a third of the `.wasm`; a callback into JS, 0.8 KB more).

use crate::prelude::*;

use super::convert::{self, peer_value, tag};
use super::errors::{Refusal, Subject};
use super::json::Json;
use super::options;
use super::output::Records;
use crate::core::{
    FastCancel, FastOwnCancel, IdRef, Message, MessageFields as Fields, Method, MethodName, OutgoingResponseVerdict,
    PackedStr, ProgressVerdict, Reason, RequestId, Session, StrId, Timeout, TrackRequest, Verdict,
};

/// A verdict as the number the JS layer reads: `0` pass, `1` drop, `2 | fields << 8` read
/// those members too and call again.
pub(super) mod code {
    pub const PASS: u32 = 0;
    pub const DROP: u32 = 1;
    pub const NEED_FIELDS: u32 = 2;
    /// From `message` and `track`: a request sent with a signal that has aborted: not tracked, not to
    /// be sent (the JS layer throws the signal's reason, as `fetch` does).
    pub const ABORTED: u32 = 4;
    /// Added to `PASS` by `message`: our message is a request, now tracked.
    pub const TRACKED: u32 = 0x20;
    /// Added to `PASS` by `message` with a live signal: the request is watched (the JS
    /// layer listens to the signal until the request's `settled` record).
    pub const WATCHED: u32 = 0x40;
    /// Added to `PASS` or `DROP` by `response`: the response settled a watched request, for
    /// which no `settled` record is queued (the JS layer releases its objects itself).
    pub const SETTLED: u32 = 0x80;
    /// The call was refused: `SessionCore.takeError()` says why (the JS layer throws it).
    pub const FAILED: u32 = 8;
    /// From `track`: the options have a member of the wrong type (`optionFlags.invalid`) and
    /// the id and the method are right: the JS layer throws its own error about them.
    pub const OPTIONS: u32 = 0x10;
    /// Added to what every entry point that may leave work returns when its call did: output
    /// to take ([`super::SessionCore::take_output`]) or a changed next deadline to arm the
    /// timer for ([`super::SessionCore::next_deadline`]). The JS layer's `flush()` does both,
    /// right after the call returns, before anything else (the core calls no JS).
    pub const BUSY: u32 = 0x4000_0000;

    /// `BUSY` when `busy`.
    #[inline]
    pub fn busy(busy: bool) -> u32 {
        if busy {
            BUSY
        } else {
            0
        }
    }
}

/// How a cancel's reason crosses (`cancel`, of a call or of an abort): its kind, and one or two
/// strings (`constants_json().reasons`); the core decides what it becomes on the wire
/// ([`Reason`]).
mod reason_kind {
    /// No reason (`undefined`; any kind not below).
    pub const NONE: u32 = 0;
    /// A string: the first string.
    pub const TEXT: u32 = 1;
    /// An object with a string `name` (an `Error`, a `DOMException`): its `name`, and its
    /// `message` when that is a string.
    pub const ERROR: u32 = 2;
    /// Anything else: `JSON.stringify` of it, when that gives a string.
    pub const OTHER: u32 = 3;
}

/// The [`Reason`] of a cancel's reason as it crossed (see [`reason_kind`]).
fn reason_of(kind: u32, first: Option<&str>, second: Option<&str>) -> Reason {
    match kind {
        reason_kind::TEXT => Reason::Text(first.unwrap_or_default().owned()),
        reason_kind::ERROR => Reason::from_error(first.unwrap_or(""), second.unwrap_or("")),
        reason_kind::OTHER => Reason::Error(first.unwrap_or("[object]").owned()),
        _ => Reason::None,
    }
}

/// The signal a request is made with (`track`'s `signal`; `message`'s `how` is `1 +` it for
/// our messages, `0` for the peer's): `0` none.
mod send_signal {
    /// Live.
    pub const LIVE: u32 = 1;
    /// Aborted before the message was sent.
    pub const ABORTED: u32 = 2;
}

/// `track(id, method)` of a plain request with a string id, for the `track*` fast paths:
/// whether it was tracked.
#[inline]
fn track_plain_str(core: &mut Session<Records>, id: StrId<'_>, method: Method, watch: bool) -> bool {
    let now = if core.config().timeout.is_set() { convert::now_ms() } else { 0 };
    core.track_str(id, method, watch, now).is_ok()
}

#[inline]
fn verdict_code(v: Verdict) -> u32 {
    match v {
        Verdict::Drop => code::DROP,
        Verdict::NeedFields(f) => code::NEED_FIELDS | (f.0 << 8),
        _ => code::PASS,
    }
}

/// The longest delay the JS layer's one timer is armed with (2^31 − 1 ms, the hosts' limit):
/// a longer timeout is re-armed in steps.
const MAX_TIMER_DELAY_MS: f64 = 2_147_483_647.0;

/// Which exits of a cancel the session has (`new SessionCore`'s `exits`).
pub(super) mod exit {
    /// The `send` option.
    pub const SEND: u32 = 1;
    /// The `closeStream` option (read by JS from `constants_json().exits`).
    pub const CLOSE_STREAM: u32 = 2;
}

struct State {
    /// The session; its output is written as records for [`SessionCore::take_output`].
    core: Session<Records>,
    /// The deadline the JS layer's timer is armed for (what [`SessionCore::next_deadline`]
    /// last gave).
    armed: Option<u64>,
    /// [`exit`] bits.
    exits: u32,
    /// The bytes JS reads now, in place ([`SessionCore::output_at`]): the records
    /// [`SessionCore::take_output`] took, or the refusal [`SessionCore::take_error`] wrote;
    /// kept until the next take, when its room (up to [`KEPT_BYTES`]) takes the next records.
    taken: Vec<u8>,
}

/// The most room for records a session keeps between takes, in bytes: a larger batch (a
/// `close()` of many watched requests) is freed when the next one is taken.
const KEPT_BYTES: usize = 64 * 1024;

/// The size of a session's scratch buffer, in bytes (`constants_json().scratchBytes`): the
/// longest string id that takes the numbers-only path, and the most bytes of strings a call
/// writes there (more go to [`SessionCore::input_at`]'s buffer).
const SCRATCH_BYTES: usize = 256;

/// The length of a string argument that is absent (`undefined`), in place of its length in
/// bytes (`constants_json().noString`).
pub(super) const NO_STRING: u32 = u32::MAX;

/// The strings of one call to a general entry point, read in the order of its arguments:
/// JS wrote their UTF-8 one after the other into the session's scratch buffer (or the
/// call's input buffer, [`SessionCore::input_at`]) and passes each one's length in bytes,
/// or `NO_STRING`. Nothing is copied or allocated to cross them (no string argument, so
/// no glue that allocates one in wasm memory per string).
struct Strings<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Strings<'a> {
    /// The next string, `len` bytes long; `None` when absent (`NO_STRING`) — and for a
    /// length beyond what was written, or bytes that are not UTF-8 (the JS layer writes
    /// neither: read as absent, never a trap).
    fn next(&mut self, len: u32) -> Option<&'a str> {
        if len == NO_STRING {
            return None;
        }
        let end = self.at.checked_add(len as usize)?;
        let bytes = self.bytes.get(self.at..end)?;
        self.at = end;
        ::core::str::from_utf8(bytes).ok()
    }
}

impl State {
    /// Whether the call just made left work for the JS layer's `flush()`: output to do, or
    /// the timer to re-arm for a changed next deadline (`code::BUSY`). Read inside the call's
    /// own borrow; written once, not inlined into every entry point (for the `.wasm`'s size).
    #[inline(never)]
    fn busy(&self) -> bool {
        self.busy_hot()
    }

    /// [`Self::busy`] inlined, for the entry points of bench scenario 1b (`trackPlain`,
    /// `responsePlain`): a call there costs scenario 1b with number ids ~3 ns (7%).
    #[inline(always)]
    fn busy_hot(&self) -> bool {
        self.core.has_output() || self.core.poll_timeout() != self.armed
    }

    /// Whether our request of method `known` may be tracked: one that may cancel itself —
    /// `watch` (the caller's signal), or timeouts to run with (its own `timeout`, else the
    /// session's defaults: [`Session::timeout_of`]) — only in a session with an exit for its
    /// cancel (`send` or `closeStream`). The fast paths refuse it otherwise, and `track` and
    /// `beforeSend` say `ERR_SEND_REQUIRED`.
    #[inline]
    fn has_exit_for(&self, watch: bool, known: Option<Method>, timeout: Option<Timeout>) -> bool {
        self.exits != 0 || !(watch || self.core.timeout_of(known, timeout).is_set())
    }
}

/// The buffers JS writes a call's strings into.
struct Buffers {
    /// Where JS writes the UTF-8 of the strings of a call — a string id before
    /// `trackPlain`/`responsePlain`, every string of the other entry points (`Strings`) —
    /// ([`SCRATCH_BYTES`], never resized, so its address stays): a string crosses once,
    /// with no allocation and no second copy.
    scratch: Vec<u8>,
    /// The strings of the next call when they need more than [`SCRATCH_BYTES`]
    /// ([`SessionCore::input_at`]): freed by that call.
    input: Vec<u8>,
}

/// The cancellation bookkeeping of one MCP connection, for the package's JS
/// `CancellationSession` (which documents the public API): not meant to be used directly.
/// The `.wasm` keeps its sessions in a table and exports each method as a function of a
/// session's handle (`wasm::exports`): a method here runs with the table borrowed, so
/// no two calls of one session ever overlap.
pub struct SessionCore {
    state: State,
    /// Where the strings of a call are: beside the session, so that a call reads them while
    /// it changes the session (no buffer taken out and put back at each call, for size).
    buffers: Buffers,
    /// What the last refused call refused (see [`SessionCore::take_error`]).
    refusal: Option<Refusal>,
}

impl SessionCore {
    /// A session with the settings of `new CancellationSession(options)` as js/options.js
    /// reads them (`options::Scalars`: `flags` the `options::flag` bits, which JS reads from
    /// `constants_json().optionFlags`; the capacities in requests, `max_reason_bytes` in bytes
    /// of UTF-8, the timeouts in ms; an absent number `NaN`; the settings that are strings
    /// come after, [`Self::configure`]),
    /// `exits` the `exit` bits of the cancel's exits the session has (`send`,
    /// `closeStream`), `events` whether the JS layer shows events (`onEvent`) and `seed` a
    /// random number for the table's hasher.
    ///
    /// Nothing is refused here: every value of the right type gives a session (a capacity or
    /// a reason limit beyond the core's bounds is brought within them).
    #[allow(clippy::too_many_arguments)] // the settings, positional
    #[must_use]
    pub fn new(
        flags: u32,
        tombstone_capacity: f64,
        inbound_capacity: f64,
        max_reason_bytes: f64,
        timeout_ms: f64,
        max_total_ms: f64,
        exits: u32,
        events: bool,
        seed: f64,
    ) -> SessionCore {
        let mut config = options::Scalars {
            flags,
            tombstone_capacity,
            inbound_capacity,
            max_reason_bytes,
            timeout_ms,
            max_total_ms,
            generic_reason: None,
            timeout_reason: None,
            events,
        }
        .config();
        config.hash_seed = seed.to_bits();
        let core = Session::with_sink(config, Records::default());
        let state = State { core, armed: None, exits, taken: Vec::new() };
        let buffers = Buffers { scratch: vec![0; SCRATCH_BYTES], input: Vec::new() };
        SessionCore { state, buffers, refusal: None }
    }

    /// The settings of `new CancellationSession(options)` that are strings, on the session
    /// just made (before any other call): the texts of
    /// `genericReason` and `timeoutReason` and the `protocolVersion` to follow, each its
    /// length in bytes and its UTF-8 in the scratch buffer, in this order (`Strings`;
    /// `NO_STRING`: not given). `BUSY` when that left output (a protocol version's event),
    /// else `0`.
    pub fn configure(&mut self, generic_reason_len: u32, timeout_reason_len: u32, protocol_version_len: u32) -> u32 {
        let outcome = self.with_strings(|st, mut strings| {
            st.core.set_reason_texts(strings.next(generic_reason_len), strings.next(timeout_reason_len));
            if let Some(version) = strings.next(protocol_version_len) {
                st.core.set_protocol_version(version);
            }
        });
        code::busy(outcome.1)
    }

    /// Takes the core's output written since the last call — records, oldest first, as bytes
    /// (`wasm::output`: js/records.js reads them with `constants_json().records`) — for JS to
    /// read in place, at [`Self::output_at`]: their length in bytes, `0` when there is none
    /// JS reads them all before its next call into the module
    /// (that call may take the next records into the same room, or grow the memory). Nothing
    /// is copied or allocated once the room is there. Each record becomes an object whose
    /// `o` says what to do (`requestId` is the request it is about, a number or a string):
    /// - `"notify"`: send `notifications/cancelled` for `requestId` with `reason` (absent: none);
    /// - `"close"`: close the response stream of `requestId` (2026-07-28 Streamable HTTP);
    /// - `"tasksCancel"`: send the `tasks/cancel` request `id` for task `taskId`, the cancel of
    ///   `requestId`;
    /// - `"cancelled"`: our request `requestId` was cancelled; after a timeout `timeout` is
    ///   `"timeout"` or `"max-total"` and `message` the `TimeoutError`'s text;
    /// - `"settled"`: our watched request `requestId` can no longer be cancelled;
    /// - `"inboundSettled"`: the peer's watched request `requestId` is over;
    /// - `"peerCancelled"`: the peer cancelled its request `requestId` with `reason` (absent:
    ///   none); `watched` whether its signal was asked for;
    /// - `"event"`: `event`, the event object for `onEvent` (`{ direction, type, … }`, the
    ///   members the README lists).
    ///
    /// A string crosses as UTF-8, so an unpaired surrogate of the caller's is U+FFFD here.
    #[must_use]
    pub fn take_output(&mut self) -> u32 {
        let State { core, taken, .. } = &mut self.state;
        if taken.capacity() > KEPT_BYTES {
            *taken = Vec::new();
        }
        core.sink_mut().take_into(taken);
        // At most the module's memory: below 4 GiB.
        u32::try_from(taken.len()).unwrap_or(0)
    }

    /// The address of the bytes [`Self::take_output`] or [`Self::take_error`] took.
    #[must_use]
    pub fn output_at(&self) -> u32 {
        u32::try_from(self.state.taken.as_ptr() as usize).unwrap_or(0)
    }

    /// Where the JS layer's one timer goes: `-2` where it is (the next deadline did not
    /// change), `-1` nowhere (no deadline: disarm it), else the delay to arm it with, in ms
    /// (at most 2^31 − 1: a later deadline is re-armed in steps, a step finding nothing due).
    #[must_use]
    pub fn next_deadline(&mut self) -> f64 {
        let st = &mut self.state;
        let next = st.core.poll_timeout();
        if next == st.armed {
            return -2.0;
        }
        st.armed = next;
        next.map_or(-1.0, |at| (at as f64 - convert::now()).clamp(0.0, MAX_TIMER_DELAY_MS))
    }

    /// The JS layer's timer fired: expires what is due. `BUSY` (`constants_json().verdicts.busy`)
    /// when that left work for `flush()` (output, or the timer to arm again), else `0`.
    pub fn fire_timer(&mut self) -> u32 {
        let st = &mut self.state;
        st.armed = None;
        st.core.handle_timeout(convert::now_ms());
        code::busy(st.busy())
    }

    /// A `notifications/progress` from the peer with this `params.progressToken` (tagged, see
    /// `convert::tag`; a string's UTF-8 in the scratch buffer, `token_len` bytes, see
    /// `Strings`): `1` (drop) when it is late — its request was cancelled or is no
    /// longer in flight — else `0` (pass). `shouldDropProgress(token)`'s own entry point:
    /// three scalars, where [`Self::message`] takes sixteen (a call per progress
    /// notification; 2025-11-25 basic/utilities/progress).
    pub fn progress(&mut self, token_tag: u32, token_num: f64, token_len: u32) -> u32 {
        let (late, busy) = self.with_strings(|st, mut strings| {
            // A token that is not a request id is not ours to judge (as `message` decides it).
            let Ok(token) = id_of(token_tag, token_num, strings.next(token_len)) else { return false };
            let now = if st.core.poll_timeout().is_some() { convert::now_ms() } else { 0 };
            st.core.handle_progress(&token, now) == ProgressVerdict::Late
        });
        (if late { code::DROP } else { code::PASS }) | code::busy(busy)
    }

    /// A message from the peer (`how` 0), or one we are about to send (`how` `1 +` the signal
    /// it is sent with, `send_signal`: 1 none, 2 live, 3 aborted): its method (`method_code`, or
    /// `method_name` for code 0; `method_code` −1: no `method`, −2: not a string), its id,
    /// and the members `read` (each member as a tag, see `convert::tag`, with its number or
    /// string: `arg` is `params.requestId`, `params.progressToken` or
    /// `params._meta.progressToken`, whichever `read` names; `task` whether `params.task` is
    /// an object). Each string is its length in bytes, its UTF-8 in the scratch buffer, in
    /// the order of the arguments (`Strings`). Returns the verdict number (see `code`).
    ///
    /// From the peer: never refused. Ours: a request is tracked (`0 | TRACKED`, and
    /// `| WATCHED` with a live signal), or with an aborted signal not (`4`: not to be sent);
    /// the SDK's own `notifications/cancelled` is `1` (not to be sent as it is: the cancel it
    /// made, if any, is the first record of the output, which the JS layer sends in its
    /// place). Refused (`FAILED`, see [`Self::take_error`]): `InvalidArgumentError`
    /// `ERR_INVALID_REQUEST_ID` for a request whose id or progress token is not one;
    /// `UsageError` `ERR_ALREADY_IN_FLIGHT` / `ERR_PROGRESS_TOKEN_IN_USE`.
    #[allow(clippy::too_many_arguments)]
    pub fn message(
        &mut self,
        how: u32,
        method_code: i32,
        method_len: u32,
        id_tag: u32,
        id_num: f64,
        id_len: u32,
        read: u32,
        params_tag: u32,
        arg_tag: u32,
        arg_num: f64,
        arg_len: u32,
        reason_tag: u32,
        reason_len: u32,
        task_id_len: u32,
        status_len: u32,
        task: bool,
    ) -> u32 {
        let outcome = self.with_strings(|st, mut strings| {
            let mut message = read_message(
                (method_code, strings.next(method_len)),
                (id_tag, id_num, strings.next(id_len)),
                read,
                params_tag,
                (arg_tag, arg_num, strings.next(arg_len)),
                (reason_tag, strings.next(reason_len)),
                strings.next(task_id_len),
            );
            message.task = task;
            message.status = strings.next(status_len);
            let Some(signal) = how.checked_sub(1) else {
                let now = if st.core.poll_timeout().is_some() { convert::now_ms() } else { 0 };
                return Ok(verdict_code(st.core.handle_incoming(&message, now)));
            };
            let request = message.is_request();
            if request && signal == send_signal::ABORTED {
                return Ok(code::ABORTED);
            }
            let watch = request && signal == send_signal::LIVE;
            // As `track`'s: a signal's abort or a timeout needs somewhere to send its cancel —
            // after what is wrong with the id or the progress token (the core says that),
            // before the rest.
            if request && !st.has_exit_for(watch, message.method.known(), None) && valid_request_ids(&message) {
                return Err(Refusal::send_required("beforeSend()"));
            }
            let now = if st.core.config().timeout.is_set() { convert::now_ms() } else { 0 };
            match st.core.handle_outgoing(&message, now, watch) {
                Err(e) => Err(Refusal::outgoing(&e)),
                // A request (even one named `notifications/cancelled`: it has an id).
                Ok(Verdict::Pass) if watch => Ok(code::PASS | code::TRACKED | code::WATCHED),
                Ok(Verdict::Pass) if request => Ok(code::PASS | code::TRACKED),
                Ok(verdict) => Ok(verdict_code(verdict)),
            }
        });
        let (result, busy) = outcome;
        result.unwrap_or_else(|refusal| self.refuse(refusal)) | code::busy(busy)
    }

    /// A response from the peer: its id, and the members of its `result` or `error` the core
    /// asked for (`read`): `result.task.taskId`, `result.resultType`, `result.taskId`,
    /// `result.status`, `result.protocolVersion`, and `error.code` (`has_error` when the
    /// message has an `error`; `error_code` NaN when its code is not a number). The first
    /// call reads none (`read` 0): the core answers `2 | fields << 8` when it needs some,
    /// and is called again with them. With `code::SETTLED` added when the response settled a
    /// watched request and that was all the output: no `settled` record is queued for it.
    /// Each string is its length in bytes, its UTF-8 in the scratch buffer, in the order of
    /// the arguments (`Strings`).
    #[allow(clippy::too_many_arguments)]
    pub fn response(
        &mut self,
        id_tag: u32,
        id_num: f64,
        id_len: u32,
        read: u32,
        task_task_id_len: u32,
        result_type_len: u32,
        result_task_id_len: u32,
        result_status_len: u32,
        protocol_version_len: u32,
        has_error: bool,
        error_code: f64,
    ) -> u32 {
        let outcome = self.with_strings(|st, mut strings| {
            let id = id_of(id_tag, id_num, strings.next(id_len)).ok()?;
            let mut text = |len| owned(strings.next(len));
            let info = (read != 0).then(|| {
                convert::response_info(
                    text(task_task_id_len),
                    text(result_type_len),
                    text(result_task_id_len),
                    text(result_status_len),
                    text(protocol_version_len),
                    has_error,
                    error_code,
                )
            });
            let verdict = st.core.handle_incoming_response(&id, Fields(read), info.as_ref());
            let settled = !matches!(verdict, Verdict::NeedFields(_)) && st.core.take_settled(&id);
            Some((verdict, settled))
        });
        let (Some((verdict, settled)), busy) = outcome else { return code::PASS };
        verdict_code(verdict) | if settled { code::SETTLED } else { 0 } | code::busy(busy)
    }

    /// `track(id, method)` of a plain request — a known method, no options but a signal —
    /// with its id as numbers only: the hot path. The id is `num` when `len` is
    /// `NUMBER_ID` (`constants_json().numberId`: the caller's number as JS has it), else an
    /// ASCII string of `len` bytes — up to [`PackedStr::MAX_BYTES`] (11) as three
    /// little-endian words `w0`–`w2` (bytes 0–3 in `w0`, byte 0 lowest; see
    /// [`PackedStr::from_words`]: nothing written to memory, nothing allocated), longer ones
    /// (up to `constants_json().scratchBytes`) written by JS into the scratch buffer
    /// ([`Self::scratch_at`]). `method_code` is the method's code in the core's table
    /// (`constants_json().methods`), with `WATCH_BIT` (`constants_json().watchBit`) added
    /// when the request is watched (the JS layer checked the caller's signal and listens to
    /// it). `0`: tracked; `1`: refused, nothing changed (a fraction, an unknown code, words
    /// that name no id, an id in flight, a watched request in a session without `send`):
    /// call `track` for the error.
    pub fn track_plain(&mut self, method_code: u32, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        let Some(method) = Method::from_code(method_code & !WATCH_BIT) else { return 1 };
        let watch = method_code & WATCH_BIT != 0;
        if len == NUMBER_ID {
            let Ok(RequestId::Number(n)) = RequestId::from_f64(num) else { return 1 };
            // Written out, not through `tracked`: the hottest path (an A/B put the helper's
            // form 10% slower here).
            let st = &mut self.state;
            if !st.has_exit_for(watch, Some(method), None) {
                return 1;
            }
            let now = if st.core.config().timeout.is_set() { convert::now_ms() } else { 0 };
            // Matched, not `is_ok()`: the error's drop is on its own arm, not a call on this
            // path (one wasm function fewer compiled at a process's first `track()`).
            let refused = match st.core.track_number(n, method, watch, now) {
                Ok(()) => 0,
                Err(error) => {
                    drop(error);
                    1
                }
            };
            return refused | code::busy(st.busy_hot());
        }
        let outcome = (|| {
            let st = &mut self.state;
            if !st.has_exit_for(watch, Some(method), None) {
                return None;
            }
            // Each kind of string id written out, not through one helper giving a `StrId`: with
            // the variant known here the words path is inlined for it (a helper puts bench
            // scenario 1b with string ids 3-8 ns slower in an A/B).
            let tracked = if len as usize <= PackedStr::MAX_BYTES {
                let id = PackedStr::from_words(len, w0, w1, w2)?;
                track_plain_str(&mut st.core, StrId::Packed(id), method, watch)
            } else {
                let id = ::core::str::from_utf8(self.buffers.scratch.get(..len as usize)?).ok()?;
                track_plain_str(&mut st.core, StrId::Text(id), method, watch)
            };
            Some((tracked, st.busy_hot()))
        })();
        self.tracked(outcome)
    }

    /// Where JS writes a string id for [`Self::track_plain`] and [`Self::response_plain`]: its
    /// address in the module's memory, `constants_json().scratchBytes` long. The address stays for
    /// the session's life; a view of it is detached when the memory grows, and is made again.
    #[must_use]
    pub fn scratch_at(&self) -> u32 {
        u32::try_from(self.buffers.scratch.as_ptr() as usize).unwrap_or(0)
    }

    /// Where JS writes the strings of its next call when they need more than the scratch
    /// buffer's `constants_json().scratchBytes`: the address of a buffer of `bytes` bytes in
    /// the module's memory (a view made before this call is detached if the memory grew),
    /// which that call takes and frees. `0` when `bytes` cannot be
    /// allocated: write nothing, and pass every string as absent.
    #[must_use]
    pub fn input_at(&mut self, bytes: u32) -> u32 {
        let mut input = Vec::new();
        if input.try_reserve_exact(bytes as usize).is_err() {
            return 0;
        }
        input.resize(bytes as usize, 0);
        self.buffers.input = input;
        u32::try_from(self.buffers.input.as_ptr() as usize).unwrap_or(0)
    }

    /// What a `track*` fast path returns for `(tracked, busy)` (`BUSY` added when busy);
    /// `None`: refused before the core was asked.
    #[inline]
    fn tracked(&self, outcome: Option<(bool, bool)>) -> u32 {
        self.flushed(outcome.map(|(tracked, busy)| (u32::from(!tracked), busy)), 1)
    }

    /// A response from the peer with its id as numbers only, as [`Self::track_plain`]'s (a
    /// number, words, or the scratch buffer): as [`Self::response`]
    /// (`shouldDropResponse(id)`, the guard's responses). A number that is not an id: `0`
    /// (pass: not ours); words that name no id: `2` (`NEED_FIELDS` with
    /// no field), call `response`.
    pub fn response_plain(&mut self, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        if len == NUMBER_ID {
            let Ok(RequestId::Number(n)) = RequestId::from_f64(num) else { return code::PASS };
            // Written out, not through `responded`: as `track_plain`'s number.
            let st = &mut self.state;
            let (verdict, settled) = st.core.response_number_fast(n);
            return verdict_code(verdict) | if settled { code::SETTLED } else { 0 } | code::busy(st.busy_hot());
        }
        let outcome = (|| {
            let st = &mut self.state;
            // Written out by kind of id, as `track_plain`'s.
            let (verdict, settled) = if len as usize <= PackedStr::MAX_BYTES {
                st.core.response_str_fast(StrId::Packed(PackedStr::from_words(len, w0, w1, w2)?))
            } else {
                let id = ::core::str::from_utf8(self.buffers.scratch.get(..len as usize)?).ok()?;
                st.core.response_str_fast(StrId::Text(id))
            };
            Some((verdict, settled, st.busy_hot()))
        })();
        self.responded(outcome, code::NEED_FIELDS)
    }

    /// What a `response*` fast path returns for `(verdict, settled, busy)` (`BUSY` added when
    /// busy); `refused` when the core was not asked.
    #[inline]
    fn responded(&self, outcome: Option<(Verdict, bool, bool)>, refused: u32) -> u32 {
        let outcome =
            outcome.map(|(v, settled, busy)| (verdict_code(v) | if settled { code::SETTLED } else { 0 }, busy));
        self.flushed(outcome, refused)
    }

    /// A request from the peer (a message with `method` and `id`) whose method is known
    /// (`method_code`) and whose id crossed as numbers (an integer `num`
    /// when `len` is `constants_json().numberId`, else an ASCII string of `len` ≤ 11 bytes as words, see
    /// [`Self::track_plain`]), with `task` the `params.task` member the core's tables name
    /// for it: recorded as [`Self::message`] would, the peer's requests' fast path (bench
    /// scenario 3). `0` (pass); `2` (`NEED_FIELDS` with no field): not taken, nothing
    /// changed — a method that needs more members than `task`, an id that did not cross —
    /// call `message`.
    #[allow(clippy::too_many_arguments)] // numbers only: the id crosses as five of them
    pub fn peer_request(&mut self, method_code: u32, task: bool, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        let outcome = (|| {
            let method = Method::from_code(method_code)?;
            if !Fields::TASK.contains(Method::fields(Some(method), true)) {
                return None;
            }
            let id = crossed_id(num, len, w0, w1, w2)?;
            let st = &mut self.state;
            st.core.handle_known_request(id, method, task);
            Some(st.busy())
        })();
        self.fast(outcome.map(|busy| (code::PASS, busy)))
    }

    /// A `notifications/cancelled` from the peer whose `params` is an object and whose
    /// `params.requestId` crossed as numbers (as [`Self::peer_request`]), with
    /// `reason_bytes` `0` when it has no `reason`, else `1 +` an upper bound of its string
    /// `reason`'s length in bytes of UTF-8 (any other `reason`: call `message`): decided as
    /// [`Self::message`] would, queuing no output ([`Session::handle_cancelled_fast`]).
    /// `0` (pass): the peer's request is cancelled, abort its work with the reason as the
    /// peer sent it — with `WATCHED` added when it was watched (JS holds its controller);
    /// `1` (drop): ignored; `2` (`NEED_FIELDS` with no field): not taken, nothing changed,
    /// call `message`.
    pub fn peer_cancel(&mut self, reason_bytes: u32, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        let outcome = (|| {
            let id = crossed_id(num, len, w0, w1, w2)?;
            let st = &mut self.state;
            let verdict = match st.core.handle_cancelled_fast(id, reason_bound(reason_bytes)) {
                FastCancel::Aborted { watched: true } => code::PASS | code::WATCHED,
                FastCancel::Aborted { watched: false } => code::PASS,
                FastCancel::Ignored => code::DROP,
                FastCancel::General => return None,
            };
            Some((verdict, st.busy()))
        })();
        self.fast(outcome)
    }

    /// Our request whose id crossed as numbers (as [`Self::peer_request`]) cancelled by its
    /// caller — `cancel(id, reason)`, or the abort of the signal it was tracked with — with
    /// `reason_bytes` `0` when it has no reason, else `1 +` an upper bound of its string
    /// reason's length in bytes of UTF-8 (any other reason: call `cancel`):
    /// decided as they would, queuing no output ([`Session::cancel_fast`]), the fast path of
    /// bench scenario 2. `0` (pass): cancelled — JS sends `notifications/cancelled`
    /// with the caller's id and reason through `send`, and when `WATCHED` is added aborts
    /// the request's own signal and releases its listener (what the `cancelled` and `settled`
    /// records would make JS do); `2` (`NEED_FIELDS` with no field): not taken,
    /// nothing changed, call `cancel` (also when the session has no `send`).
    ///
    /// Spec: every revision §Cancellation "Behavior Requirements".
    pub fn cancel_fast(&mut self, reason_bytes: u32, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        let outcome = (|| {
            let id = crossed_id(num, len, w0, w1, w2)?;
            let st = &mut self.state;
            // Without `send`, `cancel` returns the message: the general path.
            if st.exits & exit::SEND == 0 {
                return None;
            }
            let verdict = match st.core.cancel_fast(id, reason_bound(reason_bytes)) {
                FastOwnCancel::Notify { watched: true } => code::PASS | code::WATCHED,
                FastOwnCancel::Notify { watched: false } => code::PASS,
                FastOwnCancel::General => return None,
            };
            Some((verdict, st.busy()))
        })();
        self.fast(outcome)
    }

    /// Our response (a message with `id` and no `method`) to the peer's request whose id
    /// crossed as numbers (as [`Self::peer_request`]): as [`Self::message`] would, the
    /// fast path of our responses. `0` (pass): send it; `1` (drop): the peer
    /// cancelled that request, do not send it; with `SETTLED` added when the request was
    /// watched — JS releases its controller itself, no `inboundSettled` record is queued;
    /// `2` (`NEED_FIELDS` with no field): not taken, nothing changed, call `message`.
    pub fn sent_response(&mut self, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        let outcome = (|| {
            let id = crossed_id(num, len, w0, w1, w2)?;
            let st = &mut self.state;
            let (verdict, settled) = st.core.handle_outgoing_response_fast(id);
            let verdict = match verdict {
                OutgoingResponseVerdict::Suppress => code::DROP,
                _ => code::PASS,
            };
            Some((verdict | if settled { code::SETTLED } else { 0 }, st.busy()))
        })();
        self.fast(outcome)
    }

    /// What a peer's fast path returns for `(verdict, busy)`; `None`: not taken,
    /// `NEED_FIELDS` with no field.
    #[inline]
    fn fast(&self, outcome: Option<(u32, bool)>) -> u32 {
        self.flushed(outcome, code::NEED_FIELDS)
    }

    /// The one end of every numbers-only entry point: `verdict` of `(verdict, busy)`, with
    /// `BUSY` added when busy (events, the timer), or `refused` when the core was not asked.
    #[inline]
    fn flushed(&self, outcome: Option<(u32, bool)>, refused: u32) -> u32 {
        outcome.map_or(refused, |(verdict, busy)| verdict | code::busy(busy))
    }

    /// Tracks a request we send (`track(id, method, options)`), with its options as
    /// js/options.js `trackOptions` reads them: `signal` the caller's signal (`0` none, `1`
    /// live, `2` aborted), the progress token `params._meta.progressToken` (tagged, see
    /// `convert::tag`; `absent` when not given), `task` whether `params.task` is an object,
    /// `task_ref` `params.taskId` when it is a string, `timeout_ms`/`max_total_ms` (`NaN`: not
    /// given) and `flags` (`optionFlags.timeoutGiven`, `optionFlags.resetOnProgress`,
    /// `optionFlags.invalid` when a member has the wrong type).
    ///
    /// Returns `0` (tracked), `OPTIONS` (the id and the method are right, but the options
    /// are not: the JS layer throws its own error), `ABORTED` (the caller's signal has
    /// aborted: nothing is tracked, the JS layer throws its `reason`), or `FAILED`
    /// ([`Self::take_error`]): `InvalidArgumentError` (`ERR_INVALID_REQUEST_ID` for the id or
    /// the progress token, `ERR_INVALID_ARGUMENT` for a method that is not a string);
    /// `UsageError` (`ERR_ALREADY_IN_FLIGHT`, `ERR_PROGRESS_TOKEN_IN_USE`,
    /// `ERR_SEND_REQUIRED`), in that order. Each string is its length in
    /// bytes, its UTF-8 in the scratch buffer, in the order of the arguments (`Strings`).
    #[allow(clippy::too_many_arguments)]
    pub fn track(
        &mut self,
        id_tag: u32,
        id_num: f64,
        id_len: u32,
        method_code: i32,
        method_len: u32,
        signal: u32,
        token_tag: u32,
        token_num: f64,
        token_len: u32,
        task: bool,
        task_ref_len: u32,
        timeout_ms: f64,
        max_total_ms: f64,
        flags: u32,
    ) -> u32 {
        let outcome = self.with_strings(|st, mut strings| {
            let id = id_of(id_tag, id_num, strings.next(id_len))
                .map_err(|e| Refusal::invalid_id("track(): request id", e, Subject::Id))?;
            let Some(method) = method_name_of(method_code, strings.next(method_len)).as_str() else {
                return Err(Refusal::invalid_argument(
                    "track(): `method` must be a string",
                    "ERR_INVALID_ARGUMENT",
                    Subject::None,
                ));
            };
            if flags & options::flag::INVALID != 0 {
                return Ok(code::OPTIONS);
            }
            let mut request = TrackRequest::new(id, method);
            let token = strings.next(token_len);
            if token_tag != tag::ABSENT {
                let token = peer_value(token_tag, token_num, token)
                    .to_request_id()
                    .map_err(|e| Refusal::invalid_id("track(): params._meta.progressToken", e, Subject::Token))?;
                request.progress_token = Some(token);
            }
            request.task = task;
            request.task_ref = strings.next(task_ref_len).map(str::owned);
            request.timeout = options::timeout(flags, timeout_ms, max_total_ms);
            if signal == send_signal::ABORTED {
                return Ok(code::ABORTED);
            }
            let timeout = request.timeout.unwrap_or(st.core.config().timeout);
            let watch = signal == send_signal::LIVE;
            if !st.has_exit_for(watch, MethodName::from_name(method).known(), request.timeout) {
                return Err(Refusal::send_required("track()"));
            }
            let now = if timeout.is_set() { convert::now_ms() } else { 0 };
            // The JS layer attaches the listener to the caller's signal (and removes it at the
            // request's `settled` record).
            request.watch = watch;
            st.core.track(request, now).map(|()| code::PASS).map_err(|e| Refusal::usage(&e))
        });
        let (result, busy) = outcome;
        result.unwrap_or_else(|refusal| self.refuse(refusal)) | code::busy(busy)
    }

    /// Marks our request (with `inbound`, the peer's) of a number or string id (tagged, see
    /// `convert::tag`; a string's UTF-8 in the scratch buffer, `id_len` bytes, see
    /// `Strings`) as watched: the JS layer keeps objects for it (its signal's
    /// controller) and learns from the output's records when to abort or release them.
    /// `1`: watched; `0`: not in flight; `FAILED` ([`Self::take_error`]):
    /// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID`.
    pub fn watch_plain(&mut self, inbound: bool, id_tag: u32, id_num: f64, id_len: u32) -> u32 {
        let outcome = self.with_strings(|st, mut strings| {
            let id = id_of(id_tag, id_num, strings.next(id_len)).map_err(|e| {
                let what = if inbound { "inboundSignal(): request id" } else { "signal(): request id" };
                Refusal::invalid_id(what, e, Subject::Id)
            })?;
            Ok(u32::from(if inbound { st.core.watch_inbound(&id) } else { st.core.watch(&id) }))
        });
        let (result, _) = outcome;
        result.unwrap_or_else(|refusal| self.refuse(refusal))
    }

    /// `watchPlain(true, …)` of the peer's request whose id crossed as numbers (as
    /// [`Self::peer_request`]): `inboundSignal(id)`'s fast path (bench scenario 3 with
    /// string ids: the id does not cross as a string). `1`: watched; `0`: the peer has no
    /// such request in flight; `2`: not taken, nothing changed (call `watchPlain`).
    pub fn watch_peer_request(&mut self, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        let Some(id) = crossed_id(num, len, w0, w1, w2) else { return 2 };
        let st = &mut self.state;
        u32::from(st.core.watch_inbound_ref(id))
    }

    /// Cancels our request `id` (tagged, see `convert::tag`) with a reason (the one cancel
    /// path), for `cancel(id, reason)` (`aborted` false) or the abort of the caller's signal
    /// it was tracked with (`aborted` true): `1` when a cancel was made (its message is in
    /// the output: the JS layer sends it, or without `send` returns it from `cancel()` — an
    /// abort's always goes to `send`), `0` when not. The reason crosses as `reason_kind`
    /// (`constants_json().reasons`) with `reason` — the text, an error's `name`, or the JSON
    /// of anything else — and an error's `message` in `message`. Each string is its length
    /// in bytes, its UTF-8 in the scratch buffer, in the order of the arguments
    /// (`Strings`).
    ///
    /// Refused (`FAILED`, [`Self::take_error`]), `cancel()` only: `InvalidArgumentError`
    /// `ERR_INVALID_REQUEST_ID`; `UsageError` `ERR_HANDSHAKE_NOT_CANCELLABLE`. An abort is never refused: `0` (the handshake is reported as an
    /// event and kept).
    #[allow(clippy::too_many_arguments)] // numbers only
    pub fn cancel(
        &mut self,
        aborted: bool,
        id_tag: u32,
        id_num: f64,
        id_len: u32,
        reason_kind: u32,
        reason_len: u32,
        message_len: u32,
    ) -> u32 {
        let outcome = self.with_strings(|st, mut strings| {
            let id = id_of(id_tag, id_num, strings.next(id_len))
                .map_err(|e| Refusal::invalid_id("cancel(): request id", e, Subject::Id))?;
            let reason = reason_of(reason_kind, strings.next(reason_len), strings.next(message_len));
            st.core.cancel(&id, &reason).map(u32::from).map_err(|e| Refusal::usage(&e))
        });
        let (result, busy) = outcome;
        let made = match result {
            Ok(made) => made,
            Err(_) if aborted => 0,
            Err(refusal) => self.refuse(refusal),
        };
        made | code::busy(busy)
    }

    /// Follows the rules of protocol `version` (its length in bytes, its UTF-8 in the
    /// scratch buffer, see `Strings`; `NO_STRING` when the caller's value is not a
    /// string); returns the revision followed, as [`Self::revision`] gives it (with `BUSY`
    /// added when that left output: an event), or `0` when refused ([`Self::take_error`]:
    /// `InvalidArgumentError` `ERR_INVALID_ARGUMENT`).
    pub fn set_protocol_version(&mut self, version_len: u32) -> u32 {
        let outcome = self.with_strings(|st, mut strings| {
            let version = strings.next(version_len).ok_or_else(|| {
                Refusal::invalid_argument(
                    "setProtocolVersion(): `version` must be a string",
                    "ERR_INVALID_ARGUMENT",
                    Subject::Value,
                )
            })?;
            Ok(st.core.set_protocol_version(version))
        });
        let (result, busy) = outcome;
        match result {
            Ok(revision) => revision_number(Some(revision)) | code::busy(busy),
            Err(refusal) => {
                self.refuse(refusal);
                0
            }
        }
    }

    /// What the last call that returned `FAILED` (or `0`, from `setProtocolVersion`)
    /// refused, as one record to read in place with js/records.js, at [`Self::output_at`]
    /// (`errors::Refusal::record`: `{ o: "refused", name, code, message, of }` or
    /// `{ o: "refused", name, code, message, requestId }`), for the JS layer to throw: its
    /// length in bytes, `0` when there is none.
    #[must_use]
    pub fn take_error(&mut self) -> u32 {
        let Some(refusal) = self.refusal.take() else { return 0 };
        self.state.taken = refusal.record();
        u32::try_from(self.state.taken.len()).unwrap_or(0)
    }

    /// Whether a batch (an array of messages) is examined element by element
    /// ([`Session::accepts_batches`]).
    pub fn accepts_batches(&self) -> bool {
        self.state.core.accepts_batches()
    }

    /// The revision followed: `1 +` its index in `constants_json().records.names.revision`
    /// (`Revision::ALL`'s order), or `0` before one is known.
    pub fn revision(&self) -> u32 {
        revision_number(self.state.core.revision())
    }

    /// Whether our request `id` (tagged, see `convert::tag`; a string's UTF-8 in the scratch
    /// buffer, `id_len` bytes, see `Strings`) can still be cancelled (in flight, or its
    /// task running).
    pub fn is_in_flight(&mut self, id_tag: u32, id_num: f64, id_len: u32) -> bool {
        let outcome = self.with_strings(|st, mut strings| {
            id_of(id_tag, id_num, strings.next(id_len)).is_ok_and(|id| st.core.is_cancellable(&id))
        });
        outcome.0
    }

    /// How many of our requests can still be cancelled (what `isInFlight` counts).
    pub fn in_flight_count(&self) -> usize {
        self.state.core.cancellable()
    }

    /// Number of tombstones.
    pub fn tombstone_count(&self) -> usize {
        self.state.core.tombstones()
    }
}

impl SessionCore {
    /// Everything the JS reader needs to know to read a message for the core, defined
    /// here once, as JSON text. Not in the session's `.wasm` (for its size and start-up):
    /// scripts/build.sh takes it from the relay's build (`RelayCore.sessionConstantsJson()`)
    /// into pkg/web/mcp_cancel_tables.js, which the JS entries import, so a session's first
    /// use makes no wasm call for it:
    /// `{ methods, incoming, outgoing, fields, names, timeoutError, tags, verdicts,
    /// maxPeerString, maxReasonBytes, maxWordsId, numberId, watchBit, scratchBytes, noString,
    /// optionFlags, reasons, exits, records }` (the
    /// relay's build adds its own in `RelayCore.constantsJson()`, see `wasm::relay`) —
    /// `methods[code - 1]` is the name of method `code`; `incoming[code]` /
    /// `outgoing[code]` the members to read of a message with that method ([`Method::fields`],
    /// code 0: any other method); `fields` the bit of each member; `names` the methods of the
    /// messages the session builds (`cancelled`, `tasksCancel`) and the `params._meta` key of
    /// a request's protocol version (`metaProtocolVersion`, 2026-07-28); `timeoutError` the
    /// `{ code, message }` of a request that timed out (JSON-RPC −32001, as the MCP SDKs'
    /// `RequestTimeout`); `tags` the tag of each kind of value, `verdicts` the numbers the
    /// entry points return (`failed`: refused, see [`Self::take_error`]); `maxPeerString` the longest peer string that crosses (UTF-16
    /// code units), `maxReasonBytes` the largest `maxReasonBytes` option (a longer reason is
    /// never kept, so never copied), `maxWordsId` the longest ASCII string id that crosses as
    /// words ([`Self::track_plain`], [`PackedStr::MAX_BYTES`]), `numberId` the `len` of an id
    /// that crosses as a number ([`Self::peer_request`]), `watchBit` what [`Self::track_plain`]'s
    /// method code adds for a watched request, `scratchBytes` the size of a session's scratch
    /// buffer ([`Self::scratch_at`]), `noString` the length of an absent string argument
    /// (`Strings`), `optionFlags` the bits of the settings' and `track()`'s flags (`options::flag`), `reasons` the kinds of a cancel's reason as it
    /// crosses (`reason_kind`), `exits` the bits of a session's exits (`exit`), `records`
    /// how to read the records of [`Self::take_output`] (`wasm::output`'s schema: `kinds`,
    /// `fields`, `events`, `names`).
    #[must_use]
    pub fn constants_json() -> String {
        constants_with(super::output::schema)
    }

    /// Runs `f` with the session and the strings of the call (`Strings`), then frees the
    /// call's input buffer; with whether the JS layer's `flush()` has work.
    fn with_strings<R>(&mut self, f: impl FnOnce(&mut State, Strings<'_>) -> R) -> (R, bool) {
        let SessionCore { state, buffers, .. } = self;
        let bytes = if buffers.input.is_empty() { &buffers.scratch[..] } else { &buffers.input[..] };
        let result = f(state, Strings { bytes, at: 0 });
        // The call's input buffer, if it had one, is freed.
        buffers.input = Vec::new();
        (result, state.busy())
    }

    /// Keeps `refusal` for [`Self::take_error`]: returns `FAILED`.
    #[inline(never)]
    fn refuse(&mut self, refusal: Refusal) -> u32 {
        self.refusal = Some(refusal);
        code::FAILED
    }
}

/// `len` of an id that crossed as a number ([`crossed_id`]).
pub(super) const NUMBER_ID: u32 = u32::MAX;

/// Added to the method code of [`SessionCore::track_plain`]:
/// the request is watched (the JS layer listens to its caller's signal).
pub(super) const WATCH_BIT: u32 = 0x100;

/// A request id that crossed as numbers: the integer `num` when `len` is [`NUMBER_ID`],
/// else an ASCII string of `len` ≤ 11 bytes as three little-endian words
/// ([`PackedStr::from_words`]); `None` for a fraction or words that name no id. One copy for
/// the peer's fast paths and our cancel's (for size; each is microseconds of JS).
#[inline(never)]
fn crossed_id(num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> Option<IdRef<'static>> {
    if len == NUMBER_ID {
        match RequestId::from_f64(num) {
            Ok(RequestId::Number(n)) => Some(IdRef::Number(n)),
            _ => None,
        }
    } else {
        PackedStr::from_words(len, w0, w1, w2).map(|p| IdRef::Str(StrId::Packed(p)))
    }
}

/// The reason of a cancel as it crosses to the fast paths of cancels ([`SessionCore::peer_cancel`],
/// [`SessionCore::cancel_fast`]): `0` none, else `1 +` an upper bound of its bytes of UTF-8.
#[inline]
fn reason_bound(reason_bytes: u32) -> Option<usize> {
    reason_bytes.checked_sub(1).map(|n| n as usize)
}

/// A revision as [`SessionCore::revision`] gives it: `1 +` its discriminant (its index in
/// `Revision::ALL`), `0` for none.
fn revision_number(revision: Option<crate::core::Revision>) -> u32 {
    revision.map_or(0, |r| r as u32 + 1)
}

/// Whether the id and the progress token (if any) of our request are request ids: what
/// [`Session::handle_outgoing`] refuses first.
fn valid_request_ids(message: &Message<'_>) -> bool {
    message.id.to_request_id().is_ok()
        && (matches!(message.progress_token, crate::core::PeerValue::Absent)
            || message.progress_token.to_request_id().is_ok())
}

/// `text`, owned: one copy for the response's five members (for size: `.map(str::owned)`
/// at each of them is 83 bytes gzip more).
#[inline(never)]
fn owned(text: Option<&str>) -> Option<String> {
    text.map(str::owned)
}

/// A request id from a tagged member whose string crossed as bytes (`Strings`). One copy for
/// its six callers (for the `.wasm`'s size).
#[inline(never)]
fn id_of(tag: u32, number: f64, string: Option<&str>) -> Result<RequestId, crate::core::InvalidRequestId> {
    peer_value(tag, number, string).to_request_id()
}

pub(super) fn method_name_of(code: i32, name: Option<&str>) -> MethodName<'_> {
    match code {
        -1 => MethodName::Absent,
        -2 => MethodName::NotAString,
        0 => name.map_or(MethodName::NotAString, MethodName::from_name),
        c => Method::from_code(c.unsigned_abs()).map_or(MethodName::NotAString, MethodName::Known),
    }
}

/// The message `message` was given: its method (code, or name for code 0),
/// its id and the members `read`, each a tag with its number or string — `arg` is
/// `requestId`, `progressToken` or `_meta.progressToken`, whichever `read` names.
pub(super) fn read_message<'a>(
    (method_code, method_name): (i32, Option<&'a str>),
    (id_tag, id_num, id_str): (u32, f64, Option<&'a str>),
    read: u32,
    params_tag: u32,
    (arg_tag, arg_num, arg_str): (u32, f64, Option<&'a str>),
    (reason_tag, reason): (u32, Option<&'a str>),
    task_id: Option<&'a str>,
) -> Message<'a> {
    let mut message = Message::new(peer_value(id_tag, id_num, id_str), method_name_of(method_code, method_name));
    let read = Fields(read);
    message.read = read;
    // Only the type of `params` crosses: a string's content is not needed.
    message.params =
        if params_tag == tag::STRING { crate::core::PeerValue::String("") } else { peer_value(params_tag, 0.0, None) };
    let arg = peer_value(arg_tag, arg_num, arg_str);
    if read.contains(Fields::REQUEST_ID) {
        message.request_id = arg;
    } else if read.contains(Fields::PROGRESS_TOKEN) || read.contains(Fields::META_PROGRESS_TOKEN) {
        message.progress_token = arg;
    }
    if read.contains(Fields::REASON) {
        message.reason = peer_value(reason_tag, 0.0, reason);
    }
    message.task_id = task_id;
    message
}

/// The JSON of [`SessionCore::constants_json`] with `more` members written before its
/// closing brace (the relay's build adds its tables: `RelayCore.constantsJson()`).
pub(super) fn constants_with(more: impl FnOnce(&mut Json)) -> String {
    let mut json = Json(String::with_capacity(1536));
    json.0.push_str("{\"methods\":");
    json.array(Method::ALL, |json, m| json.string(m.name()));
    let codes = || ::core::iter::once(None).chain(Method::ALL.iter().copied().map(Some));
    for (name, incoming) in [("incoming", true), ("outgoing", false)] {
        json.key(name);
        json.array(codes(), |json, m| json.number(Method::fields(m, incoming).0));
    }
    json.object(
        "fields",
        &[
            ("params", Fields::PARAMS.0),
            ("requestId", Fields::REQUEST_ID.0),
            ("reason", Fields::REASON.0),
            ("progressToken", Fields::PROGRESS_TOKEN.0),
            ("metaProgressToken", Fields::META_PROGRESS_TOKEN.0),
            ("task", Fields::TASK.0),
            ("taskId", Fields::TASK_ID.0),
            ("status", Fields::STATUS.0),
            ("resultTaskId", Fields::RESULT_TASK_ID.0),
            ("resultTaskStatus", Fields::RESULT_TASK_STATUS.0),
            ("protocolVersion", Fields::PROTOCOL_VERSION.0),
            ("errorCode", Fields::ERROR_CODE.0),
            ("metaProtocolVersion", Fields::META_PROTOCOL_VERSION.0),
        ],
    );
    json.strings(
        "names",
        &[
            ("cancelled", Method::Cancelled.name()),
            ("tasksCancel", Method::TasksCancel.name()),
            ("metaProtocolVersion", crate::core::META_PROTOCOL_VERSION),
        ],
    );
    json.failure("timeoutError", crate::core::Failure::Timeout);
    json.object(
        "tags",
        &[
            ("absent", tag::ABSENT),
            ("null", tag::NULL),
            ("boolean", tag::BOOL),
            ("number", tag::NUMBER),
            ("string", tag::STRING),
            ("array", tag::ARRAY),
            ("object", tag::OBJECT),
            ("oversized", tag::OVERSIZED),
        ],
    );
    json.object(
        "verdicts",
        &[
            ("pass", code::PASS),
            ("drop", code::DROP),
            ("needFields", code::NEED_FIELDS),
            ("aborted", code::ABORTED),
            ("failed", code::FAILED),
            ("options", code::OPTIONS),
            ("tracked", code::TRACKED),
            ("watched", code::WATCHED),
            ("settled", code::SETTLED),
            ("busy", code::BUSY),
        ],
    );
    json.key("maxPeerString");
    json.number(super::convert::MAX_PEER_STRING);
    json.key("maxReasonBytes");
    json.number(super::options::MAX_REASON_BYTES);
    json.key("maxWordsId");
    json.number(PackedStr::MAX_BYTES as u32);
    json.key("numberId");
    json.number(NUMBER_ID);
    json.key("watchBit");
    json.number(WATCH_BIT);
    json.key("scratchBytes");
    json.number(SCRATCH_BYTES as u32);
    json.key("noString");
    json.number(NO_STRING);
    json.object(
        "optionFlags",
        &[
            ("server", options::flag::SERVER),
            ("streamableHttp", options::flag::STREAMABLE_HTTP),
            ("exposeGiven", options::flag::EXPOSE_GIVEN),
            ("expose", options::flag::EXPOSE),
            ("timeoutGiven", options::flag::TIMEOUT_GIVEN),
            ("resetOnProgress", options::flag::RESET_ON_PROGRESS),
            ("invalid", options::flag::INVALID),
        ],
    );
    json.object(
        "reasons",
        &[
            ("none", reason_kind::NONE),
            ("text", reason_kind::TEXT),
            ("error", reason_kind::ERROR),
            ("other", reason_kind::OTHER),
        ],
    );
    json.object("exits", &[("send", exit::SEND), ("closeStream", exit::CLOSE_STREAM)]);
    more(&mut json);
    json.0.push('}');
    json.0
}
