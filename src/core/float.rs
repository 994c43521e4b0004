//! What the `f64` methods `fract`, `ceil` and `round` give a `std` build, for the `no_std`
//! build too (`core` has no float functions on the crate's Rust 1.81): exact for every `f64`
//! they are given here.
// `ceil` and `round_non_negative` are the wasm layer's (and the tests'), which the `std`
// build need not compile.
#![cfg_attr(feature = "std", allow(dead_code))]

/// 2^52: every `f64` of at least this magnitude is an integer.
const INTEGRAL: f64 = 4_503_599_627_370_496.0;

/// `n` is a finite integer: `n.is_finite() && n.fract() == 0.0`.
#[must_use]
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss, clippy::float_cmp)]
pub(crate) fn is_integer(n: f64) -> bool {
    // Below 2^52 in magnitude, `as i64` truncates exactly and the round trip is exact only
    // for an integer.
    n.is_finite() && (!(-INTEGRAL..INTEGRAL).contains(&n) || (n as i64) as f64 == n)
}

/// `x.ceil()`, but for the sign of a zero (`-0.5` gives `0.0`, not `-0.0`).
#[must_use]
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
pub(crate) fn ceil(x: f64) -> f64 {
    if !(-INTEGRAL..INTEGRAL).contains(&x) {
        return x; // an integer already, an infinity, or NaN
    }
    let t = (x as i64) as f64; // towards zero
    if t < x {
        t + 1.0
    } else {
        t
    }
}

/// `x.round()` (halves away from zero) for `x >= 0`, but for the sign of a zero.
#[must_use]
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
pub(crate) fn round_non_negative(x: f64) -> f64 {
    if x >= INTEGRAL || x.is_nan() {
        return x; // an integer already, an infinity, or NaN
    }
    let t = (x as i64) as f64;
    // Exact: `x` and `t` are within 1 of each other, below 2^52.
    if x - t >= 0.5 {
        t + 1.0
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Zeros, halves, the edges of 2^52 and 2^53, the extremes, infinities and NaN.
    #[rustfmt::skip]
    const CASES: [f64; 24] = [
        0.0, -0.0, 0.5, -0.5, 0.49999999999999994, 1.0, 1.5, 2.5, -1.5, 3.7, -3.7, 1e-300, 4503599627370495.5,
        4503599627370496.0, -4503599627370495.5, 9007199254740991.0, 9007199254740993.0, 1e300, -1e300,
        f64::MAX, f64::MIN, f64::INFINITY, f64::NEG_INFINITY, f64::NAN,
    ];

    #[test]
    fn as_std_does() {
        for x in CASES {
            assert_eq!(is_integer(x), x.is_finite() && x.fract() == 0.0, "is_integer({x})");
            let (ours, std) = (ceil(x), x.ceil());
            assert!(ours == std || (ours.is_nan() && std.is_nan()), "ceil({x}): {ours} against {std}");
            if x >= 0.0 {
                assert_eq!(round_non_negative(x), x.round(), "round({x})");
            }
        }
    }
}
