//! Backend selection: `--backend`/`Server::with_backend` parse, report a typed error when the
//! GPU backend cannot run here (feature off, or no device), and `Server::run_circuit` on the CPU
//! backend agrees with the clear executor.

use encint::{BackendKind, ClientKey, Error, GpuError, Server, DEFAULT_PARAMETERS};
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
    assert!(encint::gpu::check_backend(BackendKind::Cpu).is_ok());
}

#[test]
fn the_gpu_backend_is_a_typed_error_where_it_cannot_run() {
    let probe = encint::gpu::probe();
    #[cfg(not(feature = "gpu"))]
    assert_eq!(probe, Err(GpuError::NotBuilt));
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let server = Server::new(key);
    assert_eq!(server.backend(), BackendKind::Cpu);
    match (probe, server.with_backend(BackendKind::Gpu)) {
        (Err(GpuError::NotBuilt), Err(Error::Gpu(GpuError::NotBuilt)))
            if !cfg!(feature = "gpu") => {}
        (Err(GpuError::NoDevice(_)), Err(Error::Gpu(GpuError::NoDevice(m))))
            if cfg!(feature = "gpu") =>
        {
            assert!(!m.is_empty())
        }
        // With the feature and a device: the key was uploaded and circuits run there.
        (Ok(_), Ok(gpu)) => {
            assert_eq!(gpu.backend(), BackendKind::Gpu);
            let a = encint::encrypt(&client, 77, 8).unwrap();
            let b = encint::encrypt(&client, -100, 8).unwrap();
            let s = gpu.add(&a, &b).unwrap();
            assert_eq!(encint::decrypt(&client, &s).unwrap(), -23);
        }
        (p, s) => panic!("probe {p:?} but with_backend {:?}", s.map(|s| s.backend())),
    }
}

#[test]
fn run_circuit_on_the_cpu_agrees_with_the_clear_executor() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let server = Server::new(key);
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
