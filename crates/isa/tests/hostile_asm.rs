//! The assembler on hostile sources: every one is a typed error, at once,
//! instead of a stack overflow, a hang, an exhausted memory, a panic or a silent wrap.

use encint_isa::asm::{self, assemble};

fn refused(name: &str, src: &str, needle: &str) {
    let e = assemble(src).expect_err(name);
    assert!(
        e.message.contains(needle),
        "{name}: `{}` lacks `{needle}`",
        e.message
    );
}

#[test]
fn deep_nesting_is_refused_without_recursing_deeply() {
    let n = 50_000;
    let parens = format!("const x = {}1{}\n", "(".repeat(n), ")".repeat(n));
    refused("50k parentheses", &parens, "nested deeper");
    let minus = format!("const x = {}1\n", "-".repeat(200_000));
    refused("200k minus signs", &minus, "nested deeper");
    let fors = format!(
        "{}{}",
        "for i in 0..1 {\n".repeat(20_000),
        "}\n".repeat(20_000)
    );
    refused("20k nested for", &fors, "nested deeper");
    // Within the limits, nesting still works.
    let ok = format!("const x = {}7{}\n", "(".repeat(60), ")".repeat(60));
    assert!(assemble(&ok).is_ok());
}

#[test]
fn loops_outputs_and_arrays_are_bounded() {
    refused(
        "1e9 iterations",
        "for i in 0..1000000000 {\n}\n",
        "iterations",
    );
    refused(
        "nested i64::MAX loops",
        "for i in 0..9223372036854775807 {\nfor j in 0..9223372036854775807 {\n}\n}\n",
        "iterations",
    );
    refused(
        "full-range loop",
        "const m = -9223372036854775807 - 1\nfor i in m..9223372036854775807 {\n}\n",
        "iterations",
    );
    refused(
        "output in a huge loop",
        "input a\nfor i in 0..1000000 {\noutput a\n}\n",
        "output entries",
    );
    refused(
        "huge array index",
        "input a\nys[100000000] = a\n",
        "array limit",
    );
    refused(
        "index near i64::MAX",
        "input a\nys[9223372036854775806] = a\n",
        "array limit",
    );
    // Loops of empty bodies with many lines: bounded work.
    let body = "for j in 0..0 {\n}\n".repeat(1000);
    let src = format!("for i in 0..100000 {{\n{body}}}\n");
    refused("many empty inner loops", &src, "steps");
    let big = "x".repeat(asm::MAX_SOURCE_BYTES + 1);
    refused("oversized source", &big, "bytes");
}

#[test]
fn constant_arithmetic_is_checked() {
    refused(
        "-i64::MIN",
        "const m = -9223372036854775807 - 1\nconst x = -m\n",
        "overflow",
    );
    refused(
        "product overflow",
        "const x = 4294967296 * 4294967296\n",
        "overflow",
    );
    refused(
        "bad number",
        "const x = 99999999999999999999\n",
        "bad number",
    );
    let p = assemble("const m = -9223372036854775807 - 1\ninput a\nys[0 - -1] = a\noutput ys\n")
        .unwrap();
    assert_eq!(p.arrays["ys"], 2);
}

/// A program whose circuit passes the node limit of an encrypted run (10⁵ divisions, about
/// 5·10⁶ nodes) is refused by the compiler at the instruction where it passes the limit,
/// before the rest is built; under the limit it compiles.
#[test]
fn a_circuit_past_the_node_limit_is_refused_while_compiling() {
    use encint_isa::vm::{compile, compile_with_limit};
    let budget = encint_tfhe::DEFAULT_PARAMETERS.max_quadratic_weight();
    let src = "input a\ninput b\nfor i in 0..99999 {\n  a = DIV a, b\n}\noutput a\n";
    let p = assemble(src).unwrap();
    let e = compile(&p, budget).expect_err("10^5 divisions");
    assert!(e.message.contains("nodes"), "{}", e.message);
    assert!(e.line == 4, "refused at line {}", e.line);
    // 100 divisions: a few thousand nodes, under a limit of 10⁴ but not of 10³.
    let small =
        assemble("input a\ninput b\nfor i in 0..100 {\n  a = DIV a, b\n}\noutput a\n").unwrap();
    let c = compile_with_limit(&small, budget, 10_000).unwrap();
    let nodes = c.circuit.nodes().len() as u64;
    assert!(nodes > 1_000 && nodes <= 10_000, "{nodes}");
    assert!(compile_with_limit(&small, budget, 1_000).is_err());
    assert!(compile_with_limit(&small, budget, nodes).is_ok());
    assert!(compile_with_limit(&small, budget, nodes - 60).is_err());
}
