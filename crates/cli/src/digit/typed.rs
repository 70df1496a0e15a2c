//! Typed values on files: the type names of `--type`, the operations of `eval` on typed
//! ciphertexts, and printing of either kind of value.
//!
//! The operations are the facade's (`encint::fhe`, TFHE-rs 1.8.2 semantics, see its module
//! docs): the `Composer` methods `FheValue` uses too, recorded here through
//! `Server::typed_compose`, which also returns the circuit's cost for the report line.

use encint::fhe::{Composer, Rhs, Value};
use encint::io::wire::{ciphertext_kind, CiphertextKind};
use encint::typed::{EncTyped, IntType, Op, TypedError};
use encint::{Cost, Server};

use crate::error::usage;
use crate::AnyResult;

/// What `--type` names: the exact integer or a typed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeArg {
    /// `int`: signed binary digits, never wraps.
    Int,
    /// `bool`, `uN`, `iN`.
    Typed(IntType),
}

/// Parses `int` (the exact integer), or `bool`, `uN` or `iN` with N from 1 to 128 as the
/// facade's [`IntType::parse`] reads them: `u1` is refused (the one-bit unsigned type is
/// `bool`, whose casts give `x != 0`).
pub fn parse_type(s: &str) -> Result<TypeArg, String> {
    if s == "int" {
        return Ok(TypeArg::Int);
    }
    IntType::parse(s).map(TypeArg::Typed).map_err(|e| match e {
        TypedError::Width(_) => format!("type `{s}`: {e}"),
        e => format!("{e}; or int, the exact integer"),
    })
}

/// The name of a typed value's type (`bool` for the one-bit unsigned type).
pub fn type_name(ty: IntType) -> String {
    ty.to_string()
}

/// Parses a clear value of `ty`: a decimal integer in the type's range (`true`/`false`
/// too for `bool`).
pub fn parse_value(s: &str, ty: IntType) -> AnyResult<i128> {
    let v = match (ty == IntType::BOOL, s) {
        (true, "true") => 1,
        (true, "false") => 0,
        _ if !ty.signed
            && s.trim().parse::<i128>().is_err()
            && s.trim().parse::<u128>().is_ok() =>
        {
            return Err(usage(format!(
                "{s} is above {}: the library encrypts unsigned values up to i128::MAX",
                i128::MAX
            )))
        }
        _ => s.trim().parse::<i128>().map_err(|_| {
            usage(format!(
                "`{s}` is not a value of {}: expected a decimal integer{}",
                type_name(ty),
                if ty == IntType::BOOL {
                    " (0, 1), true or false"
                } else {
                    ""
                }
            ))
        })?,
    };
    if !ty.contains(v) {
        return Err(usage(format!(
            "{s} is not a value of {} (from {} to {})",
            type_name(ty),
            ty.min(),
            ty.max()
        )));
    }
    Ok(v)
}

/// A decrypted typed value as text: `true`/`false` for `bool`, an unsigned 128-bit value
/// above `i128::MAX` as unsigned.
pub fn format_value(v: i128, ty: IntType) -> String {
    if ty == IntType::BOOL {
        return (v != 0).to_string();
    }
    if !ty.signed && v < 0 {
        return (v as u128).to_string();
    }
    v.to_string()
}

/// The kind of value in a ciphertext file's bytes (bit vectors of earlier releases are
/// read as typed values).
pub fn file_kind(bytes: &[u8]) -> CiphertextKind {
    match ciphertext_kind(bytes) {
        Some(CiphertextKind::Bits) => CiphertextKind::Typed,
        Some(k) => k,
        // Not a ciphertext envelope: the exact reader names the problem.
        None => CiphertextKind::Int,
    }
}

/// The names `eval --op` takes on typed values (shifts and rotations by a file or by a
/// clear `--scalar`; `cast` with `--to`).
pub const TYPED_OP_NAMES: &[&str] = &[
    "add",
    "sub",
    "mul",
    "scalar_mul",
    "div",
    "rem",
    "and",
    "or",
    "xor",
    "shl",
    "shr",
    "rotl",
    "rotr",
    "min",
    "max",
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "ne",
    "not",
    "neg",
    "square",
    "squ",
    "abs",
    "select",
    "cast",
    "count_ones",
    "count_zeros",
    "leading_zeros",
    "leading_ones",
    "trailing_zeros",
    "trailing_ones",
    "ilog2",
    "reverse_bits",
];

/// The typed operation `name` names; `to` is a cast's target type.
pub fn parse_typed_op(name: &str, to: Option<IntType>) -> AnyResult<Op> {
    let unknown = || {
        format!(
            "unknown operation `{name}` on typed values (expected one of: {})",
            TYPED_OP_NAMES.join(", ")
        )
    };
    if !TYPED_OP_NAMES.contains(&name) {
        return Err(usage(unknown()));
    }
    Ok(match (name, to) {
        ("cast", Some(t)) => Op::Cast(t),
        ("cast", None) => return Err(usage("`--op cast` needs `--to TYPE` (uN, iN or bool)")),
        // The factor is the `--scalar`, folded by the composer.
        ("scalar_mul", _) => Op::Mul,
        _ => Op::parse(name, None).map_err(|_| usage(unknown()))?,
    })
}

/// Encrypted operands `op` takes with (`true`) or without a clear `--scalar` (which
/// replaces the last operand of a two- or three-operand operation).
pub fn typed_files(op: Op, scalar: bool) -> AnyResult<usize> {
    match (op.arity(), scalar) {
        (1, true) => Err(usage("this operation takes no `--scalar`")),
        (n, true) => Ok(n - 1),
        (n, false) => Ok(n),
    }
}

fn invalid(msg: String) -> encint::Error {
    encint::Error::InvalidInput(msg)
}

/// Records `op` on the circuit values `x` (with the clear `scalar` in place of the last
/// operand) into `c`: the one recipe of `eval`, encrypted or clear.
pub fn record_typed(
    c: &mut Composer<'_>,
    op: Op,
    x: &[Value],
    scalar: Option<i128>,
) -> encint::Result<Value> {
    let want = op.arity() - usize::from(scalar.is_some() && op.arity() > 1);
    if x.len() != want {
        return Err(invalid(format!(
            "`{}` takes {want} operand(s), got {}",
            op.name(),
            x.len()
        )));
    }
    match op {
        Op::Select => {
            if x[0].ty() != IntType::BOOL {
                return Err(invalid(format!(
                    "select: a condition of type {}, not bool",
                    type_name(x[0].ty())
                )));
            }
            let b = match scalar {
                Some(k) => Rhs::Clear(k),
                None => Rhs::Value(&x[2]),
            };
            c.select(&x[0], Rhs::Value(&x[1]), b, None)
        }
        op if op.arity() == 1 => c.unary_op(op, &x[0]),
        op => {
            let rhs = match scalar {
                Some(k) => Rhs::Clear(k),
                None => Rhs::Value(&x[1]),
            };
            c.binary_op(op, &x[0], rhs)
        }
    }
}

/// Runs `op` on `inputs` (with the clear `scalar`) as one circuit on `server`: the result and the circuit's cost.
pub fn run_typed(
    server: &Server,
    op: Op,
    inputs: &[&EncTyped],
    scalar: Option<i128>,
) -> encint::Result<(EncTyped, Cost)> {
    let (mut outs, cost) =
        server.typed_compose(inputs, |c, x| Ok(vec![record_typed(c, op, x, scalar)?]))?;
    let out = outs
        .pop()
        .ok_or_else(|| invalid("the operation built no output".into()))?;
    Ok((out, cost))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_parse_and_print() {
        assert_eq!(parse_type("int"), Ok(TypeArg::Int));
        assert_eq!(parse_type("bool"), Ok(TypeArg::Typed(IntType::BOOL)));
        let i32t = IntType::new(32, true).unwrap();
        assert_eq!(parse_type("i32"), Ok(TypeArg::Typed(i32t)));
        assert_eq!(type_name(i32t), "i32");
        assert_eq!(type_name(IntType::BOOL), "bool");
        for bad in [
            "u0",
            "i129",
            "x8",
            "u",
            "u-1",
            "U8",
            "",
            "u+8",
            "u99999999999999999999",
        ] {
            assert!(parse_type(bad).is_err(), "{bad}");
        }
        // The one-bit unsigned type is the boolean: its name is `bool`, never `u1`.
        let err = parse_type("u1").unwrap_err();
        assert!(err.contains("`bool`"), "{err}");
        assert_eq!(
            parse_type("i1"),
            Ok(TypeArg::Typed(IntType::new(1, true).unwrap()))
        );
    }

    #[test]
    fn values_are_checked_against_the_type() {
        let u8t = IntType::new(8, false).unwrap();
        let i8t = IntType::new(8, true).unwrap();
        assert_eq!(parse_value("255", u8t).unwrap(), i128::from(u8::MAX));
        assert!(parse_value("256", u8t).is_err());
        assert!(parse_value("-1", u8t).is_err());
        assert_eq!(parse_value("-128", i8t).unwrap(), i128::from(i8::MIN));
        assert!(parse_value("128", i8t).is_err());
        assert_eq!(parse_value("true", IntType::BOOL).unwrap(), 1);
        assert!(parse_value("2", IntType::BOOL).is_err());
        let u128t = IntType::new(128, false).unwrap();
        assert_eq!(format_value(-1, u128t), u128::MAX.to_string());
        let err = parse_value(&u128::MAX.to_string(), u128t).unwrap_err();
        assert!(err.to_string().contains("i128::MAX"), "{err}");
        assert_eq!(format_value(1, IntType::BOOL), "true");
    }
}
