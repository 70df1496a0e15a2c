//! A tree key written by a process with one FFT plan and used by a process with another.
//!
//! tfhe picks the FFT plan of each polynomial size by timing candidates, once per process,
//! and a Fourier buffer's layout depends on the plan. The tree key's precise bootstrapping
//! key is stored in Fourier form, so its bytes must not depend on the writer's plan (see
//! `docs/ISA.md` on the file flow). This test plays both processes in one: it forces one plan
//! (`setup_custom_fft_plan`), generates and writes the keys, forces another plan, reads the
//! keys back and evaluates tables with them, against the plain tables.
//!
//! The plan is process-wide, so this file holds a single test (its own test binary), and
//! nothing bootstraps before the second plan is set: every thread's bootstrap scratch (which
//! keeps the plan it was made with) is created under the second plan.

use encint_tfhe::envelope::{open, seal, Kind};
use encint_tfhe::{ClientKey, ServerKey, Table256, TreeKey, DEFAULT_PARAMETERS};
use tfhe::core_crypto::fft_impl::fft64::math::fft::{setup_custom_fft_plan, FftAlgo, Method, Plan};

/// The plan of Fourier size `n` built on `algo` with base size `base_n`.
fn plan(n: usize, algo: FftAlgo, base_n: usize) -> Plan {
    Plan::new(
        n,
        Method::UserProvided {
            base_algo: algo,
            base_n,
        },
    )
}

/// The table the test evaluates, as plain arithmetic on nibbles.
fn f(hi: u8, lo: u8) -> u8 {
    let (h, l) = (u32::from(hi), u32::from(lo));
    ((3 * h + 5 * l + h * l + 7) % 16) as u8
}

#[test]
fn tree_key_written_under_one_fft_plan_bootstraps_under_another() {
    let p = &DEFAULT_PARAMETERS;
    let id = p.id();
    // Fourier size of the key's polynomials (the default and the precise bootstrapping keys
    // share the polynomial size).
    let n = p.polynomial_size.0 / 2;
    // The writer: radix-4 decimation in frequency over the whole transform.
    setup_custom_fft_plan(plan(n, FftAlgo::Dif4, n));
    let (client, server) = ClientKey::generate_seeded(p, 0x5eed_f0f1);
    let tree = TreeKey::generate_seeded(&client, 0x5eed_f0f2);
    let tree_bytes = seal(Kind::ServerKey, id, &tree).unwrap();
    let server_bytes = seal(Kind::ServerKey, id, &server).unwrap();
    // The in-memory server key holds the writer's Fourier layout: only the reread one is used.
    drop(server);

    // The reader: radix-8 decimation in time on blocks of 64 (another coefficient order).
    setup_custom_fft_plan(plan(n, FftAlgo::Dit8, 64));
    let server: ServerKey = open(&server_bytes, Kind::ServerKey, id).unwrap();
    let read: TreeKey = open(&tree_bytes, Kind::ServerKey, id).unwrap();
    let table = Table256::from_fn(f);
    let pairs: [(u8, u8); 8] = [
        (0, 0),
        (15, 15),
        (1, 14),
        (9, 3),
        (7, 8),
        (12, 5),
        (4, 11),
        (2, 6),
    ];
    let encrypted: Vec<_> = pairs
        .iter()
        .map(|&(h, l)| {
            (
                client.encrypt_digit(i64::from(h)),
                client.encrypt_digit(i64::from(l)),
            )
        })
        .collect();
    for (&(h, l), (eh, el)) in pairs.iter().zip(&encrypted) {
        let out = read.lut_eval(&server, eh, el, &table).unwrap();
        assert_eq!(
            client.decrypt_digit(&out),
            i64::from(f(h, l)),
            "t[16·{h} + {l}] with the tree key read under another FFT plan"
        );
    }
    // The two plans do lay the key out differently: the key still in the writer's layout
    // (never written, so never put in the standard order) evaluates wrongly under the
    // reader's plan. Without this, the check above could pass with plans that agree.
    let wrong = pairs
        .iter()
        .zip(&encrypted)
        .filter(|(&(h, l), (eh, el))| {
            let out = tree.lut_eval(&server, eh, el, &table).unwrap();
            client.decrypt_digit(&out) != i64::from(f(h, l))
        })
        .count();
    assert!(
        wrong > 0,
        "the writer's in-memory key evaluated every table entry right under the reader's plan"
    );
}
