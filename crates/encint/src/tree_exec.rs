//! The tree executor: runs circuits with bivariate tree LUTs ([`Node::Tree`], seed 004's
//! `LUTeval`) as well as plain LUTs and linear nodes, on TFHE ciphertexts.
//!
//! Each level runs in two parallel batches on the current rayon pool:
//!
//! 1. *First levels*: for every input `x` of the level that feeds a tree (as `hi`) or two or
//!    more LUTs, one multi-value blind rotation ([`TreeKey::first_level`]) yields all those
//!    LUTs of `x` and one packed accumulator per distinct tree table on `x` (`MVLUTeval`);
//!    a lone LUT of an input is one plain [`ServerKey::bootstrap`] (cheaper: default key).
//! 2. *Second levels*: one blind rotation of each tree's accumulator by its `lo`.
//!
//! The counts match [`encint_core::circuit::Circuit::level_rotations`]. Noise: every
//! rotation input obeys the parameter set's quadratic-weight budget (checked before
//! anything runs), a first-level LUT output is charged weight 1 (its variance is at most
//! [`encint_tfhe::FIRST_LEVEL_QWEIGHT_BOUND`] of a fresh bootstrap's) and a tree output
//! [`encint_core::circuit::TREE_QWEIGHT`] (≥ [`encint_tfhe::SECOND_LEVEL_QWEIGHT_BOUND`]), so
//! each blind rotation fails with probability at most 2^-129.6.

use std::collections::HashMap;

use encint_core::circuit::{Circuit, Node, NodeId, TREE_QWEIGHT};
use encint_tfhe::{Accumulator, Digit, NegacyclicLut, ServerKey, Table256, TreeKey};

use crate::executor::{check_input_count, eval_plain, get, to_tfhe_lut};
use crate::{Error, Result};

/// Checks that `circuit` can run on the tree executor within the key's noise budget.
pub fn check_tree_circuit(server: &ServerKey, circuit: &Circuit) -> Result<()> {
    let live = circuit.live();
    if let Some(i) = (0..circuit.nodes().len())
        .find(|&i| live[i] && matches!(circuit.nodes()[i], Node::ManyLut { .. }))
    {
        return Err(Error::NoiseBudget(format!(
            "many-LUT node {i}: not supported by the tree executor"
        )));
    }
    const _: () = assert!(TREE_QWEIGHT as f64 >= encint_tfhe::SECOND_LEVEL_QWEIGHT_BOUND);
    let budget = server.params().max_quadratic_weight();
    match circuit.budget_violations(budget).first() {
        Some(v) => Err(Error::NoiseBudget(v.to_string())),
        None => Ok(()),
    }
}

fn to_table(t: &encint_core::lut::Table256) -> Table256 {
    Table256(t.entries)
}

/// Runs `circuit` (with tree LUTs) on `inputs`, one digit per circuit input.
pub fn run_tree(
    server: &ServerKey,
    tree: &TreeKey,
    circuit: &Circuit,
    inputs: &[&Digit],
) -> Result<Vec<Digit>> {
    check_input_count(circuit, inputs)?;
    check_tree_circuit(server, circuit)?;
    if tree.key_set() != server.key_set() {
        return Err(Error::TreeKeyMismatch {
            server: server.key_set(),
            tree: tree.key_set(),
        });
    }
    let params = *server.params();
    let mut values: Vec<Option<Digit>> = vec![None; circuit.nodes().len()];
    for level in circuit.schedule() {
        // Group the level's bootstraps by first-level input.
        struct Group {
            luts: Vec<NodeId>,
            tables: Vec<u32>,
        }
        let mut groups: Vec<(NodeId, Group)> = Vec::new();
        let mut index: HashMap<NodeId, usize> = HashMap::new();
        let mut group_of = |x: NodeId, groups: &mut Vec<(NodeId, Group)>| -> usize {
            *index.entry(x).or_insert_with(|| {
                groups.push((
                    x,
                    Group {
                        luts: Vec::new(),
                        tables: Vec::new(),
                    },
                ));
                groups.len() - 1
            })
        };
        let mut trees: Vec<NodeId> = Vec::new();
        let mut halves: Vec<NodeId> = Vec::new();
        for &id in &level.bootstraps {
            match circuit.node(id) {
                Node::Lut { input, .. } => {
                    let g = group_of(*input, &mut groups);
                    groups[g].1.luts.push(id);
                }
                Node::HalfLut { .. } => halves.push(id),
                Node::Tree { hi, table, .. } => {
                    let g = group_of(*hi, &mut groups);
                    if !groups[g].1.tables.contains(table) {
                        groups[g].1.tables.push(*table);
                    }
                    trees.push(id);
                }
                _ => {
                    return Err(Error::InvalidInput(format!(
                        "node {} is not supported by the tree executor",
                        id.0
                    )))
                }
            }
        }
        let lut_of = |id: NodeId| match circuit.node(id) {
            Node::Lut { lut, .. } => to_tfhe_lut(circuit.lut(*lut)),
            _ => unreachable!("only LUT nodes are in a group's LUT list"),
        };
        type Groups<'a> = Vec<&'a (NodeId, Group)>;
        let (multi, plain): (Groups, Groups) = groups
            .iter()
            .partition(|(_, g)| !g.tables.is_empty() || g.luts.len() > 1);
        // First levels (multi-value) and plain bootstraps, in one parallel step.
        let multi_singles: Vec<Vec<NegacyclicLut>> = multi
            .iter()
            .map(|(_, g)| g.luts.iter().map(|&id| lut_of(id)).collect())
            .collect();
        let multi_tables: Vec<Vec<Table256>> = multi
            .iter()
            .map(|(_, g)| {
                g.tables
                    .iter()
                    .map(|&t| to_table(circuit.table(t)))
                    .collect()
            })
            .collect();
        let multi_table_refs: Vec<Vec<&Table256>> =
            multi_tables.iter().map(|ts| ts.iter().collect()).collect();
        let first_jobs: Vec<(&Digit, &[NegacyclicLut], &[&Table256])> = multi
            .iter()
            .enumerate()
            .map(|(k, (x, _))| {
                (
                    get(&values, *x),
                    multi_singles[k].as_slice(),
                    multi_table_refs[k].as_slice(),
                )
            })
            .collect();
        let plain_luts: Vec<NegacyclicLut> = plain.iter().map(|(_, g)| lut_of(g.luts[0])).collect();
        let plain_jobs: Vec<(&Digit, &NegacyclicLut)> = plain
            .iter()
            .zip(&plain_luts)
            .map(|((x, _), l)| (get(&values, *x), l))
            .collect();
        let half_luts: Vec<NegacyclicLut> = halves
            .iter()
            .map(|&id| match circuit.node(id) {
                Node::HalfLut { lut, .. } => to_tfhe_lut(circuit.lut(*lut)),
                _ => unreachable!("only half-step nodes are in the half list"),
            })
            .collect();
        let half_jobs: Vec<(&Digit, &NegacyclicLut)> = halves
            .iter()
            .zip(&half_luts)
            .map(|(&id, l)| match circuit.node(id) {
                Node::HalfLut { input, .. } => (get(&values, *input), l),
                _ => unreachable!("only half-step nodes are in the half list"),
            })
            .collect();
        let (first, (singles, half_outs)) = rayon::join(
            || tree.first_level_batch(server, &first_jobs),
            || {
                rayon::join(
                    || server.try_bootstrap_batch(&plain_jobs),
                    || server.try_bootstrap_half_batch(&half_jobs),
                )
            },
        );
        let (first, singles, half_outs) = (first?, singles?, half_outs?);
        for (&id, d) in halves.iter().zip(half_outs) {
            values[id.index()] = Some(d);
        }
        let mut accs: HashMap<(NodeId, u32), Accumulator> = HashMap::new();
        for ((x, g), (outs, acc)) in multi.iter().zip(first) {
            for (&id, d) in g.luts.iter().zip(outs) {
                values[id.index()] = Some(d);
            }
            for (&t, a) in g.tables.iter().zip(acc) {
                accs.insert((*x, t), a);
            }
        }
        for ((_, g), d) in plain.iter().zip(singles) {
            values[g.luts[0].index()] = Some(d);
        }
        // Second levels.
        let second_jobs: Vec<(&Accumulator, &Digit)> = trees
            .iter()
            .map(|&id| match circuit.node(id) {
                Node::Tree { hi, lo, table } => (&accs[&(*hi, *table)], get(&values, *lo)),
                _ => unreachable!("only tree nodes are in the tree list"),
            })
            .collect();
        let outs = tree.second_level_batch(server, &second_jobs)?;
        for (&id, d) in trees.iter().zip(outs) {
            values[id.index()] = Some(d);
        }
        for &id in &level.others {
            let v = eval_plain(circuit.node(id), &values, inputs, &params)?.ok_or_else(|| {
                Error::InvalidInput(format!(
                    "node {} is not supported by the tree executor",
                    id.0
                ))
            })?;
            values[id.index()] = Some(v);
        }
    }
    Ok(circuit
        .outputs()
        .iter()
        .map(|&o| get(&values, o).clone())
        .collect())
}
