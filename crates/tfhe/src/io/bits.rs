//! Bit packing of modulus-switched coefficients, `b` bits each, little-endian in `u64` words.

/// Round a torus element of `Z_{2^64}` to `Z_{2^b}`.
pub(super) fn switch_down(x: u64, b: u32) -> u64 {
    (((x >> (63 - b)) + 1) >> 1) & ((1u64 << b) - 1)
}

pub(super) struct BitWriter {
    words: Vec<u64>,
    bit: usize,
    b: u32,
}

impl BitWriter {
    pub(super) fn new(count: usize, b: u32) -> BitWriter {
        BitWriter {
            words: vec![0; (count * b as usize).div_ceil(64)],
            bit: 0,
            b,
        }
    }

    pub(super) fn push(&mut self, v: u64) {
        let (w, off) = (self.bit / 64, self.bit % 64);
        self.words[w] |= v << off;
        if off + self.b as usize > 64 {
            self.words[w + 1] |= v >> (64 - off);
        }
        self.bit += self.b as usize;
    }

    pub(super) fn finish(self) -> Vec<u64> {
        self.words
    }
}

/// Read value `i` of `b` bits; `words` must hold at least `(i + 1)·b` bits.
pub(super) fn read_bits(words: &[u64], i: usize, b: u32) -> u64 {
    let bit = i * b as usize;
    let (w, off) = (bit / 64, bit % 64);
    let mut v = words[w] >> off;
    if off + b as usize > 64 {
        v |= words[w + 1] << (64 - off);
    }
    v & ((1u64 << b) - 1)
}
