//! Every `FheUint8` peer operation once, checked against plain `u8` arithmetic.

use encint_tfhe::peer8::{init_peer8_keys, time_peer8, Peer8Op};
use encint_tfhe::TfheError;

#[test]
fn names_are_stable() {
    let names: Vec<&str> = Peer8Op::ALL.iter().map(|op| op.name()).collect();
    assert_eq!(
        names,
        [
            "add",
            "sub",
            "mul",
            "div",
            "rem",
            "min",
            "max",
            "eq",
            "lt",
            "shl",
            "rotate_left",
            "bitand"
        ]
    );
    assert_eq!(Peer8Op::Shl.eval(0b1001_0011, 10), Some(0b0100_1100));
    assert_eq!(Peer8Op::RotateLeft.eval(0b1001_0011, 9), Some(0b0010_0111));
    assert_eq!(Peer8Op::Div.eval(7, 0), None);
}

#[test]
fn every_op_once_on_two_threads() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        init_peer8_keys();
        for op in Peer8Op::ALL {
            let t = time_peer8(op, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
            eprintln!("FheUint8 {:>11}: {:8.1} ms", op.name(), t.median_ms);
            assert_eq!((t.op, t.runs, t.threads), (op, 1, 2));
            assert!(t.median_ms > 0.0 && t.min_ms <= t.median_ms);
        }
        assert!(matches!(
            time_peer8(Peer8Op::Add, 0),
            Err(TfheError::Peer(_))
        ));
    });
}
