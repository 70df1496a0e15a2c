//! A model of the machine a circuit runs on, for estimating its time in seconds.
//!
//! A circuit runs level by level: every bootstrap of a level can run at once, and a level
//! starts when the one before it is done. A [`Machine`] says how long a level takes:
//! a fixed latency, plus one round for each `lanes` bootstraps of the level
//! (`latency + ⌈width / lanes⌉ · round`).
//!
//! - On a CPU, a lane is a thread and a round is one bootstrap on one core; there is no
//!   fixed latency. The estimate is the planner's count of bootstrap rounds
//!   ([`crate::bits::makespan`]) times one bootstrap.
//! - On a GPU, one level costs a latency (the bootstrap's own, however few run) plus its
//!   bootstraps at the card's throughput: one lane, a round of `1 / throughput` seconds.
//!
//! The built-in profiles ([`Machine::parse`]): `cpu:N` (N threads), `h100`, `h200`.
//!
//! # Examples
//!
//! ```
//! use encint_arith::machine::Machine;
//! use encint_arith::{Arith, Config, SInt};
//! use encint_core::circuit::Builder;
//!
//! let ar = Arith::new(Config::PARMESAN);
//! let mut b = Builder::new();
//! let (x, y) = (SInt::input(&mut b, 8), SInt::input(&mut b, 8));
//! let p = ar.mul(&mut b, &x, &y);
//! let circuit = b.finish(p.digits);
//!
//! let two = Machine::parse("cpu:2")?;
//! let sixteen = Machine::parse("cpu:16")?;
//! // More threads never make a circuit slower.
//! assert!(sixteen.seconds(&circuit) <= two.seconds(&circuit));
//! // On the GPU, depth costs more than bootstraps.
//! let h100 = Machine::parse("h100")?;
//! let cost = circuit.cost();
//! let by_hand = cost.depth as f64 * h100.latency_s + cost.bootstraps as f64 * h100.round_s;
//! assert!((h100.seconds(&circuit) - by_hand).abs() < 1e-9);
//! assert!(Machine::parse("tpu").is_err());
//! # Ok::<(), encint_arith::machine::MachineError>(())
//! ```

use encint_core::circuit::{Builder, Circuit};

/// One keyswitch and bootstrap of the default parameter set (KS32) on one CPU thread, in
/// seconds: 11.5 ms, the median measured on the 2-core benchmark machine
/// (docs/BENCHMARKS.md).
pub const CPU_BOOTSTRAP_S: f64 = 0.0115;

/// The most threads a `cpu:N` profile may name.
pub const MAX_CPU_THREADS: usize = 65_536;

/// How long a machine takes for one level of a circuit: `latency_s + ⌈width / lanes⌉ ·
/// round_s` seconds for a level of `width` bootstraps.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// The profile's name (`cpu:16`, `h100`, ...).
    pub name: String,
    /// Bootstraps that run side by side in one round.
    pub lanes: usize,
    /// Seconds of one round of up to `lanes` bootstraps.
    pub round_s: f64,
    /// Seconds every level costs on top of its rounds.
    pub latency_s: f64,
    /// The thread count the planner chooses circuits for on this machine today (a CPU's
    /// threads; on a GPU the lanes its server plans for).
    pub plan_threads: usize,
    /// Whether the machine is a GPU.
    pub gpu: bool,
}

/// A profile name that is not one of [`Machine::parse`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineError(pub String);

impl std::fmt::Display for MachineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MachineError {}

/// The lanes a GPU server plans for (the H100 fit of docs/GPU.md: level latency times
/// throughput, 5.0 ms x 25,000 bootstraps per second).
pub const GPU_PLAN_LANES: usize = 125;

impl Machine {
    /// A CPU running `threads` bootstraps side by side, each [`CPU_BOOTSTRAP_S`].
    pub fn cpu(threads: usize) -> Machine {
        let threads = threads.max(1);
        Machine {
            name: format!("cpu:{threads}"),
            lanes: threads,
            round_s: CPU_BOOTSTRAP_S,
            latency_s: 0.0,
            plan_threads: threads,
            gpu: false,
        }
    }

    /// A GPU whose level of `w` bootstraps takes `latency_s + w / per_second` seconds.
    pub fn gpu(name: &str, latency_s: f64, per_second: f64) -> Machine {
        Machine {
            name: name.to_string(),
            lanes: 1,
            round_s: 1.0 / per_second,
            latency_s,
            plan_threads: GPU_PLAN_LANES,
            gpu: true,
        }
    }

    /// One NVIDIA H100: a level latency of 5.0 ms and 25,000 bootstraps per second inside
    /// a circuit (fitted to two 64-bit products timed on the card; docs/GPU.md).
    pub fn h100() -> Machine {
        Machine::gpu("h100", 0.005, 25_000.0)
    }

    /// One NVIDIA H200: a level latency of 4.5 ms (the level cost measured there) and the
    /// H100's throughput (wide levels are bound by the bootstrap's latency, not by memory
    /// bandwidth; docs/GPU.md).
    pub fn h200() -> Machine {
        Machine::gpu("h200", 0.0045, 25_000.0)
    }

    /// The profile named `name`: `cpu:N` (N from 1 to [`MAX_CPU_THREADS`]), `h100` or
    /// `h200`.
    pub fn parse(name: &str) -> Result<Machine, MachineError> {
        let name = name.trim();
        match name.to_ascii_lowercase().as_str() {
            "h100" => return Ok(Machine::h100()),
            "h200" => return Ok(Machine::h200()),
            _ => {}
        }
        let threads = name
            .strip_prefix("cpu:")
            .ok_or_else(|| {
                MachineError(format!(
                    "unknown machine profile {name:?}: expected cpu:N (N threads), h100 or h200"
                ))
            })?
            .parse::<usize>()
            .ok()
            .filter(|t| (1..=MAX_CPU_THREADS).contains(t))
            .ok_or_else(|| {
                MachineError(format!(
                    "machine profile {name:?}: the thread count must be an integer from 1 to \
                     {MAX_CPU_THREADS}"
                ))
            })?;
        Ok(Machine::cpu(threads))
    }

    /// This machine with its circuits planned for `threads` lanes ([`Machine::plan_threads`]):
    /// `encint cost --machine P --threads N`.
    pub fn with_plan_threads(&self, threads: usize) -> Machine {
        Machine {
            plan_threads: threads.max(1),
            ..self.clone()
        }
    }

    /// A level's latency in rounds of [`Machine::plan_threads`] bootstraps on this machine
    /// (rounded): 0 on a CPU; on the built-in GPUs, whose round of 125 bootstraps takes
    /// about the latency, 1.
    pub fn latency_rounds(&self) -> u64 {
        let round = self.round_s * self.plan_threads.div_ceil(self.lanes.max(1)) as f64;
        if self.latency_s <= 0.0 || round <= 0.0 {
            return 0;
        }
        (self.latency_s / round).round() as u64
    }

    /// Plans `b`'s circuit for this machine: for [`Machine::plan_threads`] threads
    /// ([`Builder::set_threads`]) with a level costing [`Machine::latency_rounds`] more
    /// ([`Builder::set_level_latency`]), so that the choices between circuits of one
    /// result weigh depth as this machine does. On a CPU profile it is
    /// `set_threads(threads)` alone.
    pub fn plan_builder(&self, b: &mut Builder) {
        b.set_threads(self.plan_threads);
        b.set_level_latency(self.latency_rounds());
    }

    /// The estimated seconds of `circuit` on this machine: its bootstrap rounds at
    /// [`Machine::lanes`] ([`crate::bits::makespan`]) times one round, plus one latency per
    /// level that bootstraps.
    pub fn seconds(&self, circuit: &Circuit) -> f64 {
        let rounds = crate::bits::makespan(circuit, self.lanes);
        let levels = if self.latency_s > 0.0 {
            circuit
                .schedule()
                .iter()
                .filter(|l| !l.bootstraps.is_empty())
                .count()
        } else {
            0
        };
        rounds as f64 * self.round_s + levels as f64 * self.latency_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Arith, Config, SInt};
    use encint_core::lut::NegacyclicLut;

    /// A circuit of `widths[i]` independent bootstraps at level `i + 1`, each level fed by
    /// the one before, every bootstrap an output.
    fn levels(widths: &[usize]) -> Circuit {
        let mut b = Builder::new();
        let x = b.input();
        let (mut feed, mut all) = (x, Vec::new());
        for &w in widths {
            let level: Vec<_> = (0..w as i64)
                .map(|i| {
                    let t = NegacyclicLut::from_fn(-8..=7, |v| (v + i).clamp(-8, 7)).unwrap();
                    b.lut(feed, &t)
                })
                .collect();
            feed = level[0];
            all.extend(level);
        }
        b.finish(all)
    }

    #[test]
    fn cpu_levels_cost_their_rounds() {
        let c = levels(&[5, 1, 8]);
        assert_eq!(c.cost().bootstraps, 14);
        // 2 threads: ⌈5/2⌉ + 1 + 4 = 8 rounds at most (a listed schedule may pack better).
        let rounds = crate::bits::makespan(&c, 2);
        assert!(rounds <= 8);
        let s = Machine::cpu(2).seconds(&c);
        assert!((s - rounds as f64 * CPU_BOOTSTRAP_S).abs() < 1e-12);
        // One thread: every bootstrap in turn.
        let one = Machine::cpu(1).seconds(&c);
        assert!((one - 14.0 * CPU_BOOTSTRAP_S).abs() < 1e-12);
    }

    #[test]
    fn gpu_levels_cost_latency_and_throughput() {
        let c = levels(&[5, 1, 8]);
        let m = Machine::h100();
        let want = 3.0 * 0.005 + 14.0 / 25_000.0;
        assert!((m.seconds(&c) - want).abs() < 1e-12, "{}", m.seconds(&c));
    }

    #[test]
    fn profiles_parse_and_refuse() {
        assert_eq!(Machine::parse("cpu:16").unwrap(), Machine::cpu(16));
        assert_eq!(Machine::parse(" H100 ").unwrap(), Machine::h100());
        assert_eq!(Machine::parse("h200").unwrap().plan_threads, GPU_PLAN_LANES);
        for bad in ["cpu:0", "cpu:-1", "cpu:x", "cpu:65537", "cpu", "gpu", ""] {
            assert!(Machine::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_product_is_faster_on_more_threads() {
        let ar = Arith::new(Config::PARMESAN);
        let mut b = Builder::new();
        let (x, y) = (SInt::input(&mut b, 16), SInt::input(&mut b, 16));
        let p = ar.mul(&mut b, &x, &y);
        let c = b.finish(p.digits);
        let t: Vec<f64> = [1, 2, 16, 192]
            .iter()
            .map(|&n| Machine::cpu(n).seconds(&c))
            .collect();
        assert!(t.windows(2).all(|w| w[1] <= w[0]), "{t:?}");
        assert!(t[3] < t[0]);
    }
}
