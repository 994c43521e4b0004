//! MCP spec revisions and the cancellation rules of each, in one table.
//!
//! Sources: `shared/spec/cancel-<revision>.mdx` and `schema-<revision>.ts`, §Cancellation,
//! §Lifecycle "Timeouts" (2025-03-26 .. 2025-11-25), §Tasks (2025-11-25).

use ::core::fmt;

use serde::Serialize;

use super::method::Method;

/// A revision of the MCP specification that mcp-cancel knows the cancellation rules of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Revision {
    /// `2024-11-05`: the base rules.
    V2024_11_05,
    /// `2025-03-26`: adds Lifecycle §Timeouts.
    V2025_03_26,
    /// `2025-06-18`: no change for cancellation.
    V2025_06_18,
    /// `2025-11-25`: task-augmented requests are cancelled with `tasks/cancel`.
    V2025_11_25,
    /// `2026-07-28`: only the client cancels; on Streamable HTTP closing the request's
    /// stream is the cancel; no `initialize`; tasks move to an extension.
    V2026_07_28,
}

/// Who may send `notifications/cancelled` to us, and for what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum PeerCancels {
    /// The peer may cancel any request it issued (≤ 2025-11-25: "either side").
    OwnRequests,
    /// The peer (a server) may only end our `subscriptions/listen` request (2026-07-28:
    /// "Servers MUST NOT send notifications/cancelled for any other purpose").
    OnlyListenStreams,
}

/// How a task-augmented request is cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum TaskCancel {
    /// No tasks in this revision: `params.task` means nothing, the request is cancelled
    /// like any other.
    None,
    /// `tasks/cancel { taskId }`, answered with the task (2025-11-25 §Tasks); -32602 for a
    /// task already terminal.
    TasksCancel,
    /// `tasks/cancel { taskId }` of the `io.modelcontextprotocol/tasks` extension
    /// (2026-07-28): acked with `{ resultType: "complete" }`, idempotent.
    TasksExtension,
}

/// The cancellation rules of one revision. Read the table in [`Revision::rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The handshake request that MUST NOT be cancelled, if any.
    pub handshake: Option<&'static str>,
    /// Whether the spec has timeouts for requests (2025-03-26 §Lifecycle "Timeouts" on).
    /// mcp-cancel applies configured timeouts in every revision: a timeout's cancel is an
    /// ordinary cancel.
    pub timeouts_in_spec: bool,
    /// Whether on Streamable HTTP closing the request's SSE stream is the cancel (and no
    /// notification is sent).
    pub http_cancel_is_stream_close: bool,
    /// Who may cancel what, inbound.
    pub peer_cancels: PeerCancels,
    /// How task-augmented requests are cancelled.
    pub tasks: TaskCancel,
    /// Whether a message may be a JSON-RPC batch (an array of messages): 2025-03-26 only
    /// (schema `JSONRPCBatchRequest`/`JSONRPCBatchResponse`; removed in 2025-06-18).
    pub batches: bool,
}

impl Revision {
    /// Every known revision, oldest first.
    pub const ALL: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The newest revision mcp-cancel knows.
    pub const LATEST: Revision = Revision::V2026_07_28;

    /// The rules of this revision: **the table to check against the spec**.
    ///
    /// | revision | handshake | timeouts in spec | HTTP cancel | peer may cancel | tasks | batches |
    /// |---|---|---|---|---|---|---|
    /// | 2024-11-05 | `initialize` | no | notification | its own requests | none | no |
    /// | 2025-03-26 | `initialize` | yes | notification | its own requests | none | yes |
    /// | 2025-06-18 | `initialize` | yes | notification | its own requests | none | no |
    /// | 2025-11-25 | `initialize` | yes | notification | its own requests | `tasks/cancel` | no |
    /// | 2026-07-28 | none | yes | close the stream | only our `subscriptions/listen` | extension | no |
    #[must_use]
    pub const fn rules(self) -> Rules {
        match self {
            Revision::V2024_11_05 => Rules {
                handshake: Some(Method::Initialize.name()),
                timeouts_in_spec: false,
                http_cancel_is_stream_close: false,
                peer_cancels: PeerCancels::OwnRequests,
                tasks: TaskCancel::None,
                batches: false,
            },
            Revision::V2025_03_26 | Revision::V2025_06_18 => Rules {
                handshake: Some(Method::Initialize.name()),
                timeouts_in_spec: true,
                http_cancel_is_stream_close: false,
                peer_cancels: PeerCancels::OwnRequests,
                tasks: TaskCancel::None,
                batches: matches!(self, Revision::V2025_03_26),
            },
            Revision::V2025_11_25 => Rules {
                handshake: Some(Method::Initialize.name()),
                timeouts_in_spec: true,
                http_cancel_is_stream_close: false,
                peer_cancels: PeerCancels::OwnRequests,
                tasks: TaskCancel::TasksCancel,
                batches: false,
            },
            Revision::V2026_07_28 => Rules {
                handshake: None,
                timeouts_in_spec: true,
                http_cancel_is_stream_close: true,
                peer_cancels: PeerCancels::OnlyListenStreams,
                tasks: TaskCancel::TasksExtension,
                batches: false,
            },
        }
    }

    /// The revision's date string, e.g. `"2025-06-18"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision's date as the number `YYYYMMDD`, e.g. `20250618`.
    #[allow(clippy::inconsistent_digit_grouping)] // grouped as the date is
    const fn date(self) -> u32 {
        match self {
            Revision::V2024_11_05 => 2024_11_05,
            Revision::V2025_03_26 => 2025_03_26,
            Revision::V2025_06_18 => 2025_06_18,
            Revision::V2025_11_25 => 2025_11_25,
            Revision::V2026_07_28 => 2026_07_28,
        }
    }

    /// The revision named exactly `version`.
    #[must_use]
    pub fn parse(version: &str) -> Option<Revision> {
        match Revision::negotiated(version) {
            (r, true) => Some(r),
            _ => None,
        }
    }

    /// The rules to follow for a negotiated `version` string, and whether it was known.
    ///
    /// An unknown version is matched to the newest known revision dated on or before it
    /// (`"2025-09-01"` → 2025-06-18; a date after 2026-07-28 → 2026-07-28; one before
    /// 2024-11-05 → 2024-11-05); a string that is not a `YYYY-MM-DD` date gets the newest.
    #[must_use]
    pub fn negotiated(version: &str) -> (Revision, bool) {
        // Dates compared as numbers, one pass over the revisions (not a string compare per
        // revision, for the `.wasm`'s size).
        let Some(date) = date_of(version) else { return (Revision::LATEST, false) };
        let mut newest = Revision::V2024_11_05;
        for r in Revision::ALL {
            if r.date() <= date {
                newest = r;
            }
        }
        (newest, newest.date() == date)
    }
}

/// `YYYY-MM-DD` as the number `YYYYMMDD`; `None` for anything else.
fn date_of(s: &str) -> Option<u32> {
    let b = s.as_bytes();
    if b.len() != 10 {
        return None;
    }
    let mut date = 0;
    for (i, c) in b.iter().enumerate() {
        if i == 4 || i == 7 {
            if *c != b'-' {
                return None;
            }
        } else if c.is_ascii_digit() {
            date = date * 10 + u32::from(c - b'0');
        } else {
            return None;
        }
    }
    Some(date)
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Revision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_versions_parse_to_themselves() {
        for r in Revision::ALL {
            assert_eq!(Revision::negotiated(r.as_str()), (r, true));
        }
    }

    #[test]
    fn unknown_versions_get_the_newest_rules_dated_on_or_before_them() {
        assert_eq!(Revision::negotiated("2025-09-01"), (Revision::V2025_06_18, false));
        assert_eq!(Revision::negotiated("2027-01-01"), (Revision::V2026_07_28, false));
        assert_eq!(Revision::negotiated("2024-01-01"), (Revision::V2024_11_05, false));
        assert_eq!(Revision::negotiated("DRAFT-2026-v1"), (Revision::LATEST, false));
        assert_eq!(Revision::negotiated(""), (Revision::LATEST, false));
        assert_eq!(Revision::negotiated("2025-06-1x"), (Revision::LATEST, false));
        assert_eq!(Revision::negotiated("2025/06/18"), (Revision::LATEST, false));
        assert_eq!(Revision::negotiated("2025-06-17"), (Revision::V2025_03_26, false));
        assert_eq!(Revision::negotiated("2026-07-29"), (Revision::V2026_07_28, false));
        assert_eq!(Revision::negotiated("0000-00-00"), (Revision::V2024_11_05, false));
        assert_eq!(Revision::negotiated("9999-99-99"), (Revision::V2026_07_28, false));
    }

    #[test]
    fn parse_names_only_the_known_revisions() {
        for r in Revision::ALL {
            assert_eq!(Revision::parse(r.as_str()), Some(r));
        }
        assert_eq!(Revision::parse("2025-09-01"), None);
        assert_eq!(Revision::parse("2025-06-18 "), None);
    }

    /// The peer's cancel of its handshake is told by the request's method code
    /// (`take_cancelled` in `inbound`), which holds while every handshake is `initialize`.
    #[test]
    fn every_handshake_is_initialize() {
        for r in Revision::ALL {
            assert!(matches!(r.rules().handshake, None | Some("initialize")), "{r:?}");
        }
    }
}
