//! `encint infer`: the built-in networks' circuits on the clear executor and their FV plans
//! in plain integers, a small network on real keys in both weight modes on TFHE and on FV
//! slots (scores checked by the command against the model in plain integers, classes
//! against labels worked out by hand), and refused input.

mod common;
use common::{encint, s, small_network};

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn the_digits_network_on_the_clear_executor() {
    for (model, accuracy) in [("mlp", 0.9644), ("cnn", 0.9578)] {
        let (ok, out, err) = encint(&["infer", "--clear", "--model", model, "--json"]);
        assert!(ok, "{err}");
        let v = json(&out);
        assert_eq!(v["images"], 450, "{out}");
        assert_eq!(v["mismatches"], 0, "{out}");
        // The quantised model's accuracy on the test split, as scripts/train_digits.py
        // computes it with NumPy (models/digits_*.json).
        let got = v["circuit_accuracy"].as_f64().unwrap();
        assert!((got - accuracy).abs() < 1e-4, "{model}: {got}");
        assert_eq!(v["model_accuracy"], v["circuit_accuracy"], "{out}");
    }
}

#[test]
fn a_small_network_on_real_keys_in_both_weight_modes() {
    let (model, images) = small_network("infer", "real");
    for (weights, fv) in [
        ("clear", false),
        ("encrypted", false),
        ("clear", true),
        ("encrypted", true),
    ] {
        let mut args = vec![
            "infer",
            "--model",
            s(&model),
            "--test-images",
            s(&images),
            "--images",
            "2",
            "--weights",
            weights,
            "--threads",
            "2",
            "--json",
        ];
        if fv {
            args.push("--fv");
        }
        let (ok, out, err) = encint(&args);
        assert!(ok, "{weights} fv {fv}: {err}");
        let v = json(&out);
        assert_eq!(v["mismatches"], 0, "{out}");
        assert_eq!(v["circuit_accuracy"], 1.0, "{out}");
        assert_eq!(v["backend"], if fv { "fv" } else { "cpu" }, "{out}");
        assert!(v["server_s_per_image"].as_f64().unwrap() > 0.0, "{out}");
        if fv {
            assert!(
                v["fv"]["noise_budget_bits"].as_f64().unwrap() > 0.0,
                "{out}"
            );
        }
    }
}

#[test]
fn the_digits_networks_fv_plans_in_plain_integers() {
    for model in ["mlp", "cnn"] {
        for weights in ["clear", "encrypted"] {
            let (ok, out, err) = encint(&[
                "infer",
                "--clear",
                "--fv",
                "--model",
                model,
                "--weights",
                weights,
                "--json",
            ]);
            assert!(ok, "{err}");
            let v = json(&out);
            assert_eq!(v["images"], 450, "{out}");
            assert_eq!(v["mismatches"], 0, "{out}");
            // Every depth within the largest set's usable 25, the set chosen from it.
            let depth = v["fv"]["depth"].as_u64().unwrap();
            assert!((1..=25).contains(&depth), "{out}");
        }
    }
}

#[test]
fn refused_input_names_the_problem() {
    let (model, images) = small_network("infer", "bad");
    let d = images.parent().unwrap();
    let wide = d.join("wide.json");
    std::fs::write(
        &wide,
        r#"{"format": "encint-images", "version": 1, "images": [[1, 2, 3]], "labels": [0]}"#,
    )
    .unwrap();
    let bright = d.join("bright.json");
    std::fs::write(
        &bright,
        r#"{"format": "encint-images", "version": 1, "images": [[1, 4]], "labels": [0]}"#,
    )
    .unwrap();
    let m = s(&model);
    let cases: [(&[&str], &str); 6] = [
        (&["--model", m, "--test-images", s(&wide)], "3 values"),
        (
            &["--model", m, "--test-images", s(&bright)],
            "outside 0..=3",
        ),
        (
            &["--model", m, "--test-images", s(&images), "--images", "3"],
            "holds 2 images",
        ),
        (&["--model", "no-such-model.json"], "no-such-model.json"),
        (
            &["--clear", "--backend", "mpi"],
            "--backend is for encrypted runs",
        ),
        (&["--fv", "--batch", "4"], "no --backend or --batch"),
    ];
    for (args, message) in cases {
        let (ok, _, err) = encint(&[&["infer"][..], args].concat());
        assert!(!ok, "{args:?} was accepted");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
