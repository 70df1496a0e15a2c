//! Key buffers on transparent huge pages.
//!
//! Every bootstrap streams the whole keyswitching key (30 MB with
//! [`crate::DEFAULT_PARAMETERS`], 60 MB with [`crate::KS64_PARAMETERS`]) and the Fourier
//! bootstrapping key (60 MB) through the cache: with 4 KiB pages that walk touches about
//! 20 000 pages, each a TLB miss, per bootstrap. On 2 MiB pages it touches about 45. Linux
//! backs anonymous memory with huge pages only where the program asks (the usual
//! `transparent_hugepage=madvise` setting), so the key constructors ask for them:
//! [`prefer_huge_pages`]. The gain per keyswitch + bootstrap is measured by
//! `cargo run --release -p encint-cli --example pbs_vs_tfhe` with and without them.

// Unsafe code: madvise and mallopt calls into the C library.
#![allow(unsafe_code)]

/// Asks the kernel to back the 2 MiB-aligned part of `data` with huge pages, at once
/// (`MADV_HUGEPAGE`, then `MADV_COLLAPSE`, which moves the already written contents). Best
/// effort: where the kernel has no transparent huge pages, or on other systems, nothing
/// happens. Contents are unchanged either way.
pub(crate) fn prefer_huge_pages<T>(data: &[T]) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const HUGE: usize = 2 << 20;
        let start = data.as_ptr() as usize;
        let end = start + std::mem::size_of_val(data);
        let (a, b) = (start.div_ceil(HUGE) * HUGE, end / HUGE * HUGE);
        if b > a {
            for advice in [libc::MADV_HUGEPAGE, libc::MADV_COLLAPSE] {
                // SAFETY: `[a, b)` lies inside the live allocation behind `data`, and neither
                // advice changes the contents of the range (a collapse copies them into the
                // huge page); the return value is ignored on purpose (best effort).
                unsafe {
                    libc::madvise(a as *mut libc::c_void, b - a, advice);
                }
            }
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = data;
}

/// Keeps freed heap memory in the process for reuse instead of handing it back to the
/// kernel after every operation (glibc's allocator; elsewhere nothing happens).
///
/// An operation on encrypted integers allocates a few MiB of ciphertexts (a 64-bit
/// value's 64 digits are 1 MiB) and frees them when it ends. By default glibc trims the
/// top of the heap whenever more than 128 KiB of it is free, so the next operation faults
/// the same pages in again, a visible share of an operation that bootstraps little (a
/// 64-bit `not` bootstraps nothing).
/// This sets the trim threshold to 64 MiB and, since setting it turns off glibc's
/// adaptive threshold for serving allocations by `mmap`, fixes that one at 4 MiB (the
/// keys, tens of MiB each, are still mapped on their own). Process-wide: for programs
/// (the `encint` CLI calls it first thing), not for libraries loaded into someone else's
/// process.
pub fn retain_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes allocator tunables; both values are in range.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}
