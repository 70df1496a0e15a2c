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
    // Saved and read back: the same machine.
    for m in [Machine::cpu(3), Machine::h200(), m] {
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
        assert!(
            m.round_s > 1e-4 && m.round_s <= got.narrow.seconds + 1e-12,
            "{got:?}"
        );
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
