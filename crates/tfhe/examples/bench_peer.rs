//! Timing of the TFHE-rs high-level integer API (the peer baseline) for every [`PeerOp`] at
//! 8, 16 and 32 bits, on 1 and 2 threads. Run with
//! `cargo run --release -p encint-tfhe --example bench_peer -- [runs] [bits...]`.

use encint_tfhe::peer::{init_peer_keys, time_peer, PeerOp};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(3);
    let widths: Vec<u32> = if args.len() > 1 {
        args[1..].iter().filter_map(|a| a.parse().ok()).collect()
    } else {
        vec![8, 16, 32]
    };
    init_peer_keys();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        for &bits in &widths {
            for op in PeerOp::ALL {
                match pool.install(|| time_peer(op, bits, Some(-5), runs)) {
                    Ok(t) => println!(
                        "{threads} thread(s) {:>8} {:>9}: median {:9.2} ms, min {:9.2} ms",
                        t.type_name,
                        format!("{op:?}"),
                        t.median_ms,
                        t.min_ms
                    ),
                    Err(e) => println!(
                        "{threads} thread(s) {bits:>2}-bit {:>9}: {e}",
                        format!("{op:?}")
                    ),
                }
            }
        }
    }
}
