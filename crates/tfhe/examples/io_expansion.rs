//! Expansion factors of the nibble transport forms (module `encint_tfhe::io`) and the time of
//! packing. Run with `cargo run --release -p encint-tfhe --example io_expansion`.
//!
//! Expansion factor = serialized bytes · 8 / (4 · number of nibbles).

use std::time::Instant;

use encint_tfhe::io::{PackedNibbles, PackingKey, SeededNibbles};
use encint_tfhe::{ClientKey, Digit, NegacyclicLut, DEFAULT_PARAMETERS};

fn factor(bytes: usize, n: usize) -> f64 {
    (bytes * 8) as f64 / (4 * n) as f64
}

fn main() {
    let (ck, sk) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 7);
    let t = Instant::now();
    let pk = PackingKey::generate(&ck);
    println!(
        "packing key: generated in {:.2} s, {} bytes",
        t.elapsed().as_secs_f64(),
        bincode::serialized_size(&pk).unwrap()
    );
    println!(
        "{:>7} | {:>14} {:>10} | {:>10} {:>8} | {:>10} {:>8}",
        "nibbles", "Vec<Digit> B", "factor", "seeded B", "factor", "packed B", "factor"
    );
    for n in [16usize, 256, 2048, 4096] {
        let values: Vec<u8> = (0..n).map(|i| (i * 7 % 16) as u8).collect();
        let seeded = ck.encrypt_nibbles_seeded(&values).unwrap();
        let s_bytes = seeded.to_bytes().len();
        assert_eq!(s_bytes, SeededNibbles::encoded_len(n));
        let digits: Vec<Digit> = seeded.expand().unwrap();
        let plain = bincode::serialize(&digits).unwrap().len();
        let packed = pk.pack(&digits).unwrap();
        let p_bytes = packed.to_bytes().len();
        assert_eq!(p_bytes, PackedNibbles::encoded_len(n));
        assert_eq!(ck.decrypt_packed(&packed).unwrap(), values);
        println!(
            "{n:>7} | {plain:>14} {:>10.1} | {s_bytes:>10} {:>8.2} | {p_bytes:>10} {:>8.2}",
            factor(plain, n),
            factor(s_bytes, n),
            factor(p_bytes, n)
        );
    }
    // Pack time for 256 bootstrap outputs, on 1 and 2 threads.
    let lut = NegacyclicLut::identity();
    let fresh: Vec<Digit> = (0..256).map(|i| ck.encrypt_digit(i % 16)).collect();
    let jobs: Vec<_> = fresh.iter().map(|d| (d, &lut)).collect();
    let digits = sk.bootstrap_batch(&jobs);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut times: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                let p = pool.install(|| pk.pack(&digits)).unwrap();
                let dt = t.elapsed().as_secs_f64() * 1e3;
                assert_eq!(p.len(), 256);
                dt
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "pack 256 digits, {threads} thread(s): median {:.1} ms (min {:.1} ms)",
            times[2], times[0]
        );
    }
}
