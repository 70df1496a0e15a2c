//! Exact pins of the bootstrap and depth counts the documentation states for the typed
//! integers and the block circuits (`docs/CIRCUITS.md`, its notes on the typed circuits, and the
//! cost formulas in the docs of `crates/arith`): each test quotes the text it guards (or
//! reads the reference page's tables), checks the file still states it, and measures the
//! figures with the library's cost functions (`Circuit::cost`, the planner's estimates),
//! the numbers `encint cost` prints.

use encint_arith::blocks;
use encint_arith::typed::{circuit, circuit_for, plan, Algorithm, Form, IntType, Op};
use encint_arith::{Arith, Config};
use encint_core::circuit::{Builder, Cost, NodeId};

fn ar() -> Arith {
    Arith::new(Config { max_qweight: 25 })
}

/// The parameter sets' noise budget (the circuits are built for it).
fn budget() -> u64 {
    encint_tfhe::DEFAULT_PARAMETERS.max_quadratic_weight()
}

/// `text` with comment markers (`///`, `//!`) and line breaks folded into single spaces.
fn normalise(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.trim_start();
            l.strip_prefix("//!")
                .or_else(|| l.strip_prefix("///"))
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts that `file` (relative to the workspace root) still states each of `quotes`
/// (compared with whitespace and comment markers folded), so that the doc and its pin
/// change together.
fn quoted(file: &str, quotes: &[&str]) {
    let path = format!("{}/../../{file}", env!("CARGO_MANIFEST_DIR"));
    let text = normalise(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")));
    for quote in quotes {
        assert!(
            text.contains(&normalise(quote)),
            "{file} no longer states: {quote}"
        );
    }
}

fn ty(bits: usize, signed: bool) -> IntType {
    IntType::new(bits, signed).unwrap()
}

/// The cost of `op` on `ty` with `algorithm`, every operand in `form`.
fn typed_cost(op: Op, ty: IntType, algorithm: Algorithm, form: Form) -> Cost {
    let forms = vec![form; op.arity()];
    circuit(&ar(), op, ty, algorithm, &forms)
        .unwrap_or_else(|e| panic!("{op} {ty} {algorithm:?} {form:?}: {e}"))
        .cost()
}

/// Bootstraps of `op` on `ty` with the Blocks algorithm on radix-4 operands.
fn r4(op: Op, ty: IntType) -> u64 {
    typed_cost(op, ty, Algorithm::Blocks, Form::Radix4).bootstraps
}

/// The planner's estimated rounds at `threads` for `algorithm`, every operand in `form`.
fn rounds(op: Op, ty: IntType, algorithm: Algorithm, form: Form, threads: usize) -> u64 {
    let p = plan(&ar(), op, ty, &vec![form; op.arity()], threads).unwrap();
    p.estimates
        .iter()
        .find(|e| e.algorithm == algorithm)
        .unwrap_or_else(|| panic!("{op} {ty}: {algorithm:?} not planned"))
        .rounds
}

/// The algorithm the planner picks at `threads`, every operand in `form`.
fn chosen(op: Op, ty: IntType, form: Form, threads: usize) -> Algorithm {
    plan(&ar(), op, ty, &vec![form; op.arity()], threads)
        .unwrap()
        .chosen()
        .algorithm
}

/// The cost of a circuit on two `bits`-bit operands given as bits, built by `f`.
fn bit_circuit_cost(
    bits: usize,
    f: impl FnOnce(&mut Builder, &[NodeId], &[NodeId]) -> Vec<NodeId>,
) -> Cost {
    let mut b = Builder::new();
    let x: Vec<NodeId> = (0..bits).map(|_| b.input()).collect();
    let y: Vec<NodeId> = (0..bits).map(|_| b.input()).collect();
    let out = f(&mut b, &x, &y);
    let c = b.finish(out);
    assert!(c.budget_violations(budget()).is_empty());
    c.cost()
}

/// Collects mismatches so that one run reports every figure that moved.
#[derive(Default)]
struct Pins(Vec<String>);

impl Pins {
    fn eq<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, measured: T, documented: T) {
        if measured != documented {
            self.0.push(format!(
                "{what}: measured {measured:?}, documented {documented:?}"
            ));
        }
    }

    fn done(self) {
        assert!(self.0.is_empty(), "\n{}", self.0.join("\n"));
    }
}

const FORMS_RS: &str = "crates/arith/src/typed/forms.rs";
const CIRCUITS: &str = "docs/CIRCUITS.md";

/// Products on bits: blocks against counters.
#[test]
fn product_on_bits_16() {
    // docs/CIRCUITS.md (blocks / bits / TFHE-rs).
    quoted(
        CIRCUITS,
        &[
            "mul 30 / 54 / 28, 107 / 193 / 111, 407 / 738 / 440, 1581 / 2872 at 8 / 16 / 32 / 64 bits;",
        ],
    );
    let mut pins = Pins::default();
    for (bits, on_blocks, on_bits) in [
        (8, 30, 54),
        (16, 107, 193),
        (32, 407, 738),
        (64, 1581, 2872),
    ] {
        let c = bit_circuit_cost(bits, |b, x, y| blocks::mul(b, x, y, bits, budget()));
        pins.eq(&format!("blocks::mul {bits}"), c.bootstraps, on_blocks);
        for signed in [false, true] {
            let t = ty(bits, signed);
            let c = typed_cost(Op::Mul, t, Algorithm::Blocks, Form::Canonical);
            pins.eq(&format!("mul {t} blocks"), c.bootstraps, on_blocks);
            let c = typed_cost(Op::Mul, t, Algorithm::Bits, Form::Canonical);
            pins.eq(&format!("mul {t} bits"), c.bootstraps, on_bits);
        }
    }
    pins.done();
}

/// Products and the other block circuits on stored radix-4 blocks.
#[test]
fn radix4_block_circuits() {
    // docs/CIRCUITS.md (min, max and select: beyond the comparison, and the parity of a
    // radix-4 condition).
    quoted(
        CIRCUITS,
        &[
            "add and sub are a ripple of carries: k bootstraps for k blocks, each block's carry and sum read from one blind rotation, against TFHE-rs' 2k;",
            "and, or and xor cost one table per block; not costs nothing;",
            "reduces to one block instead of two bits: 91 bootstraps at 16 bits, against 107 for block",
            "products on bits and TFHE-rs' 111; planned for 1 or 2 threads, each block product read",
            "whole (one bootstrap instead of two, chained column sums) and column sums of up to 20",
            "values read for their carry alone: 76;",
            "(the least depth within one bootstrap of the fewest): 5 bootstraps at 8 bits and 9 at 16",
            "bits, against TFHE-rs' 6 and 11",
            "min and max cost 2 bootstraps per block beyond the comparison, and select 2 per block and",
            "one for its condition; the minimum and the maximum of one pair (a compare-exchange) cost 3",
            "per block together, on one shared table.",
        ],
    );
    let mut pins = Pins::default();
    for signed in [false, true] {
        let t16 = ty(16, signed);
        pins.eq(&format!("mul {t16}"), r4(Op::Mul, t16), 91);
        for threads in [1, 2] {
            let planned = circuit_for(
                &ar(),
                Op::Mul,
                t16,
                Algorithm::Blocks,
                &[Form::Radix4; 2],
                threads,
            )
            .expect("a product on blocks")
            .cost()
            .bootstraps;
            pins.eq(
                &format!("mul {t16} planned for {threads} threads"),
                planned,
                76,
            );
        }
        for op in [Op::LT, Op::LE, Op::GT, Op::GE] {
            pins.eq(&format!("{op} {t16}"), r4(op, t16), 9);
            pins.eq(&format!("{op} {}", ty(8, signed)), r4(op, ty(8, signed)), 5);
        }
        for bits in [2, 4, 8, 16, 32, 64, 128] {
            let t = ty(bits, signed);
            let k = bits as u64 / 2;
            for op in [Op::Add, Op::Sub] {
                pins.eq(&format!("{op} {t}"), r4(op, t), k);
            }
            for op in [Op::And, Op::Or, Op::Xor] {
                pins.eq(&format!("{op} {t}"), r4(op, t), k);
            }
            pins.eq(&format!("not {t}"), r4(Op::Not, t), 0);
            let select = |cond| {
                let forms = [cond, Form::Radix4, Form::Radix4];
                let c = circuit(&ar(), Op::Select, t, Algorithm::Blocks, &forms).unwrap();
                c.cost().bootstraps
            };
            pins.eq(&format!("select {t}"), select(Form::Canonical), 2 * k + 1);
            pins.eq(
                &format!("select {t}, radix-4 condition"),
                select(Form::Radix4),
                2 * k + 1,
            );
            let ge = r4(Op::GE, t);
            for op in [Op::Min, Op::Max] {
                pins.eq(&format!("{op} {t} beyond ge"), r4(op, t) - ge, 2 * k);
            }
            // A compare-exchange: both on one pair, one comparison, the tables shared.
            let mut bl = Builder::new();
            let x: Vec<NodeId> = (0..k).map(|_| bl.input()).collect();
            let y: Vec<NodeId> = (0..k).map(|_| bl.input()).collect();
            let c = blocks::compare_blocks(
                &mut bl,
                &x,
                &y,
                bits,
                signed,
                |s| s >= 0,
                blocks::SELECT_SCALE,
            );
            let mut outs = blocks::min_max_blocks(&mut bl, c, &x, &y, bits, true);
            outs.extend(blocks::min_max_blocks(&mut bl, c, &x, &y, bits, false));
            let pair = bl.finish(outs).cost().bootstraps;
            pins.eq(&format!("min and max {t} beyond ge"), pair - ge, 3 * k);
        }
    }
    pins.done();
}

/// Equality and comparisons of bits, and min / max by the comparison tree.
#[test]
fn comparison_tree_on_bits() {
    // docs/CIRCUITS.md, the comparison tree's table (the "now" columns: pbs / depth,
    // rounds at 2 threads).
    quoted(
        CIRCUITS,
        &[
            "| 8 | 7 / 3 | 5 / 2 | 4 → 3 |",
            "| 16 | 12 / 3 | 11 / 3 | 7 → 6 |",
            "| 32 | 25 / 4 | 22 / 4 | 13 → 12 |",
            "| 64 | 50 / 5 | 46 / 4 | 26 → 24 |",
            "at 1 thread the chain stays (4 bootstraps against 5)",
        ],
    );
    let mut pins = Pins::default();
    let c = bit_circuit_cost(16, |b, x, y| vec![blocks::eq(b, x, y)]);
    pins.eq("eq 16 bits", (c.bootstraps, c.depth), (9, 2));
    for (bits, pbs, depth, rounds2) in [
        (8, 5, 2, 3),
        (16, 11, 3, 6),
        (32, 22, 4, 12),
        (64, 46, 4, 24),
    ] {
        let c = bit_circuit_cost(bits, |b, x, y| {
            vec![blocks::compare(b, x, y, false, |s| s < 0)]
        });
        pins.eq(
            &format!("compare {bits} bits"),
            (c.bootstraps, c.depth),
            (pbs, depth),
        );
        for signed in [false, true] {
            let t = ty(bits, signed);
            let c = typed_cost(Op::LT, t, Algorithm::Blocks, Form::Canonical);
            pins.eq(
                &format!("lt {t} blocks"),
                (c.bootstraps, c.depth),
                (pbs, depth),
            );
            let r = rounds(Op::LT, t, Algorithm::Blocks, Form::Canonical, 2);
            pins.eq(&format!("lt {t} blocks rounds at 2 threads"), r, rounds2);
        }
    }
    for signed in [false, true] {
        let t = ty(8, signed);
        let c = typed_cost(Op::LT, t, Algorithm::Bits, Form::Canonical);
        pins.eq(&format!("lt {t} bits"), c.bootstraps, 4);
        pins.eq(
            &format!("lt {t} at 1 thread"),
            chosen(Op::LT, t, Form::Canonical, 1),
            Algorithm::Bits,
        );
        pins.eq(
            &format!("lt {t} at 2 threads"),
            chosen(Op::LT, t, Form::Canonical, 2),
            Algorithm::Blocks,
        );
        for max in [false, true] {
            let c = bit_circuit_cost(8, |b, x, y| blocks::min_max_bits(b, x, y, signed, max));
            pins.eq(
                &format!("min_max_bits 8 bits signed {signed} max {max}: pbs, depth, widest level"),
                (c.bootstraps, c.depth, c.width),
                (13, 3, 8),
            );
        }
    }
    pins.done();
}

/// min / max on canonical operands: the comparison tree and a select against the bit
/// circuit, and the planner's choice.
#[test]
fn min_max_on_canonical_operands() {
    quoted(
        CIRCUITS,
        &[
            "bootstraps more than the bit circuit (13 / 27 / 54 / 110 against 12 / 24 / 48 / 96)
           in far less depth (3 / 4 / 5 / 5 against 5 / 9 / 17 / 33), so the planner takes it
           from 2 threads on (7 / 14 / 28 / 56 rounds against 8 / 16 / 32 / 64) and keeps the
           bit circuit at 1 thread. At 16 threads the estimate is 3 / 4 / 6 / 9 rounds against
           5 / 9 / 18 / 36",
        ],
    );
    let mut pins = Pins::default();
    let rows = [
        (8, (13, 3, 7, 3), (12, 5, 8, 5)),
        (16, (27, 4, 14, 4), (24, 9, 16, 9)),
        (32, (54, 5, 28, 6), (48, 17, 32, 18)),
        (64, (110, 5, 56, 9), (96, 33, 64, 36)),
    ];
    for (bits, on_blocks, on_bits) in rows {
        for signed in [false, true] {
            let t = ty(bits, signed);
            for op in [Op::Min, Op::Max] {
                for (a, documented) in [(Algorithm::Blocks, on_blocks), (Algorithm::Bits, on_bits)]
                {
                    let c = typed_cost(op, t, a, Form::Canonical);
                    let measured = (
                        c.bootstraps,
                        c.depth,
                        rounds(op, t, a, Form::Canonical, 2),
                        rounds(op, t, a, Form::Canonical, 16),
                    );
                    pins.eq(
                        &format!("{op} {t} {a:?}: pbs, depth, rounds at 2 and 16 threads"),
                        measured,
                        documented,
                    );
                }
                pins.eq(
                    &format!("{op} {t} at 1 thread"),
                    chosen(op, t, Form::Canonical, 1),
                    Algorithm::Bits,
                );
                pins.eq(
                    &format!("{op} {t} at 2 threads"),
                    chosen(op, t, Form::Canonical, 2),
                    Algorithm::Blocks,
                );
            }
        }
    }
    pins.done();
}

/// Scalar products and shifts by a ciphertext on radix-4 blocks, and on bits.
#[test]
fn radix4_scalar_products_and_shifts() {
    quoted(
        CIRCUITS,
        &[
            "Bootstraps for x805 at 8 / 16 / 32 / 64 bits: 4 / 17 / 49 / 113, against
         TFHE-rs' 10 / 33 / 73 and our 9 / 37 / 101 on bits.",
            "| shl_var / shr_var (logical), now | 19 | 44 | 102 | 233 |",
            "| rotl_var / rotr_var, now | 16 | 40 | 96 | 225 |",
        ],
    );
    let mut pins = Pins::default();
    for signed in [false, true] {
        let t16 = ty(16, signed);
        pins.eq(&format!("805·x {t16}"), r4(Op::ScalarMul(805), t16), 17);
        pins.eq(&format!("4095·x {t16}"), r4(Op::ScalarMul(4095), t16), 8);
        for (bits, blocks, on_bits) in [(8, 4, 9), (16, 17, 37), (32, 49, 101), (64, 113, 229)] {
            let t = ty(bits, signed);
            let op = Op::ScalarMul(805);
            pins.eq(&format!("{op} {t} blocks"), r4(op, t), blocks);
            let c = typed_cost(op, t, Algorithm::Bits, Form::Canonical);
            pins.eq(&format!("{op} {t} bits"), c.bootstraps, on_bits);
        }
        for (bits, shifts, rotations) in [(8, 19, 16), (16, 44, 40), (32, 102, 96), (64, 233, 225)]
        {
            let t = ty(bits, false);
            pins.eq(&format!("shl_var {t}"), r4(Op::ShlVar, t), shifts);
            pins.eq(&format!("shr_var {t}"), r4(Op::ShrVar, t), shifts);
            let t = ty(bits, signed);
            pins.eq(&format!("rotl_var {t}"), r4(Op::RotlVar, t), rotations);
            pins.eq(&format!("rotr_var {t}"), r4(Op::RotrVar, t), rotations);
        }
    }
    let c = bit_circuit_cost(32, |b, x, y| {
        blocks::shift_var_bits(b, x, y, 32, blocks::Shift::Left, budget())
    });
    pins.eq("shift_var_bits 32", c.bootstraps, 113);
    let c = typed_cost(Op::ShlVar, ty(32, false), Algorithm::Bits, Form::Canonical);
    pins.eq("shl_var u32 bits", c.bootstraps, 179);
    pins.done();
}

/// The conversions of the typed forms.
#[test]
fn form_conversions() {
    // crates/arith/src/typed/forms.rs, `Form` and `Form::Radix4`.
    quoted(
        FORMS_RS,
        &[
            "lazy to canonical is a circuit ([`encint_core::bits::signed_digits_to_bits`],
         `⌈3n/2⌉ − 1` bootstraps for `n` digits)",
            "the Bits and Digits algorithms convert the blocks to bits first (one bootstrap per
         two-bit block, its two bits read from one blind rotation, none for a one-bit top block).",
        ],
    );
    let mut pins = Pins::default();
    for bits in 1..=128usize {
        for signed in [false, true] {
            let t = ty(bits, signed);
            // `not` on bits is free: its cost is the conversion of its operand.
            let lazy = typed_cost(Op::Not, t, Algorithm::Bits, Form::Lazy);
            let documented = (3 * bits).div_ceil(2) as u64 - 1;
            pins.eq(&format!("lazy {t} to bits"), lazy.bootstraps, documented);
            let r4 = typed_cost(Op::Not, t, Algorithm::Bits, Form::Radix4);
            let documented = (bits / 2) as u64;
            pins.eq(&format!("radix-4 {t} to bits"), r4.bootstraps, documented);
        }
    }
    pins.done();
}

/// Division and remainder by a ciphertext: blocks against bits.
#[test]
fn division_by_a_ciphertext() {
    // docs/CIRCUITS.md, "Division and remainder by a ciphertext on radix-4 blocks" (the
    // planner's form: canonical unsigned, radix-4 signed operands).
    quoted(
        CIRCUITS,
        &[
            "| u div, blocks (canonical) | **107** (48) | **407** (160) | **1583** (576) | **6239** (2176) |",
            "| u div, bits (before) | 135 (79) | 527 (287) | 2079 (1087) | 8255 (4223) |",
            "| u rem, blocks | **118** (53) | **430** (169) | **1630** (593) | – |",
            "| i div, blocks (radix-4 / canonical) | **138** / 150 | **466** / 490 | **1698** / 1746 | – |",
            "| i div, bits (before) | 185 | 634 | 2297 | 8698 |",
            "u64 div 1.11, u64 rem 1.01, i64 div 0.88, i64 rem 1.21 (6239 / 6366 / 6591 / 6653
             bootstraps then, 6239 / 6334 / 6466 / 6497 now;",
        ],
    );
    let mut pins = Pins::default();
    let cost = |op, t, a, f| {
        let c = typed_cost(op, t, a, f);
        (c.bootstraps, c.depth)
    };
    let (div, rem) = (Op::Div, Op::Rem);
    let (blocks, bits, can, r4) = (
        Algorithm::Blocks,
        Algorithm::Bits,
        Form::Canonical,
        Form::Radix4,
    );
    let rows = [
        (8, (107, 48), (135, 79), (118, 53), 138, 150, 185),
        (16, (407, 160), (527, 287), (430, 169), 466, 490, 634),
        (32, (1583, 576), (2079, 1087), (1630, 593), 1698, 1746, 2297),
    ];
    for (n, u_div, u_div_bits, u_rem, i_div_r4, i_div_can, i_div_bits) in rows {
        let (u, i) = (ty(n, false), ty(n, true));
        pins.eq(&format!("div {u} blocks"), cost(div, u, blocks, can), u_div);
        pins.eq(
            &format!("div {u} bits"),
            cost(div, u, bits, can),
            u_div_bits,
        );
        pins.eq(&format!("rem {u} blocks"), cost(rem, u, blocks, can), u_rem);
        pins.eq(
            &format!("div {i} blocks radix-4"),
            cost(div, i, blocks, r4).0,
            i_div_r4,
        );
        pins.eq(
            &format!("div {i} blocks"),
            cost(div, i, blocks, can).0,
            i_div_can,
        );
        pins.eq(
            &format!("div {i} bits"),
            cost(div, i, bits, can).0,
            i_div_bits,
        );
        for t in [u, i] {
            let form = if t.signed { r4 } else { can };
            for op in [div, rem] {
                for threads in [1, 2] {
                    pins.eq(
                        &format!("{op} {t} at {threads}"),
                        chosen(op, t, form, threads),
                        blocks,
                    );
                }
            }
        }
    }
    let (u, i) = (ty(64, false), ty(64, true));
    pins.eq("div u64 blocks", cost(div, u, blocks, can), (6239, 2176));
    pins.eq("div u64 bits", cost(div, u, bits, can), (8255, 4223));
    pins.eq("div i64 bits", cost(div, i, bits, can).0, 8698);
    pins.eq("rem u64 blocks", cost(rem, u, blocks, can).0, 6334);
    pins.eq("div i64 blocks radix-4", cost(div, i, blocks, r4).0, 6466);
    pins.eq("rem i64 blocks radix-4", cost(rem, i, blocks, r4).0, 6497);
    pins.done();
}

/// Addition on bits: the ripple of two-column counters.
#[test]
fn addition_on_bits() {
    // crates/arith/src/bits/mod.rs, `add`, and docs/CIRCUITS.md.
    quoted(
        "crates/arith/src/bits/mod.rs",
        &["a ripple of two-column counters (3 bootstraps per 2 bits, depth ≈ width / 2)."],
    );
    quoted(
        CIRCUITS,
        &["3 bootstraps per 2 bits (11 / 23 / 47 / 95 against TFHE-rs' 8 / 16 / 32 / 64)"],
    );
    let mut pins = Pins::default();
    for (bits, documented) in [(8, 11), (16, 23), (32, 47), (64, 95)] {
        for signed in [false, true] {
            let t = ty(bits, signed);
            for op in [Op::Add, Op::Sub] {
                let c = typed_cost(op, t, Algorithm::Bits, Form::Canonical);
                pins.eq(&format!("{op} {t} bits"), c.bootstraps, documented);
                pins.eq(&format!("{op} {t} bits depth"), c.depth as usize, bits / 2);
            }
        }
    }
    pins.done();
}

/// The table under the heading ``### `name` `` of `docs/CIRCUITS.md`: the widths of its
/// header row, and each row's label and numbers.
fn circuit_table(name: &str) -> (Vec<usize>, Vec<(String, Vec<u64>)>) {
    let path = format!("{}/../../{CIRCUITS}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = text
        .split("\n### ")
        .find(|s| s.starts_with(&format!("`{name}`\n")))
        .unwrap_or_else(|| panic!("{CIRCUITS} has no section for {name}"));
    let mut rows = section
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| l.trim().trim_matches('|').split('|').map(str::trim));
    let widths = rows.next().expect("a header row").skip(1);
    let widths = widths.map(|w| w.parse().expect("a width")).collect();
    let table = rows
        .skip(1)
        .map(|mut cells| {
            let label = cells.next().expect("a label").to_string();
            (label, cells.map(|c| c.parse().expect("a number")).collect())
        })
        .collect();
    (widths, table)
}

/// The costs of a circuit at a width.
type CostAt = fn(usize) -> Cost;

/// One measured circuit of a table: the rows `bootstraps[, what]` and (unless
/// `bootstraps_only`) `depth[, what]` of `docs/CIRCUITS.md`, from `cost`.
struct Measured(&'static str, CostAt, bool);

const BOTH: bool = false;
const BOOTSTRAPS_ONLY: bool = true;

/// Checks every number of the table of `name` in `docs/CIRCUITS.md` against `measured`,
/// whose rows must be the table's rows in order.
fn pin_circuit(pins: &mut Pins, name: &str, measured: &[Measured]) {
    let (widths, table) = circuit_table(name);
    let mut rows: Vec<(String, CostAt, bool)> = Vec::new();
    for &Measured(what, cost, bootstraps_only) in measured {
        let label = |figure: &str| match what {
            "" => figure.to_string(),
            _ => format!("{figure}, {what}"),
        };
        rows.push((label("bootstraps"), cost, false));
        if !bootstraps_only {
            rows.push((label("depth"), cost, true));
        }
    }
    let documented: Vec<&str> = table.iter().map(|(label, _)| label.as_str()).collect();
    let labels: Vec<&str> = rows.iter().map(|(label, _, _)| label.as_str()).collect();
    assert_eq!(documented, labels, "{name}: rows of {CIRCUITS}");
    for ((label, numbers), &(_, cost, depth)) in table.iter().zip(&rows) {
        for (&n, &number) in widths.iter().zip(numbers) {
            let c = cost(n);
            let value = if depth { c.depth as u64 } else { c.bootstraps };
            pins.eq(&format!("{name}, {label}, {n} bits"), value, number);
        }
    }
}

/// The reference page of the block circuits: every table of `docs/CIRCUITS.md`.
#[test]
fn circuits_reference_page() {
    const BLOCKS: Algorithm = Algorithm::Blocks;
    const BITS: Algorithm = Algorithm::Bits;
    const CAN: Form = Form::Canonical;
    const R4: Form = Form::Radix4;
    let mul: CostAt = |n| bit_circuit_cost(n, |b, x, y| blocks::mul(b, x, y, n, budget()));
    let mul_bits: CostAt = |n| typed_cost(Op::Mul, ty(n, false), BITS, CAN);
    let mul_blocks: CostAt = |n| typed_cost(Op::Mul, ty(n, false), BLOCKS, R4);
    let mul_blocks_2: CostAt = |n| {
        circuit_for(&ar(), Op::Mul, ty(n, false), BLOCKS, &[R4, R4], 2)
            .expect("a product on blocks")
            .cost()
    };
    let k805: CostAt = |n| typed_cost(Op::ScalarMul(805), ty(n, false), BLOCKS, R4);
    let k4095: CostAt = |n| typed_cost(Op::ScalarMul(4095), ty(n, false), BLOCKS, R4);
    let k9e37: CostAt = |n| typed_cost(Op::ScalarMul(0x9E37), ty(n, false), BLOCKS, R4);
    let k9e37_2: CostAt = |n| {
        circuit_for(&ar(), Op::ScalarMul(0x9E37), ty(n, false), BLOCKS, &[R4], 2)
            .expect("a product by a clear value on blocks")
            .cost()
    };
    let add: CostAt = |n| typed_cost(Op::Add, ty(n, false), BLOCKS, R4);
    let add_125: CostAt = |n| {
        circuit_for(&ar(), Op::Add, ty(n, false), BLOCKS, &[R4, R4], 125)
            .expect("an addition on blocks")
            .cost()
    };
    let and: CostAt = |n| typed_cost(Op::And, ty(n, false), BLOCKS, R4);
    let eq: CostAt = |n| bit_circuit_cost(n, |b, x, y| vec![blocks::eq(b, x, y)]);
    let eq_blocks: CostAt = |n| typed_cost(Op::EQ, ty(n, false), BLOCKS, R4);
    let compare: CostAt = |n| {
        bit_circuit_cost(n, |b, x, y| {
            vec![blocks::compare(b, x, y, false, |s| s < 0)]
        })
    };
    let lt_unsigned: CostAt = |n| typed_cost(Op::LT, ty(n, false), BLOCKS, R4);
    let lt_signed: CostAt = |n| typed_cost(Op::LT, ty(n, true), BLOCKS, R4);
    let max: CostAt = |n| bit_circuit_cost(n, |b, x, y| blocks::min_max_bits(b, x, y, false, true));
    let relu: CostAt = |n| {
        let mut b = Builder::new();
        let x: Vec<NodeId> = (0..n.div_ceil(2)).map(|_| b.input()).collect();
        let out = blocks::max_min_zero_blocks(&mut b, &x, n, true);
        b.finish(out).cost()
    };
    let select: CostAt = |n| {
        let forms = [Form::Canonical, Form::Radix4, Form::Radix4];
        let c = circuit(&ar(), Op::Select, ty(n, false), Algorithm::Blocks, &forms);
        c.unwrap().cost()
    };
    let count_ones: CostAt = |n| typed_cost(Op::CountOnes, ty(n, false), BLOCKS, R4);
    let count_ones_2: CostAt = |n| {
        circuit_for(&ar(), Op::CountOnes, ty(n, false), BLOCKS, &[R4], 2)
            .expect("a count of ones on blocks")
            .cost()
    };
    let leading_zeros: CostAt = |n| typed_cost(Op::LeadingZeros, ty(n, false), BLOCKS, R4);
    let trailing_zeros: CostAt = |n| typed_cost(Op::TrailingZeros, ty(n, false), BLOCKS, R4);
    let shl_var: CostAt = |n| typed_cost(Op::ShlVar, ty(n, false), BLOCKS, R4);
    let rotl_var: CostAt = |n| typed_cost(Op::RotlVar, ty(n, false), BLOCKS, R4);
    let shift_var_bits: CostAt = |n| {
        bit_circuit_cost(n, |b, x, y| {
            blocks::shift_var_bits(b, x, y, n, blocks::Shift::Left, budget())
        })
    };
    let barrel: CostAt = |n| typed_cost(Op::ShlVar, ty(n, false), BITS, CAN);
    let u_div: CostAt = |n| typed_cost(Op::Div, ty(n, false), BLOCKS, R4);
    let u_rem: CostAt = |n| typed_cost(Op::Rem, ty(n, false), BLOCKS, R4);
    let i_div: CostAt = |n| typed_cost(Op::Div, ty(n, true), BLOCKS, R4);
    let div_bits: CostAt = |n| {
        bit_circuit_cost(n, |b, x, y| {
            blocks::divide_unsigned_bits(b, x, y, false, budget())
        })
    };
    let to_blocks: CostAt = |n| bit_circuit_cost(n, |b, x, _| blocks::blocks_from_bits(b, x));
    let to_bits: CostAt = |n| {
        let mut b = Builder::new();
        let x: Vec<NodeId> = (0..n.div_ceil(2)).map(|_| b.input()).collect();
        let out = blocks::bits_from_blocks(&mut b, &x, n);
        b.finish(out).cost()
    };
    let exact_mul: CostAt =
        |n| bit_circuit_cost(n, |b, x, y| blocks::mul_signed_digits(b, x, y, budget()));
    let exact_square: CostAt =
        |n| bit_circuit_cost(n, |b, x, _| blocks::square_signed_digits(b, x, budget()));
    let mut pins = Pins::default();
    let tables: [(&str, &[Measured]); 22] = [
        (
            "blocks::mul",
            &[
                Measured("", mul, BOTH),
                Measured("bit by bit with counters", mul_bits, BOOTSTRAPS_ONLY),
            ],
        ),
        (
            "blocks::mul_blocks",
            &[
                Measured("", mul_blocks, BOTH),
                Measured("planned for 2 threads", mul_blocks_2, BOTH),
            ],
        ),
        (
            "blocks::mul_signed_digits",
            &[Measured("", exact_mul, BOTH)],
        ),
        (
            "blocks::square_signed_digits",
            &[Measured("", exact_square, BOTH)],
        ),
        (
            "blocks::scalar_mul_blocks",
            &[
                Measured("k = 805", k805, BOTH),
                Measured("k = 4095", k4095, BOTH),
                Measured("k = 0x9E37", k9e37, BOTH),
                Measured("k = 0x9E37, planned for 2 threads", k9e37_2, BOTH),
            ],
        ),
        (
            "blocks::add_blocks",
            &[
                Measured("", add, BOTH),
                Measured("planned for 125 lanes", add_125, BOTH),
            ],
        ),
        ("blocks::bitwise_blocks", &[Measured("", and, BOTH)]),
        ("blocks::eq", &[Measured("", eq, BOTH)]),
        ("blocks::eq_blocks", &[Measured("", eq_blocks, BOTH)]),
        ("blocks::compare", &[Measured("", compare, BOTH)]),
        (
            "blocks::compare_blocks",
            &[
                Measured("unsigned", lt_unsigned, BOTH),
                Measured("signed", lt_signed, BOTH),
            ],
        ),
        ("blocks::min_max_bits", &[Measured("", max, BOTH)]),
        ("blocks::max_min_zero_blocks", &[Measured("", relu, BOTH)]),
        ("blocks::select_blocks", &[Measured("", select, BOTH)]),
        (
            "blocks::shift_var_blocks",
            &[
                Measured("logical shifts", shl_var, BOTH),
                Measured("rotations", rotl_var, BOTH),
            ],
        ),
        (
            "blocks::shift_var_bits",
            &[
                Measured("", shift_var_bits, BOTH),
                Measured("barrel shifter of bits", barrel, BOOTSTRAPS_ONLY),
            ],
        ),
        (
            "blocks::divide_blocks",
            &[
                Measured("unsigned quotient", u_div, BOTH),
                Measured("unsigned remainder", u_rem, BOOTSTRAPS_ONLY),
                Measured("signed quotient", i_div, BOOTSTRAPS_ONLY),
            ],
        ),
        (
            "blocks::divide_unsigned_bits",
            &[Measured("", div_bits, BOTH)],
        ),
        (
            "blocks::count_ones_blocks",
            &[
                Measured("", count_ones, BOTH),
                Measured("planned for 2 threads", count_ones_2, BOTH),
            ],
        ),
        (
            "blocks::end_zeros_blocks",
            &[
                Measured("", leading_zeros, BOTH),
                Measured("trailing zeros", trailing_zeros, BOOTSTRAPS_ONLY),
            ],
        ),
        ("blocks::blocks_from_bits", &[Measured("", to_blocks, BOTH)]),
        ("blocks::bits_from_blocks", &[Measured("", to_bits, BOTH)]),
    ];
    for (name, rows) in tables {
        pin_circuit(&mut pins, name, rows);
    }
    pins.done();
}
