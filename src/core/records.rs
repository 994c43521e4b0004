//! What the session keeps of each request of ours ([`Outbound`], and what most do not have,
//! in an [`Extra`]), and the task statuses and methods those records are read with
//! (2025-11-25 §Tasks). Records only: where they are kept is the parts' (`requests`,
//! `running`, `peer_requests`), the rules that make and read them are in `outbound`,
//! `inbound` and `tasks`.

use crate::prelude::*;

use super::deadlines::RequestTimer;
use super::keys::OwnedKey;
use super::method::Method;
use super::pool::Pool;
use super::slots::Slots;

/// What kind of request of ours a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Cancelled with `notifications/cancelled` (or by closing its stream).
    Plain,
    /// Task-augmented (2025-11-25): cancelled with `tasks/cancel` once its task id is known;
    /// `cancel_pending` when the caller gave up before that.
    Task { cancel_pending: bool },
    /// A `tasks/get`, `tasks/result` or `tasks/cancel` of the host's about a task we know.
    TaskQuery,
    /// A `tasks/cancel` the session issued itself.
    TaskCancel,
}

impl Kind {
    /// The kind's bits in a slot's flags ([`KIND_BITS`]).
    pub(crate) fn bits(self) -> u16 {
        match self {
            Kind::Plain => 0,
            Kind::Task { cancel_pending: false } => 1,
            Kind::Task { cancel_pending: true } => 2,
            Kind::TaskQuery => 3,
            Kind::TaskCancel => 4,
        }
    }

    pub(crate) fn from_bits(flags: u16) -> Kind {
        match flags & KIND_BITS {
            1 => Kind::Task { cancel_pending: false },
            2 => Kind::Task { cancel_pending: true },
            3 => Kind::TaskQuery,
            4 => Kind::TaskCancel,
            _ => Kind::Plain,
        }
    }
}

// Flags of a slot (`slots::Slot::flags`), by namespace.
/// Outbound: the [`Kind`].
pub(crate) const KIND_BITS: u16 = 0b111;
/// Outbound, inbound, task: the host watches the request (an `AbortSignal` of its own, or
/// the session's signal for it).
pub(crate) const WATCHED: u16 = 1 << 3;
/// Inbound: task-augmented (2025-11-25: the peer cancels it with `tasks/cancel`).
pub(crate) const TASK: u16 = 1 << 4;
/// Task: its one `tasks/cancel` went (or the host sent its own).
pub(crate) const CANCEL_SENT: u16 = 1 << 5;

/// Our request in flight, as the session reads it: 4 bytes, what a request in the window is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Outbound {
    /// Its method when the method table has it (else its name is in the extra).
    pub(crate) method: Option<Method>,
    pub(crate) kind: Kind,
    pub(crate) watched: bool,
    /// It has an [`Extra`] (so it is not in the window).
    pub(crate) extra: bool,
}

/// What some requests of ours have beyond their [`Outbound`] record (a tombstone keeps the
/// name and the progress token; a task its name and its request's id; the peer's requests
/// only a name).
#[derive(Debug, Default)]
pub(crate) struct Extra {
    /// The method's name, when the method table does not have it.
    pub(crate) name: Option<Box<str>>,
    /// [`Kind::TaskQuery`] and [`Kind::TaskCancel`]: the task's id.
    pub(crate) task_id: Option<String>,
    /// `params._meta.progressToken`.
    pub(crate) progress_token: Option<OwnedKey>,
    /// Its timeouts (none for a request without them).
    pub(crate) timer: Option<RequestTimer>,
    /// A task's: the id of the request that started it.
    pub(crate) request: Option<OwnedKey>,
}

impl Outbound {
    pub(crate) fn new(method: Option<Method>, kind: Kind, watched: bool) -> Self {
        Self { method, kind, watched, extra: false }
    }

    /// Whether `cancel` of it sends something (a deferred task cancel, or a notification).
    pub(crate) fn is_cancellable(&self) -> bool {
        matches!(self.kind, Kind::Plain | Kind::TaskQuery | Kind::Task { cancel_pending: false })
    }

    pub(crate) fn is(&self, method: Method) -> bool {
        self.method == Some(method)
    }

    /// Whether its response needs more than its id (a task id, a status, an error code, a
    /// negotiated version).
    pub(crate) fn reads_response(&self) -> bool {
        self.kind != Kind::Plain || self.method == Some(Method::Initialize)
    }

    /// Whether it is a plain request with nothing else: what the window holds, and what the
    /// shortcuts of the one paths take (a plain request's track, response and cancel).
    #[inline]
    pub(crate) fn is_plain(&self) -> bool {
        self.kind == Kind::Plain && !self.extra && !self.is(Method::Initialize)
    }

    /// Its flags in a slot.
    pub(crate) fn flags(&self) -> u16 {
        self.kind.bits() | if self.watched { WATCHED } else { 0 }
    }

    /// [`Self::is_plain`] of the record in a slot with `method` code, `flags` and an extra
    /// or not, read from the bits (no `Method` decoded).
    #[inline]
    pub(crate) fn slot_is_plain(method: u8, flags: u16, extra: bool) -> bool {
        Kind::from_bits(flags) == Kind::Plain && !extra && u32::from(method) != Method::Initialize.code()
    }

    /// The record of a slot with `method` code and `flags`.
    #[inline]
    pub(crate) fn from_slot(method: u8, flags: u16, extra: bool) -> Self {
        Self {
            method: Method::from_code(u32::from(method)),
            kind: Kind::from_bits(flags),
            watched: flags & WATCHED != 0,
            extra,
        }
    }
}

/// Our request taken out of its part: its record and its extra.
#[derive(Debug)]
pub(crate) struct Taken {
    pub(crate) request: Outbound,
    pub(crate) extra: Option<Extra>,
}

impl ::core::ops::Deref for Taken {
    type Target = Outbound;
    fn deref(&self) -> &Outbound {
        &self.request
    }
}

impl Taken {
    /// Its method's name.
    pub(crate) fn name(&self) -> &str {
        name_of(self.request.method, self.extra.as_ref())
    }

    /// [`Kind::TaskQuery`] and [`Kind::TaskCancel`]: its task's id.
    pub(crate) fn task_id(&self) -> &str {
        self.extra.as_ref().and_then(|e| e.task_id.as_deref()).unwrap_or_default()
    }
}

/// The name of a record's method: from the method table, or from its extra.
pub(crate) fn name_of(method: Option<Method>, extra: Option<&Extra>) -> &str {
    match (method, extra) {
        (Some(m), _) => m.name(),
        (None, Some(extra)) => extra.name.as_deref().unwrap_or_default(),
        (None, None) => "",
    }
}

/// The method's name of slot `s` of `slots`: from the method table by its code, or from its
/// extra in `extras`.
pub(crate) fn slot_name<'a>(slots: &'a Slots, extras: &'a Pool<Extra>, s: u32) -> &'a str {
    let slot = slots.slot(s);
    name_of(Method::from_code(u32::from(slot.method)), extras.get(slot.extra))
}

/// The method table's code of `name` (0: another method) and, for another method, its name
/// to keep.
pub(crate) fn method_code(name: &str) -> (u8, Option<Box<str>>) {
    match Method::from_name(name) {
        Some(m) => (code_of(Some(m)), None),
        None => (0, Some(name.into())),
    }
}

/// A slot's method code of `method` (0: none).
pub(crate) fn code_of(method: Option<Method>) -> u8 {
    method.map_or(0, |m| m.code() as u8)
}

/// The JSON-RPC error code of a `tasks/cancel` for a task that is not running (2025-11-25
/// §Tasks "Error Handling": "Invalid params (-32602)").
pub const INVALID_PARAMS: i64 = -32602;

/// Task statuses after which a task is over (2025-11-25 §Tasks "Task Status").
pub(crate) const TASK_STATUS_METHOD_TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// The requests a client or server may augment with a task (2025-11-25 §Tasks "Task Support").
pub(crate) const TASK_AUGMENTABLE: [Method; 3] =
    [Method::ToolsCall, Method::SamplingCreateMessage, Method::ElicitationCreate];

/// Whether a task with `status` is over.
pub(crate) fn is_terminal(status: &str) -> bool {
    TASK_STATUS_METHOD_TERMINAL.contains(&status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_four_bytes() {
        assert_eq!(::core::mem::size_of::<Outbound>(), 4);
        assert_eq!(::core::mem::size_of::<Option<Outbound>>(), 4);
    }

    #[test]
    fn kinds_round_trip_through_their_bits() {
        for kind in [
            Kind::Plain,
            Kind::Task { cancel_pending: false },
            Kind::Task { cancel_pending: true },
            Kind::TaskQuery,
            Kind::TaskCancel,
        ] {
            assert_eq!(Kind::from_bits(kind.bits() | WATCHED | CANCEL_SENT), kind);
        }
    }
}
