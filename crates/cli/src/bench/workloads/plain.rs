//! The workloads of `encint bench --workloads`: their names, their seeded random inputs
//! and their results in plain Rust wrapping arithmetic, the reference both encrypted
//! sides are checked against.

use rand::{Rng, SeedableRng};

/// A whole program timed on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// The sum of 16 u16 values.
    Sum16U16,
    /// The dot product of two vectors of 32 u16 values.
    Dot32U16,
    /// `((3x + 7)x + 11)x + 5` on a u16.
    HornerU16,
    /// 8 u8 values sorted by an odd-even transposition network of min/max.
    Sort8U8,
    /// The sum and the sum of squares of 16 u16 values, in u32.
    MeanVar16U16,
    /// 8 rounds of `x = ((x ^ (x >> 7)) * 0x9E37 + (x << 3)) ^ key` on u32.
    HashU32,
    /// The product of two 4x4 u8 matrices.
    Matmul4U8,
    /// One dense layer, 16 u8 inputs to 8 outputs, u8 weights, u16 sums, ReLU.
    MlpU8,
}

/// Rounds of [`Workload::HashU32`].
pub const HASH_ROUNDS: usize = 8;
/// The multiplier of [`Workload::HashU32`].
pub const HASH_MUL: u32 = 0x9E37;

impl Workload {
    /// Every workload, in the order of the table.
    pub const ALL: [Workload; 8] = [
        Workload::Sum16U16,
        Workload::Dot32U16,
        Workload::HornerU16,
        Workload::Sort8U8,
        Workload::MeanVar16U16,
        Workload::HashU32,
        Workload::Matmul4U8,
        Workload::MlpU8,
    ];

    /// The name on the command line and in the table.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Sum16U16 => "sum16_u16",
            Workload::Dot32U16 => "dot32_u16",
            Workload::HornerU16 => "horner_u16",
            Workload::Sort8U8 => "sort8_u8",
            Workload::MeanVar16U16 => "mean_var16_u16",
            Workload::HashU32 => "hash_u32",
            Workload::Matmul4U8 => "matmul4_u8",
            Workload::MlpU8 => "mlp_u8",
        }
    }

    /// The workloads a `--workloads` list names (`all`: every one), in the order given;
    /// an error names an unknown one.
    pub fn parse_list(names: &[String]) -> Result<Vec<Workload>, String> {
        let mut out = Vec::new();
        for name in names {
            let name = name.trim();
            if name == "all" {
                out.extend(Workload::ALL);
                continue;
            }
            let w = Workload::ALL
                .into_iter()
                .find(|w| w.name() == name)
                .ok_or_else(|| {
                    let known: Vec<&str> = Workload::ALL.iter().map(|w| w.name()).collect();
                    format!(
                        "unknown workload `{name}` (known: {}, all)",
                        known.join(", ")
                    )
                })?;
            out.push(w);
        }
        if out.is_empty() {
            return Err("no workload named (known: all, or a comma-separated list)".into());
        }
        Ok(out)
    }

    /// The inputs' groups: for each argument, its bit width and element count.
    fn input_groups(self) -> &'static [(u32, usize)] {
        match self {
            Workload::Sum16U16 | Workload::MeanVar16U16 => &[(16, 16)],
            Workload::Dot32U16 => &[(16, 32), (16, 32)],
            Workload::HornerU16 => &[(16, 1)],
            Workload::Sort8U8 => &[(8, 8)],
            Workload::HashU32 => &[(32, 1), (32, 1)],
            Workload::Matmul4U8 => &[(8, 16), (8, 16)],
            Workload::MlpU8 => &[(8, 128), (8, 16)],
        }
    }

    /// Random unsigned inputs from `seed`: one list per argument (an array's elements
    /// row-major), the same for both sides.
    pub fn inputs(self, seed: u64) -> Vec<Vec<u64>> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        self.input_groups()
            .iter()
            .map(|&(bits, n)| {
                (0..n)
                    .map(|_| rng.gen_range(0..=(u64::MAX >> (64 - bits))))
                    .collect()
            })
            .collect()
    }

    /// Inputs whose every element is `v` cut to its width (0, or every bit set for
    /// `u64::MAX`).
    #[cfg(test)]
    pub fn filled(self, v: u64) -> Vec<Vec<u64>> {
        self.input_groups()
            .iter()
            .map(|&(bits, n)| vec![v & (u64::MAX >> (64 - bits)); n])
            .collect()
    }

    /// The results in plain Rust wrapping arithmetic, as the values of their types.
    pub fn reference(self, x: &[Vec<u64>]) -> Vec<i128> {
        let u16s = |i: usize| x[i].iter().map(|&v| v as u16).collect::<Vec<u16>>();
        let u8s = |i: usize| x[i].iter().map(|&v| v as u8).collect::<Vec<u8>>();
        match self {
            Workload::Sum16U16 => {
                let s = u16s(0).into_iter().fold(0u16, u16::wrapping_add);
                vec![i128::from(s)]
            }
            Workload::Dot32U16 => {
                let (a, b) = (u16s(0), u16s(1));
                let d = a
                    .iter()
                    .zip(&b)
                    .fold(0u16, |acc, (&p, &q)| acc.wrapping_add(p.wrapping_mul(q)));
                vec![i128::from(d)]
            }
            Workload::HornerU16 => {
                let v = u16s(0)[0];
                let r = 3u16
                    .wrapping_mul(v)
                    .wrapping_add(7)
                    .wrapping_mul(v)
                    .wrapping_add(11)
                    .wrapping_mul(v)
                    .wrapping_add(5);
                vec![i128::from(r)]
            }
            Workload::Sort8U8 => {
                let mut v = u8s(0);
                v.sort_unstable();
                v.into_iter().map(i128::from).collect()
            }
            Workload::MeanVar16U16 => {
                let v: Vec<u32> = u16s(0).into_iter().map(u32::from).collect();
                let sum = v.iter().fold(0u32, |a, &y| a.wrapping_add(y));
                let squares = v
                    .iter()
                    .fold(0u32, |a, &y| a.wrapping_add(y.wrapping_mul(y)));
                vec![i128::from(sum), i128::from(squares)]
            }
            Workload::HashU32 => {
                vec![i128::from(hash(
                    x[0][0] as u32,
                    x[1][0] as u32,
                    HASH_ROUNDS,
                ))]
            }
            Workload::Matmul4U8 => {
                let (a, b) = (u8s(0), u8s(1));
                let mut c = Vec::with_capacity(16);
                for i in 0..4 {
                    for j in 0..4 {
                        let s = (0..4).fold(0u8, |acc, t| {
                            acc.wrapping_add(a[i * 4 + t].wrapping_mul(b[t * 4 + j]))
                        });
                        c.push(i128::from(s));
                    }
                }
                c
            }
            Workload::MlpU8 => {
                let (w, v) = (u8s(0), u8s(1));
                (0..8)
                    .map(|j| {
                        let acc = (0..16).fold(0u16, |acc, i| {
                            let p = u16::from(w[j * 16 + i]).wrapping_mul(u16::from(v[i]));
                            acc.wrapping_add(p)
                        });
                        i128::from((acc as i16).max(0))
                    })
                    .collect()
            }
        }
    }
}

/// `rounds` rounds of `x = ((x ^ (x >> 7)) * 0x9E37 + (x << 3)) ^ key`, wrapping.
pub fn hash(mut x: u32, key: u32, rounds: usize) -> u32 {
    for _ in 0..rounds {
        x = ((x ^ (x >> 7)).wrapping_mul(HASH_MUL).wrapping_add(x << 3)) ^ key;
    }
    x
}

impl std::fmt::Display for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_and_unknown_names_are_errors() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            Workload::parse_list(&names(&["all"])).unwrap(),
            Workload::ALL.to_vec()
        );
        assert_eq!(
            Workload::parse_list(&names(&["hash_u32", "sum16_u16"])).unwrap(),
            vec![Workload::HashU32, Workload::Sum16U16]
        );
        let e = Workload::parse_list(&names(&["sum16_u16", "sum17"])).unwrap_err();
        assert!(e.contains("sum17") && e.contains("mlp_u8"), "{e}");
        assert!(Workload::parse_list(&[]).is_err());
    }

    #[test]
    fn inputs_are_seeded_and_in_range() {
        for w in Workload::ALL {
            assert_eq!(w.inputs(5), w.inputs(5), "{w}");
            for (g, &(bits, n)) in w.inputs(5).iter().zip(w.input_groups()) {
                assert_eq!(g.len(), n);
                assert!(g.iter().all(|&v| v < 1 << bits), "{w}");
            }
        }
    }

    #[test]
    fn hand_computed_references() {
        // Values worked out by hand, independent of the functions above.
        let x = vec![vec![2u64]];
        // ((3·2 + 7)·2 + 11)·2 + 5 = 79
        assert_eq!(Workload::HornerU16.reference(&x), vec![79]);
        assert_eq!(
            Workload::Sort8U8.reference(&[vec![9, 3, 255, 0, 3, 7, 1, 2]]),
            vec![0, 1, 2, 3, 3, 7, 9, 255]
        );
        // 16 · 65535 = 1048560; 65535² = 2^32 - 2^17 + 1, so 16 · 65535² = 2^36 - 2^21 + 16,
        // which is 2^32 - 2^21 + 16 = 4292870160 modulo 2^32.
        let m = Workload::MeanVar16U16.reference(&[vec![65535; 16]]);
        assert_eq!(m, vec![1048560, 4292870160]);
        // Row 0: 16 · 200 · 200 = 640000 = 9 · 65536 + 50176, negative as an i16: ReLU gives 0;
        // row 1: 16 · 10 · 200 = 32000.
        let mut w = vec![200u64; 16];
        w.extend(vec![10u64; 112]);
        let out = Workload::MlpU8.reference(&[w, vec![200u64; 16]]);
        assert_eq!(out[0], 0);
        assert_eq!(out[1], 16 * 10 * 200);
        // Identity times a matrix.
        let id: Vec<u64> = (0..16).map(|k| u64::from(k % 5 == 0)).collect();
        let b: Vec<u64> = (0..16).map(|k| k * 17).collect();
        let want: Vec<i128> = b.iter().map(|&v| i128::from(v as u8)).collect();
        assert_eq!(Workload::Matmul4U8.reference(&[id, b]), want);
        // Two rounds of the hash by hand on x = 1, key = 0: 1 · 0x9E37 + 8 = 0x9E3F, then
        // (0x9E3F ^ 0x13C) · 0x9E37 + 0x4F1F8 = 0x9F03 · 0x9E37 + 0x4F1F8.
        let second = 0x9F03u32 * 0x9E37 + 0x4F1F8;
        assert_eq!(0x9E3F ^ (0x9E3F >> 7), 0x9F03);
        assert_eq!(0x9E3Fu32 << 3, 0x4F1F8);
        assert_eq!(hash(1, 0, 2), second);
    }
}
