//! What `reason` goes on the wire.
//!
//! Spec: `notifications/cancelled` `params.reason?: string`, "an optional string describing
//! the reason for the cancellation. This MAY be logged or presented to the user"
//! (2024-11-05 .. 2026-07-28 schema). The text reaches a third party, so an internal
//! error's message is not sent unless the caller opts in.

use crate::prelude::*;
/// Why the application cancels a request, before the policy decides what the peer sees.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// No reason: the notification carries no `reason`.
    None,
    /// A reason the caller wrote for the peer (a JS string): sent as is, capped.
    Text(String),
    /// An error object (a JS `Error`/`DOMException`, e.g. the default `AbortError` of
    /// `AbortController.abort()`), described as `"Name: message"`. Only sent when
    /// [`ReasonPolicy::expose_error_reasons`] is set; otherwise the generic reason is.
    Error(String),
    /// The request timed out (2025-03-26 §Timeouts): the timeout reason is sent.
    Timeout,
}

/// The timeouts of the MCP clients we know, as `(error name, start of its message)`: an
/// error that matches one is [`Reason::Timeout`], whatever the client called it.
///
/// - `AbortSignal.timeout()` aborts with a `DOMException` named `TimeoutError` (any message);
/// - TypeScript SDK 1.x: `McpError` "MCP error -32001: Request timed out" (`RequestTimeout`);
/// - TypeScript SDK 2.x: `SdkError` "Request timed out", "Maximum total timeout exceeded";
/// - Vercel AI SDK (`@ai-sdk/mcp` 1.x and 2.x): `MCPClientError` "Request timed out after
///   `<n>`ms", the reason its own timeout aborts the signal it passes to `send()` with.
const TIMEOUTS: [(&str, &str); 5] = [
    ("TimeoutError", ""),
    ("McpError", "MCP error -32001:"),
    ("SdkError", "Request timed out"),
    ("SdkError", "Maximum total timeout"),
    ("MCPClientError", "Request timed out"),
];

impl Reason {
    /// Classifies an error object a cancel was given (a JS `Error` or `DOMException`, read as
    /// its `name` and `message`): one of the known timeouts (a `TimeoutError`, the MCP SDKs' and the
    /// AI SDK's "Request timed out" errors) is
    /// [`Reason::Timeout`]; any other is [`Reason::Error`], described as `"Name: message"`
    /// (or the bare name when the message is empty).
    #[must_use]
    pub fn from_error(name: &str, message: &str) -> Self {
        if TIMEOUTS.iter().any(|&(n, m)| n == name && message.starts_with(m)) {
            return Self::Timeout;
        }
        Self::Error(if message.is_empty() { name.owned() } else { super::id::concat(&[name, ": ", message]) })
    }

    /// Classifies a reason that another library already turned into a string with
    /// `String(reason)` — as the MCP TypeScript SDK 1.x does before it sends
    /// `notifications/cancelled` (`String(signal.reason)`):
    ///
    /// - `"<Name>Error: …"`, `"<Name>Exception: …"`, or the bare name (how an `Error`,
    ///   `DOMException` or subclass stringifies) → [`Self::from_error`], so a known timeout
    ///   (e.g. `"McpError: MCP error -32001: …"`) is [`Reason::Timeout`];
    /// - anything else → [`Reason::Text`].
    #[must_use]
    pub fn from_stringified(text: &str) -> Self {
        // The first ':' found byte by byte (`split_once`'s searcher is 0.4 KB of the
        // `.wasm`); an ASCII byte is a character boundary.
        let (name, message) = match text.bytes().position(|b| b == b':') {
            Some(at) => {
                let rest = text.get(at + 1..).unwrap_or_default();
                (text.get(..at).unwrap_or_default(), rest.strip_prefix(' ').unwrap_or(rest))
            }
            None => (text, ""),
        };
        let looks_like_error_name = !name.is_empty()
            // Byte by byte: a name with any non-ASCII character is not an error's name either.
            && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
            && (name.ends_with("Error") || name.ends_with("Exception"));
        if !looks_like_error_name {
            return Self::Text(text.owned());
        }
        match Self::from_error(name, message) {
            Self::Timeout => Self::Timeout,
            // Keep the text exactly as it was stringified.
            _ => Self::Error(text.owned()),
        }
    }
}

/// The rules that turn a [`Reason`] into the `reason` string sent to the peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReasonPolicy {
    /// Longest reason sent or reported, in bytes of UTF-8 (cut on a character boundary).
    /// Default 1024.
    pub max_bytes: usize,
    /// Send an error's `"Name: message"` to the peer instead of [`Self::generic_reason`].
    /// Default `false`: error text may be internal.
    pub expose_error_reasons: bool,
    /// Sent for an error reason when errors are not exposed. Default `"Request cancelled"`.
    pub generic_reason: String,
    /// Sent when a request times out. Default `"Request timed out"`.
    pub timeout_reason: String,
    /// Sent when the peer cancelled the request a nested request was sent for
    /// ([`Session::relate`](super::Session::relate)). Default `"The request it was sent for
    /// was cancelled"`.
    pub cascade_reason: String,
}

impl Default for ReasonPolicy {
    fn default() -> Self {
        Self {
            max_bytes: 1024,
            expose_error_reasons: false,
            generic_reason: "Request cancelled".owned(),
            timeout_reason: "Request timed out".owned(),
            cascade_reason: "The request it was sent for was cancelled".owned(),
        }
    }
}

impl ReasonPolicy {
    /// The `reason` to put on the wire for `reason`, capped to [`Self::max_bytes`];
    /// `None` when the notification should carry no reason.
    #[must_use]
    pub fn wire_reason(&self, reason: &Reason) -> Option<String> {
        self.wire_text(reason).map(str::owned)
    }

    /// [`Self::wire_reason`], borrowed from the reason or the policy (nothing allocated: the
    /// session's cancel writes it as it is).
    #[must_use]
    pub fn wire_text<'a>(&'a self, reason: &'a Reason) -> Option<&'a str> {
        let text = match reason {
            Reason::None => return None,
            Reason::Text(t) => t.as_str(),
            Reason::Error(e) if self.expose_error_reasons => e.as_str(),
            Reason::Error(_) => self.generic_reason.as_str(),
            Reason::Timeout => self.timeout_reason.as_str(),
        };
        Some(super::wire::cap_utf8(text, self.max_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_is_replaced_unless_exposed() {
        let policy = ReasonPolicy::default();
        let reason = Reason::Error("Error: db password rejected for user admin".into());
        assert_eq!(policy.wire_reason(&reason).as_deref(), Some("Request cancelled"));
        let open = ReasonPolicy { expose_error_reasons: true, ..ReasonPolicy::default() };
        assert_eq!(open.wire_reason(&reason).as_deref(), Some("Error: db password rejected for user admin"));
    }

    #[test]
    fn caller_text_is_sent_capped() {
        let policy = ReasonPolicy { max_bytes: 4, ..ReasonPolicy::default() };
        assert_eq!(policy.wire_reason(&Reason::Text("user pressed stop".into())).as_deref(), Some("user"));
        assert_eq!(policy.wire_reason(&Reason::None), None);
    }

    #[test]
    fn stringified_sdk_reasons_are_classified() {
        assert_eq!(
            Reason::from_stringified("AbortError: This operation was aborted"),
            Reason::Error("AbortError: This operation was aborted".into())
        );
        assert_eq!(Reason::from_stringified("McpError: MCP error -32001: Request timed out"), Reason::Timeout);
        assert_eq!(Reason::from_stringified("TypeError"), Reason::Error("TypeError".into()));
        assert_eq!(Reason::from_stringified("SdkError: Request timed out"), Reason::Timeout);
        assert_eq!(Reason::from_stringified("TimeoutError: signal timed out"), Reason::Timeout);
        assert_eq!(Reason::from_stringified("User pressed stop"), Reason::Text("User pressed stop".into()));
        assert_eq!(Reason::from_stringified("Error handling: later"), Reason::Text("Error handling: later".into()));
        assert_eq!(Reason::from_stringified("undefined"), Reason::Text("undefined".into()));
        assert_eq!(Reason::from_stringified("MCPClientError: Request timed out after 50ms"), Reason::Timeout);
    }

    #[test]
    fn error_objects_are_classified() {
        assert_eq!(Reason::from_error("TimeoutError", "signal timed out"), Reason::Timeout);
        assert_eq!(Reason::from_error("MCPClientError", "Request timed out after 100ms"), Reason::Timeout);
        assert_eq!(Reason::from_error("McpError", "MCP error -32001: Request timed out"), Reason::Timeout);
        assert_eq!(Reason::from_error("SdkError", "Maximum total timeout exceeded"), Reason::Timeout);
        // The AI SDK's abort (not its timeout) is an error like any other.
        assert_eq!(
            Reason::from_error("MCPClientError", "Request was aborted"),
            Reason::Error("MCPClientError: Request was aborted".into())
        );
        assert_eq!(
            Reason::from_error("AbortError", "This operation was aborted"),
            Reason::Error("AbortError: This operation was aborted".into())
        );
        assert_eq!(Reason::from_error("AbortError", ""), Reason::Error("AbortError".into()));
        // A timeout name on another library's error is not enough.
        assert_eq!(Reason::from_error("Error", "Request timed out"), Reason::Error("Error: Request timed out".into()));
    }
}
