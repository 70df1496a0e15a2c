//! The assembler's fuzz inputs: mutated example programs and random token soups.

use std::sync::OnceLock;

use proptest::prelude::*;

use super::mutations::{apply, mutation};
use super::seeds;

fn programs() -> &'static Vec<Vec<u8>> {
    static P: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    P.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
        let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let p = e.ok()?.path();
                (p.extension()? == "asm").then(|| std::fs::read(p).ok())?
            })
            .collect();
        v.sort();
        assert!(v.len() >= 3, "example programs found");
        v
    })
}

const TOKENS: &[&str] = &[
    "input a",
    "input xs[4]",
    "input f: fixed",
    "const n = 3",
    "table t = 1, 2, 3",
    "for i in 0..n {",
    "for j in 0..2 {",
    "}",
    "\n",
    "\n",
    "\n",
    "x = ADD a, a",
    "y = MAXI x, 100",
    "xs[i] = ADDI xs[i], i",
    "ys[9223372036854775806] = a",
    "output x",
    "output xs",
    "(",
    ")",
    "-",
    "*",
    "+",
    "9223372036854775807",
    "0x7f",
    "0b101",
    "i",
    "n",
    ",",
    "=",
    "[",
    "]",
    " ",
    "z = LUT a, t",
    "w = x",
    "; comment",
    "FOO",
    "{",
];

pub fn asm_input() -> impl Strategy<Value = String> {
    seeds();
    let n = programs().len();
    prop_oneof![
        2 => (0..n, proptest::collection::vec(mutation(), 1..6))
            .prop_map(move |(i, m)| String::from_utf8_lossy(&apply(programs()[i].clone(), &m)).into_owned()),
        2 => proptest::collection::vec(0..TOKENS.len(), 0..60)
            .prop_map(|ix| ix.into_iter().map(|i| TOKENS[i]).collect::<String>()),
        1 => "[ -~\n]{0,200}",
    ]
}
