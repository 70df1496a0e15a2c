//! The arithmetic as circuit builders (the `encint-arith` crate through the facade):
//! Parmesan's signed binary digit arithmetic ([`Arith`] on [`SInt`]s, shaped by a
//! [`Config`]), the bit-vector algorithms on the boolean IR ([`bits`]) and the table of
//! operation costs against Parmesan's ([`cost_table`]). The typed operations and their
//! planner are in [`crate::typed`].
//!
//! Nothing here touches a ciphertext: an algorithm records nodes into a
//! [`crate::circuit::Builder`] (or a [`crate::circuit::bits::BitBuilder`]), and the
//! finished circuit runs on any backend.
//!
//! ```
//! use encint::arith::bits::{self, Word};
//! use encint::circuit::bits::{lower, BitBuilder};
//!
//! let mut b = BitBuilder::new();
//! let x = Word::input(&mut b, 8);
//! let y = Word::input(&mut b, 8);
//! let s = bits::add(&mut b, &x, &y);
//! let c = b.finish(s.bits.clone());
//! let mut ins = bits::to_bits(200, 8);
//! ins.extend(bits::to_bits(100, 8));
//! assert_eq!(bits::from_bits(&c.eval(&ins).unwrap()), 44); // 300 mod 256
//! assert!(lower(&c).unwrap().cost().bootstraps > 0);
//! ```

pub use encint_arith::machine;
pub use encint_arith::table::{cost_table, CostRow};
pub use encint_arith::{
    bit_stage, is_word_op, value_of, word_op, word_stage, Arith, Config, Op, Relation, SInt,
};

/// Binary arithmetic on bit vectors ([`bits::Word`]s, least significant bit first) written
/// once on the boolean IR: addition, comparison, shifts, multiplication, division, dot
/// products, and the depth-aware circuits for FV ([`bits::leveled`]).
pub use encint_arith::bits;
