//! JSON-RPC request ids and MCP progress tokens.

use super::decimal::Decimal;
use crate::prelude::*;
use ::core::fmt;

use serde::Serialize;

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`, 2^53 − 1).
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// A JSON-RPC request id: a string or an integer number.
///
/// Spec: `RequestId = string | number` (schema of every revision, 2024-11-05 to
/// 2026-07-28). `"1"` and `1` are different ids; `0` and `""` are valid ids. Numbers are
/// integers in ±(2^53 − 1) so that they survive a trip through a JavaScript number
/// unchanged; anything else is refused with [`InvalidRequestId`], never truncated or
/// coerced.
///
/// Serializes as the bare JSON string or number.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id, within ±[`MAX_SAFE_INTEGER`].
    Number(i64),
    /// A string id, any content (the empty string included).
    String(String),
}

/// A progress token (`params._meta.progressToken`): same shape and rules as [`RequestId`].
///
/// Spec: `ProgressToken = string | number`, 2024-11-05 §Progress and later revisions.
pub type ProgressToken = RequestId;

impl RequestId {
    /// An integer id.
    ///
    /// # Errors
    /// [`InvalidRequestId::OutOfRange`] when `n` is outside ±[`MAX_SAFE_INTEGER`].
    pub fn number(n: i64) -> Result<Self, InvalidRequestId> {
        if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&n) {
            Ok(Self::Number(n))
        } else {
            Err(InvalidRequestId::OutOfRange)
        }
    }

    /// An id from a JavaScript/JSON number (an IEEE-754 double).
    ///
    /// `-0` is the id `0`.
    ///
    /// # Errors
    /// [`InvalidRequestId::NotAnInteger`] for NaN, ±Infinity and fractions;
    /// [`InvalidRequestId::OutOfRange`] outside ±[`MAX_SAFE_INTEGER`].
    #[inline]
    pub fn from_f64(n: f64) -> Result<Self, InvalidRequestId> {
        // `as` saturates (NaN → 0): the round trip is exact only for an integer in i64's
        // range, the one test on the common path.
        #[allow(clippy::cast_possible_truncation)]
        let i = n as i64;
        #[allow(clippy::cast_precision_loss, clippy::float_cmp)]
        if i as f64 == n {
            return if i.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs() {
                Ok(Self::Number(i))
            } else {
                Err(InvalidRequestId::OutOfRange)
            };
        }
        if super::float::is_integer(n) {
            return Err(InvalidRequestId::OutOfRange);
        }
        Err(InvalidRequestId::NotAnInteger)
    }

    /// An id from a JSON value as a peer sent it.
    ///
    /// # Errors
    /// [`InvalidRequestId::WrongType`] for null, booleans, arrays and objects, and the
    /// number errors of [`RequestId::from_f64`].
    pub fn from_json(value: &serde_json::Value) -> Result<Self, InvalidRequestId> {
        match value {
            serde_json::Value::String(s) => Ok(Self::String(s.clone())),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Self::number(i),
                None => match n.as_f64() {
                    Some(f) => Self::from_f64(f),
                    None => Err(InvalidRequestId::OutOfRange),
                },
            },
            other => Err(InvalidRequestId::WrongType(json_type_name(other))),
        }
    }

    /// The id as a JSON value (a string or a number).
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Self::Number(n) => serde_json::Value::from(*n),
            Self::String(s) => serde_json::Value::from(s.as_str()),
        }
    }
}

impl RequestId {
    /// Appends the id as [`Display`](fmt::Display) shows it (numbers bare, strings in double
    /// quotes: `7`, `"7"`), without `core::fmt`.
    pub fn push_to(&self, out: &mut String) {
        self.as_id_ref().push_to(out);
    }
}

impl fmt::Display for RequestId {
    /// Numbers print bare, strings in double quotes: `7`, `"7"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        self.push_to(&mut text);
        f.write_str(&text)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

/// A string id of up to [`PackedStr::MAX_BYTES`] (11) bytes of UTF-8 — a counter's
/// `"req-1234567"`, most ids that are not integers — packed into three 32-bit words: its bytes
/// from the low byte of the first word up, little-endian, its length in the high byte of the
/// third (no `u128`: in wasm its every shift is several instructions). The session's table
/// keys it so (no allocation, no byte compare), and a host can cross it as four numbers
/// ([`PackedStr::from_words`]) instead of writing it into memory (in V8 that
/// halves what a string id costs to cross).
///
/// Spec: a string [`RequestId`] (`RequestId = string | number`, schema of every revision);
/// the same id as `RequestId::String` of its text, packed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedStr([u32; 3]);

impl PackedStr {
    /// The longest id, in bytes of UTF-8, that packs.
    pub const MAX_BYTES: usize = 11;

    /// `id` packed, or `None` when it is longer than [`Self::MAX_BYTES`] bytes.
    #[must_use]
    #[inline]
    pub fn new(id: &str) -> Option<Self> {
        let bytes = id.as_bytes();
        if bytes.len() > Self::MAX_BYTES {
            return None;
        }
        let mut key = [0u8; 12];
        key.get_mut(..bytes.len())?.copy_from_slice(bytes);
        let [b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, _] = key;
        let len = bytes.len() as u8;
        Some(Self([
            u32::from_le_bytes([b0, b1, b2, b3]),
            u32::from_le_bytes([b4, b5, b6, b7]),
            u32::from_le_bytes([b8, b9, b10, len]),
        ]))
    }

    /// An ASCII id of `len` bytes given as three little-endian words: bytes 0–3 in `w0`
    /// (byte 0 lowest), 4–7 in `w1`, 8–10 in `w2` — what a JS host computes from
    /// `charCodeAt` with no memory write. `None` when `len` > [`Self::MAX_BYTES`], a byte is
    /// not ASCII (≥ 0x80), or a byte beyond `len` is not zero: such words name no id.
    #[must_use]
    #[inline]
    pub fn from_words(len: u32, w0: u32, w1: u32, w2: u32) -> Option<Self> {
        if len as usize > Self::MAX_BYTES {
            return None;
        }
        let low = u64::from(w0) | (u64::from(w1) << 32);
        let ascii = low & 0x8080_8080_8080_8080 == 0 && w2 & 0x8080_8080 == 0;
        let nothing_beyond = match len.checked_sub(8) {
            // `len` ≤ 11: a shift of at most 24 bits.
            Some(high_len) => w2 >> (8 * high_len) == 0,
            None => w2 == 0 && low >> (8 * len) == 0,
        };
        // Nothing beyond `len` ≤ 11: the high byte of `w2` is free for the length.
        (ascii && nothing_beyond).then_some(Self([w0, w1, w2 | len << 24]))
    }

    /// The packed words (the table's key).
    #[must_use]
    pub(crate) fn words(self) -> [u32; 3] {
        self.0
    }

    /// The id it packs, as a [`RequestId`] (allocates its text).
    #[must_use]
    pub fn to_request_id(self) -> RequestId {
        let mut buffer = [0; 16];
        RequestId::String(self.text(&mut buffer).owned())
    }

    /// The id's text, unpacked into `buffer` (nothing allocated).
    #[must_use]
    pub fn text(self, buffer: &mut [u8; 16]) -> &str {
        for (at, word) in buffer.chunks_exact_mut(4).zip(self.0) {
            at.copy_from_slice(&word.to_le_bytes());
        }
        let len = self.0[2] >> 24;
        let bytes = buffer.get(..len as usize).unwrap_or_default();
        // The bytes of a `&str` or of ASCII: valid UTF-8, the default never taken (not
        // `from_utf8_lossy`: its replacement path is 0.5 KB of the `.wasm`).
        ::core::str::from_utf8(bytes).unwrap_or_default()
    }

    /// The packed id of a table key made by [`Self::words`].
    pub(crate) fn from_key(key: [u32; 3]) -> Self {
        Self(key)
    }
}

/// A string id as a host's boundary holds it (the wasm layer's `ID`): packed (up to
/// [`PackedStr::MAX_BYTES`] bytes), or as text (any length). Either names the same
/// string [`RequestId`] (schema of every revision).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrId<'a> {
    /// Up to [`PackedStr::MAX_BYTES`] bytes.
    Packed(PackedStr),
    /// Any id; one of up to [`PackedStr::MAX_BYTES`] bytes is keyed as if packed.
    Text(&'a str),
}

impl StrId<'_> {
    /// The id as a [`RequestId`] (allocates its text).
    #[must_use]
    pub fn to_request_id(self) -> RequestId {
        match self {
            Self::Packed(p) => p.to_request_id(),
            Self::Text(s) => RequestId::String(s.owned()),
        }
    }
}

/// A request id as a host's boundary holds it, borrowed: an integer, or a
/// string as [`StrId`] (packed or as text). Names the same [`RequestId`] (schema of every
/// revision); nothing is allocated to look it up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdRef<'a> {
    /// An integer id (within ±[`MAX_SAFE_INTEGER`]).
    Number(i64),
    /// A string id.
    Str(StrId<'a>),
}

impl RequestId {
    /// The id, borrowed, as the session's entry points take it ([`IdRef`]).
    #[must_use]
    #[inline(never)]
    pub fn as_id_ref(&self) -> IdRef<'_> {
        match self {
            Self::Number(n) => IdRef::Number(*n),
            Self::String(s) => IdRef::Str(StrId::Text(s)),
        }
    }
}

impl<'a> From<&'a RequestId> for IdRef<'a> {
    /// [`RequestId::as_id_ref`]: what lets each of [`Session`](super::Session)'s entry points
    /// take an id either way (`&RequestId`, or an [`IdRef`] as a host's boundary holds it).
    #[inline]
    fn from(id: &'a RequestId) -> Self {
        id.as_id_ref()
    }
}

impl IdRef<'_> {
    /// Appends the id as [`RequestId`]'s [`Display`](fmt::Display) shows it (numbers bare,
    /// strings in double quotes: `7`, `"7"`), without `core::fmt`; a packed id is unpacked on
    /// the stack.
    pub fn push_to(self, out: &mut String) {
        match self {
            Self::Number(n) => out.push_str(Decimal::signed(n).as_str()),
            Self::Str(s) => {
                out.push('"');
                match s {
                    StrId::Text(t) => out.push_str(t),
                    StrId::Packed(p) => out.push_str(p.text(&mut [0; 16])),
                }
                out.push('"');
            }
        }
    }

    /// The id as a [`RequestId`] (allocates a string's text).
    #[must_use]
    pub fn to_request_id(self) -> RequestId {
        match self {
            Self::Number(n) => RequestId::Number(n),
            Self::Str(s) => s.to_request_id(),
        }
    }
}

/// Why a value is not a [`RequestId`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidRequestId {
    /// NaN, ±Infinity or a number with a fractional part.
    NotAnInteger,
    /// An integer outside ±(2^53 − 1).
    OutOfRange,
    /// Not a string or a number; names the JSON type that was given (`"null"`, `"boolean"`,
    /// `"object"`, `"array"`, `"undefined"`, …).
    WrongType(&'static str),
    /// A string from the peer longer than the host accepts (see the wasm layer's
    /// `MAX_PEER_STRING`): its content was never copied.
    TooLong,
}

impl InvalidRequestId {
    /// What is wrong, in words (what [`Display`](fmt::Display) shows), without `core::fmt`.
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Self::NotAnInteger => "a numeric request id must be an integer".owned(),
            Self::OutOfRange => {
                "a numeric request id must be within ±9007199254740991 (Number.MAX_SAFE_INTEGER)".owned()
            }
            Self::WrongType(t) => concat(&["a request id must be a string or an integer number, not ", t]),
            Self::TooLong => "a request id from the peer is longer than accepted".owned(),
        }
    }
}

impl fmt::Display for InvalidRequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl ::core::error::Error for InvalidRequestId {}

/// `parts` one after the other, as one `String`: what `[…].concat()` gives, in a loop the
/// `.wasm` holds once (`concat`'s generic copy is ~450 bytes, for error texts).
pub(crate) fn concat(parts: &[&str]) -> String {
    let mut text = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        text.push_str(part);
    }
    text
}

pub(crate) fn json_type_name(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

// proptest catches a failing case's panic to shrink it: these tests build where panics
// unwind (natively), not in the wasm test build, which aborts on a panic and has no proptest.
#[cfg(all(test, panic = "unwind"))]
mod tests {
    #![allow(clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn string_and_number_ids_differ() {
        assert_ne!(RequestId::from("1"), RequestId::Number(1));
    }

    #[test]
    fn zero_and_empty_string_are_valid_ids() {
        assert_eq!(RequestId::from_f64(0.0), Ok(RequestId::Number(0)));
        assert_eq!(RequestId::from_f64(-0.0), Ok(RequestId::Number(0)));
        assert_eq!(RequestId::from_json(&serde_json::json!("")), Ok(RequestId::from("")));
    }

    #[test]
    fn non_integers_and_unsafe_integers_are_refused() {
        assert_eq!(RequestId::from_f64(f64::NAN), Err(InvalidRequestId::NotAnInteger));
        assert_eq!(RequestId::from_f64(f64::INFINITY), Err(InvalidRequestId::NotAnInteger));
        assert_eq!(RequestId::from_f64(1.5), Err(InvalidRequestId::NotAnInteger));
        assert_eq!(RequestId::from_f64(9_007_199_254_740_992.0), Err(InvalidRequestId::OutOfRange));
        assert_eq!(RequestId::from_f64(-9_007_199_254_740_991.0), Ok(RequestId::Number(-MAX_SAFE_INTEGER)));
        // Beyond i64 (`as` saturates there), and the largest fraction below 2^53.
        assert_eq!(RequestId::from_f64(9.223_372_036_854_776e18), Err(InvalidRequestId::OutOfRange));
        assert_eq!(RequestId::from_f64(-1e300), Err(InvalidRequestId::OutOfRange));
        assert_eq!(RequestId::from_f64(f64::NEG_INFINITY), Err(InvalidRequestId::NotAnInteger));
        assert_eq!(RequestId::from_f64(4_503_599_627_370_495.5), Err(InvalidRequestId::NotAnInteger));
        assert_eq!(RequestId::number(i64::MAX), Err(InvalidRequestId::OutOfRange));
    }

    #[test]
    fn json_ids_of_the_wrong_type_name_their_type() {
        for (v, t) in [
            (serde_json::json!(null), "null"),
            (serde_json::json!(true), "boolean"),
            (serde_json::json!({}), "object"),
            (serde_json::json!([1]), "array"),
        ] {
            assert_eq!(RequestId::from_json(&v), Err(InvalidRequestId::WrongType(t)));
        }
        assert_eq!(RequestId::from_json(&serde_json::json!(2.5)), Err(InvalidRequestId::NotAnInteger));
        assert_eq!(RequestId::from_json(&serde_json::json!(1e300)), Err(InvalidRequestId::OutOfRange));
        assert_eq!(RequestId::from_json(&serde_json::json!(u64::MAX)), Err(InvalidRequestId::OutOfRange));
    }

    /// The words a JS host computes for `bytes` (`charCodeAt`, little-endian, no check).
    fn words(bytes: &[u8]) -> [u32; 3] {
        let mut w = [0u32; 3];
        for (i, b) in bytes.iter().enumerate() {
            if let Some(word) = w.get_mut(i / 4) {
                *word |= u32::from(*b) << (8 * (i % 4));
            }
        }
        w
    }

    proptest::proptest! {
        /// Words name an id exactly when they are the words of an ASCII id of `len` bytes
        /// (at most 11, nothing beyond), and that id is the one `PackedStr::new` packs.
        #[test]
        fn words_name_exactly_the_ascii_ids(len in 0u32..14, raw in proptest::prelude::any::<[u32; 3]>(), text in "[ -~]{0,11}") {
            // Words of an ASCII id: the same packed id as its text.
            let w = words(text.as_bytes());
            proptest::prop_assert_eq!(PackedStr::from_words(text.len() as u32, w[0], w[1], w[2]), PackedStr::new(&text));
            // Any words: an id when, and only when, they are such words.
            let bytes: Vec<u8> = raw.iter().flat_map(|w| w.to_le_bytes()).collect();
            let named = (len as usize) <= PackedStr::MAX_BYTES
                && bytes.iter().take(len as usize).all(u8::is_ascii)
                && bytes.iter().skip(len as usize).all(|b| *b == 0);
            let got = PackedStr::from_words(len, raw[0], raw[1], raw[2]);
            proptest::prop_assert_eq!(got.is_some(), named, "len {} words {:x?}", len, raw);
            if let Some(p) = got {
                let text = ::core::str::from_utf8(&bytes[..len as usize]).map(str::to_owned);
                proptest::prop_assert_eq!(Ok(p.to_request_id()), text.map(RequestId::String));
            }
        }

        /// Words with a few bytes set around `len`'s edge (random words rarely end in zeros).
        #[test]
        fn words_beyond_the_length_name_no_id(len in 0u32..12, at in 0usize..12, byte in 1u8..=0xff) {
            let mut bytes = [b'a'; 12];
            for b in bytes.iter_mut().skip(len as usize) {
                *b = 0;
            }
            if let Some(b) = bytes.get_mut(at) {
                *b = byte;
            }
            let w = words(&bytes);
            let named = bytes.iter().take(len as usize).all(u8::is_ascii) && bytes.iter().skip(len as usize).all(|b| *b == 0);
            proptest::prop_assert_eq!(PackedStr::from_words(len, w[0], w[1], w[2]).is_some(), named && len <= 11);
        }
    }

    #[test]
    fn display_quotes_strings_only() {
        assert_eq!(RequestId::Number(7).to_string(), "7");
        assert_eq!(RequestId::from("7").to_string(), "\"7\"");
    }
}
