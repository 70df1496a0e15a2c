//! Compiled functions stay within the noise budget of the parameter set they run on: an
//! operation on results of earlier ones (digits that repeat one node, digits known when
//! compiling, results that end in linear steps) is built so that no bootstrap input passes
//! the budget, as each operation alone is. Each function below was compiled past the
//! budget (quadratic weight 26 to 38 against 25), so the server refused to run it
//! (`NoiseBudget`); the results are checked in the clear against `std`'s arithmetic, and
//! one function runs on real keys.

use encint::fhe::{compile, compile_with, FheInt16, FheInt8, FheValue};
use encint::typed::{IntType, Op};
use encint::DEFAULT_PARAMETERS;

fn budget() -> u64 {
    DEFAULT_PARAMETERS.max_quadratic_weight()
}

/// `(x % k) > 0` on `i8` (truncating: the remainder's top digits are copies of one node).
#[test]
fn a_remainder_compared_with_zero() {
    for k in [-3i8, -2, -1, 3, 5] {
        let f = compile(move |x: FheInt8| (&x % k).gt(0i8)).unwrap();
        assert!(f.cost().max_qweight <= budget(), "k = {k}: {:?}", f.cost());
        for x in [i8::MIN, -100, -7, -1, 0, 1, 7, 100, i8::MAX] {
            let want = i128::from(x.wrapping_rem(k) > 0);
            assert_eq!(
                f.run_clear(&[i128::from(x)]).unwrap(),
                vec![want],
                "{x} % {k}"
            );
        }
    }
}

/// `x - (x / 5) * 5 < 0` on `i8`: a product and a difference before a comparison.
#[test]
fn a_remainder_by_its_definition_compared_with_zero() {
    let f = compile(|x: FheInt8| (&x - &(&(&x / 5i8) * 5i8)).lt(0i8)).unwrap();
    assert!(f.cost().max_qweight <= budget(), "{:?}", f.cost());
    for x in i8::MIN..=i8::MAX {
        let want = i128::from(x - (x / 5) * 5 < 0);
        assert_eq!(f.run_clear(&[i128::from(x)]).unwrap(), vec![want], "{x}");
    }
}

/// A remainder of a value whose digits are known but one (a boolean cast to `i16`).
#[test]
fn a_remainder_of_a_value_of_known_digits() {
    let i16t = IntType::new(16, true).unwrap();
    let f = compile_with(i16t, move |x: FheValue| {
        let b = x.unary(Op::Cast(IntType::BOOL)).unwrap();
        let y = b.unary(Op::Cast(i16t)).unwrap();
        let r = y.binary(Op::Rem, -3i128).unwrap();
        r.binary(Op::GT, 0i128).unwrap().select(&r, &y).unwrap()
    })
    .unwrap();
    assert!(f.cost().max_qweight <= budget(), "{:?}", f.cost());
    for x in [i16::MIN, -1, 0, 1, 2, i16::MAX] {
        let y = i16::from(x != 0);
        let r = y % -3;
        let want = i128::from(if r > 0 { r } else { y });
        assert_eq!(f.run_clear(&[i128::from(x)]).unwrap(), vec![want], "{x}");
    }
}

/// A dot product `[x, y]·[y, x]` with `y = x'·(-32768)` (one digit not known).
#[test]
fn a_dot_product_of_crossed_pairs() {
    use encint::fhe::FheArray;
    let f = compile(|(x, z): (FheInt16, FheInt16)| {
        let y = &z * i16::MIN;
        let u = FheArray::new(vec![x.clone(), y.clone()], vec![2]).unwrap();
        let w = FheArray::new(vec![y, x], vec![2]).unwrap();
        u.dot(&w).unwrap()
    })
    .unwrap();
    assert!(f.cost().max_qweight <= budget(), "{:?}", f.cost());
    for (x, z) in [
        (3i16, 1i16),
        (-1, -1),
        (i16::MAX, 7),
        (i16::MIN, i16::MIN),
        (0, 5),
    ] {
        let y = z.wrapping_mul(i16::MIN);
        let want = x.wrapping_mul(y).wrapping_add(y.wrapping_mul(x));
        assert_eq!(
            f.run_clear(&[i128::from(x), i128::from(z)]).unwrap(),
            vec![i128::from(want)],
            "{x}, {z}"
        );
    }
}

/// The first function on real keys: the server runs it (it refused it before).
#[test]
fn a_remainder_compared_with_zero_on_real_keys() {
    use encint::fhe::set_server_key;
    use encint::ClientKey;
    let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    set_server_key(server_key);
    let f = compile(|x: FheInt8| (&x % -3i8).gt(0i8)).unwrap();
    for x in [-100i8, 7] {
        let out = f.run(&FheInt8::encrypt(x, &client).unwrap()).unwrap();
        assert_eq!(out.decrypt(&client).unwrap(), x % -3 > 0, "{x}");
    }
}
