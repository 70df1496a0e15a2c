//! The GPU backend's batch assembly (`encint::backend::gpu::batch`), run on the CPU: a backend that
//! does exactly what `GpuBackend` sends to the device (the gather of each level's inputs into
//! slots, one accumulator per distinct table with per-slot indexes, the `+Δ/2` of half-step
//! outputs, linear nodes in launches of at most 16 terms), with the device's kernels replaced
//! by TFHE-rs' CPU keyswitch and classical programmable bootstrap on the assembled
//! accumulators and by the kernel's host model. Whole circuits run through it with a
//! KS64 key (the GPU backend's) and every output is compared with the clear executor.
//!
//! `cargo test --release -p encint --test gpu_batch` (about 10 s on 2 cores).

use encint::backend::gpu::batch::{
    apply_linear_launch, assemble_level, assemble_level_for, check_circuit, linear_launches,
    LevelBatch, LinearLaunch, TERMS_PER_LAUNCH,
};
use encint::{ClientKey, Error, GpuError, KS64_PARAMETERS};
use encint_core::circuit::{Builder, Circuit, NodeId, PlannedLevel};
use encint_core::exec::{self, Backend, Output, Values};
use encint_core::lut::{NegacyclicLut, Table256};
use encint_tfhe::params::DELTA;
use encint_tfhe::{Digit, DigitParameters, ServerKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tfhe::core_crypto::prelude::*;

/// The device's view of a key: the Fourier bootstrapping key and the 64-bit keyswitching key.
struct HostDevice {
    params: DigitParameters,
    fourier: FourierLweBootstrapKeyOwned,
    ksk: LweKeyswitchKeyOwned<u64>,
}

impl HostDevice {
    fn new(key: &ServerKey) -> HostDevice {
        let p = *key.params();
        let bsk = key.bootstrap_key();
        let mut fourier = FourierLweBootstrapKey::new(
            bsk.input_lwe_dimension(),
            bsk.glwe_size(),
            bsk.polynomial_size(),
            bsk.decomposition_base_log(),
            bsk.decomposition_level_count(),
        );
        par_convert_standard_lwe_bootstrap_key_to_fourier(bsk, &mut fourier);
        HostDevice {
            params: p,
            fourier,
            ksk: key.keyswitch_key().expect("a KS64 key").clone(),
        }
    }

    fn lwe_size(&self) -> usize {
        self.params.big_lwe_dimension().0 + 1
    }

    /// `Σ terms + body_add` by the launches the GPU backend makes.
    fn linear_raw(&self, terms: &[(&[u64], i64)], body_add: u64) -> Vec<u64> {
        let mut out = vec![0xdead_beef_u64; self.lwe_size()];
        for launch in linear_launches(terms, body_add) {
            assert!(launch.terms.len() <= TERMS_PER_LAUNCH);
            apply_linear_launch(&mut out, &launch).unwrap();
        }
        out
    }

    /// One level's batch: slot `i` gathers `inputs[i]`, keyswitches it, blind-rotates the
    /// slot's accumulator, extracts the sample and adds the slot's `body_add`.
    fn run_batch(&self, batch: &LevelBatch, inputs: &[&[u64]]) -> Vec<Vec<u64>> {
        let m = self.params.ciphertext_modulus;
        let poly = self.params.polynomial_size;
        inputs
            .iter()
            .enumerate()
            .map(|(i, input)| {
                let big = LweCiphertext::from_container(input.to_vec(), m);
                let mut small =
                    LweCiphertext::new(0u64, self.params.lwe_dimension.to_lwe_size(), m);
                keyswitch_lwe_ciphertext(&self.ksk, &big, &mut small);
                let acc = GlweCiphertext::from_container(batch.accumulator(i).to_vec(), poly, m);
                let mut out =
                    LweCiphertext::new(0u64, self.params.big_lwe_dimension().to_lwe_size(), m);
                programmable_bootstrap_lwe_ciphertext(&small, &mut out, &acc, &self.fourier);
                self.linear_raw(&[(out.as_ref(), 1)], batch.jobs[i].body_add())
            })
            .collect()
    }
}

/// `GpuBackend` with host memory for device memory.
struct HostBackend<'a> {
    device: &'a HostDevice,
    /// Slots bootstrapped so far (over all levels).
    slots: std::cell::Cell<usize>,
}

impl Backend for HostBackend<'_> {
    type Value = Vec<u64>;
    type Error = Error;

    fn check(&self, circuit: &Circuit, plan: &encint_core::circuit::Plan) -> Result<(), Error> {
        check_circuit(circuit, plan)
    }

    fn budget(&self) -> Option<u64> {
        Some(self.device.params.max_quadratic_weight())
    }

    fn constant(&self, value: i64) -> Vec<u64> {
        self.device
            .linear_raw(&[], (value as u64).wrapping_mul(DELTA))
    }

    fn linear(&self, terms: &[(&Vec<u64>, i64)], constant: i64) -> Result<Vec<u64>, Error> {
        let raw: Vec<(&[u64], i64)> = terms.iter().map(|(v, w)| (v.as_slice(), *w)).collect();
        Ok(self
            .device
            .linear_raw(&raw, (constant as u64).wrapping_mul(DELTA)))
    }

    fn bootstrap_level(
        &self,
        circuit: &Circuit,
        level: &PlannedLevel,
        values: &Values<'_, Vec<u64>>,
    ) -> Result<Vec<(NodeId, Output<Vec<u64>>)>, Error> {
        let batch = assemble_level_for(circuit, level, &self.device.params)?;
        let inputs: Vec<&[u64]> = batch
            .jobs
            .iter()
            .map(|j| values.get(j.input).as_slice())
            .collect();
        let outs = self.device.run_batch(&batch, &inputs);
        self.slots.set(self.slots.get() + outs.len());
        Ok(batch
            .jobs
            .iter()
            .zip(outs)
            .map(|(j, o)| (j.node, Output::One(o)))
            .collect())
    }
}

fn table(rng: &mut ChaCha8Rng) -> NegacyclicLut {
    NegacyclicLut {
        table: std::array::from_fn(|_| rng.gen_range(-16i8..16)),
    }
}

fn half_table(rng: &mut ChaCha8Rng) -> NegacyclicLut {
    NegacyclicLut {
        table: std::array::from_fn(|_| 2 * rng.gen_range(-8i8..8) + 1),
    }
}

/// A circuit of three bootstrap levels: plain and half-step tables (shared between inputs,
/// so levels hold repeated tables), linear nodes of 17 and 20 terms and a constant, tables
/// on them, and a second half-step level.
fn circuit(rng: &mut ChaCha8Rng, n_inputs: usize) -> Circuit {
    let mut b = Builder::new();
    let xs: Vec<NodeId> = (0..n_inputs).map(|_| b.input()).collect();
    let tables: Vec<NegacyclicLut> = (0..3).map(|_| table(rng)).collect();
    let halves: Vec<NegacyclicLut> = (0..2).map(|_| half_table(rng)).collect();
    let mut first = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        first.push(b.lut(x, &tables[i % 3]));
        first.push(b.lut(x, &tables[(i + 1) % 3]));
        first.push(b.half_lut(x, &halves[i % 2]).unwrap());
    }
    let mut outs = first.clone();
    // More than TERMS_PER_LAUNCH terms: two and three launches of the kernel.
    for (n, c) in [(17usize, 5i64), (20, -9)] {
        let terms: Vec<(NodeId, i64)> = first
            .iter()
            .take(n)
            .enumerate()
            .map(|(i, &id)| (id, if i % 3 == 1 { -1 } else { 1 }))
            .collect();
        let s = b.linear(&terms, c);
        outs.push(s);
        outs.push(b.lut(s, &tables[0]));
        outs.push(b.half_lut(s, &halves[1]).unwrap());
    }
    let small = b.linear(&[(first[0], 3), (first[1], -4)], 7);
    outs.push(small);
    let t = b.lut(small, &tables[2]);
    outs.push(t);
    let u = b.half_lut(t, &halves[0]).unwrap();
    outs.push(u);
    outs.push(b.constant(-11));
    b.finish(outs)
}

#[test]
fn the_assembled_batches_bootstrapped_on_the_cpu_agree_with_the_clear_executor() {
    let (client, key) = ClientKey::generate_seeded(&KS64_PARAMETERS, 31);
    let device = HostDevice::new(&key);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let c = circuit(&mut rng, 8);
    let plan = c.plan();
    for round in 0..2 {
        let values: Vec<i64> = (0..8).map(|_| rng.gen_range(-16..16)).collect();
        let digits: Vec<Digit> = values.iter().map(|&m| client.encrypt_digit(m)).collect();
        let raw: Vec<Vec<u64>> = digits.iter().map(|d| d.as_raw().to_vec()).collect();
        let refs: Vec<&Vec<u64>> = raw.iter().collect();
        let backend = HostBackend {
            device: &device,
            slots: std::cell::Cell::new(0),
        };
        let got = exec::run(&backend, &c, &plan, &refs).unwrap();
        let (want, cost) = encint_core::clear::run(&c, &values).unwrap();
        assert_eq!(got.len(), want.len());
        assert_eq!(
            backend.slots.get() as u64,
            cost.bootstraps,
            "one slot per bootstrap"
        );
        for (i, (g, w)) in got.into_iter().zip(&want).enumerate() {
            let d = Digit::from_raw(g, &KS64_PARAMETERS).unwrap();
            assert_eq!(
                (client.decrypt_digit(&d) - w).rem_euclid(32),
                0,
                "round {round} output {i} (inputs {values:?})"
            );
        }
    }
}

#[test]
fn a_level_holds_one_accumulator_per_distinct_table_and_the_slots_in_level_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (t0, t1, h0) = (table(&mut rng), table(&mut rng), half_table(&mut rng));
    let mut b = Builder::new();
    let x = b.input();
    let y = b.input();
    let a = b.lut(x, &t0);
    let bb = b.lut(y, &t0);
    let cc = b.lut(y, &t1);
    let d = b.half_lut(x, &h0).unwrap();
    let e = b.half_lut(y, &h0).unwrap();
    let c = b.finish(vec![a, bb, cc, d, e]);
    let plan = c.plan();
    let level = &plan.levels()[1];
    let (glwe, poly) = (2, 64);
    let batch = assemble_level(&c, level, glwe, poly).unwrap();
    // t0 (twice), t1, h0 (twice) as a half-step table: three accumulators.
    assert_eq!(batch.jobs.len(), 5);
    assert_eq!(batch.distinct(), 3);
    assert_eq!(batch.accumulator_len, glwe * poly);
    let by_node = |n: NodeId| batch.jobs.iter().find(|j| j.node == n).unwrap();
    assert_eq!(by_node(a).input, x);
    assert_eq!(by_node(bb).input, y);
    assert_eq!(by_node(cc).input, y);
    assert_eq!(by_node(d).input, x);
    assert_eq!(by_node(e).input, y);
    assert_eq!(by_node(a).accumulator, by_node(bb).accumulator);
    assert_eq!(by_node(d).accumulator, by_node(e).accumulator);
    assert_ne!(by_node(a).accumulator, by_node(cc).accumulator);
    assert_ne!(by_node(a).accumulator, by_node(d).accumulator);
    assert_eq!(
        batch.lut_indexes(),
        batch
            .jobs
            .iter()
            .map(|j| j.accumulator as u64)
            .collect::<Vec<_>>()
    );
    for (i, j) in batch.jobs.iter().enumerate() {
        assert_eq!(j.body_add(), if j.half { DELTA / 2 } else { 0 });
        assert_eq!(j.half, j.node == d || j.node == e);
        let acc = batch.accumulator(i);
        // Zero mask, then the body: message m's box is centered on coefficient m·2N/32 and
        // holds the table's value, in units of Δ (Δ/2 for half-step tables).
        assert!(acc[..poly].iter().all(|&w| w == 0));
        let lut = if j.half {
            &h0
        } else if j.node == cc {
            &t1
        } else {
            &t0
        };
        let unit = if j.half { DELTA / 2 } else { DELTA };
        let boxw = 2 * poly / 32;
        for m in 0..16usize {
            let want = (lut.table[m] as i64 as u64).wrapping_mul(unit);
            assert_eq!(acc[poly + m * boxw], want, "table value {m} slot {i}");
        }
    }
}

#[test]
fn linear_launches_split_long_sums_and_add_the_constant_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let size = 37;
    for n in [0usize, 1, 15, 16, 17, 31, 32, 33, 40] {
        let vecs: Vec<Vec<u64>> = (0..n)
            .map(|_| (0..size).map(|_| rng.r#gen()).collect())
            .collect();
        let weights: Vec<i64> = (0..n).map(|_| rng.gen_range(-40..40)).collect();
        let add: u64 = rng.r#gen();
        let terms: Vec<(&[u64], i64)> = vecs
            .iter()
            .zip(&weights)
            .map(|(v, &w)| (v.as_slice(), w))
            .collect();
        let launches = linear_launches(&terms, add);
        assert_eq!(
            launches.len(),
            n.div_ceil(TERMS_PER_LAUNCH).max(1),
            "{n} terms"
        );
        assert!(launches.iter().all(|l| l.terms.len() <= TERMS_PER_LAUNCH));
        // The device buffer starts with garbage: the first launch must overwrite it.
        let mut out = vec![u64::MAX; size];
        for l in &launches {
            apply_linear_launch(&mut out, l).unwrap();
        }
        // Reference: wrapping sums in i128, reduced mod 2^64.
        for (j, &got) in out.iter().enumerate() {
            let mut want: i128 = if j == size - 1 { add as i128 } else { 0 };
            for (v, &w) in vecs.iter().zip(&weights) {
                want += (v[j] as i128) * (w as i128);
            }
            assert_eq!(got, want.rem_euclid(1i128 << 64) as u64, "{n} terms, j {j}");
        }
    }
}

#[test]
fn bad_launches_are_typed_errors() {
    let a = vec![1u64; 4];
    let short = vec![1u64; 3];
    let mut out = vec![0u64; 4];
    let too_many = LinearLaunch {
        terms: vec![(a.as_slice(), 1); TERMS_PER_LAUNCH + 1],
        body_add: 0,
        accumulate: false,
    };
    assert!(matches!(
        apply_linear_launch(&mut out, &too_many),
        Err(Error::InvalidInput(_))
    ));
    let mismatched = LinearLaunch {
        terms: vec![(a.as_slice(), 1), (short.as_slice(), 2)],
        body_add: 0,
        accumulate: false,
    };
    assert!(apply_linear_launch(&mut out, &mismatched).is_err());
}

#[test]
fn tree_luts_and_many_lut_nodes_are_refused_as_unsupported() {
    let mut b = Builder::new();
    let x = b.input();
    let y = b.input();
    let tab = Table256::from_fn(|h, l| i64::from((h ^ l) & 15)).unwrap();
    let t = b.tree(x, y, &tab).unwrap();
    let c = b.finish(vec![t]);
    match check_circuit(&c, &c.plan()) {
        Err(Error::Gpu(GpuError::Unsupported(m))) => assert!(m.contains("tree LUT"), "{m}"),
        other => panic!("{other:?}"),
    }
    let mut b = Builder::new();
    let x = b.input();
    let ids = b
        .many_lut(
            x,
            0,
            4,
            &[NegacyclicLut::identity(), NegacyclicLut::identity()],
        )
        .unwrap();
    let c = b.finish(ids);
    match check_circuit(&c, &c.plan()) {
        Err(Error::Gpu(GpuError::Unsupported(m))) => assert!(m.contains("many-LUT"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Taken apart (what the device runs), one plain bootstrap per table, same values.
    let apart = c.unpack_many();
    assert!(check_circuit(&apart, &apart.plan()).is_ok());
    assert_eq!(apart.cost().bootstraps, 2);
    for v in 0..4 {
        assert_eq!(
            encint::circuit::clear::run(&apart, &[v]).unwrap().0,
            vec![v, v]
        );
    }
    let mut b = Builder::new();
    let x = b.input();
    let l = b.lut(x, &NegacyclicLut::identity());
    let c = b.finish(vec![l]);
    assert!(check_circuit(&c, &c.plan()).is_ok());
}
