//! A session's settings as they cross from JS: the options of `new CancellationSession`,
//! of `createRelay` (its upstream session) and of `track()`, read and type-checked by the
//! JS layer (js/options.js, which throws `InvalidArgumentError` `ERR_INVALID_OPTION` naming
//! a member of the wrong type or one the API does not have) and handed over as scalars: an
//! absent number as `NaN`, an absent string or function as `undefined`. What a setting
//! means is decided here and in the core: the defaults are [`Config::default`]'s, a
//! timeout's fraction of a ms is rounded up, and the bounds hold whatever JS passes (no
//! value makes a capacity or a reason limit larger than the core allows, or traps).
//!
//! Reading the options object from wasm would take a crossing per member and ~6 KB of the
//! `.wasm`, compiled when a process makes its first session (size and start-up).

use crate::prelude::*;

use crate::core::{float, Config, Millis, Role, Timeout, TransportKind};

/// The bits of [`Scalars::flags`] and of `track()`'s timeout flags (js/options.js reads them
/// from `constants_json().optionFlags`).
pub mod flag {
    /// `role: "server"`.
    pub const SERVER: u32 = 1;
    /// `transport: "streamable-http"`.
    pub const STREAMABLE_HTTP: u32 = 2;
    /// `exposeErrorReasons` was given; its value is [`EXPOSE`].
    pub const EXPOSE_GIVEN: u32 = 4;
    /// `exposeErrorReasons: true`.
    pub const EXPOSE: u32 = 8;
    /// One of `timeout`, `maxTotalTimeout`, `resetTimeoutOnProgress` was given.
    pub const TIMEOUT_GIVEN: u32 = 16;
    /// `resetTimeoutOnProgress: true`.
    pub const RESET_ON_PROGRESS: u32 = 32;
    /// `track()`'s options have a member of the wrong type, or one the API does not have:
    /// js/options.js throws its own `InvalidArgumentError` once the core has checked the id
    /// and the method (the order of `track()`'s errors).
    pub const INVALID: u32 = 64;
}

/// A session's settings as JS passes them (js/options.js `Settings`).
pub struct Scalars {
    /// [`flag`] bits.
    pub flags: u32,
    /// `tombstoneCapacity` (`NaN`: the default).
    pub tombstone_capacity: f64,
    /// `inboundCapacity` (`NaN`: the default).
    pub inbound_capacity: f64,
    /// `maxReasonBytes`, bytes of UTF-8 (`NaN`: the default; at most [`MAX_REASON_BYTES`]).
    pub max_reason_bytes: f64,
    /// `timeout`, ms (`NaN`: none).
    pub timeout_ms: f64,
    /// `maxTotalTimeout`, ms (`NaN`: none).
    pub max_total_ms: f64,
    /// `genericReason`.
    pub generic_reason: Option<String>,
    /// `timeoutReason`.
    pub timeout_reason: Option<String>,
    /// Whether `onEvent` was given: the core makes events only then.
    pub events: bool,
}

impl Scalars {
    /// The core's settings.
    #[must_use]
    pub fn config(self) -> Config {
        let defaults = Config::default();
        let mut config = Config {
            role: if self.flags & flag::SERVER != 0 { Role::Server } else { Role::Client },
            transport: if self.flags & flag::STREAMABLE_HTTP != 0 {
                TransportKind::StreamableHttp
            } else {
                TransportKind::Messages
            },
            tombstone_capacity: count(self.tombstone_capacity, defaults.tombstone_capacity),
            inbound_capacity: count(self.inbound_capacity, defaults.inbound_capacity),
            timeout: timeout(self.flags, self.timeout_ms, self.max_total_ms).unwrap_or(Timeout::NONE),
            events: self.events,
            ..defaults
        };
        let reason = &mut config.reason;
        reason.max_bytes = count(self.max_reason_bytes, reason.max_bytes).min(MAX_REASON_BYTES as usize);
        if self.flags & flag::EXPOSE_GIVEN != 0 {
            reason.expose_error_reasons = self.flags & flag::EXPOSE != 0;
        }
        if let Some(text) = self.generic_reason {
            reason.generic_reason = text;
        }
        if let Some(text) = self.timeout_reason {
            reason.timeout_reason = text;
        }
        config
    }
}

/// The timeouts of `flags` and two durations in ms (`NaN`: not given); `None` when none of
/// `timeout`, `maxTotalTimeout`, `resetTimeoutOnProgress` was given. Inlined into its two
/// callers: a function of its own is one more wasm function compiled when a process makes its
/// first session (V8 compiles each on its first call, ~50 µs each here, a start-up cost).
#[must_use]
#[inline]
pub fn timeout(flags: u32, timeout_ms: f64, max_total_ms: f64) -> Option<Timeout> {
    (flags & flag::TIMEOUT_GIVEN != 0).then(|| Timeout {
        timeout_ms: millis(timeout_ms),
        reset_on_progress: flags & flag::RESET_ON_PROGRESS != 0,
        max_total_ms: millis(max_total_ms),
    })
}

/// A duration in ms: `None` for `NaN`; a fraction rounded up, within 0 and 2^53 − 1.
fn millis(ms: f64) -> Option<Millis> {
    (!ms.is_nan()).then(|| float::ceil(ms).clamp(0.0, 9_007_199_254_740_991.0) as Millis)
}

/// A count: `default` for `NaN`; else the integer part, within 0 and `u32::MAX`.
fn count(n: f64, default: usize) -> usize {
    if n.is_nan() {
        default
    } else {
        n.clamp(0.0, f64::from(u32::MAX)) as usize
    }
}

/// The largest `maxReasonBytes`, in bytes of UTF-8: a reason, ours or the peer's, is never
/// longer on the wire or in an event, so the JS reader never copies more of a peer's
/// reason into wasm memory than this many UTF-16 code units.
pub const MAX_REASON_BYTES: u32 = 4096;
