//! `encint eval --clear`: one operation's circuit on plain operands, run on the clear
//! executor through the facade (`encint::fhe::compose_clear`, `encint::fhe::apply_clear`):
//! no key, no file, the result with the circuit's bootstrap count and depth.

use encint::typed::{IntType, Op};
use encint::Cost;

use super::eval::{check_arity, parse_op, typed_op, EvalArgs};
use super::typed::{format_value, parse_value, record_typed, type_name, TypeArg};
use crate::backend::BackendKind;
use crate::error::{internal, usage};
use crate::{AnyResult, CliResult};

/// `encint eval --clear`.
pub fn eval_clear(a: &EvalArgs) -> CliResult {
    if a.backend.backend != BackendKind::Cpu {
        return Err(usage(
            "--clear runs on the clear executor: it takes no --backend",
        ));
    }
    let ty = a.ty.ok_or_else(|| {
        usage("`--clear` needs `--type TYPE` (int, bool, uN or iN) for its operands")
    })?;
    if a.files.is_empty() {
        return Err(usage(
            "no operand given: `--clear` takes the operands' values as arguments",
        ));
    }
    let texts = a
        .files
        .iter()
        .map(|p| {
            p.to_str()
                .ok_or_else(|| usage(format!("operand `{}` is not text", p.display())))
        })
        .collect::<AnyResult<Vec<&str>>>()?;
    match ty {
        TypeArg::Int => clear_int(a, &texts),
        TypeArg::Typed(t) => clear_typed(a, t, &texts),
    }
}

/// The type of each operand of `op` on values of `ty`: a selection's condition is a bool,
/// an encrypted shift or rotation amount the unsigned type of the width.
fn operand_types(op: Op, ty: IntType, n: usize) -> Vec<IntType> {
    (0..n)
        .map(|i| match (op, i) {
            (Op::Select, 0) => IntType::BOOL,
            (Op::ShlVar | Op::ShrVar | Op::RotlVar | Op::RotrVar, 1) => IntType {
                bits: ty.bits,
                signed: false,
            },
            _ => ty,
        })
        .collect()
}

/// `--clear` on a typed operation.
fn clear_typed(a: &EvalArgs, ty: IntType, texts: &[&str]) -> CliResult {
    if a.digits.is_some() {
        return Err(usage(
            "`--digits` sets the digit count of `--type int` only",
        ));
    }
    let op = typed_op(a, texts.len(), "operand(s)")?;
    let types = operand_types(op, ty, texts.len());
    let inputs = texts
        .iter()
        .zip(&types)
        .map(|(s, &t)| Ok((t, parse_value(s, t)?)))
        .collect::<AnyResult<Vec<(IntType, i128)>>>()?;
    let threads = a.threads.unwrap_or_else(crate::all_cores);
    let (out, cost) = encint::fhe::compose_clear(&inputs, threads, |c, x| {
        Ok(vec![record_typed(c, op, x, a.scalar)?])
    })?;
    let result = *out
        .first()
        .ok_or_else(|| internal("the operation built no output"))?;
    let out_ty = op.result_type(ty);
    let operands: Vec<String> = inputs.iter().map(|&(t, v)| format_value(v, t)).collect();
    report(
        a,
        &type_name(ty),
        &operands,
        &format_value(result, out_ty),
        &type_name(out_ty),
        &cost,
    );
    Ok(())
}

/// `--clear --type int`: an operation of the exact integers.
fn clear_int(a: &EvalArgs, texts: &[&str]) -> CliResult {
    let op = parse_op(a)?;
    if a.to.is_some() {
        return Err(usage("`--to` goes only with `--op cast` on typed values"));
    }
    check_arity(a, op.arity(), texts.len(), "operand(s)")?;
    let values = texts
        .iter()
        .map(|s| {
            s.trim().parse::<i128>().map_err(|_| {
                usage(format!(
                    "`{s}` is not an integer (an int operand is decimal)"
                ))
            })
        })
        .collect::<AnyResult<Vec<i128>>>()?;
    // The fewest digits that hold every operand: |v| < 2^n.
    let fewest = values
        .iter()
        .map(|&v| (128 - v.unsigned_abs().leading_zeros()) as usize)
        .max()
        .unwrap_or(0)
        .max(1);
    let digits = match a.digits {
        Some(0) => return Err(usage("--digits must be at least 1")),
        Some(n) if n < fewest => {
            return Err(usage(format!(
                "an operand needs {fewest} digits, more than --digits {n} (|value| < 2^N)"
            )))
        }
        Some(n) => n,
        None => fewest,
    };
    let inputs: Vec<(i128, usize)> = values.iter().map(|&v| (v, digits)).collect();
    let (result, cost) = encint::fhe::apply_clear(op, &inputs)?;
    let operands: Vec<String> = values.iter().map(i128::to_string).collect();
    report(a, "int", &operands, &result.to_string(), "int", &cost);
    Ok(())
}

/// Prints the result: one line, or one JSON object with `--json`.
fn report(
    a: &EvalArgs,
    ty: &str,
    operands: &[String],
    result: &str,
    result_type: &str,
    cost: &Cost,
) {
    if a.json {
        let v = serde_json::json!({
            "op": a.op,
            "type": ty,
            "operands": operands,
            "scalar": a.scalar.map(|k| k.to_string()),
            "result": result,
            "result_type": result_type,
            "bootstraps": cost.bootstraps,
            "depth": cost.depth,
            "executor": "clear",
        });
        println!("{v}");
    } else {
        let scalar = a.scalar.map_or(String::new(), |k| format!(" (scalar {k})"));
        println!(
            "{} {}{scalar} on {ty} = {result} ({result_type}): {} bootstraps, depth {} \
             (clear executor)",
            a.op,
            operands.join(" "),
            cost.bootstraps,
            cost.depth
        );
    }
}
