//! Typed values on files: the type names of `--type`, the operations of `eval` on typed
//! ciphertexts, and printing of either kind of value.
//!
//! The operations are the facade's (`encint::fhe`, TFHE-rs 1.8.2 semantics, see its module
//! docs): the `Composer` methods `FheValue` uses too, recorded here through
//! `Server::typed_compose`, which also returns the circuit's cost for the report line.

use encint::fhe::Rhs;
use encint::typed::{EncTyped, IntOp, IntType};
use encint::wire::{ciphertext_kind, CiphertextKind};
use encint::{Cost, Server};

use crate::AnyResult;

/// What `--type` names: the exact integer or a typed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeArg {
    /// `int`: signed binary digits, never wraps.
    Int,
    /// `bool`, `uN`, `iN`.
    Typed(IntType),
}

/// Parses `int`, `bool`, `uN` or `iN` (N from 1 to 128).
pub fn parse_type(s: &str) -> Result<TypeArg, String> {
    let bad = || {
        format!(
            "unknown type `{s}` (expected int, bool, uN or iN with N from 1 to 128, e.g. u8, \
             i32)"
        )
    };
    match s {
        "int" => return Ok(TypeArg::Int),
        "bool" => return Ok(TypeArg::Typed(IntType::BOOL)),
        _ => {}
    }
    let signed = match s.as_bytes().first() {
        Some(b'u') => false,
        Some(b'i') => true,
        _ => return Err(bad()),
    };
    let digits = &s[1..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let bits: usize = digits.parse().map_err(|_| bad())?;
    IntType::new(bits, signed)
        .map(TypeArg::Typed)
        .map_err(|e| format!("type `{s}`: {e}"))
}

/// The name of a typed value's type (`bool` for the one-bit unsigned type).
pub fn type_name(ty: IntType) -> String {
    if ty == IntType::BOOL {
        "bool".into()
    } else {
        ty.to_string()
    }
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
            return Err(format!(
                "{s} is above {}: the library encrypts unsigned values up to i128::MAX",
                i128::MAX
            )
            .into())
        }
        _ => s.trim().parse::<i128>().map_err(|_| {
            format!(
                "`{s}` is not a value of {}: expected a decimal integer{}",
                type_name(ty),
                if ty == IntType::BOOL {
                    " (0, 1), true or false"
                } else {
                    ""
                }
            )
        })?,
    };
    if !ty.contains(v) {
        return Err(format!(
            "{s} is not a value of {} (from {} to {})",
            type_name(ty),
            ty.min(),
            ty.max()
        )
        .into());
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

/// An operation of `eval` on typed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypedOp {
    /// One operand (`not`, `neg`, `square`).
    Unary(IntOp),
    /// Two operands, the second a file or a clear `--scalar`.
    Binary(IntOp),
    /// `|x|`.
    Abs,
    /// `cond ? a : b`, `b` a file or a clear `--scalar`.
    Select,
    /// Conversion to another type (`--to`).
    Cast,
}

/// The typed operations by name, for `--op` and the help.
pub const TYPED_OPS: &[(&str, TypedOp)] = &[
    ("add", TypedOp::Binary(IntOp::WrappingAdd)),
    ("sub", TypedOp::Binary(IntOp::WrappingSub)),
    ("mul", TypedOp::Binary(IntOp::WrappingMul)),
    ("scalar_mul", TypedOp::Binary(IntOp::WrappingMul)),
    ("div", TypedOp::Binary(IntOp::Div)),
    ("rem", TypedOp::Binary(IntOp::Rem)),
    ("and", TypedOp::Binary(IntOp::And)),
    ("or", TypedOp::Binary(IntOp::Or)),
    ("xor", TypedOp::Binary(IntOp::Xor)),
    ("shl", TypedOp::Binary(IntOp::ShlVar)),
    ("shr", TypedOp::Binary(IntOp::ShrVar)),
    ("rotl", TypedOp::Binary(IntOp::RotlVar)),
    ("rotr", TypedOp::Binary(IntOp::RotrVar)),
    ("min", TypedOp::Binary(IntOp::Min)),
    ("max", TypedOp::Binary(IntOp::Max)),
    ("lt", TypedOp::Binary(IntOp::Lt)),
    ("le", TypedOp::Binary(IntOp::Le)),
    ("gt", TypedOp::Binary(IntOp::Gt)),
    ("ge", TypedOp::Binary(IntOp::Ge)),
    ("eq", TypedOp::Binary(IntOp::Eq)),
    ("ne", TypedOp::Binary(IntOp::Ne)),
    ("not", TypedOp::Unary(IntOp::Not)),
    ("neg", TypedOp::Unary(IntOp::WrappingNeg)),
    ("square", TypedOp::Unary(IntOp::WrappingSquare)),
    ("squ", TypedOp::Unary(IntOp::WrappingSquare)),
    ("abs", TypedOp::Abs),
    ("select", TypedOp::Select),
    ("cast", TypedOp::Cast),
];

/// The typed operation `name` names.
pub fn parse_typed_op(name: &str) -> AnyResult<TypedOp> {
    TYPED_OPS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, op)| op)
        .ok_or_else(|| {
            let names: Vec<&str> = TYPED_OPS.iter().map(|(n, _)| *n).collect();
            format!(
                "unknown operation `{name}` on typed values (expected one of: {})",
                names.join(", ")
            )
            .into()
        })
}

impl TypedOp {
    /// Encrypted operands the operation takes with (`true`) or without a clear `--scalar`.
    pub fn files(self, scalar: bool) -> AnyResult<usize> {
        Ok(match (self, scalar) {
            (TypedOp::Unary(_) | TypedOp::Abs | TypedOp::Cast, false) => 1,
            (TypedOp::Binary(_), false) => 2,
            (TypedOp::Binary(_), true) => 1,
            (TypedOp::Select, false) => 3,
            (TypedOp::Select, true) => 2,
            (TypedOp::Unary(_) | TypedOp::Abs | TypedOp::Cast, true) => {
                return Err("this operation takes no `--scalar`".into())
            }
        })
    }
}

fn invalid(msg: String) -> encint::Error {
    encint::Error::InvalidInput(msg)
}

/// Runs `op` on `inputs` (with the clear `scalar`, and the target type `to` of a cast)
/// as one circuit on `server`: the result and the circuit's cost.
pub fn run_typed(
    server: &Server,
    op: TypedOp,
    inputs: &[&EncTyped],
    scalar: Option<i128>,
    to: Option<IntType>,
) -> encint::Result<(EncTyped, Cost)> {
    let (mut outs, cost) = server.typed_compose(inputs, |c, x| {
        let out = match op {
            TypedOp::Unary(op) => c.unary_op(op, &x[0])?,
            TypedOp::Cast => {
                let to = to.ok_or_else(|| invalid("cast needs a target type".into()))?;
                c.unary_op(IntOp::Cast(to), &x[0])?
            }
            TypedOp::Abs => c.abs(&x[0])?,
            TypedOp::Binary(op) => {
                let rhs = match scalar {
                    Some(k) => Rhs::Clear(k),
                    None => Rhs::Value(&x[1]),
                };
                c.binary_op(op, &x[0], rhs)?
            }
            TypedOp::Select => {
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
                c.select(&x[0], Rhs::Value(&x[1]), b, None)?
            }
        };
        Ok(vec![out])
    })?;
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
        for bad in ["u0", "i129", "x8", "u", "u-1", "U8", ""] {
            assert!(parse_type(bad).is_err(), "{bad}");
        }
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
