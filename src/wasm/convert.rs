//! Scalars ↔ core values at the boundary: the tags of the members the JS reader read, and
//! the host's clock.

use crate::prelude::*;
use wasm_bindgen::prelude::*;

use crate::core::{float, PeerValue};

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`, in ms: a float, read with no second import call (returned
    /// as a JS value, it would need wasm-bindgen's `number_get` import and the externref
    /// table's code, 0.4 KB of the `.wasm`'s gzip).
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// How the JS reader tags a member it read (`undefined`, `null`, a boolean, a number, a
/// string, an array, an object, a string longer than [`MAX_PEER_STRING`]).
pub mod tag {
    /// `undefined`: the member is not there.
    pub const ABSENT: u32 = 0;
    /// `null`.
    pub const NULL: u32 = 1;
    /// A boolean.
    pub const BOOL: u32 = 2;
    /// A number (in the `…Num` argument).
    pub const NUMBER: u32 = 3;
    /// A string (in the `…Str` argument).
    pub const STRING: u32 = 4;
    /// An array.
    pub const ARRAY: u32 = 5;
    /// An object (or any other non-JSON value).
    pub const OBJECT: u32 = 6;
    /// A string longer than [`super::MAX_PEER_STRING`]: its content did not cross.
    pub const OVERSIZED: u32 = 7;
}

/// The longest string from the peer (an id, a progress token, a method, a task id), in
/// UTF-16 code units, that crosses into wasm memory; a longer id or token crosses as
/// [`tag::OVERSIZED`] (never an id of ours), a longer method name is cut to this length (no
/// method the core knows is that long), a longer task id or status is read as absent, and a
/// `reason` is cut to the largest
/// `maxReasonBytes` (4096 UTF-16 code units, `options::MAX_REASON_BYTES`) before it
/// crosses. Wasm memory never shrinks: nothing a peer sends may grow it by more than a few
/// KiB.
// Read by the JS reader from the core's tables (`SessionCore::constants_json`): the session's
// `.wasm` has no other use of it.
pub const MAX_PEER_STRING: u32 = 1024;

/// A member the JS reader tagged, as a [`PeerValue`]. One copy for its ten callers (for
/// the `.wasm`'s size).
#[inline(never)]
pub fn peer_value(tag: u32, number: f64, string: Option<&str>) -> PeerValue<'_> {
    match (tag, string) {
        (tag::NULL, _) => PeerValue::Null,
        (tag::BOOL, _) => PeerValue::Bool,
        (tag::NUMBER, _) => PeerValue::Number(number),
        (tag::STRING, Some(s)) => PeerValue::String(s),
        (tag::ARRAY, _) => PeerValue::Array,
        (tag::OBJECT, _) => PeerValue::Object,
        (tag::OVERSIZED, _) => PeerValue::Oversized,
        _ => PeerValue::Absent,
    }
}

/// Now on the host's monotonic clock (`performance.now()`), in ms (0 if the host's is not a number).
pub fn now() -> f64 {
    let now = performance_now();
    if now.is_nan() {
        0.0
    } else {
        now
    }
}

/// Now on the host's monotonic clock (`performance.now()`), in whole ms.
pub fn now_ms() -> u64 {
    let now = now();
    if now.is_finite() && now > 0.0 {
        float::round_non_negative(now) as u64
    } else {
        0
    }
}

/// The response members the JS reader read (`response`, the relay's `upstreamResponse`), as the
/// core takes them ([`crate::core::ResponseInfo::from_members`] decides what they mean).
pub fn response_info(
    task_task_id: Option<String>,
    result_type: Option<String>,
    result_task_id: Option<String>,
    result_status: Option<String>,
    protocol_version: Option<String>,
    has_error: bool,
    error_code: f64,
) -> crate::core::ResponseInfo {
    crate::core::ResponseInfo::from_members(crate::core::ResponseMembers {
        task_task_id,
        result_type,
        result_task_id,
        result_status,
        protocol_version,
        error_code: has_error.then_some(error_code),
    })
}
