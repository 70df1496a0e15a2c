//! The bootstraps of one circuit level as *units*, and the one runner of units on a CPU.
//!
//! A unit is a plain or half-step bootstrap, one blind rotation read at several offsets (a
//! many-LUT node), or (with a tree key) one multi-value first level together with the
//! second levels of the trees that read its accumulators, so an accumulator never leaves
//! the unit. [`level_units`] cuts a level into units; [`run_units`] runs a list of units as
//! one parallel step (first levels beside the other rotations, those of one input digit
//! after a single keyswitch, on the current rayon pool, then all second levels as one
//! batch); [`scatter`] hands the outputs back to their nodes. The local digit and tree backends run a whole
//! level as one list ([`run_level`]); the MPI backend splits the list over ranks and runs
//! each chunk with the same [`run_units`]; the GPU backend batches the same units on the
//! device.

use std::borrow::Borrow;
use std::collections::HashMap;

use encint_core::circuit::{many_lut_packing, Circuit, Node, NodeId, PlannedLevel};
use encint_core::exec::{Output, Values};
use encint_tfhe::{Digit, NegacyclicLut, Reading, ServerKey, Table256, TreeKey};
use serde::{Deserialize, Serialize};

use crate::{Error, Result, Unsupported};

/// Converts a table of the IR into the crypto layer's table.
pub fn to_tfhe_lut(lut: &encint_core::lut::NegacyclicLut) -> NegacyclicLut {
    NegacyclicLut::new(lut.table.map(i64::from))
}

/// One bootstrap job of a level, with its input values of type `D` (digits by reference or
/// owned, or node ids).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Unit<D> {
    /// A plain bootstrap.
    Lut { input: D, lut: NegacyclicLut },
    /// A half-step bootstrap.
    Half { input: D, lut: NegacyclicLut },
    /// One blind rotation read at several offsets (a many-LUT node: its tables side by
    /// side in `lut`).
    Many {
        input: D,
        lut: NegacyclicLut,
        offsets: Vec<u8>,
    },
    /// A multi-value first level on `input` (its LUTs and one accumulator per table) and
    /// the second levels of the trees on those accumulators: `(table index, lo value)`.
    Multi {
        input: D,
        luts: Vec<NegacyclicLut>,
        tables: Vec<Vec<u8>>,
        trees: Vec<(u32, D)>,
    },
}

/// The outputs of one unit, in the unit's order (LUTs, then trees).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum UnitOut {
    One(Digit),
    Many(Vec<Digit>),
    Multi { luts: Vec<Digit>, trees: Vec<Digit> },
}

/// A level's units, each with the nodes its outputs go to (in the order of [`UnitOut`]).
pub(crate) type LevelUnits<D> = Vec<(Unit<D>, Vec<NodeId>)>;

/// The units of `level`: with `trees`, one unit per group of the level's first levels (a
/// multi-value group with its trees, or a lone LUT) and one per half-step table; without,
/// one per plain and one per half-step table (the level must hold no tree node). `value`
/// gives a unit's input for a node.
pub(crate) fn level_units<D>(
    circuit: &Circuit,
    level: &PlannedLevel,
    trees: bool,
    value: impl Fn(NodeId) -> D,
) -> Result<LevelUnits<D>> {
    let mut units = Vec::new();
    let lut_of = |id: NodeId| match circuit.node(id) {
        Node::Lut { input, lut } | Node::HalfLut { input, lut } => {
            Some((*input, to_tfhe_lut(circuit.lut(*lut))))
        }
        _ => None,
    };
    let groups = &level.groups;
    if trees {
        for g in &groups.first {
            if g.is_multi_value() {
                let luts = g.luts.iter().filter_map(|&id| lut_of(id)).map(|x| x.1);
                let on_input: Vec<(NodeId, u32, NodeId)> = groups
                    .trees
                    .iter()
                    .filter_map(|&id| match circuit.node(id) {
                        Node::Tree { hi, lo, table } if *hi == g.input => g
                            .tables
                            .iter()
                            .position(|t| t == table)
                            .map(|k| (id, k as u32, *lo)),
                        _ => None,
                    })
                    .collect();
                let mut ids = g.luts.clone();
                ids.extend(on_input.iter().map(|t| t.0));
                units.push((
                    Unit::Multi {
                        input: value(g.input),
                        luts: luts.collect(),
                        tables: g
                            .tables
                            .iter()
                            .map(|&t| circuit.table(t).entries.to_vec())
                            .collect(),
                        trees: on_input.iter().map(|t| (t.1, value(t.2))).collect(),
                    },
                    ids,
                ));
            } else if let Some((x, lut)) = lut_of(g.luts[0]) {
                let input = value(x);
                units.push((Unit::Lut { input, lut }, vec![g.luts[0]]));
            }
        }
    } else {
        for &id in &level.level.bootstraps {
            if let (Node::Lut { .. }, Some((x, lut))) = (circuit.node(id), lut_of(id)) {
                units.push((
                    Unit::Lut {
                        input: value(x),
                        lut,
                    },
                    vec![id],
                ));
            }
        }
    }
    for &id in &groups.many {
        if let Node::ManyLut {
            input,
            luts,
            lo,
            len,
        } = circuit.node(id)
        {
            let tables: Vec<_> = luts.iter().map(|&l| circuit.lut(l)).collect();
            let (lut, offsets) = many_lut_packing(&tables, *lo, *len).ok_or_else(|| {
                Error::from(Unsupported::ManyLutPacking {
                    node: id.0,
                    tables: luts.len(),
                    len: *len,
                })
            })?;
            units.push((
                Unit::Many {
                    input: value(*input),
                    lut: to_tfhe_lut(&lut),
                    offsets,
                },
                vec![id],
            ));
        }
    }
    for &id in &groups.halves {
        if let Some((x, lut)) = lut_of(id) {
            units.push((
                Unit::Half {
                    input: value(x),
                    lut,
                },
                vec![id],
            ));
        }
    }
    if trees {
        all_trees_placed(level, &units)?;
    }
    Ok(units)
}

/// Errors unless every tree node of the level went into a unit (its `hi` has a
/// multi-value first level with its table in the same level, as the grouping promises).
fn all_trees_placed<D>(level: &PlannedLevel, units: &LevelUnits<D>) -> Result<()> {
    let placed: usize = units
        .iter()
        .map(|(u, _)| match u {
            Unit::Multi { trees, .. } => trees.len(),
            _ => 0,
        })
        .sum();
    if placed == level.groups.trees.len() {
        Ok(())
    } else {
        Err(Error::Internal(format!(
            "{} of the level's {} tree nodes have no first level in the level",
            level.groups.trees.len() - placed,
            level.groups.trees.len()
        )))
    }
}

/// Runs `units` on `server` (and `tree`, needed for multi-value units) on the current rayon
/// pool: the first levels beside one batch of every other rotation (plain, half-step and
/// shared rotations, those of one input digit after a single keyswitch), then the second
/// levels as one batch. One output per unit, in order.
pub(crate) fn run_units<D: Borrow<Digit> + Sync>(
    server: &ServerKey,
    tree: Option<&TreeKey>,
    units: &[Unit<D>],
) -> Result<Vec<UnitOut>> {
    // Plain, half-step and shared-rotation units grouped by input digit: the rotations of
    // one input share its keyswitch and modulus switch. `slots[i]`: unit `i`'s job and its
    // place among the job's rotations (`None` for a multi-value unit).
    type Rotations<'a> = Vec<(&'a NegacyclicLut, Reading<'a>)>;
    let mut jobs: Vec<(&Digit, Rotations)> = Vec::new();
    let mut job_of: HashMap<*const Digit, usize> = HashMap::new();
    let mut slots: Vec<Option<(usize, usize)>> = Vec::with_capacity(units.len());
    let mut tables: Vec<Vec<Table256>> = Vec::new();
    for u in units {
        let (input, lut, reading) = match u {
            Unit::Lut { input, lut } => (input.borrow(), lut, Reading::Plain),
            Unit::Half { input, lut } => (input.borrow(), lut, Reading::Half),
            Unit::Many {
                input,
                lut,
                offsets,
            } => (input.borrow(), lut, Reading::Offsets(offsets)),
            Unit::Multi { tables: t, .. } => {
                tables.push(
                    t.iter()
                        .map(|bytes| {
                            let arr: [u8; 256] = bytes.as_slice().try_into().map_err(|_| {
                                Error::Internal(format!(
                                    "a tree table of {} bytes, not 256",
                                    bytes.len()
                                ))
                            })?;
                            Ok(Table256(arr))
                        })
                        .collect::<Result<_>>()?,
                );
                slots.push(None);
                continue;
            }
        };
        let j = *job_of.entry(std::ptr::from_ref(input)).or_insert_with(|| {
            jobs.push((input, Vec::new()));
            jobs.len() - 1
        });
        jobs[j].1.push((lut, reading));
        slots.push(Some((j, jobs[j].1.len() - 1)));
    }
    let multi_units = || units.iter().filter(|u| matches!(u, Unit::Multi { .. }));
    let table_refs: Vec<Vec<&Table256>> = tables.iter().map(|t| t.iter().collect()).collect();
    let multi: Vec<(&Digit, &[NegacyclicLut], &[&Table256])> = multi_units()
        .zip(&table_refs)
        .filter_map(|(u, t)| match u {
            Unit::Multi { input, luts, .. } => {
                Some((input.borrow(), luts.as_slice(), t.as_slice()))
            }
            _ => None,
        })
        .collect();
    let tree = match (tree, multi.is_empty()) {
        (Some(t), _) => Some(t),
        (None, true) => None,
        (None, false) => return Err(Unsupported::NoTreeKey.into()),
    };
    let (first, rotated) = rayon::join(
        || match tree {
            Some(t) if !multi.is_empty() => t.first_level_batch(server, &multi),
            _ => Ok(Vec::new()),
        },
        || server.try_bootstrap_shared_batch(&jobs),
    );
    let (first, mut rotated) = (first?, rotated?);
    // Second levels: each tree on its unit's accumulator of the given table.
    let mut second = Vec::new();
    for (u, (_, accs)) in multi_units().zip(&first) {
        if let Unit::Multi { trees, .. } = u {
            for (t, lo) in trees {
                let acc = accs.get(*t as usize).ok_or_else(|| {
                    Error::Internal(format!("a tree reads accumulator {t}, which is not there"))
                })?;
                second.push((acc, lo.borrow()));
            }
        }
    }
    let second_outs = match tree {
        Some(t) if !second.is_empty() => t.second_level_batch(server, &second)?,
        _ => Vec::new(),
    };
    let mut first = first.into_iter();
    let mut second_outs = second_outs.into_iter();
    let missing = || Error::Internal("a batch returned too few outputs".into());
    units
        .iter()
        .zip(slots)
        .map(|(u, slot)| {
            let mut take = || {
                let (j, r) = slot.ok_or_else(missing)?;
                rotated
                    .get_mut(j)
                    .and_then(|job| job.get_mut(r))
                    .map(std::mem::take)
                    .ok_or_else(missing)
            };
            Ok(match u {
                Unit::Lut { .. } | Unit::Half { .. } => {
                    UnitOut::One(take()?.pop().ok_or_else(missing)?)
                }
                Unit::Many { .. } => UnitOut::Many(take()?),
                Unit::Multi { trees, .. } => {
                    let (luts, _) = first.next().ok_or_else(missing)?;
                    let trees = second_outs.by_ref().take(trees.len()).collect();
                    UnitOut::Multi { luts, trees }
                }
            })
        })
        .collect()
}

/// Pairs each unit's outputs with its nodes; `None` if an output does not match its unit.
pub(crate) fn scatter(
    ids: Vec<Vec<NodeId>>,
    outs: Vec<UnitOut>,
) -> Option<Vec<(NodeId, Output<Digit>)>> {
    if ids.len() != outs.len() {
        return None;
    }
    let mut result = Vec::new();
    for (ids, out) in ids.into_iter().zip(outs) {
        match out {
            UnitOut::One(d) if ids.len() == 1 => result.push((ids[0], Output::One(d))),
            UnitOut::Many(ds) if ids.len() == 1 => result.push((ids[0], Output::Many(ds))),
            UnitOut::Multi { luts, trees } if luts.len() + trees.len() == ids.len() => result
                .extend(
                    ids.into_iter()
                        .zip(luts.into_iter().chain(trees))
                        .map(|(id, d)| (id, Output::One(d))),
                ),
            _ => return None,
        }
    }
    Some(result)
}

/// Runs the bootstraps of `level` on this process: the units of the level (with tree units
/// when `tree` is given) as one [`run_units`] call.
pub(crate) fn run_level(
    server: &ServerKey,
    tree: Option<&TreeKey>,
    circuit: &Circuit,
    level: &PlannedLevel,
    values: &Values<Digit>,
) -> Result<Vec<(NodeId, Output<Digit>)>> {
    let (units, ids): (Vec<_>, Vec<_>) =
        level_units(circuit, level, tree.is_some(), |id| values.get(id))?
            .into_iter()
            .unzip();
    let outs = run_units(server, tree, &units)?;
    scatter(ids, outs)
        .ok_or_else(|| Error::Internal("a bootstrap output does not match its node".into()))
}

/// Blind rotations of a unit.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn weight<D>(unit: &Unit<D>) -> usize {
    match unit {
        Unit::Lut { .. } | Unit::Half { .. } | Unit::Many { .. } => 1,
        Unit::Multi { trees, .. } => 1 + trees.len(),
    }
}

/// Splits `units` into `parts` contiguous chunks of about equal blind rotations (the
/// work of each process of an MPI job).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn split<T>(units: Vec<Unit<T>>, parts: usize) -> Vec<Vec<Unit<T>>> {
    let total: usize = units.iter().map(weight).sum();
    let mut chunks: Vec<Vec<Unit<T>>> = (0..parts).map(|_| Vec::new()).collect();
    let mut done = 0usize;
    for u in units {
        // The chunk whose share of the total holds the unit's first rotation.
        let k = (done * parts / total.max(1)).min(parts - 1);
        done += weight(&u);
        chunks[k].push(u);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use encint_tfhe::NegacyclicLut;

    #[test]
    fn chunks_balance_rotations_and_keep_order() {
        let units: Vec<Unit<u8>> = (0..10u8)
            .map(|i| {
                if i % 3 == 0 {
                    Unit::Multi {
                        input: i,
                        luts: vec![],
                        tables: vec![],
                        trees: vec![(0, i), (0, i)],
                    }
                } else {
                    Unit::Lut {
                        input: i,
                        lut: NegacyclicLut::new([0; 16]),
                    }
                }
            })
            .collect();
        let total: usize = units.iter().map(weight).sum();
        let chunks = split(units, 3);
        let order: Vec<u8> = chunks
            .iter()
            .flatten()
            .map(|u| match u {
                Unit::Lut { input, .. }
                | Unit::Half { input, .. }
                | Unit::Many { input, .. }
                | Unit::Multi { input, .. } => *input,
            })
            .collect();
        assert_eq!(order, (0..10).collect::<Vec<u8>>());
        for c in &chunks {
            let w: usize = c.iter().map(weight).sum();
            // Each chunk within one unit (at most 3 rotations) of a third of the total.
            assert!(w.abs_diff(total / 3) <= 3, "{w} of {total}");
        }
        assert_eq!(split(Vec::<Unit<u8>>::new(), 4).len(), 4);
    }
}
