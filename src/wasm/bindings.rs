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
    IdRef, Message, MessageFields as Fields, Method, MethodName, PackedStr, PeerValue, ProgressVerdict, Reason,
    RequestId, Session, StrId, Timeout, Verdict,
};

/// A verdict as the number the JS layer reads: `0` pass, `1` drop, `2 | fields << 8` read
/// those members too and call again.
pub(super) mod code {
    pub const PASS: u32 = 0;
    pub const DROP: u32 = 1;
    pub const NEED_FIELDS: u32 = 2;
    /// From `outgoing` and `track`: a request sent with a signal that has aborted: not
    /// tracked, not to be sent (the JS layer throws the signal's reason, as `fetch` does).
    pub const ABORTED: u32 = 4;
    /// Added to `PASS` by `outgoing`: our message is a request, now tracked.
    pub const TRACKED: u32 = 0x20;
    /// Added to `PASS` by `outgoing` with a live signal: the request is watched (the JS
    /// layer listens to the signal until the request's `settled` record).
    pub const WATCHED: u32 = 0x40;
    /// Added to `PASS` by `response` (the response settled our watched request) and by
    /// `outgoing` (our response ended the peer's watched request) when that one record was
    /// all the output: it is not queued (`Session::take_settled`, the one place a lone
    /// settlement is cheap), the JS layer releases the request's objects itself.
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

/// The signal a request is made with (`track`'s and `outgoing`'s `signal`): `0` none.
mod send_signal {
    /// Live.
    pub const LIVE: u32 = 1;
    /// Aborted before the message was sent.
    pub const ABORTED: u32 = 2;
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
/// most bytes of strings a call writes there (more go to [`SessionCore::input_at`]'s buffer).
const SCRATCH_BYTES: usize = 256;

/// The length of a string argument that is absent (`undefined`), in place of its length in
/// bytes (`constants_json().noString`).
pub(super) const NO_STRING: u32 = u32::MAX;

/// The strings of one call, read in the order of its arguments:
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
    ///
    /// An absent string is seen inline; any other is read by one shared copy
    /// ([`Self::next_present`], for the `.wasm`'s size: inlined, it is in ~17 entry points).
    #[inline]
    fn next(&mut self, len: u32) -> Option<&'a str> {
        if len == NO_STRING {
            return None;
        }
        self.next_present(len)
    }

    /// [`Self::next`] of a string that is not absent.
    #[inline(never)]
    fn next_present(&mut self, len: u32) -> Option<&'a str> {
        let end = self.at.checked_add(len as usize)?;
        let bytes = self.bytes.get(self.at..end)?;
        self.at = end;
        ::core::str::from_utf8(bytes).ok()
    }

    /// An `ID`: the one way an id-like value crosses (a request id, a progress token, a
    /// cancel's `requestId`) — five scalars `num, len, w0, w1, w2`, decoded here and nowhere
    /// else:
    /// - `len` [`NUMBER_ID`] (`constants_json().numberId`): the JS number `num` (any number:
    ///   the core judges fractions, NaN, the range);
    /// - `len` `u32::MAX - 1 - tag` (`constants_json().idLen`, [`id_len`]): a value that is
    ///   neither a number nor a string, `tag` from `convert::tag` (absent, null, a boolean, an
    ///   array, an object; a string too long to cross, oversized);
    /// - `len` with [`IN_BUFFER`] (`constants_json().inBuffer`): a string of
    ///   `len & !IN_BUFFER` bytes of UTF-8, the next string of the call (`Strings`: strings
    ///   are read in the order of the arguments, an `ID`'s at its place);
    /// - otherwise an ASCII string of `len` ≤ [`PackedStr::MAX_BYTES`] (11) bytes packed into
    ///   `w0`–`w2`, little-endian, byte 0 lowest of `w0` ([`PackedStr::from_words`]: nothing
    ///   written to memory, nothing allocated); words that name no such string are absent.
    ///
    /// `w0`–`w2` are `0` when unused. Inlined into the hot paths (`track`'s id, `response`),
    /// which decode their ids with no call; the others share [`Self::id_shared`].
    #[inline(always)]
    fn id(&mut self, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> Crossed<'a> {
        if len == NUMBER_ID {
            return match RequestId::from_f64(num) {
                Ok(RequestId::Number(n)) => Crossed::Id(IdRef::Number(n)),
                _ => Crossed::Not(PeerValue::Number(num)),
            };
        }
        if len >= id_len(tag::OVERSIZED) {
            return Crossed::Not(match NUMBER_ID - 1 - len {
                tag::NULL => PeerValue::Null,
                tag::BOOL => PeerValue::Bool,
                tag::ARRAY => PeerValue::Array,
                tag::OBJECT => PeerValue::Object,
                tag::OVERSIZED => PeerValue::Oversized,
                _ => PeerValue::Absent,
            });
        }
        if len & IN_BUFFER != 0 {
            return match self.next(len & !IN_BUFFER) {
                Some(text) => Crossed::Id(IdRef::Str(StrId::Text(text))),
                None => Crossed::Not(PeerValue::Absent),
            };
        }
        match PackedStr::from_words(len, w0, w1, w2) {
            Some(packed) => Crossed::Id(IdRef::Str(StrId::Packed(packed))),
            None => Crossed::Not(PeerValue::Absent),
        }
    }

    /// [`Self::id`], one copy for the entry points off the hot path (for the `.wasm`'s size).
    #[inline(never)]
    fn id_shared(&mut self, num: f64, len: u32, w0: u32, w1: u32, w2: u32) -> Crossed<'a> {
        self.id(num, len, w0, w1, w2)
    }
}

/// `len` of an `ID` that crossed as a number ([`Strings::id`]; `constants_json().numberId`).
pub(super) const NUMBER_ID: u32 = u32::MAX;

/// The bit of an `ID`'s `len` that says its string is in the call's strings ([`Strings::id`];
/// `constants_json().inBuffer`).
pub(super) const IN_BUFFER: u32 = 0x8000_0000;

/// `len` of an `ID` that crossed as the tag `tag` of a value that is neither a number nor a
/// string ([`Strings::id`]; `constants_json().idLen`).
const fn id_len(tag: u32) -> u32 {
    NUMBER_ID - 1 - tag
}

/// An `ID` as it crossed ([`Strings::id`]).
#[derive(Clone, Copy)]
enum Crossed<'a> {
    /// A request id: an integer, or a string (packed, or in the call's strings).
    Id(IdRef<'a>),
    /// Any other value, as the JS reader tagged it (a number that is no request id included).
    Not(PeerValue<'a>),
}

impl<'a> Crossed<'a> {
    /// As a request id, borrowed.
    ///
    /// # Errors
    /// What is wrong with it as a request id.
    #[inline(always)]
    fn id(self) -> Result<IdRef<'a>, crate::core::InvalidRequestId> {
        match self {
            Crossed::Id(id) => Ok(id),
            Crossed::Not(value) => value.to_id_ref(),
        }
    }

    /// As a member of a message: a packed string unpacked into `text`.
    fn value<'b>(self, text: &'b mut [u8; 16]) -> PeerValue<'b>
    where
        'a: 'b,
    {
        match self {
            // An id is within ±(2^53 − 1): exact as an `f64`.
            Crossed::Id(IdRef::Number(n)) => PeerValue::Number(n as f64),
            Crossed::Id(IdRef::Str(StrId::Text(s))) => PeerValue::String(s),
            Crossed::Id(IdRef::Str(StrId::Packed(p))) => PeerValue::String(p.text(text)),
            Crossed::Not(value) => value,
        }
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

    /// [`Self::busy`] inlined, for the entry points of bench scenario 1b (`track`,
    /// `response`): a call there costs scenario 1b with number ids ~3 ns (7%).
    #[inline(always)]
    fn busy_hot(&self) -> bool {
        self.core.has_output() || self.core.poll_timeout() != self.armed
    }

    /// Whether our request of method `known` may be tracked: one that may cancel itself —
    /// `watch` (the caller's signal), or timeouts to run with (its own `timeout`, else the
    /// session's defaults: [`Session::timeout_of`]) — only in a session with an exit for its
    /// cancel (`send` or `closeStream`): otherwise `track` and `outgoing` (`beforeSend`) say
    /// `ERR_SEND_REQUIRED`.
    #[inline]
    fn has_exit_for(&self, watch: bool, known: Option<Method>, timeout: Option<Timeout>) -> bool {
        self.exits != 0 || !(watch || self.core.timeout_of(known, timeout).is_set())
    }
}

/// The buffers JS writes a call's strings into.
struct Buffers {
    /// Where JS writes the UTF-8 of the strings of a call (`Strings`) ([`SCRATCH_BYTES`],
    /// never resized, so its address stays): a string crosses once,
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
    /// `genericReason`, `timeoutReason` and `cascadeReason` and the `protocolVersion` to follow, each its
    /// length in bytes and its UTF-8 in the scratch buffer, in this order (`Strings`;
    /// `NO_STRING`: not given). `BUSY` when that left output (a protocol version's event),
    /// else `0`.
    pub fn configure(
        &mut self,
        generic_reason_len: u32,
        timeout_reason_len: u32,
        cascade_reason_len: u32,
        protocol_version_len: u32,
    ) -> u32 {
        let outcome = self.call(false, |st, mut strings| {
            let generic = strings.next(generic_reason_len);
            let timeout = strings.next(timeout_reason_len);
            st.core.set_reason_texts(generic, timeout, strings.next(cascade_reason_len));
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
    ///   `"timeout"` or `"max-total"` and `message` the `TimeoutError`'s text; `cascaded`
    ///   when the peer cancelled the request it was sent for ([`Session::relate`]);
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

    /// A `notifications/progress` from the peer with this `params.progressToken` (an `ID`,
    /// `Strings::id`): `1` (drop) when it is late — its request was cancelled or is no longer
    /// in flight — else `0` (pass). `shouldDropProgress(token)`'s own entry point: five
    /// scalars, where [`Self::incoming`] takes nineteen (a call per progress notification;
    /// 2025-11-25 basic/utilities/progress).
    pub fn progress(&mut self, token_num: f64, token_len: u32, token_w0: u32, token_w1: u32, token_w2: u32) -> u32 {
        let (late, busy) = self.call(false, |st, mut strings| {
            // A token that is not a request id is not ours to judge (as `incoming` decides it).
            let Ok(token) = strings.id_shared(token_num, token_len, token_w0, token_w1, token_w2).id() else {
                return false;
            };
            let now = if st.core.poll_timeout().is_some() { convert::now_ms() } else { 0 };
            st.core.handle_progress(token, now) == ProgressVerdict::Late
        });
        (if late { code::DROP } else { code::PASS }) | code::busy(busy)
    }

    /// A message from the peer that is not a response ([`Self::response`]): a request, or a
    /// notification ([`Session::handle_incoming`]). Its `id` (an `ID`, `Strings::id`; absent
    /// for a notification: `idLen.absent`), its method (`method_code`, or `method_len`'s name
    /// for code 0; −1: no `method`, −2: not a string), and the members `read` (each as a tag,
    /// see `convert::tag`, with its string: `params_tag` the type of `params`; `arg` (an `ID`)
    /// `params.requestId`, `params.progressToken` or `params._meta.progressToken`, whichever
    /// `read` names; `params.reason`; `params.taskId`, `params.status`; `task` whether
    /// `params.task` is an object). Each string is its length in bytes, its UTF-8 in the
    /// scratch buffer, in the order of the arguments (`Strings`). Returns the verdict number
    /// (see `code`: pass, drop, or the members to read too). Never refused.
    ///
    /// A request is recorded as in flight; a valid cancel of one leaves its `peerCancelled`
    /// record (the JS layer aborts the request's work with the peer's reason); a late
    /// progress, an invalid cancel: drop.
    #[allow(clippy::too_many_arguments)]
    pub fn incoming(
        &mut self,
        id_num: f64,
        id_len: u32,
        id_w0: u32,
        id_w1: u32,
        id_w2: u32,
        method_code: i32,
        method_len: u32,
        read: u32,
        params_tag: u32,
        arg_num: f64,
        arg_len: u32,
        arg_w0: u32,
        arg_w1: u32,
        arg_w2: u32,
        reason_tag: u32,
        reason_len: u32,
        task_id_len: u32,
        status_len: u32,
        task: bool,
    ) -> u32 {
        let (verdict, busy) = self.call(false, |st, mut strings| {
            let mut texts = [[0; 16]; 2];
            let mut message = crossed_message(
                &mut strings,
                &mut texts,
                [id_num, arg_num],
                [id_len, id_w0, id_w1, id_w2, arg_len, arg_w0, arg_w1, arg_w2],
                method_code,
                [method_len, read, params_tag, reason_tag, reason_len, task_id_len],
                task,
            );
            message.status = strings.next(status_len);
            let now = if st.core.poll_timeout().is_some() { convert::now_ms() } else { 0 };
            verdict_code(st.core.handle_incoming(&message, now))
        });
        verdict | code::busy(busy)
    }

    /// A message we are about to send that is not a request tracked by [`Self::track`]: our
    /// request as an SDK sends it (`beforeSend`), our response to a request of the peer's,
    /// or a notification ([`Session::handle_outgoing`]). `signal` is the signal it is sent
    /// with (`0` none, `1` live, `2` aborted); the other arguments are [`Self::incoming`]'s
    /// (no `params.status`). Returns the verdict number (see `code`).
    ///
    /// Our request is tracked (`0 | TRACKED`, and `| WATCHED` with a live signal: the JS layer
    /// listens to it until the request's `settled` record), or with an aborted signal not
    /// (`ABORTED`: not to be sent); the SDK's own `notifications/cancelled` is `1` (not to be
    /// sent as it is: the cancel it made, if any, is in the output, which the JS layer sends
    /// in its place); our response is `0` (send it) or `1` (the peer cancelled that request:
    /// suppressed), with `SETTLED` added when it ended the peer's watched request and that was
    /// all the output (no `inboundSettled` record: the JS layer releases its objects itself).
    /// Refused (`FAILED`, see [`Self::take_error`]): `InvalidArgumentError`
    /// `ERR_INVALID_REQUEST_ID` for a request whose id or progress token is not one;
    /// `UsageError` `ERR_SEND_REQUIRED`, `ERR_ALREADY_IN_FLIGHT`, `ERR_PROGRESS_TOKEN_IN_USE`.
    #[allow(clippy::too_many_arguments)]
    pub fn outgoing(
        &mut self,
        signal: u32,
        id_num: f64,
        id_len: u32,
        id_w0: u32,
        id_w1: u32,
        id_w2: u32,
        method_code: i32,
        method_len: u32,
        read: u32,
        params_tag: u32,
        arg_num: f64,
        arg_len: u32,
        arg_w0: u32,
        arg_w1: u32,
        arg_w2: u32,
        reason_tag: u32,
        reason_len: u32,
        task_id_len: u32,
        task: bool,
    ) -> u32 {
        let (result, busy) = self.call(false, |st, mut strings| {
            let mut texts = [[0; 16]; 2];
            let message = crossed_message(
                &mut strings,
                &mut texts,
                [id_num, arg_num],
                [id_len, id_w0, id_w1, id_w2, arg_len, arg_w0, arg_w1, arg_w2],
                method_code,
                [method_len, read, params_tag, reason_tag, reason_len, task_id_len],
                task,
            );
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
                Ok(verdict) => {
                    // Our response: the peer's watched request it ended, if that is all.
                    let response = matches!(message.method, MethodName::Absent);
                    let settled = response && message.id.to_id_ref().is_ok_and(|id| st.core.take_settled(id, true));
                    Ok(verdict_code(verdict) | if settled { code::SETTLED } else { 0 })
                }
            }
        });
        result.unwrap_or_else(|refusal| self.refuse(refusal)) | code::busy(busy)
    }

    /// A response from the peer: its id (an `ID`, `Strings::id`), and the members of its
    /// `result` or `error` the core asked for (`read`): `result.task.taskId`,
    /// `result.resultType`, `result.taskId`, `result.status`, `result.protocolVersion`, and
    /// `error.code` (`has_error` when the message has an `error`; `error_code` NaN when its
    /// code is not a number) — [`Session::handle_incoming_response`]. The first call reads
    /// none (`read` 0): the core answers `2 | fields << 8` when it needs some, and is called
    /// again with them. `0` (deliver) or `1` (drop: late, or our own `tasks/cancel`'s
    /// answer), with `code::SETTLED` added when the response settled a watched request and
    /// that was all the output: no `settled` record is queued for it (the JS layer releases its
    /// objects itself). An id that is not a request id: `0` (not ours). Each string is its
    /// length in bytes, its UTF-8 in the scratch buffer, in the order of the arguments
    /// (`Strings`). `shouldDropResponse(id)` and the guard's responses: with bench scenario
    /// 1b's track, the hot path (`[hot]`, `State::busy_hot`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)] // into its one export: the hot path
    pub fn response(
        &mut self,
        id_num: f64,
        id_len: u32,
        id_w0: u32,
        id_w1: u32,
        id_w2: u32,
        read: u32,
        task_task_id_len: u32,
        result_type_len: u32,
        result_task_id_len: u32,
        result_status_len: u32,
        protocol_version_len: u32,
        has_error: bool,
        error_code: f64,
    ) -> u32 {
        let outcome = self.call(true, move |st, mut strings| match strings.id(id_num, id_len, id_w0, id_w1, id_w2) {
            Crossed::Id(id) => {
                let lens =
                    [task_task_id_len, result_type_len, result_task_id_len, result_status_len, protocol_version_len];
                let info = (read != 0).then(|| read_response(&mut strings, lens, has_error, error_code));
                Some(answered(&mut st.core, id, Fields(read), info.as_ref()))
            }
            // Not a request id: not ours.
            Crossed::Not(_) => None,
        });
        let (Some(verdict), busy) = outcome else { return code::PASS };
        verdict | code::busy(busy)
    }

    /// Where JS writes the strings of a call (`Strings`): its address in the module's memory,
    /// `constants_json().scratchBytes` long. The address stays for the session's life; a view
    /// of it is detached when the memory grows, and is made again.
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

    /// Tracks a request we send (`track(id, method, options)`) — [`Session::track`] — with
    /// its id (an `ID`, `Strings::id`), its method (`method_code`, or `method_len`'s name
    /// for code 0) and its options as js/options.js `trackOptions` reads them: `signal` the
    /// caller's signal (`0` none, `1` live, `2` aborted), the progress token
    /// `params._meta.progressToken` (an `ID`; `idLen.absent` when not given), `task` whether
    /// `params.task` is an object, `task_ref` `params.taskId` when it is a string,
    /// `timeout_ms`/`max_total_ms` (`NaN`: not given) and `flags` (`optionFlags.timeoutGiven`,
    /// `optionFlags.resetOnProgress`, `optionFlags.invalid` when a member has the wrong type).
    /// With a live signal the request is watched: the JS layer listens to the signal until the
    /// request's `settled` record. With bench scenario 1b's response, the hot path (`[hot]`,
    /// `State::busy_hot`).
    ///
    /// Returns `0` (tracked), `OPTIONS` (the id and the method are right, but the options
    /// are not: the JS layer throws its own error), `ABORTED` (the caller's signal has
    /// aborted: nothing is tracked, the JS layer throws its `reason`), or `FAILED`
    /// ([`Self::take_error`]): `InvalidArgumentError` (`ERR_INVALID_REQUEST_ID` for the id or
    /// the progress token, `ERR_INVALID_ARGUMENT` for a method that is not a string);
    /// `UsageError` (`ERR_SEND_REQUIRED`, `ERR_ALREADY_IN_FLIGHT`,
    /// `ERR_PROGRESS_TOKEN_IN_USE`), in that order. Each string is its length in
    /// bytes, its UTF-8 in the scratch buffer, in the order of the arguments (`Strings`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)] // into its one export: the hot path
    pub fn track(
        &mut self,
        id_num: f64,
        id_len: u32,
        id_w0: u32,
        id_w1: u32,
        id_w2: u32,
        method_code: i32,
        method_len: u32,
        signal: u32,
        token_num: f64,
        token_len: u32,
        token_w0: u32,
        token_w1: u32,
        token_w2: u32,
        task: bool,
        task_ref_len: u32,
        timeout_ms: f64,
        max_total_ms: f64,
        flags: u32,
    ) -> u32 {
        let outcome = self.call(true, move |st, mut strings| {
            let id = match strings.id(id_num, id_len, id_w0, id_w1, id_w2) {
                Crossed::Id(id) => id,
                Crossed::Not(value) => return Err(Untracked::Id(not_an_id(value))),
            };
            let method = method_name_of(method_code, strings.next(method_len));
            if !matches!(method, MethodName::Known(_) | MethodName::Other(_)) {
                return Err(Untracked::Method);
            }
            if flags & options::flag::INVALID != 0 {
                return Ok(code::OPTIONS);
            }
            // A progress token is rarely given: an absent one is seen inline, any other is
            // decoded by the shared copy (a second decoder inlined here is 116 B of the
            // `.wasm`'s gzip).
            let crossed = if token_len == self::id_len(tag::ABSENT) {
                Crossed::Not(PeerValue::Absent)
            } else {
                strings.id_shared(token_num, token_len, token_w0, token_w1, token_w2)
            };
            let token = match crossed {
                Crossed::Not(PeerValue::Absent) => None,
                Crossed::Id(token) => Some(token),
                Crossed::Not(value) => return Err(Untracked::Token(not_an_id(value))),
            };
            let task_ref = strings.next(task_ref_len);
            let timeout = options::timeout(flags, timeout_ms, max_total_ms);
            if signal == send_signal::ABORTED {
                return Ok(code::ABORTED);
            }
            let watch = signal == send_signal::LIVE;
            let known = method.known();
            if !st.has_exit_for(watch, known, timeout) {
                return Err(Untracked::SendRequired);
            }
            let now = if timeout.unwrap_or(st.core.config().timeout).is_set() { convert::now_ms() } else { 0 };
            st.core
                .track_entry(id, method, token, task, task_ref, timeout, watch, now)
                .map(|()| code::PASS)
                .map_err(Untracked::Usage)
        });
        match outcome {
            (Ok(verdict), busy) => verdict | code::busy(busy),
            (Err(untracked), busy) => self.refuse(untracked.refusal()) | code::busy(busy),
        }
    }

    /// Marks our request (with `inbound`, the peer's) `id` (an `ID`, `Strings::id`) as
    /// watched ([`Session::watch`], [`Session::watch_inbound`]): the JS layer keeps objects
    /// for it (its signal's controller) and learns from the output's records when to abort or
    /// release them. `1`: watched; `0`: not in flight; `FAILED` ([`Self::take_error`]):
    /// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID`.
    pub fn watch(&mut self, inbound: bool, id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32) -> u32 {
        let (result, _) = self.call(false, |st, mut strings| {
            let id = strings.id_shared(id_num, id_len, id_w0, id_w1, id_w2).id().map_err(|e| {
                let what = if inbound { "inboundSignal(): request id" } else { "signal(): request id" };
                Refusal::invalid_id(what, e, Subject::Id)
            })?;
            Ok(u32::from(if inbound { st.core.watch_inbound(id) } else { st.core.watch(id) }))
        });
        result.unwrap_or_else(|refusal| self.refuse(refusal))
    }

    /// Cancels our request `id` (an `ID`, `Strings::id`) with a reason — the one cancel path,
    /// [`Session::cancel`] — for `cancel(id, reason)` (`aborted` false) or the abort of the
    /// caller's signal it was tracked with (`aborted` true): `1` when a cancel was made, `0`
    /// when not. What it made is in the output, in order: its event, the cancel to put on the
    /// wire (`notify`, which the JS layer sends, or without `send` returns from `cancel()` — an
    /// abort's always goes to `send`; `close`; `tasksCancel`), `cancelled`, then `settled` for
    /// a watched request. The reason crosses as `reason_kind` (`constants_json().reasons`)
    /// with `reason` — the text, an error's `name`, or the JSON of anything else — and an
    /// error's `message` in `message`. Each string is its length in bytes, its UTF-8 in the
    /// scratch buffer, in the order of the arguments (`Strings`).
    ///
    /// Refused (`FAILED`, [`Self::take_error`]), `cancel()` only: `InvalidArgumentError`
    /// `ERR_INVALID_REQUEST_ID`; `UsageError` `ERR_HANDSHAKE_NOT_CANCELLABLE`. An abort is
    /// never refused: `0` (the handshake is reported as an event and kept).
    ///
    /// Spec: every revision §Cancellation "Behavior Requirements".
    #[allow(clippy::too_many_arguments)] // numbers only
    pub fn cancel(
        &mut self,
        aborted: bool,
        id_num: f64,
        id_len: u32,
        id_w0: u32,
        id_w1: u32,
        id_w2: u32,
        reason_kind: u32,
        reason_len: u32,
        message_len: u32,
    ) -> u32 {
        let (result, busy) = self.call(false, |st, mut strings| {
            let id = strings
                .id_shared(id_num, id_len, id_w0, id_w1, id_w2)
                .id()
                .map_err(|e| Refusal::invalid_id("cancel(): request id", e, Subject::Id))?;
            let reason = reason_of(reason_kind, strings.next(reason_len), strings.next(message_len));
            st.core.cancel(id, &reason).map(u32::from).map_err(|e| Refusal::usage(&e))
        });
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
        let outcome = self.call(false, |st, mut strings| {
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

    /// Whether our request `id` (an `ID`, `Strings::id`) is in flight: it can still be
    /// cancelled (in flight, or its task running) — [`Session::is_in_flight`].
    pub fn is_in_flight(&mut self, id_num: f64, id_len: u32, id_w0: u32, id_w1: u32, id_w2: u32) -> bool {
        let (in_flight, _) = self.call(false, |st, mut strings| {
            strings.id_shared(id_num, id_len, id_w0, id_w1, id_w2).id().is_ok_and(|id| st.core.is_in_flight(id))
        });
        in_flight
    }

    /// Makes our request `child` (an `ID`, `Strings::id`) a child of the peer's request
    /// `parent` (an `ID`) — [`Session::relate`]: `1` when related, `0` when either is not in
    /// flight or is no request id (nothing to relate: the SDK's `relatedRequestId` of a
    /// request that ended).
    #[allow(clippy::too_many_arguments)] // two `ID`s
    pub fn relate(
        &mut self,
        child_num: f64,
        child_len: u32,
        child_w0: u32,
        child_w1: u32,
        child_w2: u32,
        parent_num: f64,
        parent_len: u32,
        parent_w0: u32,
        parent_w1: u32,
        parent_w2: u32,
    ) -> u32 {
        let (related, _) = self.call(false, |st, mut strings| {
            let child = strings.id_shared(child_num, child_len, child_w0, child_w1, child_w2).id();
            let parent = strings.id_shared(parent_num, parent_len, parent_w0, parent_w1, parent_w2).id();
            matches!((child, parent), (Ok(c), Ok(p)) if st.core.relate(c, p))
        });
        u32::from(related)
    }

    /// How many of our requests are in flight, as `isInFlight` says
    /// ([`Session::in_flight_count`]).
    pub fn in_flight_count(&self) -> usize {
        self.state.core.in_flight_count()
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
    /// maxPeerString, maxReasonBytes, maxWordsId, numberId, inBuffer, idLen, scratchBytes,
    /// noString, optionFlags, reasons, exits, records }` (the
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
    /// words ([`PackedStr::MAX_BYTES`]); `numberId`, `inBuffer` and `idLen` (by tag: `absent`,
    /// `null`, `boolean`, `array`, `object`, `oversized`) how an `ID` says what it is
    /// (`Strings::id`); `scratchBytes` the size of a session's scratch
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
    /// call's input buffer; with whether the JS layer's `flush()` has work ([`State::busy`],
    /// or with `hot` [`State::busy_hot`], inlined: the hot paths of bench scenario 1b).
    #[inline(always)]
    fn call<R>(&mut self, hot: bool, f: impl FnOnce(&mut State, Strings<'_>) -> R) -> (R, bool) {
        let SessionCore { state, buffers, .. } = self;
        let bytes = if buffers.input.is_empty() { &buffers.scratch[..] } else { &buffers.input[..] };
        let result = f(state, Strings { bytes, at: 0 });
        if hot {
            if !buffers.input.is_empty() {
                buffers.input = Vec::new();
            }
            (result, state.busy_hot())
        } else {
            (result, end_call(state, buffers))
        }
    }

    /// Keeps `refusal` for [`Self::take_error`]: returns `FAILED`.
    #[inline(never)]
    fn refuse(&mut self, refusal: Refusal) -> u32 {
        self.refusal = Some(refusal);
        code::FAILED
    }
}

/// The end of a call ([`SessionCore::call`]) but a hot path's: frees the call's input buffer;
/// whether the JS layer's `flush()` has work ([`State::busy`]). Written once, not inlined into
/// every entry point (for the `.wasm`'s size).
#[inline(never)]
fn end_call(state: &State, buffers: &mut Buffers) -> bool {
    if !buffers.input.is_empty() {
        buffers.input = Vec::new();
    }
    state.busy()
}

/// A revision as [`SessionCore::revision`] gives it: `1 +` its discriminant (its index in
/// `Revision::ALL`), `0` for none.
fn revision_number(revision: Option<crate::core::Revision>) -> u32 {
    revision.map_or(0, |r| r as u32 + 1)
}

/// Whether the id and the progress token (if any) of our request are request ids: what
/// [`Session::handle_outgoing`] refuses first.
fn valid_request_ids(message: &Message<'_>) -> bool {
    message.id.to_id_ref().is_ok()
        && (matches!(message.progress_token, crate::core::PeerValue::Absent)
            || message.progress_token.to_id_ref().is_ok())
}

/// [`SessionCore::response`]'s verdict number for a response to `id` with the members `read`
/// (`info`): with `SETTLED` added when it settled a watched request and that was all the
/// output.
#[inline(always)]
fn answered(core: &mut Session<Records>, id: IdRef<'_>, read: Fields, info: Option<&crate::core::ResponseInfo>) -> u32 {
    let verdict = core.incoming_response(id, read, info);
    let settled = !matches!(verdict, Verdict::NeedFields(_)) && core.take_settled(id, false);
    verdict_code(verdict) | if settled { code::SETTLED } else { 0 }
}

/// Why [`SessionCore::track`] refused a request, made into its [`Refusal`] off the hot path
/// (a `Refusal` returned through the call is a copy of ~60 bytes on it).
enum Untracked {
    /// The id is no request id.
    Id(crate::core::InvalidRequestId),
    /// The method is not a string.
    Method,
    /// The progress token is no request id.
    Token(crate::core::InvalidRequestId),
    /// It may cancel itself, and the session has nowhere to send that cancel.
    SendRequired,
    /// The core refused it.
    Usage(crate::core::UsageError),
}

/// Why `value`, a value that crossed as no request id ([`Crossed::Not`]), is none.
#[cold]
#[inline(never)]
fn not_an_id(value: PeerValue<'_>) -> crate::core::InvalidRequestId {
    value.to_id_ref().err().unwrap_or(crate::core::InvalidRequestId::TooLong)
}

impl Untracked {
    #[cold]
    #[inline(never)]
    fn refusal(self) -> Refusal {
        match self {
            Untracked::Id(e) => Refusal::invalid_id("track(): request id", e, Subject::Id),
            Untracked::Method => {
                Refusal::invalid_argument("track(): `method` must be a string", "ERR_INVALID_ARGUMENT", Subject::None)
            }
            Untracked::Token(e) => Refusal::invalid_id("track(): params._meta.progressToken", e, Subject::Token),
            Untracked::SendRequired => Refusal::send_required("track()"),
            Untracked::Usage(e) => Refusal::usage(&e),
        }
    }
}

/// The response members of [`SessionCore::response`] that were read: the strings of `lens`
/// (`result.task.taskId`, `result.resultType`, `result.taskId`, `result.status`,
/// `result.protocolVersion`) and `error.code`. Off the hot path (a response read with no
/// member).
#[inline(never)]
fn read_response(
    strings: &mut Strings<'_>,
    lens: [u32; 5],
    has_error: bool,
    error_code: f64,
) -> crate::core::ResponseInfo {
    let [task_task_id, result_type, result_task_id, result_status, protocol_version] =
        lens.map(|len| owned(strings.next(len)));
    convert::response_info(
        task_task_id,
        result_type,
        result_task_id,
        result_status,
        protocol_version,
        has_error,
        error_code,
    )
}

/// `text`, owned: one copy for the response's five members (for size: `.map(str::owned)`
/// at each of them is 83 bytes gzip more).
#[inline(never)]
fn owned(text: Option<&str>) -> Option<String> {
    text.map(str::owned)
}

#[inline]
pub(super) fn method_name_of(code: i32, name: Option<&str>) -> MethodName<'_> {
    match code {
        -1 => MethodName::Absent,
        -2 => MethodName::NotAString,
        0 => name.map_or(MethodName::NotAString, MethodName::from_name),
        c => Method::from_code(c.unsigned_abs()).map_or(MethodName::NotAString, MethodName::Known),
    }
}

/// A message as the relay's `message` gives it: its method (code, or name for code 0), its
/// id and the members `read`, each a tag with its number or string — `arg` is `requestId`,
/// `progressToken` or `_meta.progressToken`, whichever `read` names ([`message_of`]).
#[cfg(feature = "relay")]
pub(super) fn read_message<'a>(
    (method_code, method_name): (i32, Option<&'a str>),
    (id_tag, id_num, id_str): (u32, f64, Option<&'a str>),
    read: u32,
    params_tag: u32,
    (arg_tag, arg_num, arg_str): (u32, f64, Option<&'a str>),
    reason: (u32, Option<&'a str>),
    task_id: Option<&'a str>,
) -> Message<'a> {
    let id = peer_value(id_tag, id_num, id_str);
    let arg = peer_value(arg_tag, arg_num, arg_str);
    message_of(method_name_of(method_code, method_name), id, read, params_tag, arg, reason, task_id)
}

/// The message of [`SessionCore::incoming`] and [`SessionCore::outgoing`] from their
/// arguments, read in their order (their id, method, `arg`, reason and `params.taskId`:
/// `nums` `[id_num, arg_num]`, `ids` `[id_len, id_w0..2, arg_len, arg_w0..2]`, `rest`
/// `[method_len, read, params_tag, reason_tag, reason_len, task_id_len]`); a packed string
/// unpacked into `texts`. One copy for both, for size (inlined into each, it is ~90 B more of
/// the `.wasm`'s gzip).
#[inline(never)]
fn crossed_message<'a: 'b, 'b>(
    strings: &mut Strings<'a>,
    texts: &'b mut [[u8; 16]; 2],
    nums: [f64; 2],
    ids: [u32; 8],
    method_code: i32,
    rest: [u32; 6],
    task: bool,
) -> Message<'b> {
    let [id_text, arg_text] = texts;
    let [id_num, arg_num] = nums;
    let [id_len, id_w0, id_w1, id_w2, arg_len, arg_w0, arg_w1, arg_w2] = ids;
    let [method_len, read, params_tag, reason_tag, reason_len, task_id_len] = rest;
    let id = strings.id_shared(id_num, id_len, id_w0, id_w1, id_w2).value(id_text);
    let method = method_name_of(method_code, strings.next(method_len));
    // Most messages have none (a request without a progress token): not decoded then.
    let arg = if arg_len == self::id_len(tag::ABSENT) {
        PeerValue::Absent
    } else {
        strings.id_shared(arg_num, arg_len, arg_w0, arg_w1, arg_w2).value(arg_text)
    };
    let reason = (reason_tag, strings.next(reason_len));
    let mut message = message_of(method, id, read, params_tag, arg, reason, strings.next(task_id_len));
    message.task = task;
    message
}

/// A message with its method, its id and the members `read`: `params` as its tag, `arg` as
/// `requestId`, `progressToken` or `_meta.progressToken`, whichever `read` names, the reason
/// as its tag and string, `params.taskId`.
pub(super) fn message_of<'a>(
    method: MethodName<'a>,
    id: PeerValue<'a>,
    read: u32,
    params_tag: u32,
    arg: PeerValue<'a>,
    (reason_tag, reason): (u32, Option<&'a str>),
    task_id: Option<&'a str>,
) -> Message<'a> {
    let mut message = Message::new(id, method);
    let read = Fields(read);
    message.read = read;
    // Only the type of `params` crosses: a string's content is not needed.
    message.params =
        if params_tag == tag::STRING { crate::core::PeerValue::String("") } else { peer_value(params_tag, 0.0, None) };
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
    // What the guard answers a nested request with when the peer cancelled the request it was
    // sent for: the relay's code for that case, with the default cascade reason as its text.
    json.key("cascadeError");
    json.0.push_str("{\"code\":");
    json.number(crate::core::Failure::CallCancelled.code());
    json.key("message");
    json.string(&crate::core::ReasonPolicy::default().cascade_reason);
    json.0.push('}');
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
    json.key("inBuffer");
    json.number(IN_BUFFER);
    json.object(
        "idLen",
        &[
            ("absent", id_len(tag::ABSENT)),
            ("null", id_len(tag::NULL)),
            ("boolean", id_len(tag::BOOL)),
            ("array", id_len(tag::ARRAY)),
            ("object", id_len(tag::OBJECT)),
            ("oversized", id_len(tag::OVERSIZED)),
        ],
    );
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
