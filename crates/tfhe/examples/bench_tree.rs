//! Timing of the tree-based LUT evaluation on one thread: first level (one multi-value blind
//! rotation with the precise key), packing keyswitch, second level, LUTeval and MVLUTeval, next
//! to an ordinary bootstrap. Run with
//! `cargo run --release -p encint-tfhe --example bench_tree`.

use std::time::Instant;

use encint_tfhe::{
    ClientKey, Digit, NegacyclicLut, Table256, TreeKey, DEFAULT_PARAMETERS, PACKING_BASE_LOG,
    PACKING_LEVEL, PRECISE_PBS_BASE_LOG, PRECISE_PBS_LEVEL,
};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Median wall time of `f` in ms over `runs` runs (after one warm-up run).
fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

fn main() {
    let t = Instant::now();
    let (ck, sk) = ClientKey::generate(&DEFAULT_PARAMETERS);
    println!("server keygen: {:.2} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let tk = TreeKey::generate(&ck);
    println!(
        "tree keygen: {:.2} s (precise BSK base_log {PRECISE_PBS_BASE_LOG} level {PRECISE_PBS_LEVEL}, \
         packing base_log {PACKING_BASE_LOG} level {PACKING_LEVEL})",
        t.elapsed().as_secs_f64()
    );
    let table = Table256::from_fn(|h, l| (h * l + 3) % 16);
    let table2 = Table256::from_fn(|h, l| (h ^ l) % 16);
    let lut = NegacyclicLut::from_fn(|x| 3 * x + 1);
    let (hi, lo, lo2) = (
        ck.encrypt_digit(9),
        ck.encrypt_digit(5),
        ck.encrypt_digit(12),
    );
    let threads: Vec<usize> = std::env::args()
        .nth(1)
        .map(|a| a.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1]);
    for nt in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(nt)
            .build()
            .expect("thread pool");
        pool.install(|| {
            let runs = 15;
            let pbs = time(runs, || {
                let _ = sk.bootstrap(&hi, &lut);
            });
            let first = time(runs, || {
                let _ = tk.first_level(&sk, &hi, &[lut], &[]).unwrap();
            });
            let first_row = time(runs, || {
                let _ = tk.first_level(&sk, &hi, &[], &[&table]).unwrap();
            });
            let (_, accs) = tk.first_level(&sk, &hi, &[], &[&table]).unwrap();
            let second = time(runs, || {
                let _ = tk.second_level(&sk, &accs[0], &lo).unwrap();
            });
            let lut_eval = time(runs, || {
                let out: Digit = tk.lut_eval(&sk, &hi, &lo, &table).unwrap();
                assert_eq!(ck.decrypt_digit(&out), table.eval(9, 5));
            });
            let mv2 = time(runs, || {
                let out = tk
                    .mv_lut_eval(&sk, &hi, &[&lo, &lo2], &[&table, &table2])
                    .unwrap();
                assert_eq!(ck.decrypt_digit(&out[1]), table2.eval(9, 12));
            });
            println!("{nt} thread(s), median of {runs} runs:");
            println!("  SimpleBoot (keyswitch + PBS)         {pbs:7.2} ms");
            println!("  first level, 1 single (precise BR)   {first:7.2} ms");
            println!("  first level + 1 row packing          {first_row:7.2} ms");
            println!(
                "  => packing (16 singles + keyswitch)  {:7.2} ms",
                first_row - first
            );
            println!("  second level                         {second:7.2} ms");
            println!("  lut_eval                             {lut_eval:7.2} ms");
            println!("  mv_lut_eval, 2 distinct tables       {mv2:7.2} ms");
        });
    }
}
