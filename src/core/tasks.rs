//! Tasks (2025-11-25 §Tasks; 2026-07-28 tasks extension): a task-augmented request is
//! cancelled with one `tasks/cancel { taskId }` (deferred until its `CreateTaskResult` when
//! the abort comes first), and none once the task is terminal.

use super::decimal::Decimal;
use super::event::{EventKindOf, EventRef, NotSent, Via};
use super::id::{IdRef, RequestId};
use super::keys::Key;
use super::method::Method;
use super::output::Sink;
use super::records::{is_terminal, Extra, Kind, Outbound, CANCEL_SENT, WATCHED};
use super::revision::TaskCancel;
use super::session::{emit, Session};
use crate::prelude::*;

impl<S: Sink> Session<S> {
    /// Number of tasks of ours that are running (not yet terminal).
    #[must_use]
    pub fn running_tasks(&self) -> usize {
        self.tasks.len()
    }

    /// Notes a task's status (`notifications/tasks/status`): a terminal status
    /// (`completed`, `failed`, `cancelled`) ends the task — no `tasks/cancel` will be sent
    /// for it.
    pub fn handle_task_status(&mut self, task_id: &str, status: &str) {
        if is_terminal(status) {
            self.end_task(task_id);
        }
    }

    #[inline]
    pub(super) fn tasks_extension(&self) -> bool {
        self.rules().is_some_and(|r| r.tasks == TaskCancel::TasksExtension)
    }

    /// Queues the `tasks/cancel` for `task_id` (the task of our request `id`); `false` when
    /// one was already sent. Its id is the session's own, never one in use.
    pub(super) fn cancel_task(&mut self, id: IdRef<'_>, task_id: &str) -> bool {
        let Some(t) = self.tasks.find(task_id) else { return false };
        let flags = self.tasks.flags(t);
        let request_id = id;
        if flags & CANCEL_SENT != 0 {
            let method = Some(self.tasks.method(t));
            emit!(
                self,
                EventRef::outbound(EventKindOf::CancelNotSent { request_id, method, why: NotSent::TaskSettled })
            );
            return false;
        }
        self.tasks.set_flags(t, flags | CANCEL_SENT);
        let cancel_id = loop {
            let mut candidate = self.config.internal_id_prefix.clone();
            candidate.push_str(Decimal::unsigned(self.next_internal_id).as_str());
            let candidate = RequestId::String(candidate);
            self.next_internal_id += 1;
            // The application may use ids of the same shape: never take one it has in use.
            if !self.requests.has_outbound(Key::of(&candidate)) && !self.requests.has_tombstone(Key::of(&candidate)) {
                break candidate;
            }
        };
        let extra = Extra { task_id: Some(task_id.owned()), ..Extra::default() };
        self.insert_outbound(
            Key::of(&cancel_id),
            Outbound::new(Some(Method::TasksCancel), Kind::TaskCancel, false),
            Some(extra),
        );
        if self.config.events {
            let method = self.tasks.method(t);
            self.out.event(EventRef::outbound(EventKindOf::CancelSent {
                request_id,
                method,
                via: Via::TasksCancel,
                reason: None,
                task_id: Some(task_id),
            }));
        }
        self.out.tasks_cancel(request_id, cancel_id.as_id_ref(), task_id);
        true
    }

    pub(super) fn start_task(&mut self, id: IdRef<'_>, task_id: &str, method: &str, watched: bool) {
        // A peer that gives an earlier request's task id again: that request can no longer
        // be told apart through the task, so it is settled now (as `end_task` would).
        let key = Key::of_ref(id);
        if let Some(old) = self.tasks.insert(task_id, key, method, watched) {
            if Key::of(&old.request) != key && old.named && !self.requests.has_outbound(Key::of(&old.request)) {
                self.settle(old.request.as_id_ref(), old.watched);
            }
        }
    }

    pub(super) fn end_task(&mut self, task_id: &str) {
        let Some(t) = self.tasks.find(task_id) else { return };
        // The request id may have been reused since (see `track`): only if it still names
        // this task is its request settled.
        let named = self.tasks.is_named(t);
        let owner = self.tasks.request(t);
        let watched = self.tasks.flags(t) & WATCHED != 0;
        self.tasks.remove(t);
        if let (true, Some(owner)) = (named, owner) {
            if !self.requests.has_outbound(Key::of(&owner)) {
                self.settle(owner.as_id_ref(), watched);
            }
        }
    }
}
