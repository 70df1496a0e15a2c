//! Bit-sliced integers on FV (`encint::fv_bits`; Chen, Feng, Liu and Wu, "Faster Binary
//! Arithmetic Operations on Encrypted Integers"): `FvBitsKeys` encrypts a list
//! of up to `slots` integers of one width as an `FvWord` (ciphertext `i` holds bit `i` of
//! every integer), and `FvWord` operators run boolean circuits on all slots at once.
//! Each operator is one circuit run by the server key (`FvBitsServerKey::eval`); the
//! keys' parameter set bounds the multiplicative depth a chain of operations may use
//! (`NoiseBudgetError` before any product when a circuit would exceed it).

use std::sync::Arc;

use encint::arith::bits::{self as ops, leveled, leveled::Adder, Word};
use encint::circuit::bits::BitBuilder;
use encint::fv_bits::{FvBitSet, FvBitsClientKey, FvBitsServerKey, FvWord as RWord};
use encint::Op;
use num_bigint::BigInt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::circuits::compare_bit;
use crate::errors::{fv_bits_err, invalid};
use crate::guard::detached;
use crate::methods::{py_methods, Operands, Operators, Select};

/// Keys of bit-sliced FV integers (secret: keep them on the client side). `set` names
/// a 128-bit parameter set: `"128-8192"` (default; usable depth 4), `"128-16384"` (11)
/// or `"128-32768"` (25): the depth bounds how many dependent operations a value can go
/// through (an 8-bit addition uses about 5 levels, a product more).
#[pyclass(module = "encint._encint", frozen)]
pub struct FvBitsKeys {
    client: FvBitsClientKey,
    server: Arc<FvBitsServerKey>,
}

/// A vector of up to `slots` encrypted integers of one width (1..=64 bits), unsigned or
/// two's complement, bit-sliced on FV. Operators (slot-wise, wrapping): `+ - * & | ^`,
/// `// %` (unsigned words only), comparisons `< <= > >= == !=` (a 1-bit unsigned word of
/// 0/1 per slot) and `select(cond, a, b)`; operands are `FvWord`s of the same keys,
/// width, signedness and length.
#[pyclass(module = "encint._encint", frozen)]
pub struct FvWord {
    word: RWord,
    server: Arc<FvBitsServerKey>,
}

impl FvBitsKeys {
    /// The client key and the server key.
    pub(crate) fn parts(&self) -> (&FvBitsClientKey, &Arc<FvBitsServerKey>) {
        (&self.client, &self.server)
    }
}

py_methods! {
    impl FvBitsKeys {
        getters(this) {
            /// Slots per word (the ring degree).
            slots: usize = this.client.set().slots();
            /// The parameter set's name.
            set: String = this.client.set().name().to_string();
            /// Multiplicative depth a value may use in all (fresh encryptions use none).
            usable_depth: u32 = this.client.set().usable_depth;
        }

        #[new]
        #[pyo3(signature = (set = "128-8192"))]
        fn new(py: Python<'_>, set: &str) -> PyResult<FvBitsKeys> {
            let set = FvBitSet::by_name(set).map_err(fv_bits_err)?;
            let (client, server) = crate::progress::one_step(py, "generating FV keys", || {
                FvBitsClientKey::generate(&set).map_err(fv_bits_err)
            })?;
            Ok(FvBitsKeys {
                client,
                server: Arc::new(server),
            })
        }

        /// Encrypts 1..=`slots` Python ints as one word of `width` bits (1..=64), unsigned
        /// (`0 <= v < 2**width`) or two's complement (`signed=True`).
        #[pyo3(signature = (values, width, signed = false))]
        fn encrypt(
            &self,
            py: Python<'_>,
            values: Vec<BigInt>,
            width: usize,
            signed: bool,
        ) -> PyResult<FvWord> {
            let raw: Vec<u64> = values
                .iter()
                .map(|v| {
                    if signed {
                        i64::try_from(v).map(|s| s as u64)
                    } else {
                        u64::try_from(v)
                    }
                    .map_err(|_| {
                        invalid(format!(
                            "{v} does not fit {width} {} bits",
                            if signed { "signed" } else { "unsigned" }
                        ))
                    })
                })
                .collect::<PyResult<_>>()?;
            let word = detached(py, || {
                self.client
                    .encrypt(&raw, width, signed)
                    .map_err(fv_bits_err)
            })?;
            Ok(FvWord {
                word,
                server: self.server.clone(),
            })
        }

        /// Decrypts a word to a list of Python ints (two's complement read for signed words).
        fn decrypt(&self, py: Python<'_>, word: &FvWord) -> PyResult<Vec<i128>> {
            let w = &word.word;
            detached(py, || {
                if w.is_signed() {
                    self.client
                        .decrypt_signed(w)
                        .map(|v| v.into_iter().map(i128::from).collect())
                } else {
                    self.client
                        .decrypt(w)
                        .map(|v| v.into_iter().map(i128::from).collect())
                }
                .map_err(fv_bits_err)
            })
        }

        /// The smallest noise budget (bits) left in a word's ciphertexts (a diagnosis tool:
        /// it needs the secret key; 0 means the word no longer decrypts).
        fn noise_budget(&self, py: Python<'_>, word: &FvWord) -> PyResult<f64> {
            detached(py, || {
                self.client.noise_budget(&word.word).map_err(fv_bits_err)
            })
        }

        fn __repr__(&self) -> String {
            format!("FvBitsKeys(set={})", self.set())
        }
    }
}

impl FvWord {
    /// Runs `f` on `self` and `other` (same keys, width, signedness) as one circuit;
    /// `signed` is the result's signedness (`None`: the operands').
    fn binary(
        &self,
        py: Python<'_>,
        other: PyObject,
        signed: Option<bool>,
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word + Send,
    ) -> PyResult<PyObject> {
        let Ok(o) = other.bind(py).downcast::<FvWord>() else {
            return Ok(py.NotImplemented());
        };
        let (a, b) = (&self.word, &o.get().word);
        if a.width() != b.width() || a.is_signed() != b.is_signed() {
            return Err(invalid(format!(
                "operands differ: {} vs {}",
                self.describe(),
                o.get().describe()
            )));
        }
        let s = signed.unwrap_or(a.is_signed());
        let server = &self.server;
        let mut out = detached(py, || {
            server
                .eval(&[a, b], |bb, w| vec![(f(bb, &w[0], &w[1]), s)])
                .map(|r| r.0)
                .map_err(fv_bits_err)
        })?;
        let word = out.pop().ok_or_else(|| invalid("no result"))?;
        Ok(Py::new(
            py,
            FvWord {
                word,
                server: self.server.clone(),
            },
        )?
        .into_any())
    }

    /// `//` or `%` (`rem`), on unsigned words only.
    fn division(&self, py: Python<'_>, other: PyObject, rem: bool) -> PyResult<PyObject> {
        if self.word.is_signed() {
            return Err(invalid(
                "division of signed words is not implemented on FV (unsigned only)",
            ));
        }
        self.binary(py, other, None, move |bb, x, y| {
            let (q, r) = leveled::div_rem_unsigned(bb, x, y);
            if rem {
                r
            } else {
                q
            }
        })
    }

    fn describe(&self) -> String {
        format!(
            "{} {}-bit integers ({})",
            self.word.len(),
            self.word.width(),
            if self.word.is_signed() {
                "signed"
            } else {
                "unsigned"
            }
        )
    }
}

py_methods! {
    impl FvWord {
        getters(this) {
            /// Width in bits.
            width: usize = this.word.width();
            /// Whether the integers are two's complement.
            signed: bool = this.word.is_signed();
            /// Multiplicative depth used so far.
            level: u32 = this.word.level();
        }

        forward_operators;

        /// Number of integers held.
        fn __len__(&self) -> usize {
            self.word.len()
        }

        fn __repr__(&self) -> String {
            format!("FvWord(<{}, level {}>)", self.describe(), self.word.level())
        }

        fn __bool__(&self) -> PyResult<bool> {
            Err(PyTypeError::new_err(
                "an encrypted value has no truth value: decrypt it, or use encint.select",
            ))
        }
    }
}

impl Operands for FvWord {
    /// Any object: `binary` checks it (after `division` has refused signed words).
    type Operand = PyObject;

    fn operand(&self, o: &Bound<'_, PyAny>) -> PyResult<Option<PyObject>> {
        Ok(Some(o.clone().unbind()))
    }
}

impl Operators for FvWord {
    fn arith(&self, py: Python<'_>, o: PyObject, op: Op, _swap: bool) -> PyResult<PyObject> {
        let f: fn(&mut BitBuilder, &Word, &Word) -> Word = match op {
            Op::Add => |bb, x, y| leveled::add_sklansky(bb, x, y, None),
            Op::Sub => |bb, x, y| leveled::sub(bb, Adder::Sklansky, x, y),
            Op::Mul => |bb, x, y| leveled::mul(bb, Adder::Sklansky, x, y),
            _ => return Ok(py.NotImplemented()),
        };
        self.binary(py, o, None, f)
    }

    fn bitwise(&self, py: Python<'_>, o: PyObject, op: Op, _swap: bool) -> PyResult<PyObject> {
        let f: fn(&mut BitBuilder, &Word, &Word) -> Word = match op {
            Op::FloorDiv | Op::Mod => return self.division(py, o, op == Op::Mod),
            Op::And => ops::and,
            Op::Or => ops::or,
            Op::Xor => ops::xor,
            _ => return Ok(py.NotImplemented()),
        };
        self.binary(py, o, None, f)
    }

    /// A 1-bit unsigned word.
    fn compare(&self, py: Python<'_>, o: PyObject, c: Op) -> PyResult<PyObject> {
        let Op::Cmp(c) = c else {
            return Ok(py.NotImplemented());
        };
        let signed = self.word.is_signed();
        self.binary(py, o, Some(false), move |bb, x, y| {
            let lt = |bb: &mut BitBuilder, p: &Word, q: &Word| {
                if signed {
                    leveled::lt_signed(bb, p, q)
                } else {
                    leveled::lt_unsigned(bb, p, q)
                }
            };
            Word {
                bits: vec![compare_bit(bb, c, x, y, lt, leveled::eq)],
            }
        })
    }
}

/// Slot by slot, `a` where the 1-bit condition is 1, else `b` (both `FvWord`s).
impl Select for FvWord {
    fn select(&self, py: Python<'_>, [a, b]: [&Bound<'_, PyAny>; 2]) -> PyResult<PyObject> {
        let (Ok(a), Ok(b)) = (a.downcast::<FvWord>(), b.downcast::<FvWord>()) else {
            return Err(PyTypeError::new_err(
                "select with an FvWord condition needs FvWord operands",
            ));
        };
        let (server, c) = (&self.server, &self.word);
        let (a, b) = (&a.get().word, &b.get().word);
        let word = detached(py, || server.select(c, a, b).map_err(fv_bits_err))?;
        let r = FvWord {
            word,
            server: self.server.clone(),
        };
        Ok(Py::new(py, r)?.into_any())
    }
}

/// Adds `FvBitsKeys` and `FvWord` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FvBitsKeys>()?;
    m.add_class::<FvWord>()?;
    Ok(())
}
