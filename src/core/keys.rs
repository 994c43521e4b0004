//! Keys of the core's id tables: an id packed into 12 bytes when it fits — an integer, or a
//! string of up to [`PackedStr::MAX_BYTES`] bytes (a counter's `"req-42"`, most others) —
//! and a longer string by its text. No allocation to look an id up, none to store a packed
//! one; the table over them is `slots::Slots` (every id the session keeps
//! but the window's, `window`). Request ids, progress tokens and task ids alike.

use crate::prelude::*;

use super::id::{IdRef, PackedStr, RequestId, StrId};

/// The key of an id: an integer, or a string of up to [`PackedStr::MAX_BYTES`] bytes (a
/// counter's `"req-42"`, most others), packed into 12 bytes — no allocation, no byte
/// compare —; a longer string by its text.
#[derive(Clone, Copy, Debug, Eq)]
pub(crate) enum Key<'a> {
    Packed(Packed),
    Text(&'a str),
}

/// One copy for every caller (the index compares [`Packed`] keys itself): inlined, the text
/// comparison is ~250 bytes of the `.wasm` in each.
impl PartialEq for Key<'_> {
    #[inline(never)]
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Key::Packed(a), Key::Packed(b)) => a == b,
            (Key::Text(a), Key::Text(b)) => a == b,
            _ => false,
        }
    }
}

/// A packed key: three `u32`s ([`number_key`], [`PackedStr`]), aligned to 4 bytes; the high
/// byte of the third tells an integer ([`NUMBER_TAG`]) from a string (its length, at most 11).
/// In wasm a map entry with a 4-byte value (our requests' records) then takes 16 bytes (a
/// `u128` key would take 32: 16-byte aligned): wasm memory per request in flight.
#[derive(Clone, Copy, Debug, Eq)]
pub(crate) struct Packed([u32; 3]);

/// Word by word with no branch: the derived comparison of the array is a loop that LLVM
/// unrolls into each of the index's probes (~100 bytes of the `.wasm` each).
impl PartialEq for Packed {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        let ([a0, a1, a2], [b0, b1, b2]) = (self.0, other.0);
        (a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) == 0
    }
}

impl Packed {
    /// The key of nothing (a free slot's).
    pub(crate) const ZERO: Packed = Packed([0; 3]);

    #[inline]
    pub(crate) fn new(words: [u32; 3]) -> Self {
        Self(words)
    }

    #[inline]
    pub(crate) fn words(self) -> [u32; 3] {
        self.0
    }

    /// The first two words as one integer.
    #[inline]
    pub(crate) fn low(self) -> u64 {
        u64::from(self.0[0]) | (u64::from(self.0[1]) << 32)
    }

    /// The integer of an integer's key.
    #[inline]
    pub(crate) fn number(self) -> Option<i64> {
        (self.0[2] == NUMBER_TAG).then_some(self.low() as i64)
    }
}

/// The third word of an integer's packed key (a string's high byte is its length, at most
/// [`PackedStr::MAX_BYTES`]).
const NUMBER_TAG: u32 = 0xff00_0000;

#[inline]
pub(crate) fn number_key(n: i64) -> Key<'static> {
    Key::Packed(number_packed(n))
}

/// The packed key of integer `n`.
#[inline]
pub(crate) fn number_packed(n: i64) -> Packed {
    Packed::new([n as u32, ((n as u64) >> 32) as u32, NUMBER_TAG])
}

/// Not inlined, for size: inlined, its packing is copied into ~70 callers (the hot paths
/// take packed words, `PackedStr::from_words`).
#[inline(never)]
pub(crate) fn str_key(id: &str) -> Key<'_> {
    PackedStr::new(id).map_or(Key::Text(id), |p| Key::Packed(Packed::new(p.words())))
}

#[inline]
pub(crate) fn text_key(id: StrId<'_>) -> Key<'_> {
    match id {
        StrId::Packed(p) => Key::Packed(Packed::new(p.words())),
        StrId::Text(s) => str_key(s),
    }
}

impl<'a> Key<'a> {
    /// The key of `id` (nothing allocated). Not inlined: ~60 callers on the general paths
    /// would each have a copy (for size).
    #[inline(never)]
    pub(crate) fn of(id: &'a RequestId) -> Self {
        match id {
            RequestId::Number(n) => number_key(*n),
            RequestId::String(s) => str_key(s),
        }
    }

    /// The key of an id as a host's boundary holds it (nothing allocated).
    #[inline(never)]
    pub(crate) fn of_ref(id: IdRef<'a>) -> Self {
        match id {
            IdRef::Number(n) => number_key(n),
            IdRef::Str(s) => text_key(s),
        }
    }

    /// The key, owned (allocates only a long string's text).
    #[inline(never)]
    pub(crate) fn to_owned(self) -> OwnedKey {
        match self {
            Key::Packed(k) => OwnedKey::Packed(k),
            Key::Text(id) => OwnedKey::Text(id.into()),
        }
    }

    /// The id, borrowed (nothing allocated): what a [`Sink`](super::Sink) is given.
    #[inline(never)]
    pub(crate) fn as_id_ref(self) -> IdRef<'a> {
        match self {
            Key::Packed(k) => match k.number() {
                Some(n) => IdRef::Number(n),
                None => IdRef::Str(StrId::Packed(PackedStr::from_key(k.words()))),
            },
            Key::Text(id) => IdRef::Str(StrId::Text(id)),
        }
    }

    /// The id (allocates a string's text).
    pub(crate) fn to_request_id(self) -> RequestId {
        self.as_id_ref().to_request_id()
    }
}

/// A [`Key`] held by a table (an insertion order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum OwnedKey {
    Packed(Packed),
    Text(Box<str>),
}

impl OwnedKey {
    /// The key to look it up with.
    #[inline(never)]
    pub(crate) fn as_key(&self) -> Key<'_> {
        match self {
            OwnedKey::Packed(k) => Key::Packed(*k),
            OwnedKey::Text(id) => Key::Text(id),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn packed_string_keys_round_trip() {
        for id in ["", "0", "req-42", "é", "exactly-11b", "req-1234567"] {
            let key = Key::Packed(Packed::new(PackedStr::new(id).unwrap().words()));
            assert_eq!(key.to_request_id(), RequestId::String(id.to_owned()));
        }
        let max = super::super::id::MAX_SAFE_INTEGER;
        for n in [0, 1, -1, max, -max] {
            assert_eq!(number_key(n).to_request_id(), RequestId::Number(n));
        }
        assert_eq!(PackedStr::new("exactly-12by"), None);
        assert_eq!(PackedStr::new("exactly-16-bytes"), None);
        assert_ne!(PackedStr::new("a"), PackedStr::new("a\0"), "the length is part of the key");
        // Words as a JS host computes them: the same key as the text.
        let words = |id: &str| {
            let mut w = [0u32; 3];
            for (i, b) in id.bytes().enumerate() {
                w[i / 4] |= u32::from(b) << (8 * (i % 4));
            }
            PackedStr::from_words(id.len() as u32, w[0], w[1], w[2])
        };
        for id in ["", "0", "req-42", "exactly-11b", "a\0"] {
            assert_eq!(words(id), PackedStr::new(id), "{id:?}");
        }
        assert_eq!(PackedStr::from_words(12, 0, 0, 0), None, "longer than 11 bytes");
        assert_eq!(PackedStr::from_words(1, 0xe9, 0, 0), None, "not ASCII");
        assert_eq!(PackedStr::from_words(1, 0x6261, 0, 0), None, "a byte beyond the length");
        assert_eq!(PackedStr::from_words(11, 0, 0, 0x0100_0000), None, "a twelfth byte");
        assert_eq!(PackedStr::from_words(0, 0, 0, 0), PackedStr::new(""));
    }
}
