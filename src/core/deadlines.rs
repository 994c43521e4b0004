//! Deadlines without a clock, the data of request timeouts: [`Millis`] on a time line the
//! host chooses (e.g. `performance.now()`), a request's [`Timeout`] and its running
//! [`RequestTimer`], and [`Deadlines`], kept in order so the next one is cheap to find. The
//! rules that act on them (expiry cancels the request) are the session's, in `timer`.
//!
//! Spec: 2025-03-26 / 2025-06-18 / 2025-11-25 §Lifecycle "Timeouts", 2026-07-28
//! §Cancellation "Timeouts": on timeout the sender SHOULD cancel the request; the clock MAY
//! be reset on progress, but a maximum total timeout SHOULD always be enforced.

use ::core::cmp::Reverse;
use alloc::collections::BinaryHeap;

use serde::Serialize;

/// A point on the host's time line, in milliseconds.
pub type Millis = u64;

/// Timeouts of one request (or the session's defaults for its requests). All optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timeout {
    /// Cancel when no response came within this many ms (of the start, or of the last
    /// progress with [`Self::reset_on_progress`]).
    pub timeout_ms: Option<Millis>,
    /// A `notifications/progress` for the request restarts the `timeout_ms` clock.
    pub reset_on_progress: bool,
    /// Cancel when no response came within this many ms of the start, progress or not.
    /// Fires once, at its deadline.
    pub max_total_ms: Option<Millis>,
}

impl Timeout {
    /// No timeout at all.
    pub const NONE: Timeout = Timeout { timeout_ms: None, reset_on_progress: false, max_total_ms: None };

    /// Whether any deadline is set.
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.timeout_ms.is_some() || self.max_total_ms.is_some()
    }
}

/// Which of a request's timeouts expired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum TimeoutKind {
    /// `timeout_ms` passed without a response (or progress, with reset on progress).
    Timeout,
    /// `max_total_ms` passed since the request was sent.
    MaxTotal,
}

impl TimeoutKind {
    /// Every kind, in declaration order.
    pub const ALL: [TimeoutKind; 2] = [TimeoutKind::Timeout, TimeoutKind::MaxTotal];

    /// `"timeout"` or `"max-total"`, as it serializes.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Timeout => "timeout",
            Self::MaxTotal => "max-total",
        }
    }
}

/// The running deadlines of one request.
#[derive(Clone, Debug)]
pub(crate) struct RequestTimer {
    timeout: Timeout,
    idle_at: Option<Millis>,
    max_at: Option<Millis>,
    pub(crate) key: Option<(Millis, u64)>,
}

impl RequestTimer {
    pub fn start(timeout: Timeout, now: Millis) -> Self {
        Self {
            timeout,
            idle_at: timeout.timeout_ms.map(|t| now.saturating_add(t)),
            max_at: timeout.max_total_ms.map(|t| now.saturating_add(t)),
            key: None,
        }
    }

    pub(super) fn deadline(&self) -> Option<Millis> {
        match (self.idle_at, self.max_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Which timeout has expired at `now`, if any. The maximum total wins a tie.
    pub fn expired(&self, now: Millis) -> Option<TimeoutKind> {
        if self.max_at.is_some_and(|t| t <= now) {
            Some(TimeoutKind::MaxTotal)
        } else if self.idle_at.is_some_and(|t| t <= now) {
            Some(TimeoutKind::Timeout)
        } else {
            None
        }
    }
}

/// Every request's next deadline, in a binary heap (smaller than an ordered map).
///
/// Rescheduling or unscheduling a timer leaves its old entry in the heap (stale); an entry
/// is live while its key is the timer's `key`. After every change the session drops the
/// stale entries at the top ([`Deadlines::tidy`]), so [`Deadlines::next`] is the real next
/// deadline, and all stale entries once they outnumber live ones, so the heap holds at
/// most `2 × live + SLACK` entries.
#[derive(Debug, Default)]
pub(crate) struct Deadlines {
    heap: BinaryHeap<Reverse<(Millis, u64, u32)>>,
    next_seq: u64,
    /// Timers with a key (scheduled).
    live: usize,
}

/// Stale entries tolerated before a compaction.
const SLACK: usize = 64;

impl Deadlines {
    /// Schedules (or reschedules) `timer` of the request in slot `slot`.
    pub fn schedule(&mut self, slot: u32, timer: &mut RequestTimer) {
        self.unschedule(timer);
        if let Some(at) = timer.deadline() {
            let key = (at, self.next_seq);
            self.next_seq += 1;
            self.heap.push(Reverse((at, key.1, slot)));
            timer.key = Some(key);
            self.live += 1;
        }
    }

    /// Unschedules `timer` (its entry goes stale).
    pub fn unschedule(&mut self, timer: &mut RequestTimer) {
        if timer.key.take().is_some() {
            self.live = self.live.saturating_sub(1);
        }
    }

    /// Restarts the idle clock at `now` if the timer resets on progress.
    pub fn on_progress(&mut self, slot: u32, timer: &mut RequestTimer, now: Millis) {
        if timer.timeout.reset_on_progress {
            if let Some(t) = timer.timeout.timeout_ms {
                timer.idle_at = Some(now.saturating_add(t));
                self.schedule(slot, timer);
            }
        }
    }

    /// The earliest deadline (exact after [`Deadlines::tidy`]).
    #[inline]
    pub fn next(&self) -> Option<Millis> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    /// Removes and returns the first entry whose deadline is at or before `now`, with its
    /// key: the caller checks it is still the timer's key (else it is stale).
    pub fn pop_due(&mut self, now: Millis) -> Option<((Millis, u64), u32)> {
        if self.heap.peek().is_some_and(|Reverse((at, _, _))| *at <= now) {
            return self.heap.pop().map(|Reverse((at, seq, slot))| ((at, seq), slot));
        }
        None
    }

    /// Drops stale entries — `is_live(slot, key)` says whether `key` is still the timer's
    /// of the request in `slot`: those at the top (so [`Deadlines::next`] is exact), and all of them once
    /// they outnumber the live ones.
    pub fn tidy(&mut self, is_live: impl Fn(u32, (Millis, u64)) -> bool) {
        if self.heap.len() > 2 * self.live + SLACK {
            // The live ones pushed again: `BinaryHeap::retain`'s rebuild is ~0.7 KB of the
            // `.wasm`; this runs once per ~`live` schedules.
            for entry in ::core::mem::take(&mut self.heap).into_vec() {
                let Reverse((at, seq, slot)) = entry;
                if is_live(slot, (at, seq)) {
                    self.heap.push(entry);
                }
            }
        }
        while let Some(Reverse((at, seq, slot))) = self.heap.peek() {
            if is_live(*slot, (*at, *seq)) {
                break;
            }
            self.heap.pop();
        }
    }

    pub fn clear(&mut self) {
        self.heap.clear();
        self.live = 0;
    }
}
