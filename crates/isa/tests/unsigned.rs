//! Unsigned instructions: exhaustive clear-executor checks against `u8` arithmetic, cost
//! bounds against Table 4 of Trama et al., "Designing a General-Purpose 8-bit (T)FHE
//! Processor Abstraction", and the noise discipline.

use std::sync::Arc;

use encint_core::circuit::{Builder, Circuit};
use encint_core::clear;
use encint_isa::instr::{emit, Arg, Value};
use encint_isa::IsaError;

mod common;
use common::{budget, input_byte};

/// A non-byte operand of an instruction under test.
#[derive(Clone)]
enum Extra {
    Imm(i64),
    Table(Arc<[u16; 256]>),
}

/// Builds `name` on `bytes` encrypted bytes (inputs of weight `q`) followed by `extra`.
fn build_q(name: &str, bytes: usize, extra: &[Extra], q: u64) -> Result<Circuit, IsaError> {
    let mut b = Builder::with_budget(budget());
    let mut args = Vec::new();
    for _ in 0..bytes {
        args.push(Arg::Byte(input_byte(&mut b, q)));
    }
    for e in extra {
        args.push(match e {
            Extra::Imm(v) => Arg::Imm(*v),
            Extra::Table(t) => Arg::Table(t.clone()),
        });
    }
    match emit(&mut b, name, &args)? {
        Value::Byte(r) => Ok(b.finish(vec![r.hi, r.lo])),
        other => panic!("{name}: unexpected result {other:?}"),
    }
}

fn build(name: &str, bytes: usize, extra: &[Extra]) -> Circuit {
    build_q(name, bytes, extra, 1).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run(c: &Circuit, vals: &[u8]) -> u8 {
    let inputs: Vec<i64> = vals
        .iter()
        .flat_map(|&v| [i64::from(v >> 4), i64::from(v & 15)])
        .collect();
    let (o, _) = clear::run(c, &inputs).expect("clear run");
    assert!(
        o.iter().all(|d| (0..16).contains(d)),
        "output digits {o:?} are not nibbles"
    );
    (o[0] * 16 + o[1]) as u8
}

fn check_discipline(name: &str, c: &Circuit) {
    assert!(
        c.budget_violations(budget()).is_empty(),
        "{name}: {:?}",
        c.budget_violations(budget())
    );
    assert!(c.max_output_qweight() <= 4, "{name}: output weight");
}

/// Builds with heaviest operands (weight 4): budget respected, results still correct.
fn check_heavy(name: &str, bytes: usize, extra: &[Extra], f: &dyn Fn(&[u8]) -> u8) {
    let c = build_q(name, bytes, extra, 4).unwrap();
    check_discipline(name, &c);
    let samples = [0u8, 1, 7, 15, 16, 100, 128, 200, 255];
    for &x in &samples {
        for &y in &samples {
            for &z in &samples[..3] {
                let v = [x, y, z];
                let v = &v[..bytes];
                assert_eq!(run(&c, v), f(v), "{name} (heavy) {v:?}");
            }
        }
    }
}

fn bivariate(name: &str, f: fn(u8, u8) -> u8) {
    let c = build(name, 2, &[]);
    check_discipline(name, &c);
    for x in 0..=255u8 {
        for y in 0..=255u8 {
            assert_eq!(run(&c, &[x, y]), f(x, y), "{name}({x}, {y})");
        }
    }
    check_heavy(name, 2, &[], &|v| f(v[0], v[1]));
}

/// Every immediate 0..=255 on every operand 0..=255.
fn immediate(name: &str, f: fn(u8, u8) -> u8) {
    for k in 0..=255u8 {
        let c = build(name, 1, &[Extra::Imm(k.into())]);
        check_discipline(name, &c);
        for x in 0..=255u8 {
            assert_eq!(run(&c, &[x]), f(x, k), "{name}({x}, {k})");
        }
    }
    check_heavy(name, 1, &[Extra::Imm(100)], &|v| f(v[0], 100));
    // Out-of-range immediates are refused.
    for bad in [-1i64, 256] {
        assert!(matches!(
            build_q(name, 1, &[Extra::Imm(bad)], 1),
            Err(IsaError::BadOperands { .. })
        ));
    }
}

fn div(x: u8, y: u8) -> u8 {
    x.checked_div(y).unwrap_or(255)
}
fn rem(x: u8, y: u8) -> u8 {
    x.checked_rem(y).unwrap_or(x)
}

/// An operation with its register and immediate mnemonics and its `u8` reference.
type Op = (&'static str, &'static str, fn(u8, u8) -> u8);

/// Every operation that has a register and an immediate form.
const OPS: &[Op] = &[
    ("ADD", "ADDI", u8::wrapping_add),
    ("SUB", "SUBI", u8::wrapping_sub),
    ("MUL", "MULI", u8::wrapping_mul),
    ("MULM", "MULMI", |x, y| ((x as u16 * y as u16) >> 8) as u8),
    ("DIV", "DIVI", div),
    ("MOD", "MODI", rem),
    ("DIV4", "DIV4I", |x, y| div(x, y & 15)),
    ("MOD4", "MOD4I", |x, y| rem(x, y & 15)),
    ("AND", "ANDI", |x, y| x & y),
    ("OR", "ORI", |x, y| x | y),
    ("XOR", "XORI", |x, y| x ^ y),
    ("SHL", "SHLI", |x, k| if k >= 8 { 0 } else { x << k }),
    ("SHR", "SHRI", |x, k| if k >= 8 { 0 } else { x >> k }),
    ("ROL", "ROLI", |x, k| x.rotate_left(u32::from(k & 7))),
    ("ROR", "RORI", |x, k| x.rotate_right(u32::from(k & 7))),
    ("EQ", "EQI", |x, y| (x == y) as u8),
    ("LT", "LTI", |x, y| (x < y) as u8),
    ("LTE", "LTEI", |x, y| (x <= y) as u8),
    ("GT", "GTI", |x, y| (x > y) as u8),
    ("GTE", "GTEI", |x, y| (x >= y) as u8),
    ("MIN", "MINI", u8::min),
    ("MAX", "MAXI", u8::max),
];

/// Runs `check` on every operation of [`OPS`], one thread each.
fn each_op(check: fn(&Op)) {
    std::thread::scope(|s| {
        for op in OPS {
            s.spawn(move || check(op));
        }
    });
}

#[test]
fn register_forms() {
    each_op(|&(name, _, f)| bivariate(name, f));
}

#[test]
fn immediate_forms() {
    each_op(|&(_, name, f)| immediate(name, f));
}

/// Checks the conditional `name` (a condition byte, `bytes` more encrypted bytes, then the
/// immediates `imms`) on every condition and operand value: the result is the first of
/// `pick(operands, imms)` when the condition is 1, the second when it is 0.
fn conditional(name: &str, bytes: usize, imms: &[u8], pick: fn(&[u8], &[u8]) -> (u8, u8)) {
    let extra: Vec<Extra> = imms.iter().map(|&k| Extra::Imm(k.into())).collect();
    let c = build(name, 1 + bytes, &extra);
    check_discipline(name, &c);
    for i in 0..1usize << (8 * bytes) {
        let operands: Vec<u8> = (0..bytes).map(|j| (i >> (8 * j)) as u8).collect();
        let (t, f) = pick(&operands, imms);
        for cond in 0..=1u8 {
            let mut v = vec![cond];
            v.extend(&operands);
            let want = if cond == 1 { t } else { f };
            assert_eq!(run(&c, &v), want, "{name}({v:?}, {imms:?})");
        }
    }
}

#[test]
fn conditionals() {
    conditional("CDUP", 1, &[], |v, _| (v[0], 0));
    conditional("NCDUP", 1, &[], |v, _| (0, v[0]));
    conditional("CSEL", 2, &[], |v, _| (v[0], v[1]));
    let heavy = build_q("CSEL", 3, &[], 4).unwrap();
    check_discipline("CSEL", &heavy);
    for k1 in 0..=255u8 {
        conditional("CDUPI", 0, &[k1], |_, k| (k[0], 0));
        conditional("NCDUPI", 0, &[k1], |_, k| (0, k[0]));
        for k2 in 0..=255u8 {
            conditional("CSELI", 0, &[k1, k2], |_, k| (k[0], k[1]));
        }
    }
}

#[test]
fn addz() {
    let c = build("ADDZ", 2, &[]);
    check_discipline("ADDZ", &c);
    for x in 0..=255u8 {
        assert_eq!(run(&c, &[x, 0]), x);
        assert_eq!(run(&c, &[0, x]), x);
    }
    let heavy = build_q("ADDZ", 2, &[], 4).unwrap();
    check_discipline("ADDZ", &heavy);
    for x in 0..=255u8 {
        assert_eq!(run(&heavy, &[x, 0]), x);
    }
}

fn sbox() -> Arc<[u16; 256]> {
    let mut t = [0u16; 256];
    for (i, v) in t.iter_mut().enumerate() {
        *v = ((i * 167 + 13) % 256) as u16 ^ 0x5a;
    }
    Arc::new(t)
}

#[test]
fn user_tables() {
    let t = sbox();
    for name in ["XOP", "XOPN"] {
        let c = build(name, 1, &[Extra::Table(t.clone())]);
        check_discipline(name, &c);
        for x in 0..=255u8 {
            let v = t[x as usize] as u8;
            let want = if name == "XOP" { v } else { v & 15 };
            assert_eq!(run(&c, &[x]), want, "{name}({x})");
        }
        let mut bad = *t;
        bad[3] = 256;
        assert!(matches!(
            build_q(name, 1, &[Extra::Table(Arc::new(bad))], 1),
            Err(IsaError::BadOperands { .. })
        ));
    }
}

#[test]
fn bad_operands_are_errors() {
    let mut b = Builder::with_budget(budget());
    let x = input_byte(&mut b, 1);
    assert!(emit(&mut b, "ADD", &[Arg::Byte(x)]).is_err());
    assert!(emit(&mut b, "ADDI", &[Arg::Byte(x), Arg::Byte(x)]).is_err());
    assert!(emit(&mut b, "ADDI", &[Arg::Byte(x), Arg::Imm(1000)]).is_err());
    assert!(
        encint_isa::instr::unsigned::emit(&mut b, "ADD", &[Arg::Byte(x)])
            .unwrap()
            .is_err()
    );
}

/// `(name, operands, extra, Table 4 blind rotations, Table 4 keyswitches)`.
fn table4() -> Vec<(&'static str, usize, Vec<Extra>, u64, u64)> {
    let i = |v: i64| vec![Extra::Imm(v)];
    let mut v = vec![
        ("ADD", 2, vec![], 7, 4),
        ("SUB", 2, vec![], 7, 4),
        ("MUL", 2, vec![], 10, 6),
        ("MULM", 2, vec![], 32, 20),
        ("DIV", 2, vec![], 97, 56),
        ("MOD", 2, vec![], 91, 50),
        ("DIV4", 2, vec![], 21, 14),
        ("MOD4", 2, vec![], 10, 6),
        ("AND", 2, vec![], 4, 2),
        ("OR", 2, vec![], 4, 2),
        ("XOR", 2, vec![], 4, 2),
        ("SHL", 2, vec![], 6, 4),
        ("SHR", 2, vec![], 6, 4),
        ("ROL", 2, vec![], 9, 6),
        ("ROR", 2, vec![], 9, 6),
        ("EQ", 2, vec![], 6, 3),
        ("LT", 2, vec![], 9, 5),
        ("LTE", 2, vec![], 9, 5),
        ("GT", 2, vec![], 9, 5),
        ("GTE", 2, vec![], 9, 5),
        ("MIN", 2, vec![], 16, 10),
        ("MAX", 2, vec![], 16, 10),
        ("CDUP", 2, vec![], 3, 1),
        ("NCDUP", 2, vec![], 3, 1),
        ("CSEL", 3, vec![], 9, 6),
        ("ADDZ", 2, vec![], 4, 2),
        ("XOP", 1, vec![Extra::Table(sbox())], 3, 2),
        ("XOPN", 1, vec![Extra::Table(sbox())], 2, 1),
        ("CDUPI", 1, i(200), 1, 0),
        ("NCDUPI", 1, i(200), 1, 0),
        ("CSELI", 1, vec![Extra::Imm(200), Extra::Imm(37)], 1, 0),
    ];
    // Immediates: the worst case over all 256 immediates is reported (heavy: imm 100).
    for (name, br, ks) in [
        ("ADDI", 2, 1),
        ("SUBI", 2, 1),
        ("MULI", 2, 1),
        ("MULMI", 3, 2), // Table 4 says 2/1; see the report: ours is 3/2 in the worst case
        ("DIVI", 2, 1),
        ("MODI", 3, 2),
        ("DIV4I", 2, 1),
        ("MOD4I", 2, 1),
        ("ANDI", 2, 0),
        ("ORI", 2, 0),
        ("XORI", 2, 0),
        ("SHLI", 2, 0),
        ("SHRI", 2, 0),
        ("ROLI", 4, 0),
        ("RORI", 4, 0),
        ("EQI", 2, 1), // Table 4 says 2/0; one tree (2/1, depth 1) here
        ("LTI", 2, 1),
        ("LTEI", 2, 1),
        ("GTI", 2, 1),
        ("GTEI", 2, 1),
        ("MINI", 3, 2),
        ("MAXI", 3, 2),
    ] {
        v.push((name, 1, i(-1), br, ks));
    }
    v
}

#[test]
fn costs_within_table4() {
    eprintln!(
        "{:<8} {:>4} {:>4} {:>6}   {:>8}",
        "instr", "BR", "KS", "depth", "bound"
    );
    for (name, bytes, extra, br, ks) in table4() {
        let (cost, circuit) = if matches!(extra.first(), Some(Extra::Imm(-1))) {
            // Worst case over all immediates.
            let mut worst: Option<(encint_core::circuit::Cost, Circuit)> = None;
            for k in 0..=255i64 {
                let c = build(name, bytes, &[Extra::Imm(k)]);
                let cost = c.cost();
                let key = |c: &encint_core::circuit::Cost| {
                    (c.blind_rotations, c.packing_keyswitches, c.depth)
                };
                if worst.as_ref().is_none_or(|(w, _)| key(&cost) > key(w)) {
                    worst = Some((cost, c));
                }
            }
            worst.unwrap()
        } else {
            let c = build(name, bytes, &extra);
            (c.cost(), c)
        };
        check_discipline(name, &circuit);
        // The same instruction on operands of the largest allowed weight (refreshes added).
        let heavy_extra = match extra.first() {
            Some(Extra::Imm(-1)) => vec![Extra::Imm(100)],
            _ => extra.clone(),
        };
        let heavy = build_q(name, bytes, &heavy_extra, 4).unwrap();
        check_discipline(name, &heavy);
        let hc = heavy.cost();
        eprintln!(
            "{:<8} {:>4} {:>4} {:>6}   {:>4}/{:<4} heavy operands: {}/{}/{}",
            name,
            cost.blind_rotations,
            cost.packing_keyswitches,
            cost.depth,
            br,
            ks,
            hc.blind_rotations,
            hc.packing_keyswitches,
            hc.depth
        );
        assert!(
            cost.blind_rotations <= br && cost.packing_keyswitches <= ks,
            "{name}: {cost:?} exceeds {br}/{ks}"
        );
    }
}

/// The immediates `encint asm bench` uses for its rows (`TABLE4` in
/// `crates/cli/src/asm_bench.rs`); the other rows take no immediate.
const BENCH_IMMS: &[(&str, i64)] = &[
    ("ANDI", 0x5a),
    ("SHLI", 3),
    ("ROLI", 3),
    ("EQI", 77),
    ("LTI", 77),
    ("CDUPI", 77),
    ("ADDI", 77),
    ("MULI", 77),
    ("DIVI", 7),
    ("MODI", 7),
];

/// Pins the "BR / KS (paper)" column of docs/BENCHMARKS.md ("Byte processor" table):
/// our blind rotations and packing keyswitches exactly, and the paper's figures in
/// parentheses against Table 4 as transcribed in `table4()` (paper bounds stay separate:
/// `costs_within_table4`).
#[test]
fn costs_match_benchmarks_md() {
    let rows = common::doc_table("BENCHMARKS.md", "## Byte processor");
    assert_eq!(rows.len(), 30, "rows of the byte-processor table");
    let paper = table4();
    for (name, nums) in &rows {
        let name = name.as_str();
        let imm = BENCH_IMMS.iter().find(|(n, _)| *n == name).map(|&(_, k)| k);
        let bytes = match name {
            "CSEL" => 3,
            "NEG" | "ABS" => 1,
            _ if imm.is_some() => 1,
            _ => 2,
        };
        let extra: Vec<Extra> = imm.into_iter().map(Extra::Imm).collect();
        let c = build(name, bytes, &extra).cost();
        assert_eq!(
            [c.blind_rotations, c.packing_keyswitches],
            [nums[0], nums[1]],
            "{name}: BR / KS differ from docs/BENCHMARKS.md"
        );
        if let Some(p) = paper.iter().find(|p| p.0 == name) {
            // `table4()` holds our accepted bound where we miss Table 4 (EQI: 2/1 for
            // the paper's 2/0, see its comment); the docs give the paper's figure.
            let want = if name == "EQI" { [2, 0] } else { [p.3, p.4] };
            assert_eq!(want, [nums[2], nums[3]], "{name}: paper figures");
        }
    }
}

/// docs/ISA.md, "How the counts drop below Table 4": "ADD, SUB 3/0 in two levels",
/// "LT 3/0", "EQ 3/0", "MIN 7/2", "ADDZ ... (0/0 ...)", "DIV 58/33", "EQI is 2/1",
/// "MULMI 3/2 for some immediates (2/1)".
#[test]
fn isa_md_counts() {
    for (name, br, ks, depth) in [
        ("ADD", 3, 0, Some(2)),
        ("SUB", 3, 0, Some(2)),
        ("LT", 3, 0, None),
        ("EQ", 3, 0, None),
        ("MIN", 7, 2, None),
        ("ADDZ", 0, 0, Some(0)),
        ("DIV", 58, 33, None),
    ] {
        let c = build(name, 2, &[]).cost();
        assert_eq!(
            (c.blind_rotations, c.packing_keyswitches),
            (br, ks),
            "{name}"
        );
        if let Some(d) = depth {
            assert_eq!(u64::from(c.depth), d, "{name} depth");
        }
    }
    for k in 0..=255i64 {
        let c = build("EQI", 1, &[Extra::Imm(k)]).cost();
        assert!(
            c.blind_rotations <= 2 && c.packing_keyswitches <= 1,
            "EQI {k}"
        );
    }
    let worst = (0..=255i64)
        .map(|k| {
            let c = build("MULMI", 1, &[Extra::Imm(k)]).cost();
            (c.blind_rotations, c.packing_keyswitches)
        })
        .max()
        .unwrap();
    assert_eq!(worst, (3, 2), "MULMI worst case over all immediates");
    let some = (0..=255i64).any(|k| {
        let c = build("MULMI", 1, &[Extra::Imm(k)]).cost();
        (c.blind_rotations, c.packing_keyswitches) == (2, 1)
    });
    assert!(some, "MULMI is 2/1 for some immediates");
}
