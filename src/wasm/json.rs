//! [`Json`]: JSON text written without `serde_json` or `core::fmt` — the core's tables
//! (`SessionCore::constants_json`, and the relay's, with the output records' schema) and the
//! relay's events (`output`), in the relay's build.

use crate::core::decimal::Decimal;
use crate::prelude::*;

/// JSON text, written without `serde_json` or `core::fmt` (integers with `core::decimal`):
/// the tables of `SessionCore::constants_json` and the relay's events.
pub(super) struct Json(pub(super) String);

impl Json {
    /// `text` as a JSON string (`"`, `\` and the control characters escaped).
    pub(super) fn string(&mut self, text: &str) {
        self.0.push('"');
        for c in text.chars() {
            match c {
                '"' | '\\' => {
                    self.0.push('\\');
                    self.0.push(c);
                }
                c if (c as u32) < 0x20 => {
                    self.0.push_str("\\u00");
                    for nibble in [(c as u32) >> 4, (c as u32) & 0xf] {
                        self.0.push(char::from_digit(nibble, 16).unwrap_or('0'));
                    }
                }
                c => self.0.push(c),
            }
        }
        self.0.push('"');
    }

    /// `,"name":` (every key follows a value).
    pub(super) fn key(&mut self, name: &str) {
        self.0.push(',');
        self.string(name);
        self.0.push(':');
    }

    pub(super) fn number(&mut self, n: impl Into<i64>) {
        self.0.push_str(Decimal::signed(n.into()).as_str());
    }

    /// `[…]` of `items`, each written by `each`.
    pub(super) fn array<T>(&mut self, items: impl IntoIterator<Item = T>, each: impl Fn(&mut Self, T)) {
        self.0.push('[');
        self.items(items, each);
        self.0.push(']');
    }

    /// `,"name":{"member":value,…}`, each value written by `value`.
    pub(super) fn members<V>(&mut self, name: &str, members: &[(&str, V)], value: impl Fn(&mut Self, &V)) {
        self.key(name);
        self.0.push('{');
        self.items(members, |json, (member, v)| {
            json.string(member);
            json.0.push(':');
            value(json, v);
        });
        self.0.push('}');
    }

    /// `,"name":{"member":"text",…}`.
    pub(super) fn strings(&mut self, name: &str, members: &[(&str, &str)]) {
        self.members(name, members, |json, v| json.string(v));
    }

    /// `,"name":{"member":number,…}`.
    pub(super) fn object(&mut self, name: &str, members: &[(&str, u32)]) {
        self.members(name, members, |json, v| json.number(*v));
    }

    /// `,"name":{"code":…,"message":"…"}`: the JSON-RPC error of `failure`.
    pub(super) fn failure(&mut self, name: &str, failure: crate::core::Failure) {
        self.key(name);
        self.0.push_str("{\"code\":");
        self.number(failure.code());
        self.key("message");
        self.string(failure.message());
        self.0.push('}');
    }

    /// `items` separated by commas, each written by `each`.
    pub(super) fn items<T>(&mut self, items: impl IntoIterator<Item = T>, each: impl Fn(&mut Self, T)) {
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            each(self, item);
        }
    }
}
