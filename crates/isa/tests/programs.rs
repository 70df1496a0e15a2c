//! The example programs of `examples/`, assembled and run in clear mode against plain
//! computations on random inputs.

use std::collections::HashMap;

use encint_isa::asm::assemble;
use encint_isa::vm::{compile, run_clear, Compiled, Datum};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod common;
use common::budget;

fn load(name: &str) -> Compiled {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap();
    let p = assemble(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
    let c = compile(&p, budget()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        c.circuit.budget_violations(budget()).is_empty(),
        "{name}: noise budget"
    );
    c
}

/// Inputs `name[0]`, `name[1]`, ... holding the bytes `vals`.
fn array(name: &str, vals: &[u8]) -> HashMap<String, Datum> {
    vals.iter()
        .enumerate()
        .map(|(k, v)| (format!("{name}[{k}]"), Datum::Byte(*v)))
        .collect()
}

fn out_bytes(out: &[(String, Datum)], prefix: &str) -> Vec<u8> {
    out.iter()
        .filter(|(n, _)| n.starts_with(prefix))
        .map(|(_, d)| match d {
            Datum::Byte(b) => *b,
            Datum::Fixed(_) => panic!("byte expected"),
        })
        .collect()
}

/// Runs `check(c, r, case)` for 300 cases on the compiled `file`: each case draws its
/// inputs from `r`, runs `c` and checks the outputs.
fn random_cases(file: &str, mut check: impl FnMut(&Compiled, &mut StdRng, usize)) {
    let c = load(file);
    let mut r = StdRng::seed_from_u64(0x5eed_0004);
    for case in 0..300 {
        check(&c, &mut r, case);
    }
}

#[test]
fn bubble_sort_sorts() {
    random_cases("bubble_sort.asm", |c, r, case| {
        let mut v: Vec<u8> = (0..5).map(|_| r.gen()).collect();
        if case % 3 == 0 {
            v[1] = v[3]; // duplicates
        }
        let (out, cost) = run_clear(c, &array("a", &v)).unwrap();
        v.sort();
        assert_eq!(out_bytes(&out, "a["), v);
        assert!(cost.blind_rotations > 0);
    });
}

#[test]
fn array_max_is_the_maximum() {
    random_cases("array_max.asm", |c, r, _| {
        let v: Vec<u8> = (0..5).map(|_| r.gen()).collect();
        let (out, _) = run_clear(c, &array("a", &v)).unwrap();
        assert_eq!(out_bytes(&out, "m"), vec![*v.iter().max().unwrap()]);
    });
}

#[test]
fn average_is_sum_over_n_in_fixed_point() {
    random_cases("average.asm", |c, r, _| {
        let v: Vec<u8> = (0..5).map(|_| r.gen_range(0..52)).collect();
        let (out, _) = run_clear(c, &array("a", &v)).unwrap();
        let s: u32 = v.iter().map(|&x| x as u32).sum();
        assert_eq!(out[0].1, Datum::Byte(s as u8));
        let raw = ((s / 5) << 8) | ((256 * (s % 5)) / 5);
        assert_eq!(out[1].1, Datum::Fixed(raw as u16 as i16), "sum {s}");
    });
}

#[test]
fn array_assign_writes_only_at_the_index() {
    random_cases("array_assign.asm", |c, r, case| {
        let mut v: Vec<u8> = (0..5).map(|_| r.gen()).collect();
        let idx: u8 = if case % 4 == 0 {
            r.gen()
        } else {
            r.gen_range(0..5)
        };
        let x: u8 = r.gen();
        let mut data = array("a", &v);
        data.insert("idx".into(), Datum::Byte(idx));
        data.insert("v".into(), Datum::Byte(x));
        let (out, _) = run_clear(c, &data).unwrap();
        if (idx as usize) < v.len() {
            v[idx as usize] = x;
        }
        assert_eq!(out_bytes(&out, "a["), v);
    });
}

/// Fixed-point reference: raw values are value·256 in two's complement 16 bits.
fn fmuli(x: i16, w: i16) -> i16 {
    ((x as i32 * w as i32) >> 8) as i16
}

fn neuron_inputs(r: &mut StdRng) -> (i16, i16) {
    // Inputs in [-1, 1] as in the paper's neuron.
    (r.gen_range(-256..=256), r.gen_range(-256..=256))
}

/// Runs a neuron program on random inputs in [-1, 1]: the pre-activation must be exact,
/// `check(z, y)` judges the activation's raw output `y`.
fn check_neuron(file: &str, check: impl Fn(i16, i16)) {
    random_cases(file, |c, r, _| {
        let (x1, x2) = neuron_inputs(r);
        let mut data = HashMap::new();
        data.insert("x1".into(), Datum::Fixed(x1));
        data.insert("x2".into(), Datum::Fixed(x2));
        let (out, _) = run_clear(c, &data).unwrap();
        let z = fmuli(x1, 192).wrapping_add(fmuli(x2, -128));
        assert_eq!(out[0].1, Datum::Fixed(z));
        let Datum::Fixed(y) = out[1].1 else {
            panic!("fixed-point output expected")
        };
        check(z, y);
    });
}

#[test]
fn neuron_with_heaviside() {
    check_neuron("neuron_heaviside.asm", |z, y| {
        assert_eq!(y, if z >= 0 { 256 } else { 0 })
    });
}

#[test]
fn neuron_with_sigmoid() {
    check_neuron("neuron_sigmoid.asm", |z, y| {
        let s = 1.0 / (1.0 + (-(z as f64) / 256.0).exp());
        assert!(
            ((y as f64) / 256.0 - s).abs() <= 1.0 / 256.0,
            "sigmoid({}) = {} vs {s}",
            z as f64 / 256.0,
            y as f64 / 256.0
        );
    });
}

/// Inputs that are not the program's (an unknown name, an array element past the array's
/// length) are refused like missing ones, instead of being ignored.
#[test]
fn inputs_must_be_the_programs_inputs() {
    use encint_isa::vm::RunError;
    let c = load("average.asm");
    let mut data = array("a", &[10, 20, 30, 40, 51]);
    let (out, _) = run_clear(&c, &data).unwrap();
    assert_eq!(out_bytes(&out, "s"), [151]);
    for extra in ["b", "a[5]"] {
        let mut more = data.clone();
        more.insert(extra.to_string(), Datum::Byte(1));
        match run_clear(&c, &more) {
            Err(RunError::Input(name, why)) => {
                assert_eq!(name, extra);
                assert!(why.contains("not an input"), "{why}");
            }
            other => panic!("{extra}: {other:?}"),
        }
    }
    data.remove("a[4]");
    assert!(matches!(run_clear(&c, &data), Err(RunError::Input(n, _)) if n == "a[4]"));
}
