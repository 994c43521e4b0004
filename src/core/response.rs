//! What the rules read of a response: which members ([`Fields`]), and those members as the
//! host read them ([`ResponseMembers`]) and as the rules take them ([`ResponseInfo`]).
//!
//! Spec: 2025-11-25 §Tasks (`CreateTaskResult`, `tasks/get`), 2026-07-28 tasks extension
//! (`resultType`), every revision §Lifecycle (the `initialize` result), JSON-RPC 2.0 §5.1.

use super::method::Fields as MessageFields;
use crate::prelude::*;

/// What the session needs to read of a response, from [`Session::response_fields`](super::Session::response_fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// `result.task.taskId` (the `CreateTaskResult` of a task-augmented request).
    pub task_id: bool,
    /// `result.taskId` and `result.status` (the task of a `tasks/get`/`tasks/cancel`).
    pub task_status: bool,
    /// `error.code` (the answer to our own `tasks/cancel`).
    pub error_code: bool,
    /// `result.protocolVersion` (the `initialize` result).
    pub protocol_version: bool,
}

impl Fields {
    /// These response members as the set of [`MessageFields`] the host reads.
    #[must_use]
    pub fn to_message_fields(self) -> MessageFields {
        let mut out = MessageFields::NONE;
        if self.task_id {
            out = out.with(MessageFields::RESULT_TASK_ID);
        }
        if self.task_status {
            out = out.with(MessageFields::RESULT_TASK_STATUS);
        }
        if self.protocol_version {
            out = out.with(MessageFields::PROTOCOL_VERSION);
        }
        if self.error_code {
            out = out.with(MessageFields::ERROR_CODE);
        }
        out
    }
}

/// The fields of a response that [`Session::response_fields`](super::Session::response_fields) asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResponseInfo {
    /// `result.task.taskId`.
    pub task_id: Option<String>,
    /// `result.taskId` and `result.status`.
    pub task_status: Option<(String, String)>,
    /// `error.code`; `None` for a result.
    pub error_code: Option<i64>,
    /// `result.protocolVersion`.
    pub protocol_version: Option<String>,
}

/// The members of a response as the host read them, for [`ResponseInfo::from_members`]:
/// each string member when it is a string (`None` otherwise).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResponseMembers {
    /// `result.task.taskId`.
    pub task_task_id: Option<String>,
    /// `result.resultType`.
    pub result_type: Option<String>,
    /// `result.taskId`.
    pub result_task_id: Option<String>,
    /// `result.status`.
    pub result_status: Option<String>,
    /// `result.protocolVersion`.
    pub protocol_version: Option<String>,
    /// `Some` when the message has an `error`: its `error.code` when a number, `NaN` when not.
    pub error_code: Option<f64>,
}

impl ResponseInfo {
    /// What the rules take of a response's members (an error wins: nothing of a `result`
    /// is read beside an `error`):
    /// - an error: its code, −32603 (JSON-RPC "Internal error") when it is not an integer
    ///   (or not one an `i64` holds, |code| ≥ 9.2e18);
    /// - a result: its task id — `result.task.taskId` (2025-11-25 `CreateTaskResult`), or
    ///   `result.taskId` when `result.resultType` is `"task"` (2026-07-28 tasks extension) —,
    ///   its `taskId` and `status` when both are strings (a `tasks/get` answer, 2025-11-25
    ///   §Tasks), and its `protocolVersion` (the `initialize` result).
    #[must_use]
    pub fn from_members(m: ResponseMembers) -> Self {
        let mut info = ResponseInfo::default();
        if let Some(code) = m.error_code {
            let integer = super::float::is_integer(code) && code > -9.2e18 && code < 9.2e18;
            info.error_code = Some(if integer { code as i64 } else { -32603 });
            return info;
        }
        info.task_id = m
            .task_task_id
            .or_else(|| (m.result_type.as_deref() == Some("task")).then(|| m.result_task_id.clone()).flatten());
        if let (Some(t), Some(s)) = (m.result_task_id, m.result_status) {
            info.task_status = Some((t, s));
        }
        info.protocol_version = m.protocol_version;
        info
    }
}
