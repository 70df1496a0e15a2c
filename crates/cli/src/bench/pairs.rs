//! Rows of `encint bench --typed` for the family's operations of two results: the
//! overflowing arithmetic (the value and the overflow flag), `div_rem` and `match_value`
//! (of a table of four entries), through the family's methods on this thread's server,
//! beside TFHE-rs' methods of the same names; both sides' results are decrypted and checked
//! against each other and against plain arithmetic.

use std::sync::Arc;

use encint::fhe::{compile_with, FheValue};
use encint::typed::{Form, IntType};

use super::row::Row;
use super::HEAVY_BOOTSTRAPS;
use crate::error::{mismatch, usage};
use crate::peer::typed::{time_pair_peer, Inputs};
use crate::timing::{median, timed_runs};
use crate::AnyResult;

/// The names of these rows.
pub const PAIR_NAMES: [&str; 5] = [
    "overflowing_add",
    "overflowing_sub",
    "overflowing_mul",
    "div_rem",
    "match_value",
];

/// Whether `name` is one of these rows.
pub fn is_pair(name: &str) -> bool {
    PAIR_NAMES.contains(&name)
}

/// Refuses a row TFHE-rs has no counterpart of, before any key exists.
pub fn check(name: &str, ty: IntType) -> AnyResult<()> {
    if name == "match_value" && ty.signed {
        return Err(usage(format!(
            "match_value on {ty}: TFHE-rs has it on unsigned types only (use --types u)"
        )));
    }
    Ok(())
}

/// The table `match_value` rows look up: `a` and the three values after it (modulo the
/// width), to 5, 6, 7 and 8.
fn table(ty: IntType, a: i128) -> Vec<(i128, i128)> {
    (0..4).map(|k| (ty.wrap(a + k), 5 + k)).collect()
}

/// Our operation `name` on `a` and `b`.
fn ours(
    name: &str,
    a: &FheValue,
    b: &FheValue,
    table: &[(i128, i128)],
) -> encint::Result<(FheValue, FheValue)> {
    match name {
        "overflowing_add" => a.overflowing_add(b),
        "overflowing_sub" => a.overflowing_sub(b),
        "overflowing_mul" => a.overflowing_mul(b),
        "div_rem" => a.div_rem(b),
        _ => a.match_value(table, 0, a.ty()),
    }
}

/// The exact results of `name` on `a` and `b` (`b` not zero).
fn reference(name: &str, ty: IntType, a: i128, b: i128, table: &[(i128, i128)]) -> (i128, i128) {
    let flag = |exact: i128, wrapped: i128| (wrapped, i128::from(exact != wrapped));
    match name {
        "overflowing_add" => flag(a + b, ty.wrap(a + b)),
        "overflowing_sub" => flag(a - b, ty.wrap(a - b)),
        // Operands of at most 64 bits: the exact product fits an i128.
        "overflowing_mul" => flag(a * b, ty.wrap(a * b)),
        // Rust's truncating division and remainder (`MIN / -1` wraps).
        "div_rem" => (ty.wrap(a.wrapping_div(b)), a.wrapping_rem(b)),
        _ => table
            .iter()
            .find(|&&(i, _)| i == a)
            .map_or((0, 0), |&(_, o)| (o, 1)),
    }
}

/// Times row `name` on `ty` with operands `x` (radix-4, as encryption gives them):
/// ours on a server of `threads` threads, then TFHE-rs on `pool`.
pub fn row(
    name: &str,
    ty: IntType,
    x: Inputs,
    runs: usize,
    keys: (&rayon::ThreadPool, &encint::ClientKey, &encint::Server),
) -> AnyResult<Row> {
    let (pool, client, server) = keys;
    let table = table(ty, x.a);
    let want = reference(name, ty, x.a, x.b, &table);
    let threads = pool.current_num_threads();
    let (ours_ms, got, cost, rounds, n) = pool.install(|| -> AnyResult<_> {
        encint::set_server(Arc::new(encint::Server::with_threads(
            server.key().clone(),
            threads,
        )?));
        let a = FheValue::encrypt(x.a, ty, client)?;
        let b = FheValue::encrypt(x.b, ty, client)?;
        let f = {
            let (name, table) = (name.to_string(), table.clone());
            compile_with((ty, ty), move |(a, b): (FheValue, FheValue)| {
                ours(&name, &a, &b, &table).expect("an operation of the family")
            })?
        };
        let cost = f.cost();
        let (times, (p, q)) = timed_runs(
            runs,
            || Ok(ours(name, &a, &b, &table)?),
            |_| Ok(cost.bootstraps > HEAVY_BOOTSTRAPS),
        )?;
        let got = (p.decrypt(client)?, q.decrypt(client)?);
        let n = times.len();
        Ok((median(times), got, cost, f.rounds(threads), n))
    })?;
    if got != want {
        return Err(mismatch(format!(
            "{name} {ty} on {x:?}: ours {got:?}, plain {want:?}"
        )));
    }
    let peer = pool
        .install(|| time_pair_peer(name, ty, x, &table, n))
        .map_err(|e| e.about(&format!("{name} {ty}")))?;
    if peer.values != want {
        return Err(mismatch(format!(
            "{name} {ty} on {x:?}: TFHE-rs {:?}, plain {want:?}",
            peer.values
        )));
    }
    Ok(Row {
        op: name.to_string(),
        ty,
        form: Form::Radix4,
        algorithm: "compiled".into(),
        ours_ms,
        peer_ms: Some(peer.median_ms),
        pbs: cost.bootstraps,
        depth: cost.depth,
        rounds,
    })
}
