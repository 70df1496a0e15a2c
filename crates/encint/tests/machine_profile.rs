//! Machine profiles: names, files (hostile ones refused, nothing but a profile
//! overwritten), calibration on real keys, and a server planning for a profile: its
//! choices follow the profile and its results, on real keys in the form encryption gives,
//! match plain integers.

use std::path::{Path, PathBuf};

use encint::machine::{calibrate, load_profile, profile, save_profile, Calibration, ProfileError};
use encint::typed::{decrypt_typed, encrypt_typed_as, Form, IntType, Op};
use encint::{ClientKey, Error, Machine, Server, DEFAULT_PARAMETERS};

#[path = "../../arith/tests/common/typed_reference.rs"]
mod typed_reference;
use typed_reference::reference;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("encint-machine-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn malformed(path: &Path) -> bool {
    matches!(
        load_profile(path),
        Err(Error::Profile(ProfileError::Malformed { .. }))
    )
}

/// A profile file's text with `field` set to `value` (JSON).
fn with(field: &str, value: &str) -> String {
    let mut v = serde_json::json!({
        "format": "encint-machine-profile", "version": 1, "name": "measured:cpu:4",
        "lanes": 4, "round_s": 0.0125, "latency_s": 0.00025, "plan_threads": 4, "gpu": false,
    });
    v[field] = serde_json::from_str(value).unwrap();
    v.to_string()
}

#[test]
fn profile_files_round_trip_and_hostile_ones_are_refused() {
    let dir = scratch("files");
    let good = dir.join("good.json");
    std::fs::write(&good, with("name", "\"mine\"")).unwrap();
    let m = load_profile(&good).unwrap();
    assert_eq!(
        (m.name.as_str(), m.lanes, m.plan_threads, m.gpu),
        ("mine", 4, 4, false)
    );
    assert!((m.round_s - 0.0125).abs() < 1e-12 && (m.latency_s - 0.00025).abs() < 1e-12);
    // Saved and read back: the same machine, to the last bit of each time (these two
    // measured times once came back one unit in the last place off).
    let measured = Machine {
        name: "measured:cpu:2".into(),
        round_s: 0.04058636350000001,
        latency_s: 0.0018410859999999918,
        ..Machine::cpu(2)
    };
    for m in [Machine::cpu(3), Machine::h200(), measured, m] {
        let p = dir.join(format!("{}.json", m.name.replace(':', "_")));
        save_profile(&m, &p).unwrap();
        assert_eq!(load_profile(&p).unwrap(), m);
        assert_eq!(profile(p.to_str().unwrap()).unwrap(), m);
    }
    let bad = [
        ("lanes", "0"),
        ("lanes", "70000"),
        ("plan_threads", "0"),
        ("round_s", "0"),
        ("round_s", "-1"),
        ("round_s", "20"),
        ("latency_s", "-0.5"),
        ("latency_s", "1e300"),
        ("name", "\"\""),
        ("name", "\"tab\\there\""),
        ("name", &format!("\"{}\"", "x".repeat(65))),
        ("format", "\"something-else\""),
        ("version", "2"),
        ("lanes", "\"four\""),
        ("extra", "1"),
    ];
    for (field, value) in bad {
        let p = dir.join("bad.json");
        std::fs::write(&p, with(field, value)).unwrap();
        assert!(malformed(&p), "{field} = {value}");
    }
    let text = with("name", "\"x\"");
    for (what, bytes) in [
        ("truncated", text.as_bytes()[..text.len() / 2].to_vec()),
        ("not JSON", b"\x00\xff garbage".to_vec()),
        ("empty", Vec::new()),
        ("huge", vec![b' '; 70 * 1024]),
    ] {
        let p = dir.join("bad.json");
        std::fs::write(&p, bytes).unwrap();
        assert!(malformed(&p), "{what}");
    }
    let missing = load_profile(&dir.join("none.json"));
    assert!(matches!(
        missing,
        Err(Error::Profile(ProfileError::Io { .. }))
    ));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn saving_never_replaces_another_file() {
    let dir = scratch("keep");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "keep me").unwrap();
    let refused = save_profile(&Machine::cpu(2), &notes);
    assert!(matches!(
        refused,
        Err(Error::Profile(ProfileError::WouldOverwrite { .. }))
    ));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me");
    // A profile is replaced by the next one; no temporary file is left beside it.
    let p = dir.join("nested").join("machine.json");
    save_profile(&Machine::cpu(2), &p).unwrap();
    save_profile(&Machine::cpu(8), &p).unwrap();
    assert_eq!(load_profile(&p).unwrap(), Machine::cpu(8));
    let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("machine.json")]);
    // A machine no file may hold is refused before anything is written.
    let wide = Machine {
        lanes: 0,
        ..Machine::cpu(2)
    };
    assert!(save_profile(&wide, &dir.join("wide.json")).is_err());
    assert!(!dir.join("wide.json").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn names_that_are_not_profiles_are_refused() {
    for name in ["tpu", "cpu:0", "gpu", ""] {
        assert!(matches!(
            profile(name),
            Err(Error::Profile(ProfileError::Name(_)))
        ));
    }
    assert_eq!(profile("cpu:12").unwrap(), Machine::cpu(12));
    assert_eq!(profile(" H200 ").unwrap(), Machine::h200());
}

#[test]
fn calibration_measures_the_servers_threads() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let quick = Calibration {
        repeats: 1,
        levels: 2,
    };
    for threads in [1, 2] {
        let server = Server::with_threads(key.clone(), threads).unwrap();
        let got = calibrate(&client, &server, &quick).unwrap();
        let m = &got.machine;
        assert_eq!((m.lanes, m.plan_threads, m.gpu), (threads, threads, false));
        assert_eq!(m.name, format!("measured:cpu:{threads}"));
        assert_eq!((got.narrow.width, got.narrow.rounds), (threads, 1));
        assert_eq!((got.wide.width, got.wide.rounds), (2 * threads, 2));
        // A real bootstrap is neither free nor seconds long (a noiseless input would
        // skip the blind rotation's work and measure microseconds).
        assert!(
            got.narrow.seconds > 1e-3 && got.narrow.seconds < 5.0,
            "{got:?}"
        );
        // (The round is the wide level's extra time: on a loaded machine it may exceed the
        // narrow level's, so only its sign and size are checked.)
        assert!(m.round_s > 1e-4 && m.round_s < 5.0, "{got:?}");
        assert!(
            m.latency_s >= 0.0 && m.latency_s < got.narrow.seconds,
            "{got:?}"
        );
    }
    let server = Server::with_threads(key.clone(), 1).unwrap();
    for bad in [
        Calibration {
            repeats: 0,
            levels: 2,
        },
        Calibration {
            repeats: 1,
            levels: 65,
        },
    ] {
        let e = calibrate(&client, &server, &bad);
        assert!(matches!(
            e,
            Err(Error::Profile(ProfileError::Calibration(_)))
        ));
    }
    let (other, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let e = calibrate(&other, &server, &quick);
    assert!(matches!(e, Err(Error::KeySetMismatch { .. })), "{e:?}");
}

/// A server planning for an H100 chooses by the profile's time (some 64-bit choices
/// differ from a 2-thread CPU's) and its results on radix-4 operands, as encryption gives
/// them, are the plain integers'.
#[test]
fn a_server_planning_for_a_gpu_computes_the_same_values() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let cpu = Server::with_threads(key.clone(), 2).unwrap();
    let mut gpu = Server::with_threads(key, 2).unwrap();
    gpu.set_machine(Machine::h100());
    assert_eq!(gpu.plan_threads(), Machine::h100().plan_threads);
    let (u64t, i64t) = (
        IntType::new(64, false).unwrap(),
        IntType::new(64, true).unwrap(),
    );
    let ops = [Op::Add, Op::LT, Op::Max, Op::ShrVar];
    let mut differ = 0;
    for ty in [u64t, i64t] {
        let enc = |v: i128| encrypt_typed_as(&client, v, ty, Form::Radix4).unwrap();
        let (a, b) = (enc(0), enc(1));
        for op in ops {
            let (p, q) = (
                cpu.typed_plan(op, &[&a, &b]).unwrap(),
                gpu.typed_plan(op, &[&a, &b]).unwrap(),
            );
            assert_eq!(q.machine, "h100");
            differ += usize::from(p.chosen().algorithm != q.chosen().algorithm);
        }
    }
    assert!(differ > 0, "no 64-bit choice moved on the H100 profile");
    let pairs: [(i128, i128); 2] = [(0x8000_0000_0000_0001, 63), (0x1234_5678_9abc_def0, 3)];
    for ty in [u64t, i64t] {
        // Reduce into the type's range (the top bit is the sign of i64).
        let value = |v: i128| {
            let w = v as u64;
            if ty.signed {
                i128::from(w as i64)
            } else {
                i128::from(w)
            }
        };
        for (x, y) in pairs {
            let (x, y) = (value(x), value(y));
            let a = encrypt_typed_as(&client, x, ty, Form::Radix4).unwrap();
            let b = encrypt_typed_as(&client, y, ty, Form::Radix4).unwrap();
            for op in ops {
                let (out, _) = gpu.typed_apply(op, &[&a, &b]).unwrap();
                assert_eq!(
                    decrypt_typed(&client, &out).unwrap(),
                    reference(op, ty, &[x, y]),
                    "{op:?} {ty} {x} {y}"
                );
            }
        }
    }
}

/// A function compiled for a GPU profile is planned for it throughout (each choice ranked
/// by the profile's time, level latency included): never estimated slower there than the
/// same function compiled for the profile's threads alone, and computing the plain values;
/// on a CPU profile it is the circuit `compile` gives on that many threads.
#[test]
fn compiled_for_a_machine_is_planned_for_it() {
    use encint::fhe::{compile, compile_on, FheBool, FheUint32};
    type Two = (FheUint32, FheUint32);
    let f = |(a, b): Two| {
        let lt: FheBool = a.lt(&b);
        let s = &a + &b;
        lt.select(&(&a * &b), &(&s ^ &b))
    };
    let plain = |a: u32, b: u32| -> i128 {
        let v = if a < b {
            a.wrapping_mul(b)
        } else {
            a.wrapping_add(b) ^ b
        };
        i128::from(v)
    };
    let pool = |n: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    for m in [Machine::h100(), Machine::cpu(2), Machine::cpu(16)] {
        let on = compile_on(&m, ((), ()), f).unwrap();
        assert_eq!(on.machine(), Some(&m));
        let threads_only = pool(m.plan_threads).install(|| compile(f)).unwrap();
        assert_eq!(threads_only.threads(), m.plan_threads);
        let (mine, old) = (m.seconds(on.circuit()), m.seconds(threads_only.circuit()));
        if m.gpu {
            assert!(mine <= old + 1e-9, "{}: {mine} s against {old} s", m.name);
        } else {
            assert_eq!(on.cost(), threads_only.cost(), "{}", m.name);
        }
        for (a, b) in [
            (0u32, 0u32),
            (1, 2),
            (u32::MAX, 7),
            (0x8000_0000, 0x7fff_ffff),
            (12345, 678),
        ] {
            let got = on.run_clear(&[a.into(), b.into()]).unwrap();
            assert_eq!(got, vec![plain(a, b)], "{} {a} {b}", m.name);
        }
    }
}

/// A compiled function on a GPU profile is traced both ways, each operation planned for
/// the profile's lanes and each planned by the profile's time, and the faster whole kept:
/// a dot product of 32 u16 pairs, whose products and sum gain from the shallower
/// operations, comes out estimated faster there than the function planned for the lanes
/// alone, and its clear run equals plain arithmetic.
#[test]
fn a_gpu_keeps_the_faster_of_two_plannings() {
    use encint::fhe::{compile_on, compile_with, FheArray, FheUint16};
    use rand::{rngs::StdRng, Rng, SeedableRng};
    type U16s = FheArray<FheUint16>;
    let dot = |(x, y): (U16s, U16s)| x.dot(&y).expect("two vectors of one length");
    let h100 = Machine::h100();
    let on = compile_on(&h100, (vec![32], vec![32]), dot).unwrap();
    let lanes_only = rayon::ThreadPoolBuilder::new()
        .num_threads(h100.plan_threads)
        .build()
        .unwrap()
        .install(|| compile_with((vec![32], vec![32]), dot))
        .unwrap();
    let (mine, lanes) = (
        h100.seconds(on.circuit()),
        h100.seconds(lanes_only.circuit()),
    );
    assert!(
        mine < 0.9 * lanes,
        "dot32 on {}: {mine} s against {lanes} s planned for its lanes",
        h100.name
    );
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..4 {
        let (x, y): (Vec<u16>, Vec<u16>) = (0..32)
            .map(|_| (rng.r#gen::<u16>(), rng.r#gen::<u16>()))
            .unzip();
        let want = x
            .iter()
            .zip(&y)
            .fold(0u16, |acc, (a, b)| acc.wrapping_add(a.wrapping_mul(*b)));
        let args: Vec<i128> = x.iter().chain(&y).map(|&v| i128::from(v)).collect();
        assert_eq!(on.run_clear(&args).unwrap(), vec![i128::from(want)]);
    }
}

/// On a server planned for 125 lanes, a 32-bit block addition or subtraction is the
/// parallel prefix of carry states (depth at most 6 where the ripple is 16 deep), and on
/// real keys, operands as encryption gives them (radix-4 blocks and canonical bits), its
/// results are the plain integers'.
#[test]
fn block_additions_on_many_lanes_are_shallow_and_exact() {
    use encint::typed::Algorithm;
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let mut server = Server::with_threads(key, 2).unwrap();
    server.set_machine(Machine::cpu(125));
    let u32t = IntType::new(32, false).unwrap();
    let i32t = IntType::new(32, true).unwrap();
    let pairs: [(i128, i128); 3] = [
        (0xffff_ffff, 1),
        (0x1234_5678, 0x8765_4321),
        (0, 0xffff_ffff),
    ];
    for ty in [u32t, i32t] {
        for form in [Form::Radix4, Form::Canonical] {
            for (x, y) in pairs {
                let (x, y) = (
                    reference(Op::Add, ty, &[x, 0]),
                    reference(Op::Add, ty, &[y, 0]),
                );
                let a = encrypt_typed_as(&client, x, ty, form).unwrap();
                let b = encrypt_typed_as(&client, y, ty, form).unwrap();
                for op in [Op::Add, Op::Sub] {
                    let (out, cost) = server
                        .typed_apply_with(op, Algorithm::Blocks, &[&a, &b])
                        .unwrap();
                    assert!(
                        cost.depth <= 6,
                        "{op:?} {ty} {form:?}: depth {}",
                        cost.depth
                    );
                    let want = reference(op, ty, &[x, y]);
                    assert_eq!(
                        decrypt_typed(&client, &out).unwrap(),
                        want,
                        "{op:?} {ty} {form:?} {x} {y}"
                    );
                }
            }
        }
    }
}
