//! What the session keeps of each request — ours ([`Outbound`], what most do not have
//! boxed in [`Extra`]), the peer's ([`Inbound`]) — and of each task ([`Task`]), with the
//! task statuses and methods those records are read with (2025-11-25 §Tasks). Records
//! only: the rules that make and read them are in `outbound`, `inbound` and `tasks`.

use crate::prelude::*;
use alloc::sync::Arc;

use super::deadlines::RequestTimer;
use super::id::{IdRef, ProgressToken, RequestId, StrId};
use super::method::{Method, Name};
use super::table::Table;
use super::tombstones::Tombstone;
use super::{seeded, IdMap};

/// What kind of outbound request an entry is (the task's id, if any, is in [`Extra`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Plain,
    /// Task-augmented, no `CreateTaskResult` yet; `cancel_pending` once aborted.
    Task {
        cancel_pending: bool,
    },
    /// The host's own `tasks/get`/`tasks/result`/`tasks/cancel` for a task.
    TaskQuery,
    /// Our own `tasks/cancel`.
    TaskCancel,
}

/// One of our requests in flight, as the table keeps it: 4 bytes beside its id (issue #24:
/// wasm memory per request). What most requests do not have — a method outside [`Method`],
/// a task id, a progress token, a deadline — is its [`Extra`], in [`Requests`]' side table,
/// touched only when the request has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Outbound {
    /// The method, when known; else its name is in the [`Extra`].
    pub(super) method: Option<Method>,
    pub(super) kind: Kind,
    /// Tracked with [`TrackRequest::watch`](super::TrackRequest::watch): queue [`Output::Settled`](super::Output::Settled) when it settles.
    pub(super) watched: bool,
    /// It has an [`Extra`] in the side table (set by [`Requests`] only).
    extra: bool,
}

#[derive(Debug, Default)]
pub(super) struct Extra {
    /// The method of a request whose method is not a known one (shared, [`Session::intern`](super::Session::intern)).
    pub(super) name: Option<Arc<str>>,
    /// The task of a [`Kind::TaskQuery`] or [`Kind::TaskCancel`].
    pub(super) task_id: Option<String>,
    pub(super) progress_token: Option<ProgressToken>,
    pub(super) timer: Option<RequestTimer>,
}

impl Outbound {
    pub(super) fn new(method: Option<Method>, kind: Kind, watched: bool) -> Self {
        Self { method, kind, watched, extra: false }
    }

    /// Whether it can still be cancelled: in flight, or a task with no `tasks/cancel` pending
    /// ([`Session::is_cancellable`](super::Session::is_cancellable)).
    pub(super) fn is_cancellable(&self) -> bool {
        matches!(self.kind, Kind::Plain | Kind::TaskQuery | Kind::Task { cancel_pending: false })
    }

    pub(super) fn is(&self, method: Method) -> bool {
        self.method == Some(method)
    }

    /// Whether its response needs more than its id ([`Session::response_fields`](super::Session::response_fields)).
    pub(super) fn reads_response(&self) -> bool {
        self.kind != Kind::Plain || self.method == Some(Method::Initialize)
    }

    /// Whether its response completes it with nothing but its id read: a plain request (no
    /// task), no [`Extra`] (no timer, a known method), not the handshake (whose result
    /// carries the revision).
    pub(super) fn is_plain(&self) -> bool {
        self.kind == Kind::Plain && !self.extra && !self.is(Method::Initialize)
    }

    /// The tombstone of a plain request ([`Self::is_plain`]): its method, no progress token.
    pub(super) fn plain_tombstone(self) -> Tombstone {
        let method = self.method.map_or_else(|| Name::Other("".into()), Name::Known);
        Tombstone { method, progress_token: None }
    }
}

/// The method's name of `request`, whose extra is `extra`.
fn name_of<'a>(request: &Outbound, extra: Option<&'a Extra>) -> &'a str {
    match (request.method, extra) {
        (Some(m), _) => m.name(),
        (None, Some(extra)) => extra.name.as_deref().unwrap_or_default(),
        (None, None) => "",
    }
}

/// The task id of `request`'s extra (`""` when it has none).
fn task_id_of(extra: Option<&Extra>) -> &str {
    extra.and_then(|e| e.task_id.as_deref()).unwrap_or_default()
}

/// Our requests in flight: each one's [`Outbound`] in a [`Table`] by id, and the [`Extra`] of
/// those that have one in a side table by id.
#[derive(Debug)]
pub(super) struct Requests {
    table: Table<Outbound>,
    extras: IdMap<Extra>,
}

/// A request of [`Requests`], to change in place: its record (`*request`) and its extra.
pub(super) struct RequestMut<'a> {
    request: &'a mut Outbound,
    pub(super) extra: Option<&'a mut Extra>,
}

/// A request taken out of [`Requests`] (answered, cancelled): its record (`*taken`) and
/// its extra.
#[derive(Debug)]
pub(super) struct Taken {
    request: Outbound,
    pub(super) extra: Option<Extra>,
}

impl ::core::ops::Deref for RequestMut<'_> {
    type Target = Outbound;
    fn deref(&self) -> &Outbound {
        self.request
    }
}

impl ::core::ops::DerefMut for RequestMut<'_> {
    fn deref_mut(&mut self) -> &mut Outbound {
        self.request
    }
}

impl RequestMut<'_> {
    pub(super) fn name(&self) -> &str {
        name_of(self.request, self.extra.as_deref())
    }

    pub(super) fn task_id(&self) -> &str {
        task_id_of(self.extra.as_deref())
    }
}

impl ::core::ops::Deref for Taken {
    type Target = Outbound;
    fn deref(&self) -> &Outbound {
        &self.request
    }
}

impl Taken {
    pub(super) fn name(&self) -> &str {
        name_of(&self.request, self.extra.as_ref())
    }

    pub(super) fn task_id(&self) -> &str {
        task_id_of(self.extra.as_ref())
    }

    /// The name as a tombstone keeps it.
    fn stored_name(&self) -> Name {
        match self.request.method {
            Some(m) => Name::Known(m),
            None => Name::Other(self.extra.as_ref().and_then(|e| e.name.clone()).unwrap_or_else(|| "".into())),
        }
    }

    pub(super) fn into_tombstone(self) -> Tombstone {
        let method = self.stored_name();
        Tombstone { method, progress_token: self.extra.and_then(|e| e.progress_token) }
    }
}

impl Requests {
    pub(super) fn new(seed: u64) -> Self {
        Self { table: Table::new(seed), extras: seeded(seed) }
    }

    pub(super) fn len(&self) -> usize {
        self.table.len()
    }

    pub(super) fn get(&self, id: &RequestId) -> Option<&Outbound> {
        self.table.get(id)
    }

    pub(super) fn get_mut(&mut self, id: &RequestId) -> Option<RequestMut<'_>> {
        let request = self.table.get_mut(id)?;
        let extra = if request.extra { self.extras.get_mut(id) } else { None };
        Some(RequestMut { request, extra })
    }

    /// The extra of request `id`, if it is in flight and has one.
    pub(super) fn extra(&self, id: &RequestId) -> Option<&Extra> {
        if self.extras.is_empty() {
            return None;
        }
        self.extras.get(id)
    }

    pub(super) fn extra_mut(&mut self, id: &RequestId) -> Option<&mut Extra> {
        self.extras.get_mut(id)
    }

    pub(super) fn contains_key(&self, id: &RequestId) -> bool {
        self.table.contains_key(id)
    }

    /// Puts request `id` in (in place of one with the same id, if any).
    pub(super) fn insert(&mut self, id: RequestId, mut request: Outbound, extra: Option<Extra>) {
        request.extra = extra.is_some();
        match extra {
            Some(extra) => {
                self.extras.insert(id.clone(), extra);
            }
            None if !self.extras.is_empty() => {
                self.extras.remove(&id);
            }
            None => {}
        }
        self.table.insert(id, request);
    }

    pub(super) fn remove(&mut self, id: &RequestId) -> Option<Taken> {
        let request = self.table.remove(id)?;
        let extra = if request.extra { self.extras.remove(id) } else { None };
        Some(Taken { request, extra })
    }

    /// [`Table::insert_new`] of a request with no extra (given back when `n` is taken).
    #[inline]
    pub(super) fn insert_new(&mut self, n: i64, request: Outbound) -> Result<(), Outbound> {
        self.table.insert_new(n, request)
    }

    /// [`Table::insert_new_str`] of a request with no extra.
    #[inline]
    pub(super) fn insert_new_str(&mut self, id: StrId<'_>, request: Outbound) -> Result<(), Outbound> {
        self.table.insert_new_str(id, request)
    }

    /// Removes request `n` when it [`is_plain`](Outbound::is_plain) (it has no extra).
    #[inline]
    pub(super) fn remove_plain(&mut self, n: i64) -> Option<Outbound> {
        self.table.remove_if(n, Outbound::is_plain)
    }

    /// [`Self::remove_plain`] for a string id.
    #[inline]
    pub(super) fn remove_plain_str(&mut self, id: StrId<'_>) -> Option<Outbound> {
        self.table.remove_str_if(id, Outbound::is_plain)
    }

    /// [`Self::remove_plain`] or [`Self::remove_plain_str`], by the id's kind.
    #[inline(always)]
    pub(super) fn remove_plain_ref(&mut self, id: IdRef<'_>) -> Option<Outbound> {
        match id {
            IdRef::Number(n) => self.remove_plain(n),
            IdRef::Str(s) => self.remove_plain_str(s),
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (RequestId, &Outbound)> {
        self.table.iter()
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &Outbound> {
        self.table.values()
    }

    pub(super) fn clear(&mut self) {
        self.table.clear();
        self.extras.clear();
    }
}

#[derive(Debug)]
pub(super) struct Inbound {
    pub(super) method: Name,
    /// The host keeps resources for it ([`Session::watch_inbound`](super::Session::watch_inbound)).
    pub(super) watched: bool,
    /// It is task-augmented (`params.task`): only `tasks/cancel` cancels it.
    pub(super) task: bool,
}

/// JSON-RPC error code for invalid params: what a 2025-11-25 server answers to
/// `tasks/cancel` for a task already terminal.
pub const INVALID_PARAMS: i64 = -32602;

/// A task created by one of our task-augmented requests, until it is terminal.
#[derive(Debug)]
pub(super) struct Task {
    pub(super) request_id: RequestId,
    pub(super) method: String,
    pub(super) cancel_sent: bool,
    /// The request was tracked with [`TrackRequest::watch`](super::TrackRequest::watch).
    pub(super) watched: bool,
}

pub(super) const TASK_STATUS_METHOD_TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// The requests that may be task-augmented (2025-11-25 §Tasks). Others may carry
/// `params.task` (the TS SDK 1.x copies it onto its `tasks/get` polls) without being one.
pub(super) const TASK_AUGMENTABLE: [Method; 3] =
    [Method::ToolsCall, Method::SamplingCreateMessage, Method::ElicitationCreate];

pub(super) fn is_terminal(status: &str) -> bool {
    TASK_STATUS_METHOD_TERMINAL.contains(&status)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    /// The record is 4 bytes, and so is a window slot (`Option` in its niche): wasm memory
    /// per request in flight (issue #24, BENCHMARKS.md).
    #[test]
    fn a_request_is_four_bytes() {
        assert_eq!(::core::mem::size_of::<Outbound>(), 4);
        assert_eq!(::core::mem::size_of::<Option<Outbound>>(), 4);
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// Insert with or without an extra (its task id `"t<n>"`).
        Insert(RequestId, Option<u8>),
        InsertNew(i64),
        Remove(RequestId),
        RemovePlain(i64),
        Watch(RequestId),
        Clear,
    }

    fn id() -> impl Strategy<Value = RequestId> {
        prop_oneof![
            4 => (0i64..24).prop_map(RequestId::Number),
            1 => (0u8..6).prop_map(|n| RequestId::String(format!("r{n}"))),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (id(), prop::option::of(0u8..4)).prop_map(|(id, t)| Op::Insert(id, t)),
            2 => (0i64..24).prop_map(Op::InsertNew),
            2 => id().prop_map(Op::Remove),
            2 => (0i64..24).prop_map(Op::RemovePlain),
            1 => id().prop_map(Op::Watch),
            1 => Just(Op::Clear),
        ]
    }

    fn extra(t: u8) -> Extra {
        Extra { task_id: Some(format!("t{t}")), ..Extra::default() }
    }

    proptest! {
        /// Against a map of (record, task id): every request's record and extra are found by
        /// its id, an extra leaves with its request (taken, replaced, cleared), and a request
        /// with an extra is never taken as plain.
        #[test]
        fn extras_stay_with_their_requests(ops in prop::collection::vec(op(), 1..120)) {
            let mut requests = Requests::new(7);
            let mut model: HashMap<RequestId, (bool, Option<u8>)> = HashMap::new();
            let plain = Outbound::new(Some(Method::ToolsCall), Kind::Plain, false);
            for op in ops {
                match op {
                    Op::Insert(id, t) => {
                        requests.insert(id.clone(), plain, t.map(extra));
                        model.insert(id, (false, t));
                    }
                    Op::InsertNew(n) => {
                        let id = RequestId::Number(n);
                        let got = requests.insert_new(n, plain).is_ok();
                        prop_assert_eq!(got, !model.contains_key(&id));
                        model.entry(id).or_insert((false, None));
                    }
                    Op::Remove(id) => {
                        let got = requests.remove(&id);
                        let want = model.remove(&id);
                        prop_assert_eq!(got.is_some(), want.is_some());
                        if let (Some(got), Some((watched, t))) = (got, want) {
                            prop_assert_eq!(got.watched, watched);
                            prop_assert_eq!(got.task_id(), t.map(|t| format!("t{t}")).unwrap_or_default());
                        }
                    }
                    Op::RemovePlain(n) => {
                        let id = RequestId::Number(n);
                        let got = requests.remove_plain(n).is_some();
                        let want = model.get(&id).is_some_and(|(_, t)| t.is_none());
                        prop_assert_eq!(got, want);
                        if want {
                            model.remove(&id);
                        }
                    }
                    Op::Watch(id) => {
                        if let Some(mut r) = requests.get_mut(&id) {
                            r.watched = true;
                        }
                        if let Some((watched, _)) = model.get_mut(&id) {
                            *watched = true;
                        }
                    }
                    Op::Clear => {
                        requests.clear();
                        model.clear();
                    }
                }
                prop_assert_eq!(requests.len(), model.len());
                prop_assert_eq!(requests.extras.len(), model.values().filter(|(_, t)| t.is_some()).count());
                for (id, (watched, t)) in &model {
                    prop_assert_eq!(requests.get(id).map(|r| r.watched), Some(*watched));
                    let task = requests.extra(id).and_then(|e| e.task_id.clone());
                    prop_assert_eq!(task, t.map(|t| format!("t{t}")));
                    prop_assert_eq!(requests.get_mut(id).unwrap().task_id().is_empty(), t.is_none());
                }
            }
        }
    }
}
