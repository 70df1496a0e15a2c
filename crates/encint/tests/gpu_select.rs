//! Backend selection: `--backend`/`Server::with_backend` parse, report a typed error when the
//! GPU backend cannot run here (feature off, no device, or a key of the 32-bit-keyswitch set),
//! and `Server::run_circuit` agrees with the clear executor on the CPU backend (and, on a
//! machine with a usable device, on the GPU backend with a KS64 key).

use encint::{
    BackendKind, ClientKey, Error, GpuError, Server, DEFAULT_PARAMETERS, KS64_PARAMETERS,
};
use encint_core::circuit::Builder;
use encint_core::lut::NegacyclicLut;

#[test]
fn backend_kinds_parse_and_print() {
    for (s, k) in [("cpu", BackendKind::Cpu), ("gpu", BackendKind::Gpu)] {
        assert_eq!(s.parse::<BackendKind>().unwrap(), k);
        assert_eq!(k.to_string(), s);
    }
    assert!(matches!(
        "tpu".parse::<BackendKind>(),
        Err(Error::InvalidInput(m)) if m.contains("tpu")
    ));
    assert_eq!(BackendKind::default(), BackendKind::Cpu);
    assert!(encint::backend::gpu::check_backend(BackendKind::Cpu).is_ok());
}

#[test]
fn the_gpu_backend_is_a_typed_error_where_it_cannot_run() {
    let probe = encint::backend::gpu::probe();
    #[cfg(not(feature = "gpu"))]
    assert_eq!(probe, Err(GpuError::NotBuilt));
    // A key of the default set (32-bit keyswitch): the device keyswitch works on the 64-bit
    // torus, so with a usable device this is `Unsupported`, before anything is uploaded.
    let (_, key32) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let server = Server::new(key32);
    assert_eq!(server.backend(), BackendKind::Cpu);
    match (&probe, server.with_backend(BackendKind::Gpu)) {
        (Err(GpuError::NotBuilt), Err(Error::Gpu(GpuError::NotBuilt)))
            if !cfg!(feature = "gpu") => {}
        (Err(GpuError::NoDevice(_)), Err(Error::Gpu(GpuError::NoDevice(m))))
            if cfg!(feature = "gpu") =>
        {
            assert!(!m.is_empty())
        }
        (Ok(_), Err(Error::Gpu(GpuError::Unsupported(m)))) => {
            assert!(m.contains("KS64_PARAMETERS"), "{m}")
        }
        (p, s) => panic!("probe {p:?} but with_backend {:?}", s.map(|s| s.backend())),
    }
}

/// With the feature and a device: a KS64 key (the GPU backend's) is uploaded and circuits
/// run there, against the clear executor. Reported as ignored in a build without the `gpu`
/// feature; in one with it, on a machine without a device, it says so and checks nothing.
#[test]
#[cfg_attr(
    not(feature = "gpu"),
    ignore = "needs the gpu feature and a CUDA device"
)]
fn circuits_on_the_gpu_backend_agree_with_the_clear_executor() {
    if let Err(e) = encint::backend::gpu::probe() {
        eprintln!("SKIPPED circuits_on_the_gpu_backend_agree_with_the_clear_executor: {e}");
        return;
    }
    let (client, key) = ClientKey::generate(&KS64_PARAMETERS);
    let gpu = Server::new(key).with_backend(BackendKind::Gpu).unwrap();
    assert_eq!(gpu.backend(), BackendKind::Gpu);
    let a = encint::encrypt(&client, 77, 8).unwrap();
    let b = encint::encrypt(&client, -100, 8).unwrap();
    let s = gpu.add(&a, &b).unwrap();
    assert_eq!(encint::decrypt(&client, &s).unwrap(), -23);
    check_against_clear(&client, &gpu);
}

#[test]
fn run_circuit_on_the_cpu_agrees_with_the_clear_executor() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    check_against_clear(&client, &Server::new(key));
}

/// Plain and half-step tables and a linear node through `server.run_circuit`, against the
/// clear executor.
fn check_against_clear(client: &ClientKey, server: &Server) {
    let mut b = Builder::new();
    let x = b.input();
    let y = b.input();
    let t = NegacyclicLut {
        table: [3, -5, 7, 0, 1, -16, 15, 2, 9, -9, 4, -4, 6, 11, -2, 5],
    };
    let h = NegacyclicLut {
        table: [1, -3, 5, 7, -9, 11, 13, -15, 15, 3, -1, 9, -7, -5, 1, 3],
    };
    let tx = b.lut(x, &t);
    let hy = b.half_lut(y, &h).unwrap();
    let s = b.linear(&[(tx, 3), (hy, -4)], 5);
    let out = b.lut(s, &t);
    let circuit = b.finish(vec![tx, hy, s, out]);
    for (vx, vy) in [(0i64, 0i64), (5, -3), (-16, 15), (9, 12)] {
        let dx = client.encrypt_digit(vx);
        let dy = client.encrypt_digit(vy);
        let got = server.run_circuit(&circuit, &[&dx, &dy]).unwrap();
        let (want, _) = encint_core::clear::run(&circuit, &[vx, vy]).unwrap();
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                (client.decrypt_digit(g) - w).rem_euclid(32),
                0,
                "x {vx} y {vy}"
            );
        }
    }
}
