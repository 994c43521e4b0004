//! What the core reads of a message: a few scalar fields, never the whole message.
//!
//! A host (the wasm layer, a native transport, a fuzzer) reads `params`,
//! `params.requestId` and `params.reason` of a `notifications/cancelled` itself and hands
//! them over as [`PeerValue`]s; a 1 MB tool result is never copied into the core.

use crate::prelude::*;
use serde::Serialize;

use super::id::{concat, IdRef, InvalidRequestId, RequestId, StrId};
use super::method::Method;

/// The method of the cancellation notification (every revision, 2024-11-05 §Cancellation).
pub const CANCELLED_METHOD: &str = Method::Cancelled.name();
/// The method of the progress notification (2024-11-05 §Progress and later).
pub const PROGRESS_METHOD: &str = Method::Progress.name();
/// The 2026-07-28 subscription request: the only one a server may cancel (to end it).
pub const LISTEN_METHOD: &str = Method::SubscriptionsListen.name();
/// The request that cancels a task (2025-11-25 §Tasks; 2026-07-28 tasks extension).
pub const TASKS_CANCEL_METHOD: &str = Method::TasksCancel.name();
/// The request that waits for a task's result: its response means the task is terminal.
pub const TASKS_RESULT_METHOD: &str = Method::TasksResult.name();
/// The notification of a task's status (2025-11-25 §Tasks).
pub const TASK_STATUS_METHOD: &str = Method::TaskStatus.name();
/// The handshake request that must never be cancelled (2024-11-05 .. 2025-11-25
/// §Cancellation, "The initialize request MUST NOT be cancelled by clients").
pub const INITIALIZE_METHOD: &str = Method::Initialize.name();

/// One field of a message as the peer sent it, reduced to what validation needs.
///
/// Arrays and objects carry no content: the core never looks inside them.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum PeerValue<'a> {
    /// The field is not there (`undefined` in JS).
    Absent,
    /// JSON `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number, as a double.
    Number(f64),
    /// A string (borrowed from the message: nothing is copied until it is stored).
    String(&'a str),
    /// An array (content not read).
    Array,
    /// An object (content not read).
    Object,
    /// A string longer than the host accepts from a peer (its content not copied): never an
    /// id or a progress token of ours.
    Oversized,
}

impl<'a> PeerValue<'a> {
    /// The shape of a JSON value; `None` is [`PeerValue::Absent`].
    #[must_use]
    pub fn from_json(value: Option<&'a serde_json::Value>) -> Self {
        match value {
            None => Self::Absent,
            Some(serde_json::Value::Null) => Self::Null,
            Some(serde_json::Value::Bool(_)) => Self::Bool,
            Some(serde_json::Value::Number(n)) => Self::Number(n.as_f64().unwrap_or(f64::NAN)),
            Some(serde_json::Value::String(s)) => Self::String(s),
            Some(serde_json::Value::Array(_)) => Self::Array,
            Some(serde_json::Value::Object(_)) => Self::Object,
        }
    }

    /// The value as a request id.
    ///
    /// # Errors
    /// [`InvalidRequestId`] for anything but a string or a safe integer.
    pub fn to_request_id(&self) -> Result<RequestId, InvalidRequestId> {
        self.to_id_ref().map(IdRef::to_request_id)
    }

    /// The value as a request id, borrowed (nothing allocated).
    ///
    /// # Errors
    /// As [`Self::to_request_id`].
    pub fn to_id_ref(&self) -> Result<IdRef<'a>, InvalidRequestId> {
        match *self {
            Self::String(s) => Ok(IdRef::Str(StrId::Text(s))),
            Self::Number(n) => match RequestId::from_f64(n)? {
                RequestId::Number(n) => Ok(IdRef::Number(n)),
                // `from_f64` makes numbers only.
                RequestId::String(_) => Err(InvalidRequestId::NotAnInteger),
            },
            Self::Oversized => Err(InvalidRequestId::TooLong),
            other => Err(InvalidRequestId::WrongType(other.type_name())),
        }
    }

    /// The JS-ish type name: `"undefined"`, `"null"`, `"boolean"`, `"number"`, `"string"`,
    /// `"array"`, `"object"`.
    #[must_use]
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Absent => "undefined",
            Self::Null => "null",
            Self::Bool => "boolean",
            Self::Number(_) => "number",
            Self::String(_) => "string",
            Self::Array => "array",
            Self::Object => "object",
            Self::Oversized => "an oversized string",
        }
    }
}

/// The `params` of an inbound `notifications/cancelled`, as read by the host.
///
/// `params` is the kind of the `params` member (only [`PeerValue::Object`] is valid);
/// `request_id` and `reason` are its members (or [`PeerValue::Absent`] when `params` is
/// not an object).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CancelledParams<'a> {
    /// The `params` member itself (content not read).
    pub params: PeerValue<'a>,
    /// `params.requestId`.
    pub request_id: PeerValue<'a>,
    /// `params.reason`.
    pub reason: PeerValue<'a>,
}

impl<'a> CancelledParams<'a> {
    /// Reads the fields from a JSON `params` value (`None` when the message has none).
    #[must_use]
    pub fn from_json(params: Option<&'a serde_json::Value>) -> Self {
        match params {
            Some(serde_json::Value::Object(map)) => Self {
                params: PeerValue::Object,
                request_id: PeerValue::from_json(map.get("requestId")),
                reason: PeerValue::from_json(map.get("reason")),
            },
            other => {
                Self { params: PeerValue::from_json(other), request_id: PeerValue::Absent, reason: PeerValue::Absent }
            }
        }
    }

    /// Validates the params: the request id and the optional reason.
    ///
    /// Spec: `CancelledNotification.params = { requestId: RequestId, reason?: string }`
    /// (2024-11-05 .. 2025-06-18 schema; `requestId` optional from 2025-11-25 for tasks,
    /// but a `notifications/cancelled` without one cancels nothing).
    ///
    /// # Errors
    /// The [`MalformedCancel`] that says what is wrong.
    pub fn validate(&self) -> Result<(RequestId, Option<&'a str>), MalformedCancel> {
        self.validate_ref().map(|(id, reason)| (id.to_request_id(), reason))
    }

    /// [`Self::validate`], the request id borrowed (nothing allocated).
    ///
    /// # Errors
    /// As [`Self::validate`].
    pub(crate) fn validate_ref(&self) -> Result<(IdRef<'a>, Option<&'a str>), MalformedCancel> {
        match self.params {
            PeerValue::Object => {}
            PeerValue::Absent => return Err(MalformedCancel::ParamsMissing),
            ref other => return Err(MalformedCancel::ParamsNotAnObject(other.type_name())),
        }
        let id = match &self.request_id {
            PeerValue::Absent => return Err(MalformedCancel::RequestIdMissing),
            v => v.to_id_ref().map_err(MalformedCancel::RequestIdInvalid)?,
        };
        let reason = match &self.reason {
            PeerValue::Absent => None,
            PeerValue::String(s) => Some(*s),
            other => return Err(MalformedCancel::ReasonNotAString(other.type_name())),
        };
        Ok((id, reason))
    }
}

/// What is wrong with a malformed `notifications/cancelled` from the peer.
///
/// Spec (every revision, §Cancellation "Error Handling"): invalid cancellation
/// notifications — malformed ones included — SHOULD be ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", content = "type", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum MalformedCancel {
    /// No `params` member.
    ParamsMissing,
    /// `params` is not an object; names its type.
    ParamsNotAnObject(&'static str),
    /// No `params.requestId`.
    RequestIdMissing,
    /// `params.requestId` is null, a boolean, an object, an array, or a number that is not
    /// a safe integer.
    #[serde(serialize_with = "ser_invalid_id")]
    RequestIdInvalid(InvalidRequestId),
    /// `params.reason` is present but not a string; names its type.
    ReasonNotAString(&'static str),
}

fn ser_invalid_id<S: serde::Serializer>(e: &InvalidRequestId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&e.message())
}

impl MalformedCancel {
    /// What is wrong, in words (what [`Display`](::core::fmt::Display) shows), without
    /// `core::fmt`.
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Self::ParamsMissing => "params missing".owned(),
            Self::ParamsNotAnObject(t) => concat(&["params is ", t, ", not an object"]),
            Self::RequestIdMissing => "params.requestId missing".owned(),
            Self::RequestIdInvalid(e) => concat(&["params.requestId invalid: ", &e.message()]),
            Self::ReasonNotAString(t) => concat(&["params.reason is ", t, ", not a string"]),
        }
    }
}

impl ::core::fmt::Display for MalformedCancel {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(&self.message())
    }
}

/// Cuts `text` to at most `max_bytes` bytes of UTF-8, on a character boundary.
#[must_use]
#[inline(never)]
pub fn cap_utf8(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(params: serde_json::Value) -> Result<(RequestId, Option<String>), MalformedCancel> {
        CancelledParams::from_json(Some(&params)).validate().map(|(id, r)| (id, r.map(str::to_owned)))
    }

    #[test]
    fn valid_cancels_give_id_and_reason() {
        assert_eq!(check(json!({"requestId": 0})), Ok((RequestId::Number(0), None)));
        assert_eq!(check(json!({"requestId": "", "reason": "user"})), Ok((RequestId::from(""), Some("user".into()))));
    }

    #[test]
    fn malformed_cancels_say_what_is_wrong() {
        assert_eq!(CancelledParams::from_json(None).validate(), Err(MalformedCancel::ParamsMissing));
        assert_eq!(check(json!([1])), Err(MalformedCancel::ParamsNotAnObject("array")));
        assert_eq!(check(json!("x")), Err(MalformedCancel::ParamsNotAnObject("string")));
        assert_eq!(check(json!({})), Err(MalformedCancel::RequestIdMissing));
        assert_eq!(
            check(json!({"requestId": null})),
            Err(MalformedCancel::RequestIdInvalid(InvalidRequestId::WrongType("null")))
        );
        assert_eq!(
            check(json!({"requestId": true})),
            Err(MalformedCancel::RequestIdInvalid(InvalidRequestId::WrongType("boolean")))
        );
        assert_eq!(
            check(json!({"requestId": {"a": 1}})),
            Err(MalformedCancel::RequestIdInvalid(InvalidRequestId::WrongType("object")))
        );
        assert_eq!(
            check(json!({"requestId": 1.5})),
            Err(MalformedCancel::RequestIdInvalid(InvalidRequestId::NotAnInteger))
        );
        assert_eq!(check(json!({"requestId": 1, "reason": 5})), Err(MalformedCancel::ReasonNotAString("number")));
        assert_eq!(check(json!({"requestId": 1, "reason": null})), Err(MalformedCancel::ReasonNotAString("null")));
    }

    #[test]
    fn cap_utf8_never_splits_a_character() {
        assert_eq!(cap_utf8("héllo", 2), "h");
        assert_eq!(cap_utf8("héllo", 3), "hé");
        assert_eq!(cap_utf8("abc", 10), "abc");
        assert_eq!(cap_utf8("€", 0), "");
    }
}
