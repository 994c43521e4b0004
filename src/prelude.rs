//! The names of the standard library's prelude that come from `alloc`, for the `no_std` build
//! (without the feature `std`): each module that uses them has `use crate::prelude::*;`. With
//! `std` they are the very same items.
// Each build uses some of them (`vec!` only the wasm layer does).
#![allow(unused_imports)]

pub(crate) use alloc::borrow::ToOwned;
pub(crate) use alloc::boxed::Box;
pub(crate) use alloc::format;
pub(crate) use alloc::string::{String, ToString};
pub(crate) use alloc::vec;
pub(crate) use alloc::vec::Vec;

/// A `str`'s owned copy, written once, for the `.wasm`'s size: `to_owned` inlines its
/// allocation and copy into each of ~40 cold paths (error texts, reasons, ids).
pub(crate) trait Owned {
    fn owned(&self) -> String;
}

impl Owned for str {
    #[inline(never)]
    fn owned(&self) -> String {
        self.to_owned()
    }
}
