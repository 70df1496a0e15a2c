//! Compiles encint's CUDA kernels (cuda/linear.cu) when the `gpu` feature is on; does nothing
//! otherwise (the default build needs no CUDA toolchain).
//!
//! With `DOCS_RS=1` or `ENCINT_GPU_CHECK_ONLY` set, the CUDA compile is skipped even with the
//! `gpu` feature: type-checking the GPU backend (`cargo check`/`clippy`/`doc --features gpu`,
//! as CI does) then needs no CUDA toolkit. Such a build cannot link; it is for checks only.

fn main() {
    println!("cargo:rerun-if-changed=cuda/linear.cu");
    println!("cargo:rerun-if-env-changed=CUDACXX");
    println!("cargo:rerun-if-env-changed=ENCINT_CUDA_SM");
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    println!("cargo:rerun-if-env-changed=ENCINT_GPU_CHECK_ONLY");
    if std::env::var_os("CARGO_FEATURE_GPU").is_none() {
        return;
    }
    if std::env::var_os("DOCS_RS").is_some() || std::env::var_os("ENCINT_GPU_CHECK_ONLY").is_some()
    {
        return;
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let nvcc = std::env::var("CUDACXX").unwrap_or_else(|_| "nvcc".into());
    let sm = std::env::var("ENCINT_CUDA_SM").unwrap_or_else(|_| "90".into());
    let lib = out.join("libencint_gpu_kernels.a");
    let status = std::process::Command::new(&nvcc)
        .args(["-O3", "-lib", "-Xcompiler", "-fPIC"])
        .arg(format!(
            "-gencode=arch=compute_{sm},code=[sm_{sm},compute_{sm}]"
        ))
        .arg("-o")
        .arg(&lib)
        .arg("cuda/linear.cu")
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "the `gpu` feature needs nvcc ({nvcc}: {e}); run scripts/cuda-toolchain.sh and \
                 export what it prints"
            )
        });
    assert!(status.success(), "nvcc failed on cuda/linear.cu");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=encint_gpu_kernels");
    println!("cargo:rustc-link-lib=cudart");
}
