//! The inference on FV slots: plans of the built-in networks (depth and set before any
//! key), a small network on real keys in both weight modes with every image's logits
//! against the model in plain integers, and refusals.

use encint::fv_bits::FvBitsClientKey;
use encint::infer::{FvInference, Images, Model, Weights};
use encint::Error;

/// 2 inputs in 0..=3, 2 hidden units `min(max(x·W1 + b1, 0), 3)`, 2 scores.
fn small() -> Model {
    Model::from_json(
        r#"{"format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 3,
            "layers": [{"weights": [[1, -2], [3, 1]], "bias": [0, 1],
                        "relu": {"shift": 0, "max": 3}},
                       {"weights": [[2, -1], [-1, 1]], "bias": [0, 0]}]}"#,
    )
    .unwrap()
}

#[path = "common/docs.rs"]
mod docs;

/// The plans of both built-in networks in both weight modes are the ones
/// docs/INFERENCE.md states, figure for figure: depth, set, activation degree, products
/// per batch and upload; every plan's depth within its set's.
#[test]
fn plans_of_the_built_in_networks_are_the_documented_ones() {
    let rows = docs::doc_table(
        "docs/INFERENCE.md",
        "Which layers fit",
        &[
            "model",
            "weights",
            "depth",
            "set",
            "activation degree",
            "products per batch",
            "uploaded (pixels, weights)",
        ],
    );
    assert_eq!(rows.len(), 4);
    for row in rows {
        let model = Model::builtin(&row[0].to_lowercase()).unwrap();
        let weights = match row[1].as_str() {
            "clear" => Weights::Clear,
            _ => Weights::Encrypted,
        };
        let f = FvInference::compile(&model, weights)
            .unwrap_or_else(|e| panic!("{} {weights:?}: {e}", row[0]));
        let p = f.plan();
        let degree = p.degrees.iter().max().copied().unwrap_or(0);
        let mib = (p.uploads * p.ciphertext_bytes) >> 20;
        let got = [
            p.depth.to_string(),
            p.set.name().to_string(),
            degree.to_string(),
            p.products.to_string(),
            format!("{mib} MiB"),
        ];
        let want: Vec<String> = row[2..].iter().map(|c| c.replace(',', "")).collect();
        assert_eq!(got.to_vec(), want, "{} {weights:?}", row[0]);
        assert!(p.depth <= p.set.usable_depth);
    }
}

#[test]
fn a_small_network_on_real_keys_in_both_weight_modes() {
    let model = small();
    // Every image of the input range: 16 images.
    let images: Vec<Vec<i64>> = (0..16).map(|v| vec![v % 4, v / 4]).collect();
    for weights in [Weights::Clear, Weights::Encrypted] {
        let f = FvInference::compile(&model, weights).unwrap();
        let (client, server) = FvBitsClientKey::generate(&f.plan().set).unwrap();
        let pixels = f.encrypt_images(&images, &client).unwrap();
        let w = (weights == Weights::Encrypted).then(|| f.encrypt_weights(&client).unwrap());
        let logits = f.run(&server, &pixels, w.as_ref()).unwrap();
        let got = f.decrypt(&logits, &client).unwrap();
        assert_eq!(got.len(), images.len());
        for (image, g) in images.iter().zip(&got) {
            assert_eq!(g, &model.logits(image).unwrap(), "{weights:?} {image:?}");
        }
    }
}

#[test]
fn refusals_are_typed_errors() {
    let model = small();
    let f = FvInference::compile(&model, Weights::Clear).unwrap();
    let (client, server) = FvBitsClientKey::generate(&f.plan().set).unwrap();
    let bad_shape = f.encrypt_images(&[vec![1, 2, 3]], &client);
    assert!(matches!(bad_shape, Err(Error::ShapeMismatch(_))));
    let bad_range = f.encrypt_images(&[vec![1, 4]], &client);
    assert!(matches!(bad_range, Err(Error::OutOfRange(_))));
    let pixels = f.encrypt_images(&[vec![1, 2]], &client).unwrap();
    assert!(f.run(&server, &pixels[..1], None).is_err());
    assert!(f.encrypt_weights(&client).is_err());
    // Another key set's server.
    let (_, other) = FvBitsClientKey::generate(&f.plan().set).unwrap();
    assert!(f.run(&other, &pixels, None).is_err());
    let _ = Images::digits_test(&model);
}

/// The FV plan's polynomials on every test image of both built-in networks, without keys:
/// the logits equal the model's in plain integers.
#[test]
fn the_plans_in_plain_integers_equal_the_models_on_the_test_split() {
    for name in ["mlp", "cnn"] {
        let model = Model::builtin(name).unwrap();
        let test = Images::digits_test(&model).unwrap();
        for weights in [Weights::Clear, Weights::Encrypted] {
            let f = FvInference::compile(&model, weights).unwrap();
            let got = f.run_clear(&test.images).unwrap();
            for (image, g) in test.images.iter().zip(&got) {
                assert_eq!(g, &model.logits(image).unwrap(), "{name} {weights:?}");
            }
        }
    }
}

/// A dense layer of 64 inputs and 4096 outputs with a ReLU up to 4095, each column's
/// accumulator on its own range of hundreds of values: its plan would interpolate
/// 4096 polynomials through hundreds of points each (minutes of work), so it is refused
/// with `LimitExceeded` before any is interpolated; the same layer with one range shared by
/// every column interpolates once and plans.
#[test]
fn a_plan_whose_interpolation_passes_the_limit_is_refused_before_it() {
    let wide = |weight: &dyn Fn(usize, usize) -> i64, bias: &dyn Fn(usize) -> i64| {
        let weights: Vec<Vec<i64>> = (0..64)
            .map(|i| (0..4096).map(|j| weight(i, j)).collect())
            .collect();
        let text = serde_json::json!({
            "format": "encint-mlp", "version": 1, "input_size": 64, "input_max": 3,
            "layers": [
                {"weights": weights, "bias": (0..4096).map(bias).collect::<Vec<_>>(),
                 "relu": {"shift": 0, "max": 4095}},
                {"weights": (0..4096).map(|i| [i64::from(i == 0)]).collect::<Vec<_>>(),
                 "bias": [0]}
            ]
        });
        Model::from_json(&text.to_string()).unwrap()
    };
    // Column j: weights of magnitude 1 + j % 5 with signs by row, and its own bias, so
    // every column's range differs.
    let distinct = wide(
        &|i, j| (1 + (j % 5) as i64) * if (i + j) % 3 == 0 { -1 } else { 1 },
        &|j| j as i64 - 2048,
    );
    for weights in [Weights::Clear] {
        match FvInference::compile(&distinct, weights) {
            Err(Error::LimitExceeded(m)) => assert!(m.contains("layer 0"), "{m}"),
            other => panic!("{weights:?}: {:?}", other.map(|f| f.plan().clone())),
        }
    }
    // Every column on one range: one polynomial, reused.
    let shared = wide(&|i, _| if i % 2 == 0 { 1 } else { -1 }, &|_| 0);
    let f = FvInference::compile(&shared, Weights::Clear);
    assert!(!matches!(f, Err(Error::LimitExceeded(_))), "{:?}", f.err());
}

/// The built-in MLP on FV slots on real keys, clear weights: three test images in one
/// batch, every logit decrypted against the model in plain integers. Ignored in CI (key
/// generation and the run take about a minute on two cores):
///
/// ```text
/// cargo test --release -p encint --test infer_fv -- --ignored --nocapture
/// ```
#[test]
#[ignore = "heavy: the built-in MLP on FV slots on real keys (about a minute)"]
fn the_built_in_mlp_on_fv_slots_on_real_keys() {
    let model = Model::builtin("mlp").unwrap();
    let test = Images::digits_test(&model).unwrap();
    let images = &test.images[..3];
    let f = FvInference::compile(&model, Weights::Clear).unwrap();
    let (client, server) = FvBitsClientKey::generate(&f.plan().set).unwrap();
    let pixels = f.encrypt_images(images, &client).unwrap();
    let logits = f.run(&server, &pixels, None).unwrap();
    let got = f.decrypt(&logits, &client).unwrap();
    for (image, g) in images.iter().zip(&got) {
        assert_eq!(g, &model.logits(image).unwrap());
    }
    eprintln!(
        "the built-in MLP on FV slots: {} images, every logit equal",
        images.len()
    );
}
