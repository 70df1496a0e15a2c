//! Time of one TFHE-rs shortint bootstrap (keyswitch, blind rotation, table) on one thread
//! for TFHE-rs' 4-bit parameter sets: the KS32 set encint uses, its 64-bit-keyswitch
//! sibling and the multi-bit sets of groups 2, 3 and 4 (all 128-bit secure, p-fail at
//! most 2^-128, as TFHE-rs 1.8.2 defines them). Shows which set bootstraps fastest on this
//! CPU. Run with `cargo run --release -p encint-tfhe --example bench_peer_sets`.

use std::time::Instant;

use tfhe::shortint::parameters::aliases::{
    PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128, PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128,
};
use tfhe::shortint::parameters::v1_8::{
    V1_8_PARAM_MULTI_BIT_GROUP_2_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128 as MULTI_BIT_2,
    V1_8_PARAM_MULTI_BIT_GROUP_3_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128 as MULTI_BIT_3,
    V1_8_PARAM_MULTI_BIT_GROUP_4_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128 as MULTI_BIT_4,
};
use tfhe::shortint::parameters::AtomicPatternParameters;

/// Median ms of `runs` table lookups on one thread, each result checked.
fn time<P: Into<AtomicPatternParameters>>(params: P, runs: usize) -> f64 {
    let (ck, sk) = tfhe::shortint::gen_keys(params);
    let ct = ck.encrypt(2);
    let lut = sk.generate_lookup_table(|x| (3 * x + 1) % 4);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    one.install(|| {
        let _ = sk.apply_lookup_table(&ct, &lut); // warm up
        let mut times: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let out = sk.apply_lookup_table(&ct, &lut);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                assert_eq!(ck.decrypt(&out), 3);
                ms
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times[runs / 2]
    })
}

fn main() {
    let runs = 31;
    let base = time(PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128, runs);
    println!("one bootstrap on one thread, median of {runs}:");
    println!("  KS32_PBS_TUNIFORM_2M128            {base:6.2} ms  1.00");
    let rows: [(&str, f64); 4] = [
        (
            "KS_PBS_TUNIFORM_2M128 (64-bit KS)",
            time(PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128, runs),
        ),
        ("MULTI_BIT_GROUP_2 KS_PBS_TUNIFORM", time(MULTI_BIT_2, runs)),
        ("MULTI_BIT_GROUP_3 KS_PBS_TUNIFORM", time(MULTI_BIT_3, runs)),
        ("MULTI_BIT_GROUP_4 KS_PBS_TUNIFORM", time(MULTI_BIT_4, runs)),
    ];
    for (name, ms) in rows {
        println!("  {name:34} {ms:6.2} ms  {:.2}", ms / base);
    }
}
