//! Exhaustive clear-executor tests of the signed, fixed-point and bit instructions.

use encint_core::circuit::{Builder, Circuit};
use encint_core::clear;
use encint_isa::instr::{emit, Arg, Kind, Value, MAX_OPERAND_QWEIGHT};
use encint_isa::{Byte, Fixed};
use rand::{Rng, SeedableRng};

mod common;
use common::{budget, input_byte};

/// An instruction's circuit with fresh inputs for its encrypted operands.
struct Inst {
    circuit: Circuit,
}

impl Inst {
    /// Builds `name` with operand kinds `kinds`; `imm` fills the immediate operands.
    fn new(name: &str, kinds: &[Kind], imm: i64) -> Inst {
        let mut b = Builder::with_budget(budget());
        let byte = |b: &mut Builder| input_byte(b, 1);
        let args: Vec<Arg> = kinds
            .iter()
            .map(|k| match k {
                Kind::Byte => Arg::Byte(byte(&mut b)),
                Kind::Fixed => {
                    let int = byte(&mut b);
                    let frac = byte(&mut b);
                    Arg::Fixed(Fixed { int, frac })
                }
                Kind::Imm => Arg::Imm(imm),
                Kind::Bits => Arg::Bits((0..8).map(|_| b.input()).collect()),
                Kind::Table => unreachable!(),
            })
            .collect();
        let out = emit(&mut b, name, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
        let outputs = match out {
            Value::Byte(x) => vec![x.hi, x.lo],
            Value::Fixed(f) => vec![f.int.hi, f.int.lo, f.frac.hi, f.frac.lo],
            Value::Bits(v) => v,
        };
        let circuit = b.finish(outputs);
        let v = circuit.budget_violations(budget());
        assert!(v.is_empty(), "{name}: {}", v[0]);
        assert!(
            circuit.max_output_qweight() <= MAX_OPERAND_QWEIGHT,
            "{name}: output weight {}",
            circuit.max_output_qweight()
        );
        Inst { circuit }
    }

    fn run(&self, inputs: &[i64]) -> Vec<i64> {
        let (out, _) = clear::run(&self.circuit, inputs).unwrap();
        for &o in &out {
            assert!((0..16).contains(&o), "output digit {o} is not a nibble");
        }
        out
    }

    /// Runs on bytes / raw 16-bit fixed values (as u16) given as nibble groups.
    fn run_bytes(&self, bytes: &[u8]) -> Vec<i64> {
        let inputs: Vec<i64> = bytes
            .iter()
            .flat_map(|&v| [(v >> 4) as i64, (v & 15) as i64])
            .collect();
        self.run(&inputs)
    }

    fn byte(&self, bytes: &[u8]) -> u8 {
        let o = self.run_bytes(bytes);
        assert_eq!(o.len(), 2);
        (o[0] * 16 + o[1]) as u8
    }

    /// Result of a fixed-valued instruction as a raw u16.
    fn fixed(&self, bytes: &[u8]) -> u16 {
        let o = self.run_bytes(bytes);
        assert_eq!(o.len(), 4);
        ((o[0] << 12) | (o[1] << 8) | (o[2] << 4) | o[3]) as u16
    }
}

fn fx(raw: u16) -> [u8; 2] {
    [(raw >> 8) as u8, raw as u8]
}

const BB: &[Kind] = &[Kind::Byte, Kind::Byte];
const BI: &[Kind] = &[Kind::Byte, Kind::Imm];

/// Pins the table "Costs of the signed, fixed-point and bit instructions" of docs/ISA.md:
/// every row's blind rotations, packing keyswitches and depth, exactly.
#[test]
fn cost_table() {
    let rows = common::doc_table(
        "ISA.md",
        "Costs of the signed, fixed-point and bit instructions",
    );
    assert_eq!(rows.len(), COST_ROWS.len(), "docs/ISA.md rows vs COST_ROWS");
    for ((cell, want), &(name, kinds, imm)) in rows.iter().zip(COST_ROWS) {
        let (doc_name, doc_imm) = common::name_and_imm(cell);
        assert_eq!(doc_name, name, "row order of docs/ISA.md");
        if let Some(d) = doc_imm {
            assert_eq!(d, imm, "{cell}");
        }
        let c = Inst::new(name, kinds, imm).circuit.cost();
        assert_eq!(
            vec![c.blind_rotations, c.packing_keyswitches, c.depth as u64],
            *want,
            "{cell} (BR / KS / depth) differs from docs/ISA.md"
        );
    }
}

/// The operands of each row of that table (`imm` fills immediate operands).
const COST_ROWS: &[(&str, &[Kind], i64)] = &[
    ("NEG", &[Kind::Byte], 0),
    ("ABS", &[Kind::Byte], 0),
    ("SMULM", BB, 0),
    ("SDIV", BB, 0),
    ("SMOD", BB, 0),
    ("SLT", BB, 0),
    ("SLTE", BB, 0),
    ("SGT", BB, 0),
    ("SGTE", BB, 0),
    ("SMIN", BB, 0),
    ("SMAX", BB, 0),
    ("SSHR", BB, 0),
    ("SSHRI", BI, 2),
    ("SSHRI", BI, 5),
    ("SLTI", BI, -3),
    ("SLTEI", BI, -3),
    ("SGTI", BI, -3),
    ("SGTEI", BI, -3),
    ("SMINI", BI, -3),
    ("SMAXI", BI, -3),
    ("SDIVI", BI, -3),
    ("SMODI", BI, -3),
    ("FFROM", &[Kind::Byte], 0),
    ("FINT", &[Kind::Fixed], 0),
    ("FADD", &[Kind::Fixed, Kind::Fixed], 0),
    ("FSUB", &[Kind::Fixed, Kind::Fixed], 0),
    ("FMULI", &[Kind::Fixed, Kind::Imm], -300),
    ("FMUL", &[Kind::Fixed, Kind::Fixed], 0),
    ("FDIVI", BI, 7),
    ("FSIG", &[Kind::Fixed], 0),
    ("FHEAV", &[Kind::Fixed], 0),
    ("BITS", &[Kind::Byte], 0),
    ("UNBITS", &[Kind::Bits], 0),
    ("BNOT", &[Kind::Bits], 0),
    ("BAND", &[Kind::Bits, Kind::Bits], 0),
    ("BOR", &[Kind::Bits, Kind::Bits], 0),
    ("BXOR", &[Kind::Bits, Kind::Bits], 0),
];

fn check_bivariate(name: &str, f: impl Fn(i8, i8) -> i8) {
    let inst = Inst::new(name, BB, 0);
    for x in 0..=255u8 {
        for y in 0..=255u8 {
            let got = inst.byte(&[x, y]);
            let want = f(x as i8, y as i8) as u8;
            assert_eq!(got, want, "{name} {} {}", x as i8, y as i8);
        }
    }
}

#[test]
fn signed_comparisons() {
    check_bivariate("SLT", |a, b| (a < b) as i8);
    check_bivariate("SLTE", |a, b| (a <= b) as i8);
    check_bivariate("SGT", |a, b| (a > b) as i8);
    check_bivariate("SGTE", |a, b| (a >= b) as i8);
}

#[test]
fn signed_min_max() {
    check_bivariate("SMIN", |a, b| a.min(b));
    check_bivariate("SMAX", |a, b| a.max(b));
}

#[test]
fn signed_shift_right() {
    check_bivariate("SSHR", |a, k| a >> (k as u8).min(7));
}

#[test]
fn signed_div_mod() {
    check_bivariate("SDIV", |a, b| if b == 0 { -1 } else { a.wrapping_div(b) });
    check_bivariate("SMOD", |a, b| if b == 0 { a } else { a.wrapping_rem(b) });
}

#[test]
fn signed_mul_high() {
    check_bivariate("SMULM", |a, b| ((a as i16 * b as i16) >> 8) as i8);
    let c = Inst::new("SMULM", BB, 0).circuit.cost();
    assert!(
        c.blind_rotations <= 19 && c.packing_keyswitches <= 9 && c.depth <= 5,
        "SMULM cost {c:?}"
    );
}

#[test]
fn signed_univariate() {
    let neg = Inst::new("NEG", &[Kind::Byte], 0);
    let abs = Inst::new("ABS", &[Kind::Byte], 0);
    for x in 0..=255u8 {
        let s = x as i8;
        assert_eq!(neg.byte(&[x]), s.wrapping_neg() as u8);
        assert_eq!(abs.byte(&[x]), s.wrapping_abs() as u8);
    }
    for k in 0..=255i64 {
        let inst = Inst::new("SSHRI", BI, k);
        for x in 0..=255u8 {
            let want = (x as i8) >> (k.min(7) as u32);
            assert_eq!(inst.byte(&[x]), want as u8, "SSHRI {} {k}", x as i8);
        }
    }
    type Op = fn(i8, i8) -> i8;
    let ops: &[(&str, Op)] = &[
        ("SLTI", |a, v| (a < v) as i8),
        ("SLTEI", |a, v| (a <= v) as i8),
        ("SGTI", |a, v| (a > v) as i8),
        ("SGTEI", |a, v| (a >= v) as i8),
        ("SMINI", |a, v| a.min(v)),
        ("SMAXI", |a, v| a.max(v)),
        ("SDIVI", |a, v| if v == 0 { -1 } else { a.wrapping_div(v) }),
        ("SMODI", |a, v| if v == 0 { a } else { a.wrapping_rem(v) }),
    ];
    for &(name, f) in ops {
        for v in -128..=127i64 {
            let inst = Inst::new(name, BI, v);
            for x in 0..=255u8 {
                let want = f(x as i8, v as i8) as u8;
                assert_eq!(inst.byte(&[x]), want, "{name} {} {v}", x as i8);
            }
        }
    }
}

#[test]
fn bad_operands_are_errors() {
    let mut b = Builder::with_budget(budget());
    let x = input_byte(&mut b, 1);
    for (name, imm) in [
        ("SLTI", 128),
        ("SLTI", -129),
        ("SSHRI", -1),
        ("FDIVI", 0),
        ("FDIVI", 256),
    ] {
        assert!(
            emit(&mut b, name, &[Arg::Byte(x), Arg::Imm(imm)]).is_err(),
            "{name} {imm}"
        );
    }
    let f = Fixed { int: x, frac: x };
    assert!(emit(&mut b, "FMULI", &[Arg::Fixed(f), Arg::Imm(40000)]).is_err());
    assert!(emit(&mut b, "UNBITS", &[Arg::Bits(vec![x.hi; 7])]).is_err());
    assert!(emit(&mut b, "NEG", &[Arg::Imm(3)]).is_err());
    assert!(
        encint_isa::instr::signed::emit(&mut b, "NEG", &[Arg::Imm(3)])
            .unwrap()
            .is_err()
    );
}

fn edge_raws() -> Vec<u16> {
    vec![
        0, 1, 0xff, 0x100, 0x7fff, 0x8000, 0x8001, 0xffff, 0xff00, 0x00ff, 0x0f0f, 0xf0f0,
    ]
}

#[test]
fn fixed_add_sub() {
    let add = Inst::new("FADD", &[Kind::Fixed, Kind::Fixed], 0);
    let sub = Inst::new("FSUB", &[Kind::Fixed, Kind::Fixed], 0);
    // A ripple of unit carries: 7 plain bootstraps, depth 4, no tree (was 17/7/3).
    for inst in [&add, &sub] {
        let c = inst.circuit.cost();
        assert!(
            c.blind_rotations <= 7 && c.packing_keyswitches == 0 && c.depth <= 4,
            "FADD/FSUB cost {c:?}"
        );
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let mut pairs: Vec<(u16, u16)> = (0..20000).map(|_| (rng.gen(), rng.gen())).collect();
    for &a in &edge_raws() {
        for &c in &edge_raws() {
            pairs.push((a, c));
        }
    }
    for (a, c) in pairs {
        let [ai, af] = fx(a);
        let [ci, cf] = fx(c);
        let want_add = ((a as i16 as i32 + c as i16 as i32) as u32 & 0xffff) as u16;
        let want_sub = ((a as i16 as i32 - c as i16 as i32) as u32 & 0xffff) as u16;
        assert_eq!(add.fixed(&[ai, af, ci, cf]), want_add, "{a:#x} + {c:#x}");
        assert_eq!(sub.fixed(&[ai, af, ci, cf]), want_sub, "{a:#x} - {c:#x}");
    }
}

#[test]
fn fixed_mul_imm() {
    for c in [256i64, -256, 128, 384, -300, 1, 32767, -32768] {
        let inst = Inst::new("FMULI", &[Kind::Fixed, Kind::Imm], c);
        // Two univariate byte functions, then the unit-carry adder (was 26/14/4).
        let cost = inst.circuit.cost();
        assert!(
            cost.blind_rotations <= 19 && cost.packing_keyswitches <= 7 && cost.depth <= 6,
            "FMULI({c}) cost {cost:?}"
        );
        for raw in 0..=65535u16 {
            let [i, f] = fx(raw);
            let want = ((raw as i16 as i64 * c).div_euclid(256) as u64 & 0xffff) as u16;
            assert_eq!(inst.fixed(&[i, f]), want, "{raw:#x} * {c}");
        }
    }
}

/// `⌊x·y / 256⌋ mod 2^16` on raw signed 16-bit values.
fn fmul_ref(a: u16, c: u16) -> u16 {
    ((a as i16 as i64 * c as i16 as i64).div_euclid(256) as u64 & 0xffff) as u16
}

#[test]
fn fixed_mul() {
    let inst = Inst::new("FMUL", &[Kind::Fixed, Kind::Fixed], 0);
    let c = inst.circuit.cost();
    assert!(
        c.blind_rotations <= 61 && c.packing_keyswitches <= 17 && c.depth <= 8,
        "FMUL cost {c:?}"
    );
    // Operands carrying the largest allowed noise stay within the budget.
    let mut b = Builder::with_budget(budget());
    let mut heavy = || {
        let mut n = || b.input_with_qweight(MAX_OPERAND_QWEIGHT);
        let int = Byte { hi: n(), lo: n() };
        let frac = Byte { hi: n(), lo: n() };
        Arg::Fixed(Fixed { int, frac })
    };
    let args = [heavy(), heavy()];
    let Value::Fixed(r) = emit(&mut b, "FMUL", &args).unwrap() else {
        panic!("FMUL: not a fixed value")
    };
    let heavy = b.finish(vec![r.int.hi, r.int.lo, r.frac.hi, r.frac.lo]);
    assert!(heavy.budget_violations(budget()).is_empty());
    assert!(heavy.max_output_qweight() <= MAX_OPERAND_QWEIGHT);

    let mut edges: Vec<u16> = edge_raws();
    // ±1.0, -128.0, 127.996, small fractions and their negatives.
    for v in [
        0x0100u16, 0xff00, 0x8000, 0x7fff, 0x0001, 0x0002, 0x0010, 0x0080, 0x00ff, 0x0180, 0xfe80,
        0x4000, 0xc000, 0x1234, 0xedcc,
    ] {
        edges.push(v);
        edges.push(v.wrapping_neg());
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let mut pairs: Vec<(u16, u16)> = (0..30000).map(|_| (rng.gen(), rng.gen())).collect();
    for &a in &edges {
        for &c in &edges {
            pairs.push((a, c));
        }
    }
    for (a, c) in pairs {
        let [ai, af] = fx(a);
        let [ci, cf] = fx(c);
        let want = fmul_ref(a, c);
        assert_eq!(
            inst.fixed(&[ai, af, ci, cf]),
            want,
            "{} * {}",
            a as i16 as f64 / 256.0,
            c as i16 as f64 / 256.0
        );
    }
}

#[test]
fn fixed_from_int_heaviside_sigmoid() {
    let from = Inst::new("FFROM", &[Kind::Byte], 0);
    let int = Inst::new("FINT", &[Kind::Fixed], 0);
    for x in 0..=255u8 {
        assert_eq!(from.fixed(&[x]), (x as u16) << 8);
    }
    let heav = Inst::new("FHEAV", &[Kind::Fixed], 0);
    let sig = Inst::new("FSIG", &[Kind::Fixed], 0);
    for raw in 0..=65535u16 {
        let [i, f] = fx(raw);
        assert_eq!(int.byte(&[i, f]), i);
        let v = raw as i16 as f64 / 256.0;
        assert_eq!(heav.fixed(&[i, f]), if v >= 0.0 { 256 } else { 0 });
        let want = if v >= 6.0 {
            256
        } else {
            (256.0 / (1.0 + (-v).exp())).floor() as u16
        };
        assert_eq!(sig.fixed(&[i, f]), want, "sigmoid({v})");
    }
}

#[test]
fn fixed_decimal_division() {
    for d in 1..=255i64 {
        let inst = Inst::new("FDIVI", BI, d);
        for x in 0..=255u16 {
            let d = d as u16;
            let want = ((x / d) << 8) | (256 * (x % d) / d);
            assert_eq!(inst.fixed(&[x as u8]), want, "{x} / {d}");
        }
    }
}

#[test]
fn bits_roundtrip_and_ops() {
    let bits = Inst::new("BITS", &[Kind::Byte], 0);
    let unbits = Inst::new("UNBITS", &[Kind::Bits], 0);
    let band = Inst::new("BAND", &[Kind::Bits, Kind::Bits], 0);
    let bor = Inst::new("BOR", &[Kind::Bits, Kind::Bits], 0);
    let bxor = Inst::new("BXOR", &[Kind::Bits, Kind::Bits], 0);
    let bnot = Inst::new("BNOT", &[Kind::Bits], 0);
    let to_bits = |x: u8| (0..8).map(|k| ((x >> k) & 1) as i64).collect::<Vec<_>>();
    let from_bits = |v: &[i64]| {
        v.iter()
            .enumerate()
            .map(|(k, &b)| (b as u8) << k)
            .sum::<u8>()
    };
    for x in 0..=255u8 {
        let bx = bits.run_bytes(&[x]);
        assert_eq!(bx, to_bits(x));
        let o = unbits.run(&bx);
        assert_eq!((o[0] * 16 + o[1]) as u8, x);
        assert_eq!(from_bits(&bnot.run(&bx)), !x);
        for y in 0..=255u8 {
            let mut both = to_bits(x);
            both.extend(to_bits(y));
            assert_eq!(from_bits(&band.run(&both)), x & y);
            assert_eq!(from_bits(&bor.run(&both)), x | y);
            assert_eq!(from_bits(&bxor.run(&both)), x ^ y);
        }
    }
}

#[test]
fn instructions_take_the_budget_from_the_builder() {
    // The signed product's column reductions and bit recomposition refresh by the
    // parameter set's budget: a builder without one is refused, not given a default.
    let mut b = Builder::new();
    let (xh, xl, yh, yl) = (b.input(), b.input(), b.input(), b.input());
    let args = [
        Arg::Byte(Byte { hi: xh, lo: xl }),
        Arg::Byte(Byte { hi: yh, lo: yl }),
    ];
    assert!(matches!(
        emit(&mut b, "SMULM", &args),
        Err(encint_isa::IsaError::NoBudget)
    ));
    let bits: Vec<_> = (0..8).map(|_| b.input()).collect();
    assert!(matches!(
        emit(&mut b, "UNBITS", &[Arg::Bits(bits)]),
        Err(encint_isa::IsaError::NoBudget)
    ));
}
