//! The TFHE executor: runs a [`Circuit`] on encrypted digits.
//!
//! Before anything runs, every bootstrap input's quadratic weight is checked
//! against the parameter set's budget; a violation is an error naming the node
//! and the operation that built it. Then the circuit runs level by level
//! ([`Circuit::schedule`]): each level's bootstraps as one batch on the current
//! rayon pool, then the level's linear nodes.

use encint_core::circuit::{Circuit, Node};
use encint_tfhe::{Digit, NegacyclicLut, ServerKey};

use crate::{Error, Result};

/// Converts a table of the IR into the crypto layer's table.
pub fn to_tfhe_lut(lut: &encint_core::lut::NegacyclicLut) -> NegacyclicLut {
    NegacyclicLut::new(lut.table.map(i64::from))
}

/// Checks the circuit against the key's noise budget.
///
/// Many-LUT nodes are refused: with the default parameters the modulus switch
/// alone makes a 2-table blind rotation fail about once in 2^32 calls even on a
/// fresh input (measured in `encint-tfhe`'s noise test), far above 2^-128.
pub fn check_budget(server: &ServerKey, circuit: &Circuit) -> Result<()> {
    let live = circuit.live();
    if let Some(i) = (0..circuit.nodes().len())
        .find(|&i| live[i] && matches!(circuit.nodes()[i], Node::ManyLut { .. }))
    {
        let id = encint_core::circuit::NodeId(i as u32);
        return Err(Error::NoiseBudget(format!(
            "many-LUT node {i} of operation `{}`: several tables per blind rotation exceed \
             p-fail 2^-128 with these parameters",
            circuit.label(id)
        )));
    }
    if let Some(i) = (0..circuit.nodes().len())
        .find(|&i| live[i] && matches!(circuit.nodes()[i], Node::Tree { .. }))
    {
        return Err(Error::NoiseBudget(format!(
            "tree LUT node {i}: this executor runs digit circuits only (byte-processor \
             circuits run on the tree executor)"
        )));
    }
    let budget = server.params().max_quadratic_weight();
    match circuit.budget_violations(budget).first() {
        Some(v) => Err(Error::NoiseBudget(v.to_string())),
        None => Ok(()),
    }
}

pub(crate) fn get(values: &[Option<Digit>], id: encint_core::circuit::NodeId) -> &Digit {
    values[id.index()]
        .as_ref()
        .expect("the schedule computes every operand first")
}

/// Errors unless `inputs` has one digit per circuit input.
pub(crate) fn check_input_count(circuit: &Circuit, inputs: &[&Digit]) -> Result<()> {
    if inputs.len() == circuit.inputs().len() {
        return Ok(());
    }
    Err(Error::InvalidInput(format!(
        "circuit expects {} input digits, got {}",
        circuit.inputs().len(),
        inputs.len()
    )))
}

/// The value of an input, constant or linear node (`None` for other kinds).
pub(crate) fn eval_plain(
    node: &Node,
    values: &[Option<Digit>],
    inputs: &[&Digit],
    params: &encint_tfhe::DigitParameters,
) -> Result<Option<Digit>> {
    Ok(Some(match node {
        Node::Input { index, .. } => inputs[*index as usize].clone(),
        Node::Const(c) => Digit::trivial(*c, params),
        Node::Linear { terms, constant } => {
            let t: Vec<(&Digit, i64)> = terms.iter().map(|&(n, w)| (get(values, n), w)).collect();
            Digit::linear(&t, *constant)?
        }
        _ => return Ok(None),
    }))
}

/// The `(input, table)` pairs of `(slot, input, table)` jobs.
fn job_pairs<'a>(
    jobs: &[(usize, &'a Digit, &'a NegacyclicLut)],
) -> Vec<(&'a Digit, &'a NegacyclicLut)> {
    jobs.iter().map(|&(_, d, l)| (d, l)).collect()
}

/// Runs `circuit` on `inputs` (one digit per circuit input) and returns its outputs.
pub fn run(server: &ServerKey, circuit: &Circuit, inputs: &[&Digit]) -> Result<Vec<Digit>> {
    check_input_count(circuit, inputs)?;
    check_budget(server, circuit)?;
    let params = *server.params();
    let mut values: Vec<Option<Digit>> = vec![None; circuit.nodes().len()];
    for level in circuit.schedule() {
        // One batch: every single-table bootstrap of this level.
        let luts: Vec<NegacyclicLut> = level
            .bootstraps
            .iter()
            .map(|&id| match circuit.node(id) {
                Node::Lut { lut, .. } | Node::HalfLut { lut, .. } => to_tfhe_lut(circuit.lut(*lut)),
                _ => NegacyclicLut::identity(),
            })
            .collect();
        // Plain and half-step bootstraps: (slot in the level, input, table), then one batch each.
        let mut plain: Vec<(usize, &Digit, &NegacyclicLut)> = Vec::new();
        let mut halves: Vec<(usize, &Digit, &NegacyclicLut)> = Vec::new();
        for (k, &id) in level.bootstraps.iter().enumerate() {
            match circuit.node(id) {
                Node::Lut { input, .. } => plain.push((k, get(&values, *input), &luts[k])),
                Node::HalfLut { input, .. } => halves.push((k, get(&values, *input), &luts[k])),
                _ => {}
            }
        }
        let outs = server.try_bootstrap_batch(&job_pairs(&plain))?;
        let half_outs = server.try_bootstrap_half_batch(&job_pairs(&halves))?;
        let slots: Vec<usize> = plain.iter().map(|j| j.0).collect();
        let half_slots: Vec<usize> = halves.iter().map(|j| j.0).collect();
        let mut many: Vec<(usize, Vec<Digit>)> = Vec::new();
        for &id in &level.bootstraps {
            if let Node::ManyLut { input, luts } = circuit.node(id) {
                let tables: Vec<NegacyclicLut> =
                    luts.iter().map(|&l| to_tfhe_lut(circuit.lut(l))).collect();
                let out = server.bootstrap_many(get(&values, *input), &tables)?;
                many.push((id.index(), out));
            }
        }
        for (k, d) in half_slots.into_iter().zip(half_outs) {
            values[level.bootstraps[k].index()] = Some(d);
        }
        for (k, d) in slots.into_iter().zip(outs) {
            values[level.bootstraps[k].index()] = Some(d);
        }
        let mut many_out: std::collections::HashMap<usize, Vec<Digit>> = many.into_iter().collect();
        for &id in &level.others {
            if let Some(v) = eval_plain(circuit.node(id), &values, inputs, &params)? {
                values[id.index()] = Some(v);
                continue;
            }
            let v = match circuit.node(id) {
                Node::Extract { group, index } => many_out
                    .get_mut(&group.index())
                    .map(|outs| outs[*index as usize].clone())
                    .expect("many-LUT groups run before their extracts"),
                _ => unreachable!("bootstraps are handled above"),
            };
            values[id.index()] = Some(v);
        }
    }
    Ok(circuit
        .outputs()
        .iter()
        .map(|&o| get(&values, o).clone())
        .collect())
}
