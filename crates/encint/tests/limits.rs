//! The limit estimates of `encint::limits` against the circuits the builders really make,
//! and the traced mode's refusals: random traced programs whose intermediate widths or
//! node counts pass the limits stop at the first such operation, before it (or any later
//! one) adds a node, with `Error::LimitExceeded` from the recorder.

mod common;

use encint::limits::{self, Limits, WordOp};
use encint::{Arith, Config, Error, Op, SInt, Tracer, DEFAULT_PARAMETERS};
use encint_arith::bits::{self as ops, Word};
use encint_core::bits::{bits_to_signed_digits, lower_into, signed_digits_to_bits, BitBuilder};
use encint_core::circuit::{Builder, NodeId};
use proptest::prelude::*;

fn arith() -> Arith {
    Arith::new(Config {
        max_qweight: DEFAULT_PARAMETERS.max_quadratic_weight(),
    })
}

fn ops() -> Vec<Op> {
    common::every_op(&[12345])
}

/// Builds `op` alone on inputs of `n` and `m` digits; returns (output digits, nodes added).
fn measure(ar: &Arith, op: Op, n: usize, m: usize) -> (u64, u64) {
    let mut b = Builder::new();
    let x = SInt::input(&mut b, n);
    let y = SInt::input(&mut b, m);
    let before = b.node_count();
    let args = [x, y];
    let out = ar
        .apply(&mut b, op, &args[..op.arity()])
        .expect("an operation of exact integers");
    (out.len() as u64, (b.node_count() - before) as u64)
}

fn check_op(ar: &Arith, op: Op, n: usize, m: usize) {
    let (width, nodes) = measure(ar, op, n, m);
    let est = limits::op(op, n, m);
    assert!(
        width <= est.width && nodes <= est.nodes,
        "{op:?} on {n} and {m} digits: built {width} digits and {nodes} nodes, estimated {est:?}"
    );
}

/// A built circuit of `nodes` nodes within the estimate `est`; `what` names the case.
fn within(nodes: u64, est: u64, what: std::fmt::Arguments) {
    assert!(nodes <= est, "{what}: {nodes} nodes, estimated {est}");
}

#[test]
fn operation_estimates_bound_the_built_circuits() {
    let ar = arith();
    for op in ops() {
        for (n, m) in [(1, 1), (1, 9), (9, 1), (8, 8), (31, 5), (64, 64), (128, 17)] {
            check_op(&ar, op, n, m);
        }
    }
    for k in [1, -1, 3, 1 << 40, -(1 << 62), i64::MAX, i64::MIN + 1] {
        for n in [1, 7, 40] {
            check_op(&ar, Op::ScalarMul(k.into()), n, 0);
        }
    }
}

/// Builds one word operation on two inputs of `w` bits inside a digit circuit (like the
/// Python package's boolean stages); returns the digit nodes the lowering added.
fn word_nodes(w: usize, f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Vec<Word>) -> u64 {
    let mut b = Builder::new();
    let xs: Vec<NodeId> = (0..2 * w).map(|_| b.input()).collect();
    let before = b.node_count();
    let mut bb = BitBuilder::new();
    let x = Word::input(&mut bb, w);
    let y = Word::input(&mut bb, w);
    let outs = f(&mut bb, &x, &y);
    let circuit = bb.finish(outs.into_iter().flat_map(|o| o.bits).collect());
    lower_into(&mut b, &circuit, &xs).expect("one input node per bit");
    (b.node_count() - before) as u64
}

#[test]
fn word_estimates_bound_the_lowered_circuits() {
    type F = fn(&mut BitBuilder, &Word, &Word) -> Vec<Word>;
    let cases: [(WordOp, F); 16] = [
        (WordOp::Bitwise, |bb, x, y| vec![ops::xor(bb, x, y)]),
        (WordOp::Bitwise, |bb, x, y| vec![ops::or(bb, x, y)]),
        (WordOp::Not, |bb, x, _| vec![ops::not(bb, x)]),
        (WordOp::Add, |bb, x, y| vec![ops::add(bb, x, y)]),
        (WordOp::Sub, |bb, x, y| vec![ops::sub(bb, x, y)]),
        (WordOp::Neg, |bb, x, _| vec![ops::neg(bb, x)]),
        (WordOp::Abs, |bb, x, _| vec![ops::abs(bb, x)]),
        (WordOp::Mul, |bb, x, y| vec![ops::mul(bb, x, y)]),
        (WordOp::DivRem, |bb, x, y| {
            let (q, r) = ops::div_rem_unsigned(bb, x, y);
            vec![q, r]
        }),
        (WordOp::DivRem, |bb, x, y| {
            let (q, r) = ops::div_rem_signed(bb, x, y);
            vec![q, r]
        }),
        (WordOp::ShiftVar, |bb, x, y| vec![ops::shl_var(bb, x, y)]),
        (WordOp::ShiftVar, |bb, x, y| vec![ops::sar_var(bb, x, y)]),
        (WordOp::Compare, |bb, x, y| {
            vec![Word {
                bits: vec![ops::lt_signed(bb, x, y)],
            }]
        }),
        (WordOp::Eq, |bb, x, y| {
            vec![Word {
                bits: vec![ops::eq(bb, x, y)],
            }]
        }),
        (WordOp::Any, |bb, x, _| {
            vec![Word {
                bits: vec![ops::any(bb, &x.bits)],
            }]
        }),
        (WordOp::Select, |bb, x, y| {
            let c = y.bits[0];
            vec![ops::select(bb, c, x, y)]
        }),
    ];
    for (op, f) in cases {
        for w in [1, 2, 3, 8, 17, 64, 130] {
            let nodes = word_nodes(w, f);
            let est = limits::word(op, w);
            within(nodes, est, format_args!("{op:?} at {w} bits"));
        }
    }
}

#[test]
fn conversion_estimates_bound_the_built_circuits() {
    for (n, w) in [
        (1, 1),
        (1, 3),
        (8, 10),
        (8, 4003),
        (64, 66),
        (300, 302),
        (40, 20),
    ] {
        let mut b = Builder::new();
        let x = SInt::input(&mut b, n);
        let before = b.node_count();
        let bits = signed_digits_to_bits(&mut b, &x.digits, w);
        let digits = bits_to_signed_digits(&mut b, &bits, true);
        let nodes = (b.node_count() - before) as u64;
        assert_eq!(digits.len(), w);
        let est = limits::conversions(n, w);
        within(nodes, est, format_args!("{n} digits to {w} bits and back"));
    }
}

#[test]
fn limit_checks_saturate_instead_of_wrapping() {
    let lim = Limits::default();
    let huge = limits::op(Op::Mul, usize::MAX, usize::MAX);
    assert_eq!(huge.nodes, u64::MAX);
    assert!(matches!(
        lim.check("a huge product", huge, u64::MAX),
        Err(Error::LimitExceeded(_))
    ));
    assert!(limits::op(Op::ScalarMul(i64::MIN.into()), usize::MAX, 0).width == u64::MAX);
    assert!(limits::sum(usize::MAX, usize::MAX).width == u64::MAX);
    assert!(limits::word(WordOp::DivRem, usize::MAX) == u64::MAX);
}

/// One step of a random traced program: an operation on earlier values (by index,
/// reduced modulo the number of values so far).
#[derive(Clone, Debug)]
enum Step {
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    Scalar(usize, i64),
    Square(usize),
    Max(usize, usize),
    Min(usize, usize),
    Signum(usize),
    Sum(Vec<usize>),
}

fn step() -> impl Strategy<Value = Step> {
    let i = 0usize..64;
    prop_oneof![
        (i.clone(), i.clone()).prop_map(|(a, b)| Step::Add(a, b)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Step::Sub(a, b)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Step::Mul(a, b)),
        (i.clone(), any::<i64>()).prop_map(|(a, k)| Step::Scalar(a, k)),
        i.clone().prop_map(Step::Square),
        (i.clone(), i.clone()).prop_map(|(a, b)| Step::Max(a, b)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Step::Min(a, b)),
        i.clone().prop_map(Step::Signum),
        proptest::collection::vec(i, 1..5).prop_map(Step::Sum),
    ]
}

fn apply(t: &mut Tracer<'_>, s: &Step, vals: &[SInt]) -> SInt {
    let v = |i: &usize| &vals[i % vals.len()];
    match s {
        Step::Add(a, b) => t.add(v(a), v(b)),
        Step::Sub(a, b) => t.sub(v(a), v(b)),
        Step::Mul(a, b) => t.mul(v(a), v(b)),
        Step::Scalar(a, k) => t.mul_scalar(v(a), *k),
        Step::Square(a) => t.square(v(a)),
        Step::Max(a, b) => t.max(v(a), v(b)),
        Step::Min(a, b) => t.min(v(a), v(b)),
        Step::Signum(a) => t.signum(v(a)),
        Step::Sum(xs) => t.sum(xs.iter().map(|i| v(i).clone()).collect()),
    }
}

/// What one run of a program did: for each step, the nodes before and after it, the
/// output's width and whether the tracer had refused by then.
struct Run {
    steps: Vec<(usize, usize, usize, bool)>,
    error: Option<String>,
}

fn run(ar: &Arith, inputs: &[usize], prog: &[Step], limits: Limits) -> Run {
    let mut b = Builder::new();
    let mut vals: Vec<SInt> = inputs.iter().map(|&n| SInt::input(&mut b, n)).collect();
    let mut t = Tracer::new(ar, &mut b, limits);
    let mut steps = Vec::new();
    for s in prog {
        let before = t.builder.node_count();
        let r = apply(&mut t, s, &vals);
        steps.push((before, t.builder.node_count(), r.len(), t.error().is_some()));
        vals.push(r);
    }
    let error = match t.finish(vals) {
        Ok(_) => None,
        Err(Error::LimitExceeded(m)) => Some(m),
        Err(other) => panic!("not a limit error: {other}"),
    };
    Run { steps, error }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Node and width estimates are upper bounds for random shapes.
    #[test]
    fn estimates_bound_random_shapes(n in 1usize..48, m in 1usize..48, k in any::<i64>()) {
        let ar = arith();
        for op in ops().into_iter().chain([Op::ScalarMul(k.into())]) {
            let (width, nodes) = measure(&ar, op, n, m);
            let est = limits::op(op, n, m);
            prop_assert!(width <= est.width && nodes <= est.nodes,
                "{:?} on {} and {}: {} digits, {} nodes, estimated {:?}", op, n, m, width, nodes, est);
        }
    }

    /// Random traced programs under small limits: every operation the tracer accepts stays
    /// within them; the first one that would pass one is refused before it adds a node,
    /// nothing is built after it, and the trace ends with the recorder's
    /// `LimitExceeded`. A reference run under wide limits gives the true widths: no
    /// operation whose true output passes the digit limit is ever accepted.
    #[test]
    fn traced_programs_stop_at_the_first_operation_past_a_limit(
        inputs in proptest::collection::vec(1usize..10, 1..4),
        prog in proptest::collection::vec(step(), 1..30),
        max_digits in 8u64..64,
        max_nodes in 200u64..20_000,
    ) {
        let ar = arith();
        let small = Limits { max_digits, max_nodes };
        let wide = Limits { max_digits: 4 * 64, max_nodes: 200_000 };
        let r = run(&ar, &inputs, &prog, small);
        let reference = run(&ar, &inputs, &prog, wide);
        let first = r.steps.iter().position(|s| s.3);
        for (i, &(before, after, width, refused)) in r.steps.iter().enumerate() {
            if refused {
                // Refused (this step or an earlier one): nothing was built.
                prop_assert_eq!(before, after, "step {} built nodes after the refusal", i);
            } else {
                prop_assert!(width as u64 <= max_digits, "step {}: {} digits accepted", i, width);
                prop_assert!(after as u64 <= max_nodes, "step {}: {} nodes accepted", i, after);
            }
        }
        // The reference agrees on every step both ran, and a true width past the limit
        // is refused at that step at the latest.
        for (i, (mine, theirs)) in r.steps.iter().zip(&reference.steps).enumerate() {
            if theirs.3 || mine.3 {
                break;
            }
            prop_assert_eq!(mine.2, theirs.2, "step {} differs from the reference", i);
        }
        if let Some(j) = reference.steps.iter().position(|s| !s.3 && s.2 as u64 > max_digits) {
            prop_assert!(first.is_some_and(|f| f <= j), "step {} of {} digits accepted", j, reference.steps[j].2);
        }
        match (first, &r.error) {
            (Some(f), Some(m)) => prop_assert!(
                m.contains(&format!("traced operation {f} ")), "{}", m),
            (None, None) => {}
            (f, e) => prop_assert!(false, "refusal at {:?} but error {:?}", f, e),
        }
    }
}

/// Compiled functions: a layout of more values than a circuit takes, or one whose element
/// count overflows, is refused before anything of its size is allocated (once an abort
/// allocating 16 GB, or a count that wrapped to zero). (A function growing its circuit past
/// the node limit is the unit test `a_trace_stops_at_the_operation_past_its_node_limit`.)
#[test]
fn compiled_functions_refuse_layouts_and_circuits_past_the_limits() {
    use encint::fhe::{compile_with, FheArray, FheUint8, MAX_LEAVES};
    let limit = |r: encint::Result<_>| match r {
        Err(Error::LimitExceeded(m)) => m,
        Err(e) => panic!("another error: {e}"),
        Ok(()) => panic!("accepted"),
    };
    let sum = |shape: Vec<usize>| {
        compile_with(shape, |x: FheArray<FheUint8>| x.sum().expect("a sum")).map(|_| ())
    };
    for shape in [
        vec![1_000_000_000],
        vec![10_000_000],
        vec![1_000_000],
        vec![MAX_LEAVES + 1],
        vec![1 << 32, 1 << 32],
        vec![usize::MAX, 2],
    ] {
        let m = limit(sum(shape.clone()));
        assert!(
            m.contains("values") || m.contains("digits"),
            "{shape:?}: {m}"
        );
    }
    // Within the leaf limit but past the node limit in its digits.
    let m = limit(sum(vec![MAX_LEAVES]));
    assert!(m.contains("digits"), "{m}");
    // What fits still compiles and computes.
    let f = compile_with(vec![3], |x: FheArray<FheUint8>| x.sum().expect("a sum")).unwrap();
    assert_eq!(
        f.run_clear(&[200, 100, 7]).unwrap(),
        vec![(307 % 256) as i128]
    );
}

/// Array ciphertexts: counts of elements are checked products, and their memory (digits
/// times 16 KiB: an LWE ciphertext of TFHE-rs' big key, 1 × 2048 coefficients and a body,
/// 64 bits each) is refused past `MAX_CIPHERTEXT_BYTES` before any encryption.
#[test]
fn array_ciphertexts_are_bounded_before_allocation() {
    use encint::typed::{Form, IntType};
    let digit = (2048 + 1) * 8;
    assert_eq!(DEFAULT_PARAMETERS.digit_bytes(), digit);
    let u8t = IntType::new(8, false).unwrap();
    // Four radix-4 blocks, or eight bits, per value.
    let most = limits::MAX_CIPHERTEXT_BYTES / (4 * digit);
    let check = |n, form| limits::check_ciphertexts("test", n, u8t, form, &DEFAULT_PARAMETERS);
    assert!(check(most, Form::Radix4).is_ok());
    assert!(matches!(
        check(most + 1, Form::Radix4),
        Err(Error::LimitExceeded(_))
    ));
    assert!(matches!(
        check(most, Form::Canonical),
        Err(Error::LimitExceeded(_))
    ));
    assert!(matches!(
        check(u64::MAX, Form::Radix4),
        Err(Error::LimitExceeded(_))
    ));
    // Shapes whose product passes usize (one wraps to 0, one to 1).
    assert_eq!(limits::element_count(&[]).unwrap(), 1);
    assert_eq!(limits::element_count(&[2, 3, 0]).unwrap(), 0);
    assert_eq!(limits::element_count(&[7, 11]).unwrap(), 77);
    for shape in [[1usize << 32, 1 << 32], [3, 0xAAAA_AAAA_AAAA_AAAB]] {
        assert!(matches!(
            limits::element_count(&shape),
            Err(Error::LimitExceeded(_))
        ));
    }
    // The facade's array encryption refuses from the count, before encrypting anything.
    let (client, _) = encint::ClientKey::generate(&DEFAULT_PARAMETERS);
    let n = usize::try_from(most + 1).unwrap();
    let r = encint::FheArray::<encint::FheUint8>::encrypt(&vec![0u8; n], &[n], &client);
    assert!(matches!(r, Err(Error::LimitExceeded(_))), "{r:?}");
    let bools = encint::FheArray::<encint::FheBool>::encrypt(&[true; 3], &[3], &client);
    assert_eq!(bools.unwrap().decrypt(&client).unwrap(), vec![true; 3]);
}
