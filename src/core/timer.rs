//! Request timeouts, the session's rule: a request whose deadline passed is cancelled as by
//! the host's own cancel, with [`Reason::Timeout`]. The deadlines themselves are kept by
//! the `requests` part (the data structure is in `deadlines`).
//!
//! Spec: 2025-03-26 / 2025-06-18 / 2025-11-25 §Lifecycle "Timeouts", 2026-07-28
//! §Cancellation "Timeouts": on timeout the sender SHOULD cancel the request; the clock MAY
//! be reset on progress, but a maximum total timeout SHOULD always be enforced.

use super::deadlines::Millis;
use super::event::{EventKindOf, EventRef};
use super::output::{CancelCause, Sink};
use super::reason::Reason;
use super::requests::At;
use super::session::{emit, Session};

/// Time: the host arms one timer for [`Session::poll_timeout`](super::Session::poll_timeout) and calls
/// [`Session::handle_timeout`](super::Session::handle_timeout) when it fires.
impl<S: Sink> Session<S> {
    /// The earliest deadline (ms on the host's time line) at which
    /// [`Self::handle_timeout`] must be called; `None` when no request has a timeout.
    #[must_use]
    #[inline]
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.requests.next_deadline()
    }

    /// Expires every request whose deadline is at or before `now`: each is cancelled as by
    /// [`Self::cancel`] with [`Reason::Timeout`], and its [`Output::Cancelled`](super::Output::Cancelled) carries
    /// [`CancelCause::TimedOut`] so its local caller gets a timeout
    /// error (queued even when
    /// nothing could be sent). Each deadline fires once.
    ///
    /// Spec: 2025-03-26 §Lifecycle "Timeouts" (2026-07-28: §Cancellation "Timeouts"): on
    /// timeout the sender SHOULD issue a cancel and stop waiting.
    pub fn handle_timeout(&mut self, now: Millis) {
        while let Some((s, kind)) = self.requests.pop_expired(now) {
            let at = At::Slot(s);
            let id = self.requests.slot_id(s);
            emit!(
                self,
                EventRef::outbound(EventKindOf::TimedOut {
                    request_id: id.as_id_ref(),
                    method: self.requests.outbound_name(at),
                    kind,
                })
            );
            let cause = CancelCause::TimedOut(kind);
            if !matches!(self.cancel_with(id.as_id_ref(), &Reason::Timeout, cause), Ok(true)) {
                self.out.cancelled(id.as_id_ref(), cause);
            }
        }
    }
}
