//! A bounded memo of a pure function's results, shared by every thread of the process.
//!
//! Planners remember choices that are slow to make (a method found by building each
//! candidate circuit, a division recipe found by a search) under what decides them. A
//! [`Memo`] holds at most its capacity of them and forgets the oldest first: a forgotten
//! result is computed again, the same, so what the memo holds changes speed only.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};

/// Results of a pure function under their keys, at most `capacity` of them (the oldest
/// forgotten first). Usable as a `static`: [`Memo::new`] is `const`.
#[derive(Debug)]
pub struct Memo<K, V> {
    capacity: usize,
    entries: Mutex<Option<Entries<K, V>>>,
}

/// The results, and their keys oldest first.
#[derive(Debug)]
struct Entries<K, V> {
    map: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Clone, V: Clone> Memo<K, V> {
    /// An empty memo of at most `capacity` results (at least one).
    pub const fn new(capacity: usize) -> Memo<K, V> {
        Memo {
            capacity: if capacity == 0 { 1 } else { capacity },
            entries: Mutex::new(None),
        }
    }

    /// The most results it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The number of results it holds now.
    pub fn len(&self) -> usize {
        self.lock().as_ref().map_or(0, |e| e.map.len())
    }

    /// Whether it holds no result.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The result remembered under `key`, or `compute`'s, then remembered (an error is
    /// returned and not remembered). `compute` runs without the lock held: two threads
    /// asking for one new key may both compute it, and get the same result.
    pub fn get_or_try_insert_with<E>(
        &self,
        key: K,
        compute: impl FnOnce(&K) -> Result<V, E>,
    ) -> Result<V, E> {
        if let Some(v) = self.lock().as_ref().and_then(|e| e.map.get(&key).cloned()) {
            return Ok(v);
        }
        let v = compute(&key)?;
        let mut guard = self.lock();
        let e = guard.get_or_insert_with(|| Entries {
            map: HashMap::new(),
            order: VecDeque::new(),
        });
        if !e.map.contains_key(&key) {
            while e.map.len() >= self.capacity {
                match e.order.pop_front() {
                    Some(old) => e.map.remove(&old),
                    None => break,
                };
            }
            e.order.push_back(key.clone());
            e.map.insert(key, v.clone());
        }
        Ok(v)
    }

    /// [`Memo::get_or_try_insert_with`] for a function that cannot fail.
    pub fn get_or_insert_with(&self, key: K, compute: impl FnOnce(&K) -> V) -> V {
        match self.get_or_try_insert_with(key, |k| Ok::<V, std::convert::Infallible>(compute(k))) {
            Ok(v) => v,
            Err(never) => match never {},
        }
    }

    /// The entries, also after a panic elsewhere poisoned the lock (every state the lock
    /// guards is a valid memo: each result is inserted whole).
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Entries<K, V>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_up_to_its_capacity_and_forgets_the_oldest() {
        let memo: Memo<u32, u64> = Memo::new(3);
        let calls = std::cell::Cell::new(0);
        let square = |k: &u32| {
            calls.set(calls.get() + 1);
            u64::from(*k) * u64::from(*k)
        };
        for k in 0..5u32 {
            assert_eq!(memo.get_or_insert_with(k, square), u64::from(k * k));
            assert!(memo.len() <= memo.capacity());
        }
        assert_eq!((calls.get(), memo.len()), (5, 3));
        // 2, 3 and 4 are held: no new call.
        for k in 2..5u32 {
            assert_eq!(memo.get_or_insert_with(k, square), u64::from(k * k));
        }
        assert_eq!(calls.get(), 5);
        // 0 was forgotten: computed again, the same, and 2 (the oldest) makes room.
        assert_eq!(memo.get_or_insert_with(0, square), 0);
        assert_eq!(calls.get(), 6);
        assert_eq!(memo.get_or_insert_with(3, square), 9);
        assert_eq!(calls.get(), 6);
        assert_eq!(memo.get_or_insert_with(2, square), 4);
        assert_eq!(calls.get(), 7);
    }

    #[test]
    fn errors_are_not_remembered() {
        let memo: Memo<u8, u8> = Memo::new(4);
        assert_eq!(memo.get_or_try_insert_with(1, |_| Err("no")), Err("no"));
        assert!(memo.is_empty());
        assert_eq!(
            memo.get_or_try_insert_with(1, |k| Ok::<u8, &str>(k + 1)),
            Ok(2)
        );
        assert_eq!(memo.get_or_try_insert_with(1, |_| Err("no")), Ok(2));
        assert_eq!(memo.len(), 1);
    }

    #[test]
    fn a_zero_capacity_holds_one() {
        let memo: Memo<u8, u8> = Memo::new(0);
        assert_eq!(memo.capacity(), 1);
        assert_eq!(memo.get_or_insert_with(7, |k| k * 2), 14);
        assert_eq!(memo.get_or_insert_with(8, |k| k * 2), 16);
        assert_eq!(memo.len(), 1);
    }
}
