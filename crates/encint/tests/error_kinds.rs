//! Each kind of bad input comes back as its own variant of [`Error`], with the message it
//! has always had: a case whose refusal is known, through the public API, before any key
//! exists (compiled functions traced and run in the clear).

use std::sync::{Arc, Mutex};

use encint::backend::gpu::check_backend;
use encint::fhe::{compile, compile_with, FheArray, FheUint8, FheValue, Values};
use encint::infer::Model;
use encint::typed::IntType;
use encint::{BackendKind, Error, Op, Unsupported};

/// The first error `f` returns while [`compile_with`] traces it on arguments of `layout`.
fn error_in_trace<A>(
    layout: A::Layout,
    f: impl Fn(&A) -> encint::Result<()> + Send + Sync + 'static,
) -> Error
where
    A: Values + 'static,
{
    let seen = Arc::new(Mutex::new(None));
    let keep = Arc::clone(&seen);
    let _ = compile_with(layout, move |a: A| {
        if let Err(e) = f(&a) {
            keep.lock().unwrap().get_or_insert(e);
        }
        a
    });
    let e = seen.lock().unwrap().take();
    e.expect("the traced function met an error")
}

fn u8t() -> IntType {
    IntType::new(8, false).unwrap()
}

#[test]
fn a_clear_zero_divisor_is_division_by_zero() {
    let e = compile(|x: FheUint8| &x / 0u8).map(|_| ()).unwrap_err();
    assert!(matches!(e, Error::DivisionByZero), "{e:?}");
    assert_eq!(e.to_string(), "invalid input: division by the scalar 0");
    let e = error_in_trace((), |x: &FheUint8| x.try_binary(Op::Rem, 0u8).map(drop));
    assert!(matches!(e, Error::DivisionByZero), "{e:?}");
}

#[test]
fn operands_of_two_types_are_a_type_mismatch() {
    let u16t = IntType::new(16, false).unwrap();
    let e = error_in_trace((u8t(), u16t), |(x, y): &(FheValue, FheValue)| {
        x.binary(Op::Add, y).map(drop)
    });
    assert!(matches!(e, Error::TypeMismatch(_)), "{e:?}");
    assert!(e.to_string().starts_with("invalid input: "), "{e}");
}

#[test]
fn arrays_of_two_shapes_are_a_shape_mismatch() {
    let e = error_in_trace(
        (vec![2], vec![3]),
        |(x, y): &(FheArray<FheUint8>, FheArray<FheUint8>)| {
            x.elementwise::<FheUint8>(Op::Add, y).map(drop)
        },
    );
    match e {
        Error::ShapeMismatch(m) => assert_eq!(m, "arrays of shapes [2] and [3]"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_value_outside_its_type_is_out_of_range() {
    let f = compile(|x: FheUint8| x).unwrap();
    match f.run_clear(&[256]) {
        Err(e @ Error::OutOfRange(_)) => assert_eq!(
            e.to_string(),
            "invalid input: argument value 0 (256) is not a value of u8"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_operation_of_another_arity_is_a_wrong_operation() {
    let e = error_in_trace((), |x: &FheUint8| x.try_binary(Op::Neg, 1u8).map(drop));
    assert!(matches!(e, Error::WrongOperation(_)), "{e:?}");
    let e = error_in_trace((), |x: &FheUint8| x.try_compare(Op::Add, 1u8).map(drop));
    assert!(matches!(e, Error::WrongOperation(_)), "{e:?}");
}

#[test]
fn a_value_of_a_finished_trace_is_a_tracing_error() {
    let leak = Arc::new(Mutex::new(None));
    let keep = Arc::clone(&leak);
    compile(move |x: FheUint8| {
        *keep.lock().unwrap() = Some(x.clone());
        x
    })
    .unwrap();
    let x = leak.lock().unwrap().take().unwrap();
    let e = x.try_binary(Op::Add, 1u8).map(drop).unwrap_err();
    assert!(matches!(e, Error::Tracing(_)), "{e:?}");
}

#[test]
fn a_model_of_no_format_is_malformed() {
    let e = Model::from_json("{}").map(drop).unwrap_err();
    assert!(matches!(e, Error::Malformed(_)), "{e:?}");
    assert!(e.to_string().starts_with("invalid input: model: "), "{e}");
}

#[test]
fn one_server_on_the_mpi_backend_is_unsupported() {
    let e = check_backend(BackendKind::Mpi).unwrap_err();
    assert!(
        matches!(e, Error::Unsupported(Unsupported::MpiServer)),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "invalid input: the mpi backend runs a whole job over the ranks of mpirun \
         (encint::backend::mpi, feature `mpi`), not one server's circuits: use cpu or gpu here"
    );
}
