//! Comparisons as boolean circuits for `FvWord` (the exact integers' bit operators are the
//! library's: `Arith::apply`; the typed family's are the facade's).

use encint::arith::bits::Word;
use encint::circuit::bits::{Bit, BitBuilder};
use encint::Relation;

/// The bit of the comparison `rel`, built from a strict less-than and an equality circuit.
pub fn compare_bit(
    bb: &mut BitBuilder,
    rel: Relation,
    x: &Word,
    y: &Word,
    lt: impl Fn(&mut BitBuilder, &Word, &Word) -> Bit,
    eq: impl Fn(&mut BitBuilder, &Word, &Word) -> Bit,
) -> Bit {
    let (base, negate) = match rel {
        Relation::Lt => (lt(bb, x, y), false),
        Relation::Gt => (lt(bb, y, x), false),
        Relation::Le => (lt(bb, y, x), true),
        Relation::Ge => (lt(bb, x, y), true),
        Relation::Eq => (eq(bb, x, y), false),
        Relation::Ne => (eq(bb, x, y), true),
    };
    if negate {
        bb.not(base)
    } else {
        base
    }
}
