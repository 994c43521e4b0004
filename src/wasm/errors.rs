//! The errors a [`super::SessionCore`] call refuses with, as the JS class throws them
//! (`InvalidArgumentError`, `UsageError` of js/errors.js): an entry point that refuses
//! returns `verdicts.failed` and keeps a [`Refusal`], which the JS class takes as a record
//! (`SessionCore.takeError()`, read as the output's records are) and throws. The texts and
//! codes are the core's (and this module's, for what only this layer refuses); no JS value
//! crosses, and no JS error is built in wasm (building them here, through `Reflect`, costs ~1 KB of the
//! `.wasm` and three import signatures).

use crate::prelude::*;

use super::output::Records;
use crate::core::{InvalidRequestId, OutgoingError, RequestId, UsageError};

/// A refused call, for the JS class to throw.
pub(super) struct Refusal {
    /// `UsageError` (`true`) or `InvalidArgumentError`.
    usage: bool,
    /// The error's `code` (`ERR_…`).
    code: &'static str,
    message: String,
    /// The error's `requestId`.
    subject: Subject,
}

/// What a refusal's `requestId` is: the JS class knows the caller's values, the core its ids.
pub(super) enum Subject {
    /// `undefined`.
    None,
    /// The request id the call was given (the caller's own value).
    Id,
    /// The `params._meta.progressToken` the call was given.
    Token,
    /// The value the call was given (`setProtocolVersion`'s `version`).
    Value,
    /// A request id of the core's (a copy out of wasm memory).
    Core(RequestId),
}

// Each constructor written once, not inlined into every refusing path (for the `.wasm`'s size).
impl Refusal {
    /// `InvalidArgumentError` `code` about `subject`.
    #[inline(never)]
    pub(super) fn invalid_argument(message: &str, code: &'static str, subject: Subject) -> Self {
        Refusal { usage: false, code, message: message.owned(), subject }
    }

    /// `InvalidArgumentError` `ERR_INVALID_REQUEST_ID`: `what` (the call and the member,
    /// `"track(): request id"`) is not a request id, for the reason `e`.
    #[inline(never)]
    pub(super) fn invalid_id(what: &str, e: InvalidRequestId, subject: Subject) -> Self {
        Refusal {
            usage: false,
            code: "ERR_INVALID_REQUEST_ID",
            message: crate::core::id::concat(&[what, ": ", &e.message()]),
            subject,
        }
    }

    /// The core's `UsageError` (about its request id).
    #[inline(never)]
    pub(super) fn usage(e: &UsageError) -> Self {
        Refusal { usage: true, code: e.code(), message: e.message(), subject: Subject::Core(e.request_id().clone()) }
    }

    /// What `beforeSend()` refuses of our message (its `id`, or its progress token).
    pub(super) fn outgoing(e: &OutgoingError) -> Self {
        match e {
            OutgoingError::InvalidRequestId(e) => Self::invalid_id("request id", *e, Subject::Id),
            OutgoingError::InvalidProgressToken(e) => {
                Self::invalid_id("params._meta.progressToken", *e, Subject::Token)
            }
            OutgoingError::Usage(e) => Self::usage(e),
        }
    }

    /// `UsageError` `ERR_SEND_REQUIRED`: a request with a signal or a timeout in a session
    /// without `send`, refused by `call` (`"track()"`, `"beforeSend()"`).
    #[inline(never)]
    pub(super) fn send_required(call: &str) -> Self {
        Refusal {
            usage: true,
            code: "ERR_SEND_REQUIRED",
            message: crate::core::id::concat(&[
                call,
                ": a request with a `signal` or a timeout needs the session's `send` option (where its cancel goes)",
            ]),
            subject: Subject::Id,
        }
    }

    /// The refusal as `SessionCore.takeError()` gives it: a `"refused"` record
    /// ([`Records::refused`]) — `name` the class (`"InvalidArgumentError"` or
    /// `"UsageError"`), `code`, `message`, and `of`, what the `requestId` is (`"none"`, `"id"`
    /// the request id the call was given, `"token"` its progress token, `"value"` the value
    /// given) — or, for a request id of the core's, `requestId` instead of `of`.
    pub(super) fn record(&self) -> Vec<u8> {
        let name = if self.usage { "UsageError" } else { "InvalidArgumentError" };
        let (of, request_id) = match &self.subject {
            Subject::None => (Some("none"), None),
            Subject::Id => (Some("id"), None),
            Subject::Token => (Some("token"), None),
            Subject::Value => (Some("value"), None),
            Subject::Core(id) => (None, Some(id.as_id_ref())),
        };
        Records::refused(name, self.code, &self.message, of, request_id)
    }
}
