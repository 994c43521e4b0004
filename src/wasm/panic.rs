//! What a panic does in the package's `.wasm`, built without the feature `std` (`no_std`):
//! it prints `mcp-cancel: panicked at <file>:<line>: <message>` with `console.error`, as
//! `console_error_panic_hook` does in a `std` build, then traps, so the call into the module
//! throws `RuntimeError: unreachable`. Without `core::fmt`: the message is printed when it is
//! a plain string (`panic!("…")`, `unreachable!()`), the place in the source always; nothing
//! is allocated (a panic may come from the allocator). A panic is a bug of ours: clippy
//! denies `unwrap`, `expect`, `panic!` and indexing in `src/`.

use wasm_bindgen::prelude::*;

use crate::core::cap_utf8;
use crate::core::decimal::Decimal;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// The text of a panic, in a buffer of its own (at most [`Text::CAPACITY`] bytes, cut on a
/// character boundary).
struct Text {
    bytes: [u8; Text::CAPACITY],
    len: usize,
}

impl Text {
    const CAPACITY: usize = 512;

    fn push(&mut self, s: &str) {
        let s = cap_utf8(s, Self::CAPACITY - self.len);
        if let Some(to) = self.bytes.get_mut(self.len..self.len + s.len()) {
            to.copy_from_slice(s.as_bytes());
            self.len += s.len();
        }
    }

    fn as_str(&self) -> &str {
        self.bytes.get(..self.len).and_then(|b| ::core::str::from_utf8(b).ok()).unwrap_or("")
    }
}

#[panic_handler]
fn panic(info: &::core::panic::PanicInfo<'_>) -> ! {
    let mut text = Text { bytes: [0; Text::CAPACITY], len: 0 };
    text.push("mcp-cancel: panicked");
    if let Some(place) = info.location() {
        text.push(" at ");
        text.push(place.file());
        text.push(":");
        text.push(Decimal::unsigned(place.line().into()).as_str());
    }
    if let Some(message) = info.message().as_str() {
        text.push(": ");
        text.push(message);
    }
    console_error(text.as_str());
    ::core::arch::wasm32::unreachable()
}
