//! [`RunningTasks`]: the tasks of ours that are running (2025-11-25 §Tasks; 2026-07-28 tasks
//! extension), each by its task id and by the id of the request that started it. When a
//! task gets its `tasks/cancel` is the rules' (`tasks`, `outbound`); this part keeps the
//! records.
//!
//! Invariants:
//! 1. A task id names at most one task: starting a task of an id in use gives the earlier
//!    task back and forgets it.
//! 2. A request id names at most one task, the newest it started, and only while no other
//!    request of ours has that id ([`RunningTasks::unname`]); the task itself keeps its
//!    request's id either way.
//! 3. A task's method's name and its request's id leave with it.

use crate::prelude::*;

use super::id::{IdRef, RequestId};
use super::keys::{str_key, Key};
use super::pool::Pool;
use super::records::{method_code, slot_name, Extra, CANCEL_SENT, WATCHED};
use super::slots::{Ns, Slots, NONE};

/// A task given back by [`RunningTasks::insert`]: the one that had the task id before.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Replaced {
    /// The id of the request that started it.
    pub(crate) request: RequestId,
    /// Whether that request id still named it.
    pub(crate) named: bool,
    pub(crate) watched: bool,
}

#[derive(Debug)]
pub(crate) struct RunningTasks {
    /// By task id in [`Ns::Task`] (`link`: its [`Ns::TaskOf`] slot or [`NONE`]), by request
    /// id in [`Ns::TaskOf`] (`link`: the task's slot).
    slots: Slots,
    /// Each task's request id and, for a method the table does not know, its name.
    extras: Pool<Extra>,
}

impl RunningTasks {
    pub(crate) fn new(seed: u64) -> Self {
        Self { slots: Slots::new(seed), extras: Pool::default() }
    }

    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.extras.clear();
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.count(Ns::Task)
    }

    /// Task `task_id`.
    pub(crate) fn find(&self, task_id: &str) -> Option<u32> {
        self.slots.find(Ns::Task, str_key(task_id))
    }

    /// The task our request `key` names (invariant 2). No probe while no request names one
    /// (every plain request's cancel and settlement asks).
    #[inline]
    pub(crate) fn of(&self, key: Key<'_>) -> Option<u32> {
        if !self.any_named() {
            return None;
        }
        self.slots.find(Ns::TaskOf, key).map(|t| self.slots.slot(t).link)
    }

    /// Whether a request id names a task.
    pub(crate) fn any_named(&self) -> bool {
        self.slots.count(Ns::TaskOf) > 0
    }

    /// Task `t`'s id.
    pub(crate) fn id(&self, t: u32) -> String {
        match self.slots.slot(t).key.as_key().to_request_id() {
            RequestId::String(s) => s,
            RequestId::Number(_) => String::new(),
        }
    }

    /// Task `t`'s method's name.
    pub(crate) fn method(&self, t: u32) -> &str {
        slot_name(&self.slots, &self.extras, t)
    }

    /// The id of the request that started task `t`.
    pub(crate) fn request(&self, t: u32) -> Option<RequestId> {
        self.request_ref(t).map(IdRef::to_request_id)
    }

    /// [`Self::request`], borrowed (nothing allocated).
    pub(crate) fn request_ref(&self, t: u32) -> Option<IdRef<'_>> {
        let extra = self.extras.get(self.slots.slot(t).extra)?;
        extra.request.as_ref().map(|k| k.as_key().as_id_ref())
    }

    /// Whether task `t`'s request id still names it.
    pub(crate) fn is_named(&self, t: u32) -> bool {
        self.slots.slot(t).link != NONE
    }

    pub(crate) fn flags(&self, t: u32) -> u16 {
        self.slots.slot(t).flags
    }

    pub(crate) fn set_flags(&mut self, t: u32, flags: u16) {
        self.slots.slot_mut(t).flags = flags;
    }

    /// Whether `cancel` on task `t` has nothing more to send.
    pub(crate) fn cancel_sent(&self, t: u32) -> bool {
        self.flags(t) & CANCEL_SENT != 0
    }

    /// Starts task `task_id` of our request `request`, which names it now (invariant 2): the
    /// task that had this id before, if any, is given back and forgotten (invariant 1).
    pub(crate) fn insert(&mut self, task_id: &str, request: Key<'_>, method: &str, watched: bool) -> Option<Replaced> {
        let old = self.find(task_id).map(|t| {
            let replaced = Replaced {
                request: self.request(t).unwrap_or(RequestId::Number(0)),
                named: self.is_named(t),
                watched: self.flags(t) & WATCHED != 0,
            };
            self.remove(t);
            replaced
        });
        if let Some(earlier) = self.of(request) {
            self.unname(earlier);
        }
        let (code, name) = method_code(method);
        let extra = self.extras.put(Some(Extra { name, request: Some(request.to_owned()), ..Extra::default() }));
        let t = self.slots.insert(Ns::Task, str_key(task_id), code, if watched { WATCHED } else { 0 }, extra);
        let of = self.slots.insert(Ns::TaskOf, request, 0, 0, NONE);
        self.slots.slot_mut(of).link = t;
        self.slots.slot_mut(t).link = of;
        old
    }

    /// Task `t`'s request id no longer names it (the id names another request now).
    pub(crate) fn unname(&mut self, t: u32) {
        let of = self.slots.slot(t).link;
        if of != NONE {
            self.slots.remove(of);
            self.slots.slot_mut(t).link = NONE;
        }
    }

    /// Forgets task `t` (invariant 3).
    pub(crate) fn remove(&mut self, t: u32) {
        self.unname(t);
        let slot = self.slots.remove(t);
        self.extras.take(slot.extra);
    }

    /// How many tasks a cancel could still reach: named by their request id (which is no
    /// longer `in_flight` as a request), their cancel not sent.
    pub(crate) fn cancellable(&self, in_flight: impl Fn(Key<'_>) -> bool) -> usize {
        let mut n = 0;
        for (t, slot) in self.slots.iter(Ns::Task) {
            let running = slot.link != NONE && slot.flags & CANCEL_SENT == 0;
            n += usize::from(running && self.request_ref(t).is_some_and(|id| !in_flight(Key::of_ref(id))));
        }
        n
    }

    /// Calls `each` with the request id of every watched task (borrowed).
    pub(crate) fn each_watched(&self, mut each: impl FnMut(IdRef<'_>)) {
        for (t, _) in self.slots.iter(Ns::Task) {
            if self.flags(t) & WATCHED != 0 {
                if let Some(id) = self.request_ref(t) {
                    each(id);
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_task_keeps_its_request_and_is_named_by_its_id_once() {
        let mut tasks = RunningTasks::new(1);
        let (r1, r2) = (RequestId::Number(1), RequestId::from("two"));
        assert_eq!(tasks.insert("t", Key::of(&r1), "tools/call", true), None);
        let t = tasks.find("t").unwrap();
        assert_eq!(tasks.of(Key::of(&r1)), Some(t));
        assert_eq!(tasks.request(t), Some(r1.clone()));
        assert_eq!(tasks.method(t), "tools/call");
        // Another request gives the same task id: the first task is given back and goes.
        let replaced = Replaced { request: r1.clone(), named: true, watched: true };
        assert_eq!(tasks.insert("t", Key::of(&r2), "custom/run", false), Some(replaced));
        assert_eq!(tasks.of(Key::of(&r1)), None);
        let t = tasks.find("t").unwrap();
        assert_eq!(tasks.method(t), "custom/run");
        // Its request id names another request now: the task stays, its id no longer names it.
        tasks.unname(t);
        assert_eq!(tasks.of(Key::of(&r2)), None);
        assert!(!tasks.is_named(t));
        assert_eq!(tasks.request(t), Some(r2));
        assert_eq!(tasks.cancellable(|_| false), 0, "a task no request id names is not counted");
        tasks.remove(t);
        assert_eq!(tasks.len(), 0);
        assert!(!tasks.any_named());
        assert_eq!(tasks.extras.live(), 0);
    }

    #[test]
    fn a_request_names_only_its_newest_task() {
        let mut tasks = RunningTasks::new(1);
        let r = RequestId::Number(7);
        tasks.insert("a", Key::of(&r), "tools/call", false);
        tasks.insert("b", Key::of(&r), "tools/call", true);
        let (a, b) = (tasks.find("a").unwrap(), tasks.find("b").unwrap());
        assert_eq!(tasks.of(Key::of(&r)), Some(b));
        assert!(!tasks.is_named(a));
        assert_eq!(tasks.cancellable(|_| false), 1);
        assert_eq!(tasks.cancellable(|_| true), 0, "a task whose request is still in flight is counted as the request");
        tasks.set_flags(b, tasks.flags(b) | CANCEL_SENT);
        assert!(tasks.cancel_sent(b));
        assert_eq!(tasks.cancellable(|_| false), 0);
        let mut watched = Vec::new();
        tasks.each_watched(|id| watched.push(id.to_request_id()));
        assert_eq!(watched, vec![r]);
    }
}
