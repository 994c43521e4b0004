//! Integers as decimal text, without `core::fmt` or a crate's digit tables (for size: the
//! session's `.wasm` writes an integer as text only on cold paths — a request id in a
//! message or an error's text, a task's cancel id, a panic's line — and `itoa`'s tables and
//! code would be ~1 KB of it).

/// The decimal text of an integer, written on the stack: `Decimal::signed(-42).as_str()` is
/// `"-42"`, as `Display` writes it.
pub struct Decimal {
    /// The digits (and the sign) end-aligned: `bytes[start..]`. 20 bytes hold `u64::MAX` and
    /// `i64::MIN`.
    bytes: [u8; 20],
    start: usize,
}

impl Decimal {
    /// The text of `n`.
    #[must_use]
    #[inline(never)]
    pub fn unsigned(mut n: u64) -> Self {
        let mut text = Self { bytes: [0; 20], start: 20 };
        loop {
            // `n % 10` is a digit: below 10.
            #[allow(clippy::cast_possible_truncation)]
            text.push_front(b'0' + (n % 10) as u8);
            n /= 10;
            if n == 0 {
                return text;
            }
        }
    }

    /// The text of `n`: `-` and the digits when negative.
    #[must_use]
    pub fn signed(n: i64) -> Self {
        let mut text = Self::unsigned(n.unsigned_abs());
        if n < 0 {
            text.push_front(b'-');
        }
        text
    }

    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // ASCII only: never fails.
        self.bytes.get(self.start..).and_then(|b| ::core::str::from_utf8(b).ok()).unwrap_or_default()
    }

    fn push_front(&mut self, byte: u8) {
        self.start = self.start.saturating_sub(1);
        if let Some(b) = self.bytes.get_mut(self.start) {
            *b = byte;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    #[test]
    fn integers_are_written_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, i64::MAX, i64::MIN, -1, -10, -9_007_199_254_740_991] {
            assert_eq!(Decimal::signed(n).as_str(), n.to_string());
        }
        for n in [0, 7, 10, 1 << 53, u64::MAX] {
            assert_eq!(Decimal::unsigned(n).as_str(), n.to_string());
        }
    }
}
