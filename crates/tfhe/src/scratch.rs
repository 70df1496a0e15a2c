//! Per-thread scratch memory of blind rotations (FFT plan, computation buffers, keyswitch
//! outputs, accumulator), allocated on a thread's first bootstrap and reused afterwards.

use std::cell::RefCell;

use tfhe::core_crypto::prelude::*;

use crate::params::DigitParameters;

/// Per-thread scratch memory of a blind rotation (plain bootstraps and both tree levels),
/// reused across calls.
pub(crate) struct Scratch {
    /// `(n, N, k + 1)` this scratch was sized for.
    shape: (LweDimension, PolynomialSize, GlweSize),
    pub(crate) fft: Fft,
    pub(crate) buffers: ComputationBuffers,
    /// The keyswitch output of a 64-bit keyswitch ([`crate::Keyswitch::Native64`]).
    pub(crate) small: LweCiphertextOwned<u64>,
    /// The keyswitch output of a 32-bit keyswitch ([`crate::Keyswitch::Native32`]).
    pub(crate) small32: LweCiphertextOwned<u32>,
    pub(crate) acc: GlweCiphertextOwned<u64>,
}

impl Scratch {
    fn new(p: &DigitParameters) -> Scratch {
        let glwe_size = p.glwe_dimension.to_glwe_size();
        let fft = Fft::new(p.polynomial_size);
        let mut buffers = ComputationBuffers::new();
        buffers.resize(
            blind_rotate_assign_mem_optimized_requirement::<u64>(
                glwe_size,
                p.polynomial_size,
                fft.as_view(),
            )
            .unaligned_bytes_required(),
        );
        Scratch {
            shape: Self::shape(p),
            fft,
            buffers,
            small: LweCiphertext::new(0, p.lwe_dimension.to_lwe_size(), p.ciphertext_modulus),
            small32: LweCiphertext::new(
                0,
                p.lwe_dimension.to_lwe_size(),
                CiphertextModulus::new_native(),
            ),
            acc: GlweCiphertext::new(0, glwe_size, p.polynomial_size, p.ciphertext_modulus),
        }
    }

    fn shape(p: &DigitParameters) -> (LweDimension, PolynomialSize, GlweSize) {
        (
            p.lwe_dimension,
            p.polynomial_size,
            p.glwe_dimension.to_glwe_size(),
        )
    }
}

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

/// Run `f` with this thread's scratch. `f` must not call back into rayon (another job stolen
/// by this thread would find the scratch borrowed).
pub(crate) fn with_scratch<R>(p: &DigitParameters, f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().map(|s| s.shape) != Some(Scratch::shape(p)) {
            *slot = Some(Scratch::new(p));
        }
        f(slot.as_mut().expect("scratch was just initialized"))
    })
}
