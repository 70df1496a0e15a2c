//! Real encrypted execution of every operation (random operands at 2, 5, 8 bits; edge
//! operands at 8 and 16 bits; edge scalars), against i128.

mod common;

use std::sync::{Arc, OnceLock};

use encint::{
    decrypt, encrypt, ClientKey, CoreError, EncInt, Error, Op, Server, DEFAULT_PARAMETERS,
};
use rand::{Rng, SeedableRng};

fn keys() -> &'static (ClientKey, Arc<Server>) {
    static KEYS: OnceLock<(ClientKey, Arc<Server>)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Arc::new(Server::new(server_key)))
    })
}

#[test]
fn every_operation_at_small_widths() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for bits in [2usize, 5, 8] {
        let lim = (1i128 << (bits - 1)) - 1;
        for op in ops() {
            let x: i128 = rng.gen_range(-lim..=lim);
            // Equal operands now and then, so eq/le/ge see both outcomes.
            let y: i128 = if rng.gen_bool(0.25) {
                x
            } else {
                rng.gen_range(-lim..=lim)
            };
            check(op, x, y, bits);
        }
    }
}

/// Every operation with its arguments at one width.
fn ops() -> Vec<Op> {
    common::every_op(&[-805, 4097])
}

/// Runs `op` on encrypted `x`, `y` (`bits` digits each), checks against i128 and returns
/// the number of bootstraps.
fn check(op: Op, x: i128, y: i128, bits: usize) -> u64 {
    let (client, server) = keys();
    let ex = encrypt(client, x, bits).unwrap();
    let ey = encrypt(client, y, bits).unwrap();
    let args: Vec<&EncInt> = if op.arity() == 1 {
        vec![&ex]
    } else {
        vec![&ex, &ey]
    };
    let (out, cost) = server.apply(op, &args).unwrap();
    let mut got = decrypt(client, &out).unwrap();
    if op == Op::MulLow {
        got = got.rem_euclid(1i128 << bits);
    }
    assert_eq!(
        got,
        encint::reference::plain(op, x, y, bits).expect("an operation of exact integers"),
        "{op:?} x={x} y={y} bits={bits} cost={cost:?}"
    );
    cost.bootstraps
}

/// Edge operands of a width: 0, ±1, the two's-complement extremes and the extremes of
/// the digit vector (all digits 1 / all -1).
fn edges(bits: usize) -> [i128; 7] {
    let half = 1i128 << (bits - 1);
    let full = (1i128 << bits) - 1;
    [0, 1, -1, half - 1, -half, full, -full]
}

/// Every operation on edge operands: at 16 bits once each (operation `i` on edges `i` and
/// `i + 3`, so every edge appears on both sides), at 8 bits on the extreme digit vectors
/// `(2^8-1, -(2^8-1))` and the two's-complement extremes `(-128, 127)`; edge scalars
/// (0, ±1, i64::MIN, i64::MAX, -2^20) at 8 bits. About 3600 bootstraps. The server runs the
/// budgeted forms.
#[test]
fn every_operation_on_edge_values_at_8_and_16_bits() {
    let (_, server) = keys();
    // The configuration the arith property tests cover as "the server's" is this one.
    assert_eq!(server.arith().config(), encint::Config::BUDGET_25);
    let mut pbs = 0;
    let e16 = edges(16);
    for (i, op) in ops().into_iter().enumerate() {
        pbs += check(op, e16[i % 7], e16[(i + 3) % 7], 16);
    }
    let e8 = edges(8);
    for op in ops() {
        pbs += check(op, e8[5], e8[6], 8);
        pbs += check(op, e8[4], e8[3], 8);
    }
    for k in [0i64, 1, -1, -(1 << 20), i64::MAX, i64::MIN] {
        pbs += check(Op::ScalarMul(k.into()), e8[4], 0, 8);
    }
    eprintln!("{pbs} bootstraps");
}

#[test]
fn operators_and_trace() {
    let (client, server) = keys();
    encint::set_server(server.clone());
    let a = encrypt(client, -37, 7).unwrap();
    let b = encrypt(client, 21, 6).unwrap();
    assert_eq!(decrypt(client, &(&a + &b)).unwrap(), -16);
    assert_eq!(decrypt(client, &(&a - &b)).unwrap(), -58);
    assert_eq!(decrypt(client, &(-&a)).unwrap(), 37);
    assert_eq!(decrypt(client, &(&b * 3)).unwrap(), 63);
    assert_eq!(decrypt(client, &(&a * &b)).unwrap(), -777);
    encint::unset_server();
    // A dot product traced as one circuit.
    let xs: Vec<EncInt> = [3i128, -5, 7]
        .iter()
        .map(|&v| encrypt(client, v, 4).unwrap())
        .collect();
    let refs: Vec<&EncInt> = xs.iter().collect();
    let out = server
        .trace(&refs, |t, x| {
            let terms = vec![
                t.mul_scalar(&x[0], 3),
                t.mul_scalar(&x[1], -5),
                t.mul_scalar(&x[2], 7),
            ];
            vec![t.sum(terms), t.max(&x[0], &x[2])]
        })
        .unwrap();
    assert_eq!(decrypt(client, &out[0]).unwrap(), 9 + 25 + 49);
    assert_eq!(decrypt(client, &out[1]).unwrap(), 7);
    // The same program recorded on a tape (as Python's encint.trace records it), with a
    // constant operand, run as one circuit.
    use encint::trace::{Tape, TapeArg::Const, TapeArg::Node};
    let mut tape = Tape::new(vec![4, 4, 4]).unwrap();
    let t0 = tape.record(Op::ScalarMul(3), vec![Node(0)]).unwrap();
    let t1 = tape.record(Op::ScalarMul(-5), vec![Node(1)]).unwrap();
    let t2 = tape.record(Op::ScalarMul(7), vec![Node(2)]).unwrap();
    let s01 = tape.record(Op::Add, vec![Node(t0), Node(t1)]).unwrap();
    let sum = tape.record(Op::Add, vec![Node(s01), Node(t2)]).unwrap();
    let shifted = tape
        .record(Op::Sub, vec![Node(sum), Const((-100).into())])
        .unwrap();
    let m = tape.record(Op::Max, vec![Node(0), Node(2)]).unwrap();
    let out = tape.run(server, &refs, &[shifted, m]).unwrap();
    assert_eq!(
        decrypt(client, &out[0]).unwrap(),
        3 * 3 + (-5) * (-5) + 7 * 7 + 100
    );
    assert_eq!(decrypt(client, &out[1]).unwrap(), 7);
    // Inputs of other widths than recorded, an operand that does not exist and an
    // operation with the wrong number of operands are refused.
    assert!(tape.run(server, &refs[..2], &[m]).is_err());
    assert!(tape.record(Op::Neg, vec![Node(tape.len())]).is_err());
    assert!(tape.record(Op::Add, vec![Node(0)]).is_err());
}

#[test]
fn noise_budget_is_enforced() {
    let (_, server) = keys();
    // Parmesan's signum (first level of weight 85) is refused with the operation named.
    let parmesan = encint::Arith::new(encint::Config::PARMESAN);
    let (client, _) = keys();
    let x = encrypt(client, 5, 8).unwrap();
    let err = server
        .eval(&[&x], |_, b, ins| {
            vec![encint::SInt {
                digits: vec![parmesan.signum(b, &ins[0])],
            }]
        })
        .unwrap_err();
    let err_text = err.to_string();
    match err {
        Error::Core(CoreError::NoiseBudget(v)) => {
            let msg = v.to_string();
            assert!(msg.contains("sgn") && msg.contains("85"), "{msg}");
            assert_eq!(err_text, format!("noise budget exceeded: {msg}"));
        }
        other => panic!("expected a budget error, got {other:?}"),
    }
}

#[test]
fn serialization_and_bad_input() {
    let (client, _) = keys();
    let p = DEFAULT_PARAMETERS;
    let x = encrypt(client, -9, 5).unwrap();
    let bytes = x.to_bytes(&p).unwrap();
    let back = EncInt::from_bytes(&bytes, &p).unwrap();
    assert_eq!(decrypt(client, &back).unwrap(), -9);
    for cut in [0, 1, 7, 20, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            EncInt::from_bytes(&bytes[..cut], &p).is_err(),
            "truncated at {cut}"
        );
    }
    let mut flipped = bytes.clone();
    flipped[10] ^= 0xff;
    assert!(EncInt::from_bytes(&flipped, &p).is_err());
    let mut rng = rand::thread_rng();
    for _ in 0..200 {
        let n = rng.gen_range(0..300);
        let junk: Vec<u8> = (0..n).map(|_| rng.r#gen()).collect();
        assert!(EncInt::from_bytes(&junk, &p).is_err());
    }
    // Too many digits for the value.
    assert!(matches!(
        encrypt(client, 1000, 4),
        Err(Error::OutOfRange(_))
    ));
}

#[test]
fn wrong_key_gives_a_typed_error() {
    let (client, server) = keys();
    let (other, other_server) = ClientKey::generate(&DEFAULT_PARAMETERS);
    assert_ne!(client.key_set(), other.key_set());
    assert_eq!(other.key_set(), other_server.key_set());
    let x = encrypt(client, 77, 12).unwrap();
    let y = encrypt(&other, 5, 12).unwrap();
    assert!(matches!(
        decrypt(&other, &x),
        Err(Error::WrongClientKey { key, ciphertext }) if key == other.key_set() && ciphertext == client.key_set()
    ));
    // The binding survives serialization.
    let back = EncInt::from_bytes(
        &y.to_bytes(&DEFAULT_PARAMETERS).unwrap(),
        &DEFAULT_PARAMETERS,
    )
    .unwrap();
    assert_eq!(back.key_set(), other.key_set());
    assert!(matches!(
        decrypt(client, &back),
        Err(Error::WrongClientKey { .. })
    ));
    // Ciphertexts of two key sets are never combined, nor used with another set's server key.
    assert!(matches!(
        server.add(&x, &back),
        Err(Error::KeySetMismatch { position: 1, .. })
    ));
    let other_server = Server::new(other_server);
    assert!(matches!(
        other_server.neg(&x),
        Err(Error::KeySetMismatch { position: 0, .. })
    ));
    // The right pairing still works.
    assert_eq!(decrypt(&other, &other_server.neg(&y).unwrap()).unwrap(), -5);
}

#[test]
fn limits_are_checked_before_any_work() {
    let (client, server) = keys();
    // Today's panics and aborts: huge digit counts are refused before allocating.
    for bits in [usize::MAX, 1_000_000_000, encint::MAX_DIGITS + 1] {
        assert!(
            matches!(encrypt(client, 1, bits), Err(Error::LimitExceeded(_))),
            "{bits}"
        );
    }
    // A 4096 x 4096-digit product would need ~10^8 nodes: refused from the estimate of its
    // output width (the message states the estimate: nothing was built to find it).
    let big = EncInt::from_digits(
        vec![client.encrypt_digit(0); encint::MAX_DIGITS],
        client.key_set(),
    );
    let r = server.mul(&big, &big);
    assert!(
        matches!(&r, Err(Error::LimitExceeded(m)) if m.contains("up to 8206 digits")),
        "{:?}",
        r.err()
    );
    // An output longer than MAX_DIGITS (which no one could decode) is refused too: a
    // small circuit (about 10^6 nodes) but 4096 + 63 output digits.
    assert!(matches!(
        server.apply(Op::ScalarMul(i64::MAX.into()), &[&big]),
        Err(Error::LimitExceeded(m)) if m.contains("output")
    ));
    // A traced program stops at the first operation past a limit, before the circuit is
    // finished or anything runs: 10^5 chained additions widen the value by one digit each
    // and grow the circuit; the one refused is the first whose estimate passes a limit
    // (the message says what it "would" reach), long before the last (the work done is
    // counted by that index, not timed).
    let x = encrypt(client, 3, 8).unwrap();
    let r = server.trace(&[&x], |t, ins| {
        let mut acc = ins[0].clone();
        for _ in 0..100_000 {
            acc = t.add(&acc, &acc);
        }
        vec![acc]
    });
    let refused_at = match &r {
        Err(Error::LimitExceeded(m)) if m.contains("would") => m
            .split("traced operation ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok()),
        _ => None,
    };
    assert!(
        refused_at.is_some_and(|n| n < encint::MAX_DIGITS),
        "{r:?}: refused at {refused_at:?}"
    );
    assert!(matches!(
        encint::check_threads(100_000),
        Err(Error::ThreadPool(_))
    ));
    assert!(encint::check_threads(0).is_err());
    assert_eq!(encint::check_threads(1).unwrap(), 1);
}
