//! The size floor of the session's rule set (issue #24, the `.wasm` row): every rule the
//! session's `.wasm` runs — our requests (track, response, cancel, the reason's bound,
//! `initialize`, progress, timeouts and the maximum total, tombstones and late progress),
//! the peer's requests (its cancels and every reason to ignore one, our suppressed
//! responses, `subscriptions/listen` in 2026-07-28), tasks both ways (the deferred
//! `tasks/cancel`, a terminal task by revision), the revisions and the transport's signal,
//! `close`, and the events — written for size, not for speed or for reading:
//!
//! - `#![no_std]` with a panic handler that traps: no `core::fmt`, no panic messages;
//! - one table for every kind of key (a namespace byte and the id; string ids of up to 15
//!   bytes packed into one integer) over a slab of one slot type: one copy of the table's
//!   code (hashbrown's `HashTable`, the standard library's);
//! - the hot path of ../shared/floor in front of it: our plain requests with counter ids in a
//!   sliding window (`track_number`, `response_number`), and short ASCII string ids crossed as
//!   the package crosses them, three words of bytes with nothing written to memory, into a map
//!   of packed keys (`track_words`, `response_words`): as fast as ../shared/floor, which issue
//!   #24 asks of a row's floor;
//! - numbers-only exports, one per operation (an id is `(n, len)`: a number when `len < 0`,
//!   else `len` UTF-8 bytes in the scratch buffer); outputs and events as numbers in one
//!   queue that JS polls; error and event texts as one table of strings.
//!
//! A measurement, not a design: no tests, not run by the package. bench/floor-rules/build.sh
//! builds it into bench/fixtures/node_modules/floor-rules/, and bench/size.mjs measures its
//! size and start-up beside the package's, in the same run.
#![no_std]
extern crate alloc;

use alloc::boxed::Box;
use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;
use wasm_bindgen::prelude::*;

#[global_allocator]
static ALLOCATOR: rlsf::SmallGlobalTlsf = rlsf::SmallGlobalTlsf::new();

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

// Namespaces of the one table.
const OUT: u8 = 1; // our request in flight
const IN: u8 = 2; // the peer's request in flight
const TOMB: u8 = 3; // our cancelled request (tombstone)
const TOKEN: u8 = 4; // a progress token of ours (flag DEAD: of a tombstone)
const TASK: u8 = 5; // a task (flag INBOUND: one we run)

// Flags of a slot.
const WATCH: u16 = 1;
const TASK_AUG: u16 = 2;
const HANDSHAKE: u16 = 4;
const DEFER: u16 = 8;
const HAS_TOKEN: u16 = 16;
const LISTEN: u16 = 32;
const CANCELLED: u16 = 64;
const DEAD: u16 = 128;
const INBOUND: u16 = 256;
const TERMINAL: u16 = 512;
const TRUNCATED: u16 = 1024;

// Revisions.
// 1 2024-11-05, 2 2025-03-26, 3 2025-06-18: the base rules and timeouts, nothing to tell apart.
const V2025_11_25: u8 = 4;
const V2026_07_28: u8 = 5;
const REVISIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

// Methods the rules name (the rest are "other", 0).
const METHODS: [&str; 20] = [
    "initialize",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/tasks/status",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "tools/call",
    "tools/list",
    "sampling/createMessage",
    "elicitation/create",
    "subscriptions/listen",
    "ping",
    "resources/read",
    "resources/list",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "server/discover",
];
const M_INITIALIZE: u8 = 1;
const M_CANCELLED: u8 = 2;
const M_PROGRESS: u8 = 3;
const M_TASK_STATUS: u8 = 4;
const M_TASKS_CANCEL: u8 = 7;
const M_LISTEN: u8 = 13;

/// The timeouts of the MCP clients we know, as (error name, start of its message).
const TIMEOUTS: [(&str, &str); 5] = [
    ("TimeoutError", ""),
    ("McpError", "MCP error -32001:"),
    ("SdkError", "Request timed out"),
    ("SdkError", "Maximum total timeout"),
    ("MCPClientError", "Request timed out"),
];
const GENERIC_REASON: &str = "Request cancelled";
const TIMEOUT_REASON: &str = "Request timed out";

// Verdicts and errors (returned), outputs and events (queued).
const OK: u32 = 0;
const DELIVER: u32 = 0;
const LATE: u32 = 1;
const UNKNOWN: u32 = 2;
const SENT: u32 = 3;
const DEFERRED: u32 = 4;
const NOT_SENT: u32 = 5;
const ABORT: u32 = 6;
const IGNORED: u32 = 7;
const SUPPRESS: u32 = 8;
const LISTEN_ENDED: u32 = 9;
const ERR_IN_FLIGHT: u32 = 100;
const ERR_TOKEN: u32 = 101;
const ERR_SEND: u32 = 102;
const ERR_ID: u32 = 103;
const ERR_INVALID_PARAMS: u32 = 104; // -32602 to a tasks/cancel

const O_NOTIFY: u32 = 1;
const O_CLOSE_STREAM: u32 = 2;
const O_TASKS_CANCEL: u32 = 3;
const O_ABORT: u32 = 4; // our request's signal: (slot, why)
const O_INBOUND_ABORT: u32 = 5;
const O_EVENT: u32 = 6; // (kind, slot)
const O_SETTLED: u32 = 7;

const E_CANCEL_SENT: u32 = 1;
const E_CANCEL_DEFERRED: u32 = 2;
const E_TIMED_OUT: u32 = 3;
const E_CANCEL_NOT_SENT: u32 = 4;
const E_CANCEL_RECEIVED: u32 = 5;
const E_CANCEL_IGNORED: u32 = 6;
const E_LATE_RESPONSE: u32 = 7;
const E_LATE_PROGRESS: u32 = 8;
const E_SUPPRESSED: u32 = 9;
const E_DUPLICATE: u32 = 10;
const E_REVISION: u32 = 11;
const E_LISTEN_ENDED: u32 = 12;
const E_TASK_ANSWERED: u32 = 13;

/// The texts of the errors and events (what the package's errors and events say).
const TEXTS: [&str; 18] = [
    "ERR_ALREADY_IN_FLIGHT: track(): this request id is already in flight in this session; a request id must be unique among the requests in flight",
    "ERR_PROGRESS_TOKEN_IN_USE: track(): params._meta.progressToken is already used by another request in flight",
    "ERR_SEND_REQUIRED: track(): a request with a `signal` or a timeout needs the session's `send` option (where its cancel goes)",
    "ERR_INVALID_REQUEST_ID: a request id must be a string or an integer number, not a fraction, NaN, an infinity, or beyond 9007199254740991 (Number.MAX_SAFE_INTEGER)",
    "ERR_HANDSHAKE_NOT_CANCELLABLE: initialize must not be cancelled by the client (2024-11-05 to 2025-11-25, lifecycle)",
    "cancel-sent: notifications/cancelled sent for our request",
    "cancel-deferred: the task's id is not known yet; tasks/cancel goes when the CreateTaskResult arrives",
    "timed-out: the request's timeout or its maximum total expired",
    "cancel-not-sent: not in flight, the handshake, or the revision forbids this side to cancel",
    "cancel-received: the peer cancelled its request",
    "cancel-ignored: malformed, not in flight, wrong direction, already cancelled, the handshake, the peer may not cancel, or a task-augmented request",
    "late-response-dropped: a response for a request we cancelled",
    "late-progress-dropped: progress for a request we cancelled",
    "response-suppressed: the peer cancelled this request; its response is not sent",
    "duplicate-request-id: the peer reused an id of a request in flight",
    "revision-negotiated",
    "listen-ended: the server ended the subscriptions/listen stream",
    "task-cancel-answered: the peer answered tasks/cancel",
];

/// A request id or a task id / progress token: a number's bits, or a string's bytes.
#[derive(Clone, PartialEq, Eq)]
enum Key {
    N(u64),
    /// A string id of at most 15 bytes, packed with its length: no allocation.
    P(u128),
    S(Box<[u8]>),
}

#[derive(Clone, Copy)]
enum IdRef<'a> {
    N(u64),
    P(u128),
    S(&'a [u8]),
}

impl Key {
    fn as_ref(&self) -> IdRef<'_> {
        match self {
            Key::N(n) => IdRef::N(*n),
            Key::P(p) => IdRef::P(*p),
            Key::S(s) => IdRef::S(s),
        }
    }
}

impl IdRef<'_> {
    fn owned(self) -> Key {
        match self {
            IdRef::N(n) => Key::N(n),
            IdRef::P(p) => Key::P(p),
            IdRef::S(s) => Key::S(s.into()),
        }
    }
    fn eq(self, k: &Key) -> bool {
        match (self, k) {
            (IdRef::N(a), Key::N(b)) => a == *b,
            (IdRef::P(a), Key::P(b)) => a == *b,
            (IdRef::S(a), Key::S(b)) => a == &**b,
            _ => false,
        }
    }
}

struct Slot {
    ns: u8,
    method: u8,
    flags: u16,
    gen: u32,
    key: Key,
    /// TOKEN: its request's slot; OUT: its token's slot; TASK (ours): nothing.
    link: u32,
    timeout: f64,
    deadline: f64,
    total: f64,
}

/// One table for every namespace: an index of slot numbers (hashbrown's `HashTable`, the
/// standard library's table, one copy of its code for every kind of key) over a slab of slots.
struct Table {
    /// `(hash, slot)`: the hash is compared before the slot is read, and rehashing reads no slot.
    index: hashbrown::HashTable<(u64, u32)>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Live slots by namespace (a probe is skipped for an empty one).
    count: [u32; 6],
    seed: u64,
}

fn mix(seed: u64, ns: u8, id: IdRef) -> u64 {
    let mut h = seed ^ ns as u64;
    let mut step = |w: u64| h = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    match id {
        IdRef::N(n) => step(n),
        IdRef::P(p) => {
            step(p as u64);
            step((p >> 64) as u64 | 1 << 63);
        }
        IdRef::S(s) => {
            step(s.len() as u64 | 1 << 63);
            for c in s.chunks(8) {
                let mut w = 0u64;
                for (i, b) in c.iter().enumerate() {
                    w |= (*b as u64) << (8 * i);
                }
                step(w);
            }
        }
    }
    h ^ h >> 32
}

/// Puts `slot` in a free slot of the slab (its generation one up) or a new one; its number.
fn occupy(slots: &mut Vec<Slot>, free: &mut Vec<u32>, slot: Slot) -> u32 {
    match free.pop() {
        Some(s) => {
            let old = &mut slots[s as usize];
            let gen = old.gen + 1;
            *old = slot;
            old.gen = gen;
            s
        }
        None => {
            slots.push(slot);
            slots.len() as u32 - 1
        }
    }
}

/// The index entry of `id` in namespace `ns`, whose hash is `h`: the hash first, then the slot.
fn is<'a>(slots: &'a [Slot], ns: u8, id: IdRef<'a>, h: u64) -> impl Fn(&(u64, u32)) -> bool + 'a {
    move |&(f, s)| {
        f == h && {
            let slot = &slots[s as usize];
            slot.ns == ns && id.eq(&slot.key)
        }
    }
}

impl Slot {
    fn new(ns: u8, key: Key, method: u8, flags: u16) -> Slot {
        Slot { ns, method, flags, gen: 0, key, link: u32::MAX, timeout: 0.0, deadline: 0.0, total: 0.0 }
    }
}

impl Table {
    fn hash(&self, ns: u8, id: IdRef) -> u64 {
        mix(self.seed, ns, id)
    }

    fn get(&self, ns: u8, id: IdRef) -> Option<u32> {
        let h = self.hash(ns, id);
        self.index.find(h, is(&self.slots, ns, id, h)).map(|&(_, s)| s)
    }

    /// Takes the slot of `id` out of the index; the caller reads it, then [`Self::free`]s it.
    fn unlink(&mut self, ns: u8, id: IdRef) -> Option<u32> {
        let h = self.hash(ns, id);
        let entry = self.index.find_entry(h, is(&self.slots, ns, id, h)).ok()?;
        Some(entry.remove().0 .1)
    }

    /// Takes slot `s` out of the index (found by its number: no key compared or copied).
    fn unlink_slot(&mut self, s: u32) {
        let slot = &self.slots[s as usize];
        let h = self.hash(slot.ns, slot.key.as_ref());
        if let Ok(entry) = self.index.find_entry(h, |&(_, x)| x == s) {
            entry.remove();
        }
    }

    fn free(&mut self, s: u32) {
        let slot = &mut self.slots[s as usize];
        self.count[slot.ns as usize] -= 1;
        slot.ns = 0;
        slot.key = Key::N(0);
        self.free.push(s);
    }

    /// Inserts `id` unless it is there already (then `None`): one probe.
    fn insert_new(&mut self, ns: u8, id: IdRef, method: u8, flags: u16) -> Option<u32> {
        let h = self.hash(ns, id);
        let entry = self.index.entry(h, is(&self.slots, ns, id, h), |&(f, _)| f);
        let hashbrown::hash_table::Entry::Vacant(vacant) = entry else { return None };
        let s = occupy(&mut self.slots, &mut self.free, Slot::new(ns, id.owned(), method, flags));
        self.count[ns as usize] += 1;
        vacant.insert((h, s));
        Some(s)
    }

    fn insert(&mut self, ns: u8, key: Key, method: u8, flags: u16) -> u32 {
        let h = self.hash(ns, key.as_ref());
        let s = occupy(&mut self.slots, &mut self.free, Slot::new(ns, key, method, flags));
        self.count[ns as usize] += 1;
        self.index.insert_unique(h, (h, s), |&(f, _)| f);
        s
    }

    /// Removes slot `s`, if it is live (a stale link removes nothing).
    fn remove(&mut self, s: u32) {
        if self.slots[s as usize].ns != 0 {
            self.unlink_slot(s);
            self.free(s);
        }
    }

    /// Moves a slot to another namespace (our request becomes a tombstone), same slot number.
    fn rename(&mut self, s: u32, ns: u8) {
        self.unlink_slot(s);
        let slot = &mut self.slots[s as usize];
        self.count[slot.ns as usize] -= 1;
        self.count[ns as usize] += 1;
        slot.ns = ns;
        let h = mix(self.seed, ns, slot.key.as_ref());
        self.index.insert_unique(h, (h, s), |&(f, _)| f);
    }

    fn clear(&mut self) {
        self.index.clear();
        self.slots.clear();
        self.free.clear();
        self.count = [0; 6];
    }
}

/// The window of counter ids (a power of two).
const WINDOW: usize = 1024;

/// A non-negative integer id below 2^53, the shape of every SDK's request counter.
fn counter(id: f64) -> Option<u64> {
    ((0.0..9007199254740992.0).contains(&id) && id == (id as u64) as f64).then_some(id as u64)
}

const SCRATCH: usize = 4096;
static mut SCRATCH_BUF: [u8; SCRATCH] = [0; SCRATCH];

fn scratch() -> &'static mut [u8; SCRATCH] {
    // Single-threaded wasm: JS writes, then calls.
    unsafe { &mut *core::ptr::addr_of_mut!(SCRATCH_BUF) }
}

/// The `k`-th id argument of a call: `(n, len)`, strings one after another in the scratch.
fn id_at(n: f64, len: i32, from: &mut usize) -> Option<IdRef<'static>> {
    if len < 0 {
        return (n == (n as i64) as f64 && (-9007199254740991.0..=9007199254740991.0).contains(&n))
            .then(|| IdRef::N((n + 0.0).to_bits()));
    }
    let bytes = scratch().get(*from..*from + len as usize)?;
    *from += len as usize;
    if bytes.len() <= 15 {
        let mut p = bytes.len() as u128;
        for (i, b) in bytes.iter().enumerate() {
            p |= (*b as u128) << (8 * (i + 1));
        }
        return Some(IdRef::P(p));
    }
    Some(IdRef::S(bytes))
}

/// The packed key of an ASCII id of `len` ≤ 11 bytes crossed as three words: the key
/// [`id_at`] makes from the same bytes in the scratch buffer.
#[inline]
fn words(len: u32, w0: u32, w1: u32, w2: u32) -> u128 {
    len as u128 | (w0 as u128) << 8 | (w1 as u128) << 40 | (w2 as u128) << 72
}

/// Writes the bytes of words into the scratch buffer, for the general path.
fn unwords(len: u32, w0: u32, w1: u32, w2: u32) {
    let bytes = [w0.to_le_bytes(), w1.to_le_bytes(), w2.to_le_bytes()];
    for (i, b) in bytes.iter().flatten().take(len.min(12) as usize).enumerate() {
        scratch()[i] = *b;
    }
}

#[wasm_bindgen]
pub struct Floor {
    t: Table,
    /// Our plain requests with counter ids (the hot path): `method + 1` at `id % WINDOW` for
    /// ids `win_base .. win_base + WINDOW`; 0 free.
    win: Box<[u8]>,
    win_base: u64,
    win_live: usize,
    /// Our plain requests with a packed string id (the hot path of string ids, kept as
    /// ../shared/floor keeps them): `(key, method)`. Any other use of one moves it to the
    /// table first (`unshort`).
    short: hashbrown::HashTable<(u128, u8)>,
    tombs: VecDeque<(u32, u32)>,
    capacity: usize,
    deadlines: BinaryHeap<Reverse<(u64, u32, u32)>>,
    out: VecDeque<u32>,
    revision: u8,
    server: bool,
    stdio: bool,
    has_send: bool,
    reason_max: u32,
    reset_on_progress: bool,
}

#[wasm_bindgen]
impl Floor {
    /// `flags`: 1 server, 2 stdio, 4 has `send`, 8 timeouts reset on progress.
    #[wasm_bindgen(constructor)]
    pub fn new(flags: u32, capacity: u32, reason_max: u32, seed: f64) -> Floor {
        Floor {
            t: Table {
                index: hashbrown::HashTable::new(),
                slots: Vec::new(),
                free: Vec::new(),
                count: [0; 6],
                seed: seed.to_bits(),
            },
            win: alloc::vec![0; WINDOW].into_boxed_slice(),
            win_base: 0,
            win_live: 0,
            short: hashbrown::HashTable::new(),
            tombs: VecDeque::new(),
            capacity: capacity.clamp(1, 1 << 20) as usize,
            deadlines: BinaryHeap::new(),
            out: VecDeque::new(),
            revision: 0,
            server: flags & 1 != 0,
            stdio: flags & 2 != 0,
            has_send: flags & 4 != 0,
            reason_max: reason_max.min(4096),
            reset_on_progress: flags & 8 != 0,
        }
    }

    /// Where JS writes ids, task ids and versions (4096 bytes).
    pub fn scratch(&self) -> *mut u8 {
        scratch().as_mut_ptr()
    }

    /// The method table's code for the name in the scratch buffer (0: any other method).
    pub fn method(&self, len: usize) -> u8 {
        let name = scratch().get(..len).unwrap_or(&[]);
        METHODS.iter().position(|m| m.as_bytes() == name).map_or(0, |i| i as u8 + 1)
    }

    /// Writes text `k` (an error or an event) into the scratch buffer; returns its length.
    pub fn text(&self, k: usize) -> usize {
        let t = TEXTS.get(k).map_or(&[][..], |t| t.as_bytes());
        scratch()[..t.len()].copy_from_slice(t);
        t.len()
    }

    /// The negotiated version (in the scratch buffer); returns the revision (0: unknown).
    pub fn set_version(&mut self, len: usize) -> u8 {
        let v = scratch().get(..len).unwrap_or(&[]);
        let r = REVISIONS.iter().position(|r| r.as_bytes() == v).map_or(0, |i| i as u8 + 1);
        if r != 0 {
            self.revision = r;
            self.event(E_REVISION, r as u32);
        }
        r
    }

    fn emit(&mut self, code: u32, a: u32, b: u32) {
        if self.out.len() < 1 << 16 {
            self.out.extend([code, a, b]);
        }
    }

    fn event(&mut self, kind: u32, slot: u32) {
        self.emit(O_EVENT, kind, slot);
    }

    /// The next output as three numbers (code, a, b), or 0 when none.
    pub fn poll(&mut self) -> u32 {
        self.out.pop_front().unwrap_or(0)
    }

    /// A slot's id: the number, or NaN with its bytes in the scratch (`len` from `id_len`).
    pub fn id_of(&self, s: u32) -> f64 {
        match self.t.slots.get(s as usize).map(|s| &s.key) {
            Some(Key::N(n)) => f64::from_bits(*n),
            Some(Key::S(b)) => {
                scratch()[..b.len()].copy_from_slice(b);
                f64::NAN
            }
            Some(Key::P(p)) => {
                let len = (*p & 0xff) as usize;
                for i in 0..len {
                    scratch()[i] = (*p >> (8 * (i + 1))) as u8;
                }
                f64::NAN
            }
            None => f64::NAN,
        }
    }

    pub fn in_flight(&self) -> u32 {
        self.t.count[OUT as usize] + self.t.count[IN as usize] + self.win_live as u32 + self.short.len() as u32
    }

    pub fn tombstones(&self) -> u32 {
        self.t.count[TOMB as usize]
    }

    /// The window's index of a counter id `n` in it, if any.
    fn in_window(&self, n: u64) -> Option<usize> {
        (n >= self.win_base && n < self.win_base + WINDOW as u64).then_some(n as usize & (WINDOW - 1))
    }

    /// The window's index of our plain request `id`, if it is in flight there.
    fn window_of(&self, id: IdRef) -> Option<usize> {
        let IdRef::N(bits) = id else { return None };
        let i = counter(f64::from_bits(bits)).and_then(|n| self.in_window(n))?;
        (self.win[i] != 0).then_some(i)
    }

    /// `track` of a plain request (no signal, token, timeout or task), the hot path: a
    /// counter id goes in the window.
    pub fn track_number(&mut self, id: f64, method: u8) -> u32 {
        if let Some(n) = counter(id) {
            if method != M_LISTEN {
                if self.win_live == 0 {
                    self.win_base = n;
                }
                while n >= self.win_base + WINDOW as u64 && self.win[self.win_base as usize & (WINDOW - 1)] == 0 {
                    self.win_base += 1;
                }
                // A pinned id at the base (a long-running request among short ones): the window
                // slides past it, and the records it leaves go to the table, once each (as the
                // package's window does; a fixed base sent every later id to the table).
                if n >= self.win_base + WINDOW as u64 {
                    let base = n + 1 - WINDOW as u64;
                    for id in self.win_base..base.min(self.win_base + WINDOW as u64) {
                        let i = id as usize & (WINDOW - 1);
                        if self.win[i] != 0 {
                            let method = self.win[i] - 1;
                            self.win[i] = 0;
                            self.win_live -= 1;
                            let handshake = method == M_INITIALIZE && self.revision < V2026_07_28;
                            let key = Key::N((id as f64).to_bits());
                            self.t.insert(OUT, key, method, if handshake { HANDSHAKE } else { 0 });
                        }
                    }
                    self.win_base = base;
                }
                if let Some(i) = self.in_window(n) {
                    let key = IdRef::N((n as f64).to_bits());
                    if self.win[i] != 0 || (self.t.count[OUT as usize] > 0 && self.t.get(OUT, key).is_some()) {
                        return ERR_IN_FLIGHT;
                    }
                    if self.t.count[TOMB as usize] > 0 {
                        if let Some(s) = self.t.get(TOMB, key) {
                            self.forget_tomb(s);
                        }
                    }
                    self.win[i] = method + 1;
                    self.win_live += 1;
                    return OK;
                }
            }
        }
        self.track(id, -1, method, 0, 0.0, -1, 0.0, 0.0, 0.0)
    }

    /// A response to one of our requests by a number id, the hot path.
    pub fn response_number(&mut self, id: f64) -> u32 {
        if let Some(i) = counter(id).and_then(|n| self.in_window(n)) {
            if self.win[i] != 0 {
                self.win[i] = 0;
                self.win_live -= 1;
                return DELIVER;
            }
        }
        self.response(id, -1, -1)
    }

    /// Our plain request with the packed string id `p` (not the handshake, not a listen):
    /// into `short`, the hot path of string ids. Inlined into both crossings (scratch, words).
    #[inline(always)]
    fn track_short(&mut self, p: u128, method: u8) -> u32 {
        let id = IdRef::P(p);
        if self.t.count[OUT as usize] > 0 && self.t.get(OUT, id).is_some() {
            return ERR_IN_FLIGHT;
        }
        if self.t.count[TOMB as usize] > 0 {
            if let Some(s) = self.t.get(TOMB, id) {
                self.forget_tomb(s);
            }
        }
        let (h, seed) = (self.t.hash(OUT, id), self.t.seed);
        match self.short.entry(h, |&(k, _)| k == p, |&(k, _)| mix(seed, OUT, IdRef::P(k))) {
            hashbrown::hash_table::Entry::Occupied(_) => ERR_IN_FLIGHT,
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert((p, method));
                OK
            }
        }
    }

    /// `track` of a plain request whose string id is in the scratch buffer.
    pub fn track_scratch(&mut self, len: i32, method: u8) -> u32 {
        let mut at = 0;
        if let Some(IdRef::P(p)) = id_at(0.0, len, &mut at) {
            if method != M_INITIALIZE && method != M_LISTEN {
                return self.track_short(p, method);
            }
        }
        self.track(0.0, len, method, 0, 0.0, -1, 0.0, 0.0, 0.0)
    }

    /// [`Self::track_scratch`] of an ASCII string id of `len` ≤ 11 bytes crossed as three
    /// little-endian words (bytes 0–3 in `w0`, byte 0 lowest; the package's `trackPlain`
    /// crossing): nothing written to memory by JS, the packed key made from the words.
    pub fn track_words(&mut self, len: u32, w0: u32, w1: u32, w2: u32, method: u8) -> u32 {
        if len <= 11 && method != M_INITIALIZE && method != M_LISTEN {
            return self.track_short(words(len, w0, w1, w2), method);
        }
        unwords(len, w0, w1, w2);
        self.track(0.0, len as i32, method, 0, 0.0, -1, 0.0, 0.0, 0.0)
    }

    /// [`Self::response_scratch`] of a string id crossed as words (as [`Self::track_words`]).
    pub fn response_words(&mut self, len: u32, w0: u32, w1: u32, w2: u32) -> u32 {
        if len <= 11 && self.response_short(words(len, w0, w1, w2)) {
            return DELIVER;
        }
        unwords(len, w0, w1, w2);
        self.response(0.0, len as i32, -1)
    }

    /// Moves our plain request `id` out of `short` into the table, for a path that needs its
    /// slot (it is plain: no flags).
    fn unshort(&mut self, id: IdRef) {
        let IdRef::P(p) = id else { return };
        if self.short.is_empty() {
            return;
        }
        if let Ok(e) = self.short.find_entry(self.t.hash(OUT, id), |&(k, _)| k == p) {
            let ((_, method), _) = e.remove();
            self.t.insert(OUT, Key::P(p), method, 0);
        }
    }

    /// Completes our plain request with the packed string id `p` if it is in `short` (the hot
    /// path of string ids' responses); inlined into both crossings (scratch, words).
    #[inline(always)]
    fn response_short(&mut self, p: u128) -> bool {
        if self.short.is_empty() {
            return false;
        }
        match self.short.find_entry(self.t.hash(OUT, IdRef::P(p)), |&(k, _)| k == p) {
            Ok(e) => {
                e.remove();
                true
            }
            Err(_) => false,
        }
    }

    /// A response to one of our requests whose string id is in the scratch buffer.
    pub fn response_scratch(&mut self, len: i32) -> u32 {
        let mut at = 0;
        if let Some(IdRef::P(p)) = id_at(0.0, len, &mut at) {
            if self.response_short(p) {
                return DELIVER;
            }
        }
        self.response(0.0, len, -1)
    }

    /// Our request: `flags` 1 watched (a signal), 2 task-augmented, 4 has a progress token
    /// (`(tn, tlen)`); `timeout`, `total` in ms (0: none); `now` in ms.
    #[allow(clippy::too_many_arguments)]
    pub fn track(
        &mut self,
        n: f64,
        len: i32,
        method: u8,
        flags: u32,
        tn: f64,
        tlen: i32,
        timeout: f64,
        total: f64,
        now: f64,
    ) -> u32 {
        let mut at = 0;
        let Some(id) = id_at(n, len, &mut at) else { return ERR_ID };
        self.unshort(id);
        let token = if flags & 4 != 0 {
            match id_at(tn, tlen, &mut at) {
                Some(t) => Some(t),
                None => return ERR_ID,
            }
        } else {
            None
        };
        if self.window_of(id).is_some() {
            return ERR_IN_FLIGHT;
        }
        if let Some(t) = token {
            if self.t.get(TOKEN, t).is_some_and(|s| self.t.slots[s as usize].flags & DEAD == 0) {
                return ERR_TOKEN;
            }
        }
        if (flags & 1 != 0 || timeout > 0.0) && !self.has_send {
            return ERR_SEND;
        }
        if self.t.count[TOMB as usize] > 0 {
            if let Some(s) = self.t.get(TOMB, id) {
                self.forget_tomb(s);
            }
        }
        let mut f = (flags & 3) as u16;
        if method == M_INITIALIZE && self.revision < V2026_07_28 {
            f |= HANDSHAKE;
        }
        if method == M_LISTEN {
            f |= LISTEN;
        }
        let Some(s) = self.t.insert_new(OUT, id, method, f) else { return ERR_IN_FLIGHT };
        if let Some(t) = token {
            if let Some(old) = self.t.get(TOKEN, t) {
                self.t.remove(old);
            }
            let k = self.t.insert(TOKEN, t.owned(), 0, 0);
            self.t.slots[k as usize].link = s;
            self.t.slots[s as usize].link = k;
            self.t.slots[s as usize].flags |= HAS_TOKEN;
        }
        if timeout > 0.0 {
            let slot = &mut self.t.slots[s as usize];
            slot.timeout = timeout;
            slot.deadline = now + timeout;
            slot.total = if total > 0.0 { now + total } else { f64::INFINITY };
            let (d, gen) = (slot.deadline.min(slot.total), slot.gen);
            self.deadlines.push(Reverse((d.to_bits(), s, gen)));
        }
        OK
    }

    /// A response to our request; `tlen >= 0`: it is a CreateTaskResult with that task id.
    pub fn response(&mut self, n: f64, len: i32, tlen: i32) -> u32 {
        let mut at = 0;
        let Some(id) = id_at(n, len, &mut at) else { return UNKNOWN };
        self.unshort(id);
        if let Some(i) = self.window_of(id) {
            self.win[i] = 0;
            self.win_live -= 1;
            return DELIVER;
        }
        if let Some(s) = self.t.unlink(OUT, id) {
            let slot = &self.t.slots[s as usize];
            let (flags, link) = (slot.flags, slot.link);
            self.t.free(s);
            if flags & WATCH != 0 {
                self.emit(O_SETTLED, s, 0);
            }
            if flags & TASK_AUG != 0 && tlen >= 0 {
                if let Some(task) = id_at(0.0, tlen, &mut at) {
                    let k = self.t.insert(TASK, task.owned(), 0, 0);
                    if flags & DEFER != 0 {
                        self.t.slots[k as usize].flags |= CANCELLED;
                        self.emit(O_TASKS_CANCEL, k, 0);
                        self.event(E_CANCEL_SENT, k);
                    }
                }
            }
            if flags & HAS_TOKEN != 0 {
                self.t.remove(link);
            }
            return DELIVER;
        }
        if let Some(s) = self.t.get(TOMB, id) {
            self.event(E_LATE_RESPONSE, s);
            self.forget_tomb(s);
            return LATE;
        }
        UNKNOWN
    }

    fn forget_tomb(&mut self, s: u32) {
        let slot = &self.t.slots[s as usize];
        if slot.flags & HAS_TOKEN != 0 {
            let link = slot.link;
            self.t.remove(link);
        }
        self.t.remove(s);
    }

    /// Our cancel (the caller's signal, or `cancel()`); `reason_len` bytes of reason.
    pub fn cancel(&mut self, n: f64, len: i32, reason_len: u32) -> u32 {
        let mut at = 0;
        let Some(id) = id_at(n, len, &mut at) else { return ERR_ID };
        self.unshort(id);
        if let Some(i) = self.window_of(id) {
            // Out of the window into the table, to be cancelled as any request.
            let method = self.win[i] - 1;
            self.win[i] = 0;
            self.win_live -= 1;
            let handshake = method == M_INITIALIZE && self.revision < V2026_07_28;
            let s = self.t.insert(OUT, id.owned(), method, if handshake { HANDSHAKE } else { 0 });
            return self.cancel_slot(s, reason_len, 0);
        }
        match self.t.get(OUT, id) {
            Some(s) => self.cancel_slot(s, reason_len, 0),
            None => {
                self.event(E_CANCEL_NOT_SENT, u32::MAX);
                NOT_SENT
            }
        }
    }

    fn cancel_slot(&mut self, s: u32, reason_len: u32, why: u32) -> u32 {
        let flags = self.t.slots[s as usize].flags;
        if flags & HANDSHAKE != 0 {
            self.event(E_CANCEL_NOT_SENT, s);
            return NOT_SENT;
        }
        if self.server && self.revision >= V2026_07_28 {
            // 2026-07-28: only the client cancels.
            self.event(E_CANCEL_NOT_SENT, s);
            self.emit(O_ABORT, s, why);
            return NOT_SENT;
        }
        if flags & TASK_AUG != 0 && self.revision >= V2025_11_25 {
            self.t.slots[s as usize].flags |= DEFER;
            self.event(E_CANCEL_DEFERRED, s);
            self.emit(O_ABORT, s, why);
            return DEFERRED;
        }
        if self.revision >= V2026_07_28 && !self.stdio {
            self.emit(O_CLOSE_STREAM, s, 0);
        } else {
            if reason_len > self.reason_max {
                self.t.slots[s as usize].flags |= TRUNCATED;
            }
            self.emit(O_NOTIFY, s, reason_len.min(self.reason_max));
        }
        self.event(E_CANCEL_SENT, s);
        self.emit(O_ABORT, s, why);
        // The request becomes a tombstone; its progress token a dead one.
        self.t.rename(s, TOMB);
        if flags & HAS_TOKEN != 0 {
            let link = self.t.slots[s as usize].link;
            self.t.slots[link as usize].flags |= DEAD;
        }
        let gen = self.t.slots[s as usize].gen;
        self.tombs.push_back((s, gen));
        let mut live = self.t.count[TOMB as usize] as usize;
        while live > self.capacity {
            let Some((old, g)) = self.tombs.pop_front() else { break };
            let slot = &self.t.slots[old as usize];
            if slot.ns == TOMB && slot.gen == g {
                self.forget_tomb(old);
                live -= 1;
            }
        }
        if self.tombs.len() > 2 * self.capacity {
            let t = &self.t;
            self.tombs.retain(|(s, g)| t.slots[*s as usize].ns == TOMB && t.slots[*s as usize].gen == *g);
        }
        SENT
    }

    /// `notifications/progress` for one of our tokens.
    pub fn progress(&mut self, n: f64, len: i32, now: f64) -> u32 {
        let mut at = 0;
        let Some(token) = id_at(n, len, &mut at) else { return UNKNOWN };
        let Some(k) = self.t.get(TOKEN, token) else { return UNKNOWN };
        if self.t.slots[k as usize].flags & DEAD != 0 {
            self.event(E_LATE_PROGRESS, k);
            return LATE;
        }
        let s = self.t.slots[k as usize].link;
        let slot = &mut self.t.slots[s as usize];
        if self.reset_on_progress && slot.timeout > 0.0 {
            slot.deadline = now + slot.timeout;
            let (d, gen) = (slot.deadline.min(slot.total), slot.gen);
            self.deadlines.push(Reverse((d.to_bits(), s, gen)));
        }
        DELIVER
    }

    /// When `handle_timeout` should run next (ms), or -1.
    pub fn poll_timeout(&mut self) -> f64 {
        while let Some(Reverse((d, s, g))) = self.deadlines.peek().copied() {
            let slot = &self.t.slots[s as usize];
            if slot.ns == OUT && slot.gen == g && slot.deadline.min(slot.total).to_bits() == d {
                return f64::from_bits(d);
            }
            self.deadlines.pop();
        }
        -1.0
    }

    pub fn handle_timeout(&mut self, now: f64) {
        while self.poll_timeout() >= 0.0 {
            let Some(Reverse((d, s, _))) = self.deadlines.peek().copied() else { break };
            if f64::from_bits(d) > now {
                break;
            }
            self.deadlines.pop();
            let total = self.t.slots[s as usize].total <= now;
            self.event(E_TIMED_OUT, s);
            // why: 1 timeout, 2 the maximum total.
            self.cancel_slot(s, 0, 1 + total as u32);
        }
    }

    /// The peer's request: `task` when task-augmented.
    pub fn peer_request(&mut self, n: f64, len: i32, method: u8, task: bool) -> u32 {
        let mut at = 0;
        let Some(id) = id_at(n, len, &mut at) else { return IGNORED };
        if let Some(s) = self.t.get(IN, id) {
            self.event(E_DUPLICATE, s);
            return IGNORED;
        }
        let mut f = if task { TASK_AUG } else { 0 };
        if method == M_INITIALIZE {
            f |= HANDSHAKE;
        }
        if method == M_LISTEN {
            f |= LISTEN;
        }
        self.t.insert(IN, id.owned(), method, f);
        OK
    }

    /// The peer's `notifications/cancelled`; `valid` false for malformed params.
    pub fn peer_cancel(&mut self, n: f64, len: i32, valid: bool) -> u32 {
        let mut at = 0;
        let id = if valid { id_at(n, len, &mut at) } else { None };
        let Some(id) = id else {
            self.event(E_CANCEL_IGNORED, u32::MAX);
            return IGNORED;
        };
        if !self.server && self.revision >= V2026_07_28 {
            // 2026-07-28: a server cancels only to end our subscriptions/listen.
            if let Some(s) = self.t.get(OUT, id) {
                if self.t.slots[s as usize].flags & LISTEN != 0 {
                    self.event(E_LISTEN_ENDED, s);
                    self.emit(O_ABORT, s, 3);
                    self.t.remove(s);
                    return LISTEN_ENDED;
                }
            }
            self.event(E_CANCEL_IGNORED, u32::MAX);
            return IGNORED;
        }
        let Some(s) = self.t.get(IN, id) else {
            self.event(E_CANCEL_IGNORED, u32::MAX);
            return IGNORED;
        };
        let flags = self.t.slots[s as usize].flags;
        if flags & (CANCELLED | HANDSHAKE) != 0 || (flags & TASK_AUG != 0 && self.revision >= V2025_11_25) {
            self.event(E_CANCEL_IGNORED, s);
            return IGNORED;
        }
        self.t.slots[s as usize].flags |= CANCELLED;
        self.event(E_CANCEL_RECEIVED, s);
        self.emit(O_INBOUND_ABORT, s, 0);
        ABORT
    }

    /// Our response to the peer's request: 0 send it, SUPPRESS when the peer cancelled it.
    pub fn sent_response(&mut self, n: f64, len: i32) -> u32 {
        let mut at = 0;
        let Some(id) = id_at(n, len, &mut at) else { return OK };
        let Some(s) = self.t.get(IN, id) else { return OK };
        let cancelled = self.t.slots[s as usize].flags & CANCELLED != 0;
        if cancelled {
            self.event(E_SUPPRESSED, s);
        }
        self.t.remove(s);
        if cancelled {
            SUPPRESS
        } else {
            OK
        }
    }

    /// A task we run for the peer starts (its id in the scratch).
    pub fn task_start(&mut self, len: i32) -> u32 {
        let mut at = 0;
        let Some(task) = id_at(0.0, len, &mut at) else { return ERR_ID };
        if self.t.get(TASK, task).is_none() {
            self.t.insert(TASK, task.owned(), 0, INBOUND);
        }
        OK
    }

    /// A task's status (ours from `notifications/tasks/status`, or one we run): terminal or not.
    pub fn task_status(&mut self, len: i32, terminal: bool) {
        let mut at = 0;
        let Some(task) = id_at(0.0, len, &mut at) else { return };
        if let Some(k) = self.t.get(TASK, task) {
            if terminal {
                if self.t.slots[k as usize].flags & INBOUND != 0 {
                    self.t.slots[k as usize].flags |= TERMINAL;
                } else {
                    self.t.remove(k);
                }
            }
        }
    }

    /// The peer's `tasks/cancel` for a task we run: OK (ack), or ERR_INVALID_PARAMS (-32602).
    pub fn peer_tasks_cancel(&mut self, len: i32) -> u32 {
        let mut at = 0;
        let Some(task) = id_at(0.0, len, &mut at) else { return ERR_INVALID_PARAMS };
        let Some(k) = self.t.get(TASK, task).filter(|k| self.t.slots[*k as usize].flags & INBOUND != 0) else {
            return ERR_INVALID_PARAMS;
        };
        let flags = self.t.slots[k as usize].flags;
        if flags & (TERMINAL | CANCELLED) != 0 {
            // 2026-07-28: idempotent, the same ack; before: -32602 for a terminal task.
            return if self.revision >= V2026_07_28 { OK } else { ERR_INVALID_PARAMS };
        }
        self.t.slots[k as usize].flags |= CANCELLED | TERMINAL;
        self.emit(O_INBOUND_ABORT, k, 1);
        OK
    }

    /// Our `cancelTask(taskId)`: `tasks/cancel` goes unless the task is unknown or cancelled.
    pub fn cancel_task(&mut self, len: i32) -> u32 {
        let mut at = 0;
        let Some(task) = id_at(0.0, len, &mut at) else { return ERR_ID };
        match self.t.get(TASK, task) {
            Some(k) if self.t.slots[k as usize].flags & (INBOUND | CANCELLED) == 0 => {
                self.t.slots[k as usize].flags |= CANCELLED;
                self.emit(O_TASKS_CANCEL, k, 0);
                SENT
            }
            _ => NOT_SENT,
        }
    }

    /// The answer to our `tasks/cancel` arrived.
    pub fn task_cancel_answered(&mut self, len: i32, error: bool) {
        let mut at = 0;
        if let Some(k) = id_at(0.0, len, &mut at).and_then(|t| self.t.get(TASK, t)) {
            self.event(E_TASK_ANSWERED, k);
            if !error {
                self.t.remove(k);
            }
        }
    }

    /// A slot's method code (the events name it).
    pub fn method_of(&self, s: u32) -> u8 {
        self.t.slots.get(s as usize).map_or(0, |s| s.method)
    }

    /// What `reason` goes on the wire: `kind` 0 none, 1 the caller's text, 2 an error (its
    /// `name` then its `message`, `a` and `b` bytes in the scratch), 3 a timeout. Writes the
    /// reason into the scratch; returns its length, or -1 for none.
    pub fn reason(&self, kind: u32, a: usize, b: usize, expose_errors: bool) -> i32 {
        let buf = scratch();
        let (name, message) = (buf.get(..a).unwrap_or(&[]), buf.get(a..a + b).unwrap_or(&[]));
        let timeout = kind == 3
            || (kind == 2 && TIMEOUTS.iter().any(|(n, m)| n.as_bytes() == name && message.starts_with(m.as_bytes())));
        let text: Vec<u8> = match kind {
            0 => return -1,
            _ if timeout => TIMEOUT_REASON.as_bytes().into(),
            1 => name.into(),
            _ if !expose_errors => GENERIC_REASON.as_bytes().into(),
            _ if message.is_empty() => name.into(),
            _ => [name, b": ", message].concat(),
        };
        // Capped at `reason_max` bytes, on a character boundary.
        let mut n = text.len().min(self.reason_max as usize);
        while n > 0 && n < text.len() && text[n] & 0xC0 == 0x80 {
            n -= 1;
        }
        buf[..n].copy_from_slice(&text[..n]);
        n as i32
    }

    /// A message from the peer, as JS read it: `kind` 0 request, 1 notification, 2 response
    /// (3 with a CreateTaskResult whose task id follows the id), 4 a batch; `method` the
    /// table's code; `(n, len)` the id, or for a notification the `requestId`/progress token
    /// (`valid` false when malformed). Returns 0 pass it on, 1 drop it.
    #[allow(clippy::too_many_arguments)]
    pub fn incoming(
        &mut self,
        kind: u32,
        method: u8,
        n: f64,
        len: i32,
        tlen: i32,
        valid: bool,
        task: bool,
        now: f64,
    ) -> u32 {
        match (kind, method) {
            (4, _) => (self.revision >= V2026_07_28) as u32,
            (0, m) => {
                self.peer_request(n, len, m, task);
                0
            }
            (1, M_CANCELLED) => (self.peer_cancel(n, len, valid) == IGNORED) as u32,
            (1, M_PROGRESS) => (valid && self.progress(n, len, now) == LATE) as u32,
            (1, M_TASK_STATUS) => {
                self.task_status(len, valid);
                0
            }
            (2 | 3, _) => (self.response(n, len, if kind == 3 { tlen } else { -1 }) == LATE) as u32,
            _ => 0,
        }
    }

    /// A message we send: `kind` 0 request (`tasks/cancel` is ours to count), 2 a response
    /// to the peer's request. Returns 0 send it, 1 drop it (the peer cancelled the request).
    pub fn outgoing(&mut self, kind: u32, method: u8, n: f64, len: i32) -> u32 {
        match kind {
            2 => (self.sent_response(n, len) == SUPPRESS) as u32,
            0 if method == M_TASKS_CANCEL => 0,
            _ => 0,
        }
    }

    /// The session ends: every watched request of ours and every request of the peer aborts.
    pub fn close(&mut self) {
        for s in 0..self.t.slots.len() as u32 {
            let slot = &self.t.slots[s as usize];
            if slot.ns == OUT && slot.flags & WATCH != 0 {
                self.emit(O_ABORT, s, 4);
            } else if slot.ns == IN || (slot.ns == TASK && slot.flags & INBOUND != 0) {
                self.emit(O_INBOUND_ABORT, s, 2);
            }
        }
        self.t.clear();
        self.short.clear();
        self.win.fill(0);
        self.win_live = 0;
        self.tombs.clear();
        self.deadlines.clear();
    }
}

/// The module's `WebAssembly.Memory`, for JS to write into the scratch buffer.
#[wasm_bindgen]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}
