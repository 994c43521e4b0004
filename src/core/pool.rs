//! [`Pool`]: the records a slot points at when it needs more than a slot holds (a method's
//! name the table does not know, a task id, a timer), by index.
//!
//! Invariant: an index given by [`Pool::put`] names its record until [`Pool::take`]; a
//! taken index is given again before the pool grows, so a pool holds at most as many
//! records as were ever live at once.

use crate::prelude::*;

use super::slots::NONE;

#[derive(Debug)]
pub(crate) struct Pool<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Self { items: Vec::new(), free: Vec::new() }
    }
}

impl<T: Default> Pool<T> {
    /// Keeps `item` and gives its index; `None` keeps nothing and gives [`NONE`].
    pub(crate) fn put(&mut self, item: Option<T>) -> u32 {
        let Some(item) = item else { return NONE };
        match self.free.pop() {
            Some(i) => {
                if let Some(e) = self.items.get_mut(i as usize) {
                    *e = item;
                }
                i
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Takes the record of index `i` out (`None` for [`NONE`]); `i` is free again.
    pub(crate) fn take(&mut self, i: u32) -> Option<T> {
        let item = ::core::mem::take(self.items.get_mut(i as usize)?);
        self.free.push(i);
        Some(item)
    }

    pub(crate) fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize)
    }

    pub(crate) fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.items.get_mut(i as usize)
    }

    pub(crate) fn clear(&mut self) {
        self.items.clear();
        self.free.clear();
    }

    /// How many records are kept (not taken).
    #[cfg(test)]
    pub(crate) fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_index_is_given_again_before_the_pool_grows() {
        let mut pool = Pool::<String>::default();
        assert_eq!(pool.put(None), NONE);
        let a = pool.put(Some("a".to_owned()));
        let b = pool.put(Some("b".to_owned()));
        assert_eq!(pool.take(a).as_deref(), Some("a"));
        assert_eq!(pool.take(NONE), None);
        let c = pool.put(Some("c".to_owned()));
        assert_eq!(c, a);
        assert_eq!(pool.get(b).map(String::as_str), Some("b"));
        assert_eq!(pool.live(), 2);
    }
}
