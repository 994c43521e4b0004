//! The names of MCP's methods and the members of a message the rules read: [`Method`]
//! (each known method, a small integer across the JS boundary), [`MethodName`] (a message's
//! `method` member as the host read it), [`Fields`] (which members to read). The bottom of
//! the core with `id`: it uses no other module.
//!
//! Spec: the methods of the MCP schema of every revision (2024-11-05 .. 2026-07-28).

/// The methods of MCP (every revision, 2024-11-05 .. 2026-07-28) known by name. They cross
/// the JS boundary as small integers — their position in [`Method::ALL`] plus one (`0` is
/// any other method) — and an entry in flight stores one byte instead of a string. Only some
/// have rules (the handshake, the cancel, progress, tasks, `subscriptions/listen`, the
/// task-augmentable requests); the others are here so their names never cross or allocate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `initialize`: the handshake (2024-11-05 .. 2025-11-25), never cancelled.
    Initialize,
    /// `notifications/cancelled` (every revision, §Cancellation).
    Cancelled,
    /// `notifications/progress` (every revision, §Progress).
    Progress,
    /// `notifications/tasks/status` (2025-11-25 §Tasks).
    TaskStatus,
    /// `tasks/get` (2025-11-25 §Tasks).
    TasksGet,
    /// `tasks/result` (2025-11-25 §Tasks).
    TasksResult,
    /// `tasks/cancel` (2025-11-25 §Tasks; 2026-07-28 tasks extension).
    TasksCancel,
    /// `tools/call`: may be task-augmented (2025-11-25).
    ToolsCall,
    /// `sampling/createMessage`: may be task-augmented (2025-11-25).
    SamplingCreateMessage,
    /// `elicitation/create`: may be task-augmented (2025-11-25).
    ElicitationCreate,
    /// `subscriptions/listen` (2026-07-28): the one request a server may cancel.
    SubscriptionsListen,
    /// `ping`.
    Ping,
    /// `tools/list`.
    ToolsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    ResourcesTemplatesList,
    /// `resources/read`.
    ResourcesRead,
    /// `resources/subscribe`.
    ResourcesSubscribe,
    /// `resources/unsubscribe`.
    ResourcesUnsubscribe,
    /// `prompts/list`.
    PromptsList,
    /// `prompts/get`.
    PromptsGet,
    /// `completion/complete`.
    CompletionComplete,
    /// `logging/setLevel`.
    LoggingSetLevel,
    /// `roots/list`.
    RootsList,
    /// `tasks/list` (2025-11-25).
    TasksList,
    /// `server/discover` (2026-07-28).
    ServerDiscover,
    /// `notifications/initialized`.
    Initialized,
    /// `notifications/message` (logging).
    LogMessage,
    /// `notifications/resources/updated`.
    ResourceUpdated,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/roots/list_changed`.
    RootsListChanged,
}

impl Method {
    /// Every known method; `ALL[code - 1]` is the method of `code`.
    pub const ALL: [Method; 32] = [
        Method::Initialize,
        Method::Cancelled,
        Method::Progress,
        Method::TaskStatus,
        Method::TasksGet,
        Method::TasksResult,
        Method::TasksCancel,
        Method::ToolsCall,
        Method::SamplingCreateMessage,
        Method::ElicitationCreate,
        Method::SubscriptionsListen,
        Method::Ping,
        Method::ToolsList,
        Method::ResourcesList,
        Method::ResourcesTemplatesList,
        Method::ResourcesRead,
        Method::ResourcesSubscribe,
        Method::ResourcesUnsubscribe,
        Method::PromptsList,
        Method::PromptsGet,
        Method::CompletionComplete,
        Method::LoggingSetLevel,
        Method::RootsList,
        Method::TasksList,
        Method::ServerDiscover,
        Method::Initialized,
        Method::LogMessage,
        Method::ResourceUpdated,
        Method::ResourcesListChanged,
        Method::ToolsListChanged,
        Method::PromptsListChanged,
        Method::RootsListChanged,
    ];

    /// The method's name on the wire.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Method::Initialize => "initialize",
            Method::Cancelled => "notifications/cancelled",
            Method::Progress => "notifications/progress",
            Method::TaskStatus => "notifications/tasks/status",
            Method::TasksGet => "tasks/get",
            Method::TasksResult => "tasks/result",
            Method::TasksCancel => "tasks/cancel",
            Method::ToolsCall => "tools/call",
            Method::SamplingCreateMessage => "sampling/createMessage",
            Method::ElicitationCreate => "elicitation/create",
            Method::SubscriptionsListen => "subscriptions/listen",
            Method::Ping => "ping",
            Method::ToolsList => "tools/list",
            Method::ResourcesList => "resources/list",
            Method::ResourcesTemplatesList => "resources/templates/list",
            Method::ResourcesRead => "resources/read",
            Method::ResourcesSubscribe => "resources/subscribe",
            Method::ResourcesUnsubscribe => "resources/unsubscribe",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::CompletionComplete => "completion/complete",
            Method::LoggingSetLevel => "logging/setLevel",
            Method::RootsList => "roots/list",
            Method::TasksList => "tasks/list",
            Method::ServerDiscover => "server/discover",
            Method::Initialized => "notifications/initialized",
            Method::LogMessage => "notifications/message",
            Method::ResourceUpdated => "notifications/resources/updated",
            Method::ResourcesListChanged => "notifications/resources/list_changed",
            Method::ToolsListChanged => "notifications/tools/list_changed",
            Method::PromptsListChanged => "notifications/prompts/list_changed",
            Method::RootsListChanged => "notifications/roots/list_changed",
        }
    }

    /// The known method named `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The code of a method on the JS boundary: 1 + its index in [`Method::ALL`] (which
    /// lists the variants in their order: a test checks it).
    #[must_use]
    #[inline]
    pub const fn code(self) -> u32 {
        self as u32 + 1
    }

    /// The method of a code from [`Method::code`]; `None` for `0` and unknown codes.
    #[must_use]
    #[inline]
    pub fn from_code(code: u32) -> Option<Method> {
        Method::ALL.get((code as usize).checked_sub(1)?).copied()
    }

    /// The members of a request or notification with this method (`None`: any other
    /// method) that the host must read into a [`Message`](super::Message), by direction. The same for
    /// every revision: a member a revision does not use is read and ignored.
    #[must_use]
    pub const fn fields(method: Option<Method>, incoming: bool) -> Fields {
        if incoming {
            match method {
                Some(Method::Cancelled) => Fields(Fields::PARAMS.0 | Fields::REQUEST_ID.0 | Fields::REASON.0),
                Some(Method::Progress) => Fields::PROGRESS_TOKEN,
                Some(Method::TaskStatus) => Fields(Fields::TASK_ID.0 | Fields::STATUS.0),
                // A request that may be task-augmented (2025-11-25 §Tasks): only tasks/cancel cancels it.
                Some(Method::ToolsCall | Method::SamplingCreateMessage | Method::ElicitationCreate) => Fields::TASK,
                _ => Fields::NONE,
            }
        } else {
            match method {
                Some(Method::Cancelled) => Fields(Fields::PARAMS.0 | Fields::REQUEST_ID.0 | Fields::REASON.0),
                // A request we send: its progress token, and whether it is (or refers to) a task.
                _ => Fields(Fields::META_PROGRESS_TOKEN.0 | Fields::TASK.0 | Fields::TASK_ID.0),
            }
        }
    }
}

/// A set of members of a message ([`Message`](super::Message)) for the host to read: a bit set that
/// crosses the JS boundary as a number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields(pub u32);

impl Fields {
    /// Nothing beyond `id` and `method`.
    pub const NONE: Fields = Fields(0);
    /// The type of `params` ([`Message::params`](super::Message::params)).
    pub const PARAMS: Fields = Fields(1);
    /// `params.requestId` ([`Message::request_id`](super::Message::request_id)).
    pub const REQUEST_ID: Fields = Fields(1 << 1);
    /// `params.reason` ([`Message::reason`](super::Message::reason)).
    pub const REASON: Fields = Fields(1 << 2);
    /// `params.progressToken` ([`Message::progress_token`](super::Message::progress_token)) of a progress
    /// notification.
    pub const PROGRESS_TOKEN: Fields = Fields(1 << 3);
    /// `params._meta.progressToken` ([`Message::progress_token`](super::Message::progress_token)) of a
    /// request.
    pub const META_PROGRESS_TOKEN: Fields = Fields(1 << 4);
    /// Whether `params.task` is an object ([`Message::task`](super::Message::task)).
    pub const TASK: Fields = Fields(1 << 5);
    /// `params.taskId` when a string ([`Message::task_id`](super::Message::task_id)).
    pub const TASK_ID: Fields = Fields(1 << 6);
    /// `params.status` when a string ([`Message::status`](super::Message::status)).
    pub const STATUS: Fields = Fields(1 << 7);
    /// `result.task.taskId`, or `result.taskId` when `result.resultType` is `"task"`
    /// (2026-07-28) ([`ResponseInfo::task_id`](super::ResponseInfo::task_id)).
    pub const RESULT_TASK_ID: Fields = Fields(1 << 8);
    /// `result.taskId` and `result.status` ([`ResponseInfo::task_status`](super::ResponseInfo::task_status)).
    pub const RESULT_TASK_STATUS: Fields = Fields(1 << 9);
    /// `result.protocolVersion` ([`ResponseInfo::protocol_version`](super::ResponseInfo::protocol_version)).
    pub const PROTOCOL_VERSION: Fields = Fields(1 << 10);
    /// `error.code` when the message has an `error`
    /// ([`ResponseInfo::error_code`](super::ResponseInfo::error_code)).
    pub const ERROR_CODE: Fields = Fields(1 << 11);
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]` of a request when a string
    /// ([`Message::protocol_version`](super::Message::protocol_version),
    /// [`META_PROTOCOL_VERSION`](super::META_PROTOCOL_VERSION); 2026-07-28).
    pub const META_PROTOCOL_VERSION: Fields = Fields(1 << 12);

    /// Whether every member of `other` is in `self`.
    #[must_use]
    pub const fn contains(self, other: Fields) -> bool {
        self.0 & other.0 == other.0
    }

    /// The members of `self` not in `other`.
    #[must_use]
    pub const fn without(self, other: Fields) -> Fields {
        Fields(self.0 & !other.0)
    }

    /// Both sets.
    #[must_use]
    pub const fn with(self, other: Fields) -> Fields {
        Fields(self.0 | other.0)
    }
}

/// The `method` member of a message as the host read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MethodName<'a> {
    /// No `method` member: a response (or not JSON-RPC).
    Absent,
    /// `method` is present and not a string: not a valid message.
    NotAString,
    /// A known method.
    Known(Method),
    /// Any other method, by name.
    Other(&'a str),
}

impl<'a> MethodName<'a> {
    /// A method given by name.
    #[must_use]
    pub fn from_name(name: &'a str) -> Self {
        Method::from_name(name).map_or(MethodName::Other(name), MethodName::Known)
    }

    /// The known method, if it is one.
    #[must_use]
    #[inline]
    pub fn known(self) -> Option<Method> {
        match self {
            MethodName::Known(m) => Some(m),
            _ => None,
        }
    }

    /// The name, when the member is a string.
    #[must_use]
    #[inline]
    pub fn as_str(self) -> Option<&'a str> {
        match self {
            MethodName::Known(m) => Some(m.name()),
            MethodName::Other(name) => Some(name),
            MethodName::Absent | MethodName::NotAString => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Method;

    #[test]
    fn a_code_is_one_plus_the_index_in_all() {
        for (i, m) in Method::ALL.into_iter().enumerate() {
            assert_eq!(m.code() as usize, i + 1, "{m:?}");
            assert_eq!(Method::from_code(m.code()), Some(m));
        }
        assert_eq!(Method::from_code(0), None);
        assert_eq!(Method::from_code(Method::ALL.len() as u32 + 1), None);
    }
}
