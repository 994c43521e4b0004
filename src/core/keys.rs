//! Keys of the core's id tables: an id packed into 12 bytes when it fits — an integer, or a
//! string of up to [`PackedStr::MAX_BYTES`] bytes (a counter's `"req-42"`, most others) —
//! and a longer string by its text. No allocation to look an id up, none to store a packed
//! one; [`Hashed`] is the map over them (the fallback of the table of our requests, the
//! bounded maps of the peer's requests and of tombstones, above this module).

use crate::prelude::*;
use hashbrown::HashMap;

use foldhash::fast::FixedState;

use super::id::{IdRef, PackedStr, RequestId, StrId};
use super::seeded;

/// The fallback's key of an id: an integer, or a string of up to [`PackedStr::MAX_BYTES`] bytes (a
/// counter's `"req-42"`, most others), packed into 12 bytes — no allocation, no byte
/// compare —; a longer string by its text.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Key<'a> {
    Packed(Packed),
    Text(&'a str),
}

/// A packed key: the low 96 bits of a `u128` ([`number_key`], [`PackedStr`]) as three `u32`s,
/// aligned to 4 bytes. In wasm a map entry with a 4-byte value (our requests' records) then takes 16 bytes (a `u128`
/// key would take 32: 16-byte aligned): wasm memory per request in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packed([u32; 3]);

impl Packed {
    #[inline]
    pub(crate) fn new(key: u128) -> Self {
        Self([key as u32, (key >> 32) as u32, (key >> 64) as u32])
    }

    #[inline]
    pub(crate) fn get(self) -> u128 {
        u128::from(self.0[0]) | (u128::from(self.0[1]) << 32) | (u128::from(self.0[2]) << 64)
    }
}

impl ::core::hash::Hash for Packed {
    #[inline]
    fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
        // One write, as for the `u128` it is.
        state.write_u128(self.get());
    }
}

/// The low byte of an integer's packed key (a string's is its length, at most [`PackedStr::MAX_BYTES`]).
const NUMBER_TAG: u128 = 0xff;

#[inline]
pub(crate) fn number_key(n: i64) -> Key<'static> {
    Key::Packed(Packed::new((u128::from(n as u64) << 8) | NUMBER_TAG))
}

#[inline]
pub(crate) fn str_key(id: &str) -> Key<'_> {
    PackedStr::new(id).map_or(Key::Text(id), |p| Key::Packed(Packed::new(p.key())))
}

#[inline]
pub(crate) fn text_key(id: StrId<'_>) -> Key<'_> {
    match id {
        StrId::Packed(p) => Key::Packed(Packed::new(p.key())),
        StrId::Text(s) => str_key(s),
    }
}

/// The ids outside the window: two maps (one instance of the hash map's code each), packed
/// keys and long strings.
#[derive(Debug)]
pub(crate) struct Hashed<V> {
    packed: HashMap<Packed, V, FixedState>,
    long: HashMap<Box<str>, V, FixedState>,
}

impl<V> Hashed<V> {
    pub(crate) fn new(seed: u64) -> Self {
        Self { packed: seeded(seed), long: seeded(seed) }
    }

    pub(crate) fn len(&self) -> usize {
        self.packed.len() + self.long.len()
    }

    pub(crate) fn get(&self, key: Key<'_>) -> Option<&V> {
        match key {
            Key::Packed(k) => self.packed.get(&k),
            Key::Text(id) => self.long.get(id),
        }
    }

    pub(crate) fn get_mut(&mut self, key: Key<'_>) -> Option<&mut V> {
        match key {
            Key::Packed(k) => self.packed.get_mut(&k),
            Key::Text(id) => self.long.get_mut(id),
        }
    }

    pub(crate) fn insert(&mut self, key: Key<'_>, value: V) -> Option<V> {
        match key {
            Key::Packed(k) => self.packed.insert(k, value),
            Key::Text(id) => self.long.insert(id.into(), value),
        }
    }

    /// Puts `value` under `key` unless the key is taken (then gives `value` back, the table
    /// as it was). One probe of the table when the key is free, the common case: `insert`,
    /// and when it replaced a value, that value put back (`HashMap::entry` measured slower:
    /// see [`Self::remove_if`]). A long key's text is allocated for the insert.
    pub(crate) fn insert_new(&mut self, key: Key<'_>, value: V) -> Result<(), V> {
        // `insert` of the earlier value gives back the one just put in (the key is taken, so
        // it cannot be `None`; `Ok` there would only mean that `value` is in the table).
        match key {
            Key::Packed(k) => match self.packed.insert(k, value) {
                None => Ok(()),
                Some(old) => self.packed.insert(k, old).map_or(Ok(()), Err),
            },
            Key::Text(id) => match self.long.insert(id.into(), value) {
                None => Ok(()),
                Some(old) => self.long.insert(id.into(), old).map_or(Ok(()), Err),
            },
        }
    }

    pub(crate) fn remove(&mut self, key: Key<'_>) -> Option<V> {
        match key {
            Key::Packed(k) => self.packed.remove(&k),
            Key::Text(id) => self.long.remove(id),
        }
    }

    /// Removes the value of `key` when `take` says so of it.
    ///
    /// Removed, then put back when `take` says no: one probe of the table when it says yes
    /// (a plain request's response, issue #24's hot path), where `HashMap::entry` — the only
    /// one-probe conditional removal `std` has — is a call that measured 4–5% of scenario 1b
    /// with string ids (bench/ab.mjs). Putting a value back may rehash the table, as `entry`
    /// (which reserves room for one more first) may: the table never needs more room than
    /// its entries and one more.
    pub(crate) fn remove_if(&mut self, key: Key<'_>, take: impl FnOnce(&V) -> bool) -> Option<V> {
        match key {
            Key::Packed(k) => {
                let value = self.packed.remove(&k)?;
                if take(&value) {
                    return Some(value);
                }
                self.packed.insert(k, value);
                None
            }
            Key::Text(id) => {
                let (k, value) = self.long.remove_entry(id)?;
                if take(&value) {
                    return Some(value);
                }
                self.long.insert(k, value);
                None
            }
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (RequestId, &V)> {
        let packed = self.packed.iter().map(|(k, v)| (unpack(k.get()), v));
        packed.chain(self.long.iter().map(|(id, v)| (RequestId::String(String::from(&**id)), v)))
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.packed.values().chain(self.long.values())
    }

    pub(crate) fn clear(&mut self) {
        self.packed.clear();
        self.long.clear();
    }
}

/// The id whose packed key is `key` ([`number_key`], [`PackedStr`]).
pub(crate) fn unpack(key: u128) -> RequestId {
    if key & 0xff == NUMBER_TAG {
        return RequestId::Number((key >> 8) as u64 as i64);
    }
    PackedStr::from_key(key).to_request_id()
}

impl<'a> Key<'a> {
    /// The key of `id` (nothing allocated).
    #[inline]
    pub(crate) fn of(id: &'a RequestId) -> Self {
        match id {
            RequestId::Number(n) => number_key(*n),
            RequestId::String(s) => str_key(s),
        }
    }

    /// The key of an id as a host's fast path holds it (nothing allocated).
    #[inline]
    pub(crate) fn of_ref(id: IdRef<'a>) -> Self {
        match id {
            IdRef::Number(n) => number_key(n),
            IdRef::Str(s) => text_key(s),
        }
    }

    /// The key, owned (allocates only a long string's text).
    pub(crate) fn to_owned(self) -> OwnedKey {
        match self {
            Key::Packed(k) => OwnedKey::Packed(k),
            Key::Text(id) => OwnedKey::Text(id.into()),
        }
    }

    /// The id (allocates a string's text).
    pub(crate) fn to_request_id(self) -> RequestId {
        match self {
            Key::Packed(k) => unpack(k.get()),
            Key::Text(id) => RequestId::String(id.to_owned()),
        }
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
    pub(crate) fn as_key(&self) -> Key<'_> {
        match self {
            OwnedKey::Packed(k) => Key::Packed(*k),
            OwnedKey::Text(id) => Key::Text(id),
        }
    }
}

impl<V> Hashed<V> {
    /// Whether `key` has a value.
    pub(crate) fn contains(&self, key: Key<'_>) -> bool {
        self.get(key).is_some()
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn packed_string_keys_round_trip() {
        for id in ["", "0", "req-42", "é", "exactly-11b", "req-1234567"] {
            assert_eq!(unpack(PackedStr::new(id).unwrap().key()), RequestId::String(id.to_owned()));
        }
        let max = super::super::id::MAX_SAFE_INTEGER;
        for n in [0, 1, -1, max, -max] {
            let Key::Packed(k) = number_key(n) else { unreachable!() };
            assert_eq!(unpack(k.get()), RequestId::Number(n));
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
