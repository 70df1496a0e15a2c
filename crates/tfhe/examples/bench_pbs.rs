//! Timing of keyswitch + bootstrap: one job on one thread, batches of 16 on 1 and 2
//! threads, and two tables on each of 16 inputs with and without a shared keyswitch. Run with `cargo run --release -p encint-tfhe --example bench_pbs`.

use std::time::Instant;

use encint_tfhe::{ClientKey, Digit, NegacyclicLut, Reading, DEFAULT_PARAMETERS};

/// CPU time of the calling thread in ns (Linux `/proc/thread-self/schedstat`), so that the
/// single-thread figure is not inflated by other processes competing for the cores.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let t = Instant::now();
    let (ck, sk) = ClientKey::generate(&DEFAULT_PARAMETERS);
    println!("keygen: {:.2} s", t.elapsed().as_secs_f64());
    let lut = NegacyclicLut::from_fn(|x| 3 * x + 1);
    let c = ck.encrypt_digit(5);

    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let runs = 40;
    let (times, cpu) = one.install(|| {
        let _ = sk.bootstrap(&c, &lut); // warm the thread-local scratch
        let c0 = thread_cpu_ns();
        let times: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let out = sk.bootstrap(&c, &lut);
                let dt = t.elapsed().as_secs_f64() * 1e3;
                assert_eq!(ck.decrypt_digit(&out), lut.eval(5));
                dt
            })
            .collect();
        // schedstat may have tick granularity: only the total over all runs is meaningful.
        let cpu = match (c0, thread_cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e6 / runs as f64,
            _ => f64::NAN,
        };
        (times, cpu)
    });
    println!(
        "keyswitch+PBS, 1 thread: median {:.2} ms wall, mean {:.2} ms thread CPU time",
        median(times),
        cpu
    );

    let ks: Vec<f64> = one.install(|| {
        (0..20)
            .map(|_| {
                let t = Instant::now();
                // Keyswitch + modulus switch + a 918-term dot product (negligible).
                let e = ck.pre_rotation_error(&sk, &c, 5);
                let dt = t.elapsed().as_secs_f64() * 1e3;
                assert!(e.abs() < 1.0 / 64.0);
                dt
            })
            .collect()
    });
    println!(
        "keyswitch alone (upper bound), 1 thread: median {:.2} ms",
        median(ks)
    );

    let luts = [lut, NegacyclicLut::identity()];
    let times: Vec<f64> = one.install(|| {
        (0..20)
            .map(|_| {
                let t = Instant::now();
                let _ = sk.bootstrap_many(&c, &luts).unwrap();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect()
    });
    println!(
        "bootstrap_many (2 tables), 1 thread: median {:.2} ms",
        median(times)
    );

    let inputs: Vec<Digit> = (0..16).map(|m| ck.encrypt_digit(m)).collect();
    let jobs: Vec<_> = inputs.iter().map(|d| (d, &lut)).collect();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let times: Vec<f64> = pool.install(|| {
            let _ = sk.bootstrap_batch(&jobs);
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    let outs = sk.bootstrap_batch(&jobs);
                    let dt = t.elapsed().as_secs_f64() * 1e3;
                    for (m, o) in outs.iter().enumerate() {
                        assert_eq!(ck.decrypt_digit(o), lut.eval(m as i64));
                    }
                    dt
                })
                .collect()
        });
        let m = median(times);
        println!(
            "batch of 16, {threads} thread(s): median {m:.1} ms ({:.2} ms per bootstrap)",
            m / 16.0
        );
    }

    // Two tables of each of 16 inputs: 32 separate bootstraps against 16 keyswitches each
    // shared by two rotations, alternating so both see the same machine.
    let other = NegacyclicLut::from_fn(|x| x / 4);
    let separate: Vec<_> = inputs
        .iter()
        .flat_map(|d| [(d, &lut), (d, &other)])
        .collect();
    let shared: Vec<_> = inputs
        .iter()
        .map(|d| (d, vec![(&lut, Reading::Plain), (&other, Reading::Plain)]))
        .collect();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        pool.install(|| {
            for _ in 0..5 {
                let t = Instant::now();
                let outs = sk.bootstrap_batch(&separate);
                a.push(t.elapsed().as_secs_f64() * 1e3);
                assert_eq!(ck.decrypt_digit(&outs[3]), other.eval(1));
                let t = Instant::now();
                let outs = sk.try_bootstrap_shared_batch(&shared).unwrap();
                b.push(t.elapsed().as_secs_f64() * 1e3);
                assert_eq!(ck.decrypt_digit(&outs[1][1][0]), other.eval(1));
            }
        });
        let (a, b) = (median(a), median(b));
        println!(
            "two tables of 16 inputs, {threads} thread(s): {a:.1} ms separate, {b:.1} ms with one \
             keyswitch per input ({:.3})",
            b / a
        );
    }
}
