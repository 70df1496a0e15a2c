//! The circuits of typed and exact operations run on plain values: the circuit a server
//! builds for ciphertexts, evaluated digit by digit on the clear executor
//! ([`crate::circuit::clear`]), with its cost. No key is needed; nothing is secret.

use encint_arith::typed::{Form, IntType};
use encint_arith::{Arith, Config, Op, SInt};
use encint_core::circuit::{Builder, Cost};

use super::compose::{Composer, Value};
use crate::server::finish_outputs as finish;
use crate::{Error, Result, DEFAULT_MAX_NODES, DEFAULT_PARAMETERS, MAX_DIGITS};

/// The arithmetic a server on [`DEFAULT_PARAMETERS`] builds with (its noise budget).
fn default_arith() -> Arith {
    Arith::new(Config {
        max_qweight: DEFAULT_PARAMETERS.max_quadratic_weight(),
    })
}

/// Records `f` on typed inputs, given as clear values with their types, into one circuit
/// and runs it on the clear executor: the results (each a value of its type, as
/// [`decrypt_typed`](crate::typed::decrypt_typed) reads it) and the circuit's cost.
///
/// The circuit is the one [`Server::typed_compose`](crate::Server::typed_compose) builds
/// and runs on ciphertexts freshly encrypted under [`DEFAULT_PARAMETERS`] by a server of
/// `threads` threads (the planner's choices depend on the thread count), so the results,
/// the bootstrap count and the depth are those of the encrypted run. Errors on a value
/// outside its type ([`Error::OutOfRange`]), on a circuit over the default size limits
/// ([`Error::LimitExceeded`]) and with the first error `f` returns.
///
/// ```
/// use encint::fhe::compose_clear;
/// use encint::typed::{IntType, Op};
///
/// let u8t = IntType::new(8, false).unwrap();
/// // (a + b) * 3 on u8, as one circuit, without keys.
/// let (out, cost) = compose_clear(&[(u8t, 200), (u8t, 100)], 2, |c, x| {
///     let s = c.apply(Op::Add, &[&x[0], &x[1]])?;
///     let three = c.constant(u8t, 3);
///     Ok(vec![c.apply(Op::Mul, &[&s, &three])?])
/// })?;
/// assert_eq!(out, vec![(300 * 3) % 256]);
/// assert!(cost.bootstraps > 0);
/// # Ok::<(), encint::Error>(())
/// ```
pub fn compose_clear(
    inputs: &[(IntType, i128)],
    threads: usize,
    f: impl FnOnce(&mut Composer<'_>, &[Value]) -> Result<Vec<Value>>,
) -> Result<(Vec<i128>, Cost)> {
    if threads == 0 {
        return Err(Error::InvalidInput("a planner of 0 threads".into()));
    }
    let mut b = Builder::new();
    b.set_threads(threads);
    let mut digits = Vec::new();
    let mut values = Vec::with_capacity(inputs.len());
    for (position, &(ty, v)) in inputs.iter().enumerate() {
        if !ty.contains(v) {
            return Err(Error::OutOfRange(format!(
                "input {position} ({v}) is not a value of {ty}"
            )));
        }
        digits.extend(Form::Canonical.encode(ty, v));
        let x = SInt::input(&mut b, Form::Canonical.digits(ty));
        values.push(Value::new(x, ty, Form::Canonical));
    }
    let ar = default_arith();
    let outs = {
        let mut composer = Composer::new(&ar, &mut b, threads);
        f(&mut composer, &values)?
    };
    let sints: Vec<&SInt> = outs.iter().map(|v| v.digits()).collect();
    let (circuit, lens) = finish(b, &sints)?;
    let (out, cost) = encint_core::clear::run(&circuit, &digits)?;
    let mut it = out.into_iter();
    let results = outs
        .iter()
        .zip(lens)
        .map(|(v, n)| {
            let d: Vec<i64> = it.by_ref().take(n).collect();
            crate::typed::typed_value(&d, v.ty(), v.form())
        })
        .collect::<Result<Vec<i128>>>()?;
    Ok((results, cost))
}

/// Runs one operation of the exact integers on clear operands, each given as its value and
/// its digit count (`|value| < 2^digits`), through the circuit
/// [`Server::apply`](crate::Server::apply) runs on ciphertexts of those lengths (on
/// [`DEFAULT_PARAMETERS`]), on the clear executor: the exact result and the circuit's cost.
///
/// Errors as [`Server::apply`](crate::Server::apply) does on an operation or operand count
/// the exact integers do not take, or on sizes over the limits; on a value that does not
/// fit its digits ([`Error::OutOfRange`]); on a result outside `i128`
/// ([`Error::LimitExceeded`]).
///
/// ```
/// use encint::fhe::apply_clear;
/// use encint::Op;
///
/// let (p, cost) = apply_clear(Op::Mul, &[(-1234, 12), (567, 12)])?;
/// assert_eq!(p, -1234 * 567);
/// assert!(cost.bootstraps > 0);
/// # Ok::<(), encint::Error>(())
/// ```
pub fn apply_clear(op: Op, inputs: &[(i128, usize)]) -> Result<(i128, Cost)> {
    op.check_exact(inputs.len()).map_err(Error::from)?;
    let mut b = Builder::new();
    let mut digits = Vec::new();
    let mut ins = Vec::with_capacity(inputs.len());
    for (position, &(v, n)) in inputs.iter().enumerate() {
        if n == 0 || n > MAX_DIGITS {
            return Err(Error::TypeMismatch(format!(
                "input {position} of {n} digits: from 1 to {MAX_DIGITS} allowed"
            )));
        }
        let d = encint_core::signed::from_i128_len(v, n).map_err(|_| {
            Error::OutOfRange(format!("input {position} ({v}) does not fit {n} digits"))
        })?;
        digits.extend(d.iter().map(|&x| i64::from(x)));
        ins.push(SInt::input(&mut b, n));
    }
    let widths: Vec<usize> = inputs.iter().map(|&(_, n)| n).collect();
    let est = crate::limits::op_on(op, &widths);
    if est.width > MAX_DIGITS as u64 {
        return Err(Error::LimitExceeded(format!(
            "{op:?} on {widths:?} digits: an output of up to {} digits, more than the \
             {MAX_DIGITS} allowed",
            est.width
        )));
    }
    if est.nodes > DEFAULT_MAX_NODES {
        return Err(Error::LimitExceeded(format!(
            "{op:?} on {widths:?} digits: {} circuit nodes, more than the \
             {DEFAULT_MAX_NODES} allowed",
            est.nodes
        )));
    }
    let out = default_arith().apply(&mut b, op, &ins)?;
    let (circuit, _) = finish(b, &[&out])?;
    let (out, cost) = encint_core::clear::run(&circuit, &digits)?;
    let value = encint_arith::value_of(&out)
        .ok_or_else(|| Error::LimitExceeded("a result outside i128".into()))?;
    Ok((value, cost))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u8t() -> IntType {
        IntType::new(8, false).unwrap()
    }

    #[test]
    fn typed_results_are_the_wrapped_values() {
        let i16t = IntType::new(16, true).unwrap();
        let (out, cost) = compose_clear(&[(i16t, -300), (i16t, 7)], 2, |c, x| {
            let q = c.apply(Op::Div, &[&x[0], &x[1]])?;
            let p = c.apply(Op::Mul, &[&x[0], &x[0]])?;
            let lt = c.apply(Op::LT, &[&x[0], &x[1]])?;
            Ok(vec![q, p, lt])
        })
        .unwrap();
        assert_eq!(out, vec![-42, i128::from((-300i16).wrapping_mul(-300)), 1]);
        assert!(cost.bootstraps > 0 && cost.depth > 0);
    }

    #[test]
    fn bad_typed_inputs_are_errors() {
        let none = |_: &mut Composer<'_>, x: &[Value]| Ok(x.to_vec());
        assert!(matches!(
            compose_clear(&[(u8t(), 256)], 2, none),
            Err(Error::OutOfRange(_))
        ));
        assert!(matches!(
            compose_clear(&[(u8t(), 1)], 0, none),
            Err(Error::InvalidInput(_))
        ));
        // The function's own error comes back.
        let refuse = |_: &mut Composer<'_>, _: &[Value]| -> Result<Vec<Value>> {
            Err(Error::InvalidInput("refused".into()))
        };
        assert!(matches!(
            compose_clear(&[(u8t(), 1)], 2, refuse),
            Err(Error::InvalidInput(m)) if m == "refused"
        ));
    }

    #[test]
    fn exact_results_never_wrap() {
        let big = (1i128 << 60) + 12345;
        assert_eq!(
            apply_clear(Op::Mul, &[(big, 62), (-big, 62)]).unwrap().0,
            -big * big
        );
        assert_eq!(apply_clear(Op::Neg, &[(-5, 4)]).unwrap().0, 5);
        assert_eq!(
            apply_clear(Op::ScalarMul(-805), &[(77, 8)]).unwrap().0,
            -805 * 77
        );
    }

    #[test]
    fn bad_exact_inputs_are_errors() {
        // 16 does not fit 4 digits (|v| < 2^4).
        assert!(matches!(
            apply_clear(Op::Add, &[(16, 4), (1, 4)]),
            Err(Error::OutOfRange(_))
        ));
        assert!(apply_clear(Op::Add, &[(1, 4)]).is_err());
        assert!(apply_clear(Op::RotlVar, &[(1, 4), (1, 4)]).is_err());
        assert!(matches!(
            apply_clear(Op::Add, &[(1, 0), (1, 4)]),
            Err(Error::TypeMismatch(_))
        ));
        assert!(matches!(
            apply_clear(Op::Mul, &[(1, MAX_DIGITS), (1, MAX_DIGITS)]),
            Err(Error::LimitExceeded(_))
        ));
        // A result past i128 is a typed error, not a wrong value.
        let big = i128::MAX / 2;
        assert!(matches!(
            apply_clear(Op::Mul, &[(big, 127), (big, 127)]),
            Err(Error::LimitExceeded(_))
        ));
    }
}
