//! One keyswitch + bootstrap on one thread: encint's digit bootstrap on both parameter sets
//! beside TFHE-rs' shortint `apply_lookup_table` on the two sets they are read from, run in
//! turns (one of each per round, so drift hits all four alike), medians over the rounds.
//!
//! `cargo run --release -p encint-cli --example pbs_vs_tfhe [ROUNDS]` (default 40).

use std::time::Instant;

use encint::keys::{ClientKey, NegacyclicLut, DEFAULT_PARAMETERS, KS64_PARAMETERS};
use tfhe::shortint::parameters::aliases::{
    PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128, PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128,
};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn ms(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(40), |s| s.parse())?;
    let lut = NegacyclicLut::from_fn(|x| 3 * x + 1);
    let mut ours = Vec::new();
    for p in [&DEFAULT_PARAMETERS, &KS64_PARAMETERS] {
        let (ck, sk) = ClientKey::generate(p);
        let c = ck.encrypt_digit(5);
        if ck.decrypt_digit(&sk.bootstrap(&c, &lut)) != lut.eval(5) {
            return Err(format!("wrong bootstrap result on {}", p.id()).into());
        }
        ours.push((p.id(), sk, c));
    }
    let mut peers = Vec::new();
    for (name, (ck, sk)) in [
        (
            "TFHE-rs KS32",
            tfhe::shortint::gen_keys(PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128),
        ),
        (
            "TFHE-rs KS64 (default)",
            tfhe::shortint::gen_keys(PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128),
        ),
    ] {
        let acc = sk.generate_lookup_table(|x| (3 * x + 1) % 4);
        let c = ck.encrypt(2);
        if ck.decrypt(&sk.apply_lookup_table(&c, &acc)) != 3 {
            return Err(format!("wrong {name} result").into());
        }
        peers.push((name, sk, acc, c));
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let times = pool.install(|| {
        let mut t = vec![Vec::new(); 4];
        for r in 0..rounds {
            // Each of the four goes first in turn (the first after another key set pays for
            // the cache).
            for k in 0..4 {
                let i = (r + k) % 4;
                let dt = match i {
                    0 | 1 => {
                        let (_, sk, c) = &ours[i];
                        ms(&mut || drop(sk.bootstrap(c, &lut)))
                    }
                    _ => {
                        let (_, sk, acc, c) = &peers[i - 2];
                        ms(&mut || drop(sk.apply_lookup_table(c, acc)))
                    }
                };
                t[i].push(dt);
            }
        }
        t.into_iter().map(median).collect::<Vec<f64>>()
    });
    let names = [ours[0].0, ours[1].0, peers[0].0, peers[1].0];
    println!("one keyswitch + bootstrap, 1 thread, median of {rounds} rounds:");
    for (name, t) in names.iter().zip(&times) {
        println!("  {t:7.2} ms  {:5.3} of TFHE-rs KS64  {name}", t / times[3]);
    }
    Ok(())
}
