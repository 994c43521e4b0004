//! The sessions of the `.wasm`, by handle: the JS layer's `CancellationSession` holds a number
//! (a `u32`, never `0`), and every entry point (`wasm::exports`) finds its [`SessionCore`]
//! here.
//!
//! An entry point borrows the table, indexes it and calls the session: a handle that names
//! no session (never made, or freed) finds nothing and the entry point returns its "nothing
//! done" value — it never traps and never reads memory that is not a session's. Why a table
//! and not a wasm-bindgen class: `wasm::exports`.
//!
//! The table holds at most [`MAX_SESSIONS`] sessions at once; a freed session's place is
//! taken by the next one made (the free list), so the table's size is the most sessions
//! alive at once, not how many were ever made.

use crate::prelude::*;
use ::core::cell::RefCell;

use super::bindings::SessionCore;

/// The most sessions alive at once in one `.wasm` instance: a handle's low 24 bits are its
/// place in the table plus one (so a handle is never `0`), the high 8 bits the place's
/// generation (so a stale handle rarely finds its place's next session).
pub(super) const MAX_SESSIONS: usize = (1 << 24) - 1;

/// A handle's bits that name its place.
const PLACE_BITS: u32 = (1 << 24) - 1;

/// The sessions alive, and the places of the freed ones.
struct Table {
    /// Each place: its generation (counted up when its session is freed) and its session.
    places: Vec<(u8, Option<SessionCore>)>,
    /// Places with no session, taken first.
    free: Vec<u32>,
}

/// The one table of the instance.
struct Sessions(RefCell<Table>);

// SAFETY: a `static` must be `Sync`; `RefCell` is not, because two threads could borrow it at
// once. The `.wasm` has one thread: it is built without the `atomics` target feature (the
// `compile_error!` below keeps it so), so no two borrows of the table ever race.
#[cfg(not(target_feature = "atomics"))]
unsafe impl Sync for Sessions {}

#[cfg(target_feature = "atomics")]
compile_error!("the sessions' table assumes one thread: build the .wasm without the `atomics` target feature");

static SESSIONS: Sessions = Sessions(RefCell::new(Table { places: Vec::new(), free: Vec::new() }));

/// Keeps `session`; returns its handle, or `0` when the table is in use (a call from inside a
/// call, which the JS layer never makes) or full ([`MAX_SESSIONS`]).
pub(super) fn insert(session: SessionCore) -> u32 {
    let Ok(mut table) = SESSIONS.0.try_borrow_mut() else { return 0 };
    let index = match table.free.pop() {
        Some(index) => index,
        None if table.places.len() < MAX_SESSIONS => {
            table.places.push((0, None));
            (table.places.len() - 1) as u32
        }
        None => return 0,
    };
    let Some(place) = table.places.get_mut(index as usize) else { return 0 };
    place.1 = Some(session);
    encode(index, place.0)
}

/// Frees the session of `handle` (nothing when there is none, or the table is in use).
pub(super) fn remove(handle: u32) {
    let Ok(mut table) = SESSIONS.0.try_borrow_mut() else { return };
    let index = (handle & PLACE_BITS).wrapping_sub(1);
    let Some(place) = table.places.get_mut(index as usize) else { return };
    if place.1.is_none() || handle != encode(index, place.0) {
        return;
    }
    // Dropped with the table borrowed: a session's drop calls no JS.
    place.1 = None;
    place.0 = place.0.wrapping_add(1);
    table.free.push(index);
}

/// `f` of the session of `handle`; `None` when there is none (never made, or freed) or the
/// table is in use (a call made from inside a call: the JS layer makes none — it calls no
/// session from the host's clock or a panic, the only JS a call runs).
#[inline]
pub(super) fn with<R>(handle: u32, f: impl FnOnce(&mut SessionCore) -> R) -> Option<R> {
    let mut table = SESSIONS.0.try_borrow_mut().ok()?;
    Some(f(find(&mut table, handle)?))
}

/// [`with`] for the hot paths (a plain request's track and response, bench scenario 1b): the
/// session found inline, where the other entry points share one copy of [`find`].
#[inline]
pub(super) fn with_hot<R>(handle: u32, f: impl FnOnce(&mut SessionCore) -> R) -> Option<R> {
    let mut table = SESSIONS.0.try_borrow_mut().ok()?;
    Some(f(find_inline(&mut table, handle)?))
}

/// The session of `handle` in `table`: one copy for every entry point but the hot paths
/// (for size: inlined, it is ~100 bytes in each of 27).
#[inline(never)]
fn find(table: &mut Table, handle: u32) -> Option<&mut SessionCore> {
    find_inline(table, handle)
}

/// The session of `handle` in `table`: `None` for a handle that names none.
#[inline]
fn find_inline(table: &mut Table, handle: u32) -> Option<&mut SessionCore> {
    let index = (handle & PLACE_BITS).wrapping_sub(1);
    let place = table.places.get_mut(index as usize)?;
    if handle != encode(index, place.0) {
        return None;
    }
    place.1.as_mut()
}

/// The handle of place `index` (below [`MAX_SESSIONS`]) in its generation `generation`:
/// never `0`.
#[inline]
fn encode(index: u32, generation: u8) -> u32 {
    u32::from(generation) << 24 | (index + 1)
}
