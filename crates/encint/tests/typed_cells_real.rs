//! Every typed operation on real ciphertexts, cell by cell: each operation (and casts to a
//! narrower, a wider and the other signedness's type and to `bool`) × widths 8, 16, 32, 64 ×
//! unsigned and signed × three operand forms — radix-4 blocks as encryption gives them,
//! canonical bits (`encrypt_as`), and the result of an earlier operation (canonical bits
//! plus one, which the adder leaves lazy) — on edge values (`MIN`, `MAX`, `0`, `±1`) and
//! random ones, with the algorithm the planner picks, against the `BigInt` reference of
//! the typed operations.
//!
//! In CI: cells drawn at random from all of them within a budget of planned bootstraps
//! (about a minute and a half on two idle cores), one case each; the seed is printed, so that runs over
//! time cover every cell, and `TYPED_CELLS_SEED=n` replays one. The full sweep (every cell,
//! an edge case and a random case each) is ignored here and is one command:
//!
//! ```text
//! scripts/real-sweep.sh
//! ```

use std::sync::OnceLock;

use encint::typed::{decrypt_typed, encrypt_typed_as, EncTyped, Form, IntType, Op};
use encint::{ClientKey, Server, DEFAULT_PARAMETERS, KS64_PARAMETERS};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

#[path = "common/seed.rs"]
mod seed;
#[path = "../../arith/tests/common/typed_reference.rs"]
mod typed_reference;
use typed_reference::reference;

type Keys = (ClientKey, Server);

/// Keys of the default parameter set (32-bit keyswitch).
fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Server::new(key))
    })
}

/// Keys of the 64-bit-keyswitch set (the GPU backend's, selectable on the CPU too).
fn ks64_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&KS64_PARAMETERS);
        (client, Server::new(key))
    })
}

/// How a cell's operands are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// As `encrypt` gives them (radix-4 blocks).
    Encrypted,
    /// Canonical bits (`encrypt_as`).
    Canonical,
    /// The result of an earlier operation: canonical bits of `v - 1`, plus one.
    Result,
}

/// One cell: an operation on a type with its operands in one form.
#[derive(Debug, Clone, Copy)]
struct Cell {
    op: Op,
    ty: IntType,
    operands: Operands,
}

fn ty(bits: usize, signed: bool) -> IntType {
    IntType::new(bits, signed).unwrap()
}

/// The operations of a type: every typed operation with sample scalars fitting it, and
/// casts.
fn ops(t: IntType) -> Vec<Op> {
    let mut v: Vec<Op> = Op::typed_samples()
        .into_iter()
        .map(|op| match op {
            Op::ScalarMul(_) => Op::ScalarMul(if t.signed { -805 } else { 805 }),
            Op::DivScalar(_) => Op::DivScalar(if t.signed { -7 } else { 7 }),
            Op::RemScalar(_) => Op::RemScalar(if t.signed { -7 } else { 7 }),
            Op::Shl(_) => Op::Shl(t.bits as u32 / 2 + 1),
            Op::Shr(_) => Op::Shr(t.bits as u32 / 2 + 1),
            Op::Rotl(_) => Op::Rotl(3),
            Op::Rotr(_) => Op::Rotr(5),
            op => op,
        })
        .collect();
    v.extend([
        Op::Cast(ty(t.bits / 2, !t.signed)),
        Op::Cast(ty(t.bits * 2, t.signed)),
        Op::Cast(ty(t.bits, !t.signed)),
        Op::Cast(IntType::BOOL),
    ]);
    v
}

/// Every cell.
fn cells() -> Vec<Cell> {
    let mut v = Vec::new();
    for bits in [8, 16, 32, 64] {
        for signed in [false, true] {
            let t = ty(bits, signed);
            for op in ops(t) {
                for operands in [Operands::Encrypted, Operands::Canonical, Operands::Result] {
                    v.push(Cell {
                        op,
                        ty: t,
                        operands,
                    });
                }
            }
        }
    }
    v
}

/// Edge values of a type.
fn edges(t: IntType) -> Vec<i128> {
    let mut v = vec![t.min(), t.max(), 0, 1];
    if t.signed {
        v.push(-1);
    }
    v
}

/// Arguments of a case: edge values (`edge`) or random ones, the select condition 0 or 1.
fn arguments(rng: &mut StdRng, cell: Cell, edge: bool) -> Vec<i128> {
    let t = cell.ty;
    (0..cell.op.arity())
        .map(|k| {
            if cell.op == Op::Select && k == 0 {
                return rng.gen_range(0..=1);
            }
            if edge {
                let e = edges(t);
                e[rng.gen_range(0..e.len())]
            } else {
                t.wrap(rng.r#gen())
            }
        })
        .collect()
}

/// The cell's operands holding `args`, under `keys`.
fn operands(keys: &Keys, cell: Cell, args: &[i128]) -> Vec<EncTyped> {
    let (client, server) = keys;
    args.iter()
        .enumerate()
        .map(|(k, &v)| {
            if cell.op == Op::Select && k == 0 {
                return encrypt_typed_as(client, v, IntType::BOOL, Form::Canonical).unwrap();
            }
            let t = cell.ty;
            match cell.operands {
                Operands::Encrypted => encrypt_typed_as(client, v, t, Form::DEFAULT).unwrap(),
                Operands::Canonical => encrypt_typed_as(client, v, t, Form::Canonical).unwrap(),
                Operands::Result => {
                    let before =
                        encrypt_typed_as(client, t.wrap(v - 1), t, Form::Canonical).unwrap();
                    let one = encrypt_typed_as(client, 1, t, Form::Canonical).unwrap();
                    let (sum, _) = server.typed_apply(Op::Add, &[&before, &one]).unwrap();
                    sum
                }
            }
        })
        .collect()
}

/// The form of the cell's operands (the select condition's aside): what [`operands`]
/// gives, checked there (an earlier addition's result is in the form its planned adder
/// gives: lazy bits or blocks).
fn form(cell: Cell) -> Form {
    match cell.operands {
        Operands::Encrypted => Form::DEFAULT,
        Operands::Canonical => Form::Canonical,
        Operands::Result => {
            let (_, server) = keys();
            let forms = [Form::Canonical; 2];
            encint::typed::plan(
                server.arith(),
                Op::Add,
                cell.ty,
                &forms,
                server.plan_threads(),
            )
            .unwrap()
            .chosen()
            .form
        }
    }
}

/// The planned bootstraps of a cell (no ciphertext needed).
fn planned(cell: Cell) -> u64 {
    let (_, server) = keys();
    let forms: Vec<Form> = (0..cell.op.arity())
        .map(|k| match (cell.op, k) {
            (Op::Select, 0) => Form::Canonical,
            _ => form(cell),
        })
        .collect();
    encint::typed::plan(
        server.arith(),
        cell.op,
        cell.ty,
        &forms,
        server.plan_threads(),
    )
    .unwrap_or_else(|e| panic!("{cell:?}: {e}"))
    .chosen()
    .cost
    .bootstraps
}

/// Runs one case of `cell` on real ciphertexts under `keys` against the reference; returns
/// the bootstraps it took.
fn check(keys: &Keys, rng: &mut StdRng, cell: Cell, edge: bool) -> u64 {
    let (client, server) = keys;
    let args = arguments(rng, cell, edge);
    let x = operands(keys, cell, &args);
    let refs: Vec<&EncTyped> = x.iter().collect();
    let (out, cost) = server
        .typed_apply(cell.op, &refs)
        .unwrap_or_else(|e| panic!("{cell:?}: {e}"));
    let got = decrypt_typed(client, &out).unwrap();
    let forms: Vec<Form> = x.iter().map(EncTyped::form).collect();
    let k = usize::from(cell.op == Op::Select);
    assert!(
        forms[k..].iter().all(|&f| f == form(cell)),
        "{cell:?}: operands in {forms:?}"
    );
    assert_eq!(
        got,
        reference(cell.op, cell.ty, &args),
        "{cell:?} on {args:?} ({forms:?})"
    );
    cost.bootstraps
}

fn seed() -> u64 {
    seed::seed("TYPED_CELLS_SEED", "typed_cells_real")
}

/// Planned bootstraps the CI sample may take.
const BUDGET: u64 = 8_000;

#[test]
fn a_sample_of_every_cell_on_real_keys() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut all = cells();
    all.shuffle(&mut rng);
    let (mut spent, mut run) = (0, Vec::new());
    for cell in all {
        let cost = planned(cell);
        if spent + cost > BUDGET {
            continue;
        }
        spent += cost;
        let edge = rng.gen_bool(0.5);
        assert_eq!(
            check(keys(), &mut rng, cell, edge),
            cost,
            "{cell:?}: cost as planned"
        );
        run.push(cell);
    }
    eprintln!(
        "typed_cells_real: {} cells of {}, {spent} bootstraps",
        run.len(),
        cells().len()
    );
    assert!(
        run.len() >= 40,
        "only {} cells within the budget",
        run.len()
    );
}

#[test]
#[ignore = "heavy: every cell on real keys, an edge case and a random case each (scripts/real-sweep.sh)"]
fn every_cell_on_real_keys() {
    let mut rng = StdRng::seed_from_u64(seed());
    let (mut cases, mut bootstraps) = (0u64, 0u64);
    let start = std::time::Instant::now();
    for cell in cells() {
        for edge in [true, false] {
            bootstraps += check(keys(), &mut rng, cell, edge);
            cases += 1;
        }
        eprintln!(
            "{cell:?}: done ({cases} cases, {bootstraps} bootstraps, {:.0} s)",
            start.elapsed().as_secs_f64()
        );
    }
    eprintln!(
        "typed_cells_real: every cell ({} cells): {cases} cases, 0 mismatches, {bootstraps} \
         bootstraps",
        cells().len()
    );
}

/// The 64-bit-keyswitch set on the CPU: every typed operation (and the casts) at 8 and 16
/// bits, unsigned and signed, on operands as encrypted, an edge or a random case each; and
/// a compiled program. Its keyswitch reads the key at another precision, so a wrong
/// reading there fails here and nowhere on the default set.
#[test]
fn every_operation_at_eight_and_sixteen_bits_on_ks64_keys() {
    use encint::fhe::{compile, set_server_key, FheInt16, FheUint8};
    let k = ks64_keys();
    let mut rng = StdRng::seed_from_u64(seed());
    let (mut cases, mut want) = (0, 0);
    for (bits, signed) in [(8, false), (8, true), (16, false), (16, true)] {
        want += ops(ty(bits, signed)).len();
        let t = ty(bits, signed);
        for op in ops(t) {
            let cell = Cell {
                op,
                ty: t,
                operands: Operands::Encrypted,
            };
            let edge = rng.gen_bool(0.5);
            check(k, &mut rng, cell, edge);
            cases += 1;
        }
    }
    assert_eq!(cases, want);
    // A compiled program on the same keys: `(x·y + 7) / 3` and a comparison selecting.
    let (client, server) = k;
    set_server_key(server.key().clone());
    let f = compile(|(x, y): (FheUint8, FheUint8)| {
        let p = &(&(&x * &y) + 7u8) / 3u8;
        x.gt(&y).select(&p, &y)
    })
    .unwrap();
    for (a, b) in [(200u8, 17u8), (3, 250), (255, 255), (0, 0), (77, 76)] {
        let x = FheUint8::encrypt(a, client).unwrap();
        let y = FheUint8::encrypt(b, client).unwrap();
        let got: u8 = f.run(&(x, y)).unwrap().decrypt(client).unwrap();
        let p = a.wrapping_mul(b).wrapping_add(7) / 3;
        assert_eq!(got, if a > b { p } else { b }, "{a}, {b}");
    }
    let g = compile(|x: FheInt16| &(&x * &x) - &(&x >> 3u32)).unwrap();
    for v in [i16::MIN, -1, 0, 1, 12345, i16::MAX] {
        let got: i16 = g
            .run(&FheInt16::encrypt(v, client).unwrap())
            .unwrap()
            .decrypt(client)
            .unwrap();
        assert_eq!(got, v.wrapping_mul(v).wrapping_sub(v >> 3), "{v}");
    }
}
