//! The fuzzer's mutations of valid seeds: bit flips, byte and word overwrites with boundary
//! values, insertions, deletions and truncations.

use proptest::prelude::*;

#[derive(Clone, Debug)]
pub enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Word(usize, u64),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

pub fn position() -> impl Strategy<Value = usize> {
    // Headers and length prefixes sit at the start: bias towards it.
    prop_oneof![0usize..128, any::<usize>()]
}

pub fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(u64::MAX),
        Just(1 << 31),
        Just(1 << 62),
        Just(i64::MAX as u64),
        0u64..70_000,
        any::<u64>(),
    ]
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (position(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (position(), any::<u8>()).prop_map(|(p, b)| Mutation::Set(p, b)),
        (position(), word()).prop_map(|(p, w)| Mutation::Word(p, w)),
        (position(), proptest::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(p, v)| Mutation::Insert(p, v)),
        (position(), 1usize..64).prop_map(|(p, n)| Mutation::Delete(p, n)),
        position().prop_map(Mutation::Truncate),
    ]
}

pub fn apply(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let n = bytes.len().max(1);
        match m {
            Mutation::Flip(p, b) => {
                if let Some(x) = bytes.get_mut(p % n) {
                    *x ^= 1 << b;
                }
            }
            Mutation::Set(p, b) => {
                if let Some(x) = bytes.get_mut(p % n) {
                    *x = *b;
                }
            }
            Mutation::Word(p, w) => {
                let at = p % n;
                let end = (at + 8).min(bytes.len());
                let w = w.to_le_bytes();
                bytes[at.min(end)..end].copy_from_slice(&w[..end - at.min(end)]);
            }
            Mutation::Insert(p, v) => {
                let at = (p % (bytes.len() + 1)).min(bytes.len());
                bytes.splice(at..at, v.iter().copied());
            }
            Mutation::Delete(p, k) => {
                let at = p % n;
                let end = (at + k).min(bytes.len());
                if at < end {
                    bytes.drain(at..end);
                }
            }
            Mutation::Truncate(p) => bytes.truncate(p % (bytes.len() + 1)),
        }
    }
    bytes
}
