//! The cost model: bootstraps, blind rotations, packing keyswitches, depth, width and
//! the largest bootstrap-input weight of a circuit.

/// Bootstrap counts and shape of a circuit (only nodes that reach an output count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cost {
    /// Number of bootstrap nodes (a many-LUT and a tree LUT count once).
    pub bootstraps: u64,
    /// Blind rotations: one per tree, plus one per distinct input of the level's LUTs and
    /// tree first levels (LUTs and trees on one input share it by multi-value bootstrapping
    /// when there are several or a tree is among them; a lone LUT is one plain bootstrap).
    pub blind_rotations: u64,
    /// Packing keyswitches (LWEs into a tree's encrypted accumulator): one per distinct
    /// `(hi, table)` of a level.
    pub packing_keyswitches: u64,
    /// Consecutive bootstrap steps on the longest path.
    pub depth: u32,
    /// Largest number of bootstraps in one level.
    pub width: u64,
    /// Largest quadratic weight at a bootstrap input (many-LUT: `q · k²`).
    pub max_qweight: u64,
}

use super::{Circuit, Level, Plan};

impl Plan {
    /// The cost of the planned circuit, from the plan's levels and groupings alone.
    pub fn cost(&self, circuit: &Circuit) -> Cost {
        let mut cost = Cost::default();
        for planned in self.levels() {
            let n = planned.level.bootstraps.len() as u64;
            cost.bootstraps += n;
            cost.blind_rotations += planned.groups.blind_rotations();
            cost.packing_keyswitches += planned.groups.packing_keyswitches();
            cost.width = cost.width.max(n);
            for &id in &planned.level.bootstraps {
                cost.depth = cost.depth.max(circuit.depth(id));
                if let Some(q) = circuit.bootstrap_input_qweight(id) {
                    cost.max_qweight = cost.max_qweight.max(q);
                }
            }
        }
        cost
    }
}

impl Circuit {
    /// The cost of the circuit, from its structure alone (plans it once; executors that
    /// already hold a [`Plan`] use [`Plan::cost`]).
    pub fn cost(&self) -> Cost {
        self.plan().cost(self)
    }

    /// Blind rotations and packing keyswitches of one level (see [`Cost`] and
    /// [`super::LevelGroups`], the grouping the executors run).
    pub fn level_rotations(&self, level: &Level) -> (u64, u64) {
        let groups = super::LevelGroups::new(self, &level.bootstraps);
        (groups.blind_rotations(), groups.packing_keyswitches())
    }
}
