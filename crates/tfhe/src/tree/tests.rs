//! Unit tests of the tree key's internals.

use tfhe::core_crypto::prelude::*;

use super::pack::decompose;
use super::table::{boundaries, box_width, jumps, Accumulator, Table256};
use super::TreeKey;
use crate::digit::{encode, Digit, NegacyclicLut};
use crate::keys::ClientKey;

use crate::TfheError;

/// The cause of the asm file-flow bug, and its fix: two FFT plans (tfhe picks one per
/// process, by timing) store the same transform in different orders, and the standard
/// order the tree key is now written in is the same for both.
#[test]
fn fourier_standard_order_does_not_depend_on_the_fft_plan() {
    use tfhe::core_crypto::fft_impl::fft64::c64;
    use tfhe::core_crypto::fft_impl::fft64::math::fft::{FftAlgo, Method, Plan};
    let n = 1024; // Fourier size of the 2048-coefficient polynomials of every parameter set
    let input: Vec<c64> = (0..n)
        .map(|k| c64::new((k * k % 97) as f64 - 48.0, (k % 13) as f64))
        .collect();
    let plans = [
        Plan::new(
            n,
            Method::UserProvided {
                base_algo: FftAlgo::Dif4,
                base_n: n,
            },
        ),
        Plan::new(
            n,
            Method::UserProvided {
                base_algo: FftAlgo::Dit8,
                base_n: 64,
            },
        ),
        Plan::new(
            n,
            Method::UserProvided {
                base_algo: FftAlgo::Dif2,
                base_n: 32,
            },
        ),
    ];
    let mut standard = Vec::new();
    let mut raw = Vec::new();
    for plan in &plans {
        let mut buffers = ComputationBuffers::new();
        buffers.resize(plan.fft_scratch().unaligned_bytes_required());
        let mut buf = input.clone();
        plan.fwd(&mut buf, buffers.stack());
        let positions = super::wire::standard_positions(n, |b| {
            super::wire::plan_to_standard(|ser| plan.serialize_fourier_buffer(ser, b))
        })
        .unwrap();
        standard.push(positions.iter().map(|&k| buf[k]).collect::<Vec<_>>());
        raw.push(buf);
    }
    let close = |a: &[c64], b: &[c64]| {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).norm() <= 1e-6 * (1.0 + x.norm()))
    };
    // The raw layouts differ: reading one plan's buffer with another plan is the bug.
    assert!(!close(&raw[0], &raw[1]) && !close(&raw[0], &raw[2]));
    // In the standard order they agree.
    assert!(close(&standard[0], &standard[1]) && close(&standard[0], &standard[2]));
}

/// `TV0·v` equals the direct test polynomial layout of `ServerKey::bootstrap`.
#[test]
fn jumps_reproduce_test_polynomial() {
    let n = 2048;
    let b = box_width(n);
    let luts = [
        NegacyclicLut::from_fn(|x| x),
        NegacyclicLut::from_fn(|x| if x % 2 == 0 { 0 } else { 15 }),
        NegacyclicLut::from_fn(|x| 3 * x * x + 7),
        NegacyclicLut::from_fn(|_| -16),
        NegacyclicLut::from_fn(|x| if x % 2 == 0 { -16 } else { 0 }),
        NegacyclicLut::from_fn(|x| 16 - x),
    ];
    for lut in &luts {
        let d = jumps(lut);
        assert!(d.iter().map(|x| x * x).sum::<i64>() <= 64 * 64);
        for i in 0..n {
            let mut acc = 0u64;
            for (dk, pk) in d.iter().zip(boundaries(n)) {
                let s = if i >= pk { 1u64 } else { u64::MAX };
                acc = acc.wrapping_add((*dk as u64).wrapping_mul(s).wrapping_mul(1 << 58));
            }
            let m = (i + b / 2) / b;
            let expected = if m < 16 {
                lut.values[m]
            } else {
                -lut.values[0]
            };
            assert_eq!(acc, encode(expected), "lut {lut:?} at {i}");
        }
    }
}

#[test]
fn dimension_mismatches_are_typed_errors() {
    let p = crate::DEFAULT_PARAMETERS;
    let (ck, sk) = ClientKey::generate_seeded(&p, 11);
    let tk = TreeKey::generate_seeded(&ck, 12);
    let good = ck.encrypt_digit(1);
    let bad = Digit::from_ct(LweCiphertext::new(0u64, LweSize(100), p.ciphertext_modulus));
    let err = TfheError::DimensionMismatch {
        expected: 2048,
        found: 99,
    };
    let t = Table256([0; 256]);
    assert_eq!(tk.first_level(&sk, &bad, &[], &[]).unwrap_err(), err);
    assert_eq!(tk.lut_eval(&sk, &good, &bad, &t).unwrap_err(), err);
    assert_eq!(tk.mv_lut_eval(&sk, &bad, &[&good], &[&t]).unwrap_err(), err);
    assert_eq!(tk.mv_lut_eval(&sk, &good, &[&bad], &[&t]).unwrap_err(), err);
    let jobs: [(&Digit, &[NegacyclicLut], &[&Table256]); 2] = [(&good, &[], &[]), (&bad, &[], &[])];
    assert_eq!(tk.first_level_batch(&sk, &jobs).unwrap_err(), err);
    let (_, accs) = tk.first_level(&sk, &good, &[], &[&t]).unwrap();
    assert_eq!(tk.second_level(&sk, &accs[0], &bad).unwrap_err(), err);
    let small = Accumulator {
        glwe: GlweCiphertext::new(
            0u64,
            GlweSize(2),
            PolynomialSize(1024),
            p.ciphertext_modulus,
        ),
    };
    let acc_err = TfheError::DimensionMismatch {
        expected: 2048,
        found: 1024,
    };
    assert_eq!(tk.second_level(&sk, &small, &good).unwrap_err(), acc_err);
    assert_eq!(
        tk.second_level_batch(&sk, &[(&accs[0], &good), (&small, &good)])
            .unwrap_err(),
        acc_err
    );
    let out = tk.second_level(&sk, &accs[0], &good).unwrap();
    assert_eq!(ck.decrypt_digit(&out), 0);
}

#[test]
fn decomposition_rounds_to_nearest() {
    let mut d = [0i64; 2];
    for &a in &[
        0u64,
        1,
        u64::MAX,
        1 << 63,
        0x1234_5678_9abc_def0,
        (1 << 42) - 1,
    ] {
        for (bl, lv) in [(22usize, 1usize), (15, 2)] {
            decompose(a, bl, lv, &mut d);
            let mut r = 0u64;
            for (l, &x) in d[..lv].iter().enumerate() {
                assert!(x.abs() <= 1 << (bl - 1));
                r = r.wrapping_add((x as u64).wrapping_mul(1 << (64 - bl * (l + 1))));
            }
            let err = a.wrapping_sub(r) as i64;
            assert!(err.unsigned_abs() <= 1 << (63 - bl * lv), "{a} {bl} {lv}");
        }
    }
}
