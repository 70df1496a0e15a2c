//! Compiles encint's CUDA kernels (cuda/linear.cu) when the `gpu` feature is on; does nothing
//! otherwise (the default build needs no CUDA toolchain).

fn main() {
    println!("cargo:rerun-if-changed=cuda/linear.cu");
    println!("cargo:rerun-if-env-changed=CUDACXX");
    println!("cargo:rerun-if-env-changed=ENCINT_CUDA_SM");
    if std::env::var_os("CARGO_FEATURE_GPU").is_none() {
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
