//! The ERC20 transfer example (examples/erc20.rs) runs as written on real keys: three
//! transfers through both circuits, each result checked against plain integers.

#[path = "../examples/erc20.rs"]
mod erc20;

#[test]
fn erc20_example_runs() {
    erc20::main().expect("the example's transfers");
}
