//! Private inference (`encint::infer`) against the model computed in plain integers
//! (`Model::logits`): the digits model's circuit on the clear executor over every test
//! image, with clear and with encrypted weights; a small model on real keys in both modes;
//! a ciphertext of another key set; bad models, images and arguments as typed errors.

use std::path::PathBuf;
use std::sync::OnceLock;

use encint::infer::{argmax, Images, Inference, Model, Weights};
use encint::{ClientKey, Error, Server, DEFAULT_PARAMETERS};

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

fn digits() -> (Model, Images) {
    let model = Model::load(&models().join("digits_mlp.json")).unwrap();
    let images = Images::load(&models().join("digits_test.json"), &model).unwrap();
    (model, images)
}

/// The quantised test accuracy the training script computed with NumPy.
fn stated_accuracy() -> f64 {
    let text = std::fs::read_to_string(models().join("digits_mlp.json")).unwrap();
    let key = "\"quantised_test_accuracy\":";
    let at = text.find(key).unwrap() + key.len();
    let end = text[at..].find([',', '}']).unwrap();
    text[at..at + end].trim().parse().unwrap()
}

fn clear_run_matches_model(weights: Weights) {
    let (model, test) = digits();
    assert_eq!(test.images.len(), 450);
    let inference = Inference::compile(&model, weights, 15).unwrap();
    let mut right = 0;
    for (chunk, labels) in test.images.chunks(15).zip(test.labels.chunks(15)) {
        let got = inference.run_clear(chunk).unwrap();
        assert_eq!(got.len(), chunk.len());
        for ((image, logits), &label) in chunk.iter().zip(&got).zip(labels) {
            assert_eq!(logits, &model.logits(image).unwrap());
            right += usize::from(argmax(logits) == label);
        }
    }
    let accuracy = right as f64 / 450.0;
    assert!((accuracy - stated_accuracy()).abs() < 1e-4, "{accuracy}");
    assert!(accuracy >= 0.90, "{accuracy}");
}

#[test]
fn digits_circuit_with_clear_weights_equals_the_model_on_every_test_image() {
    clear_run_matches_model(Weights::Clear);
}

#[test]
fn digits_circuit_with_encrypted_weights_equals_the_model_on_every_test_image() {
    clear_run_matches_model(Weights::Encrypted);
}

#[test]
fn the_reference_agrees_with_numpy_on_accuracy() {
    let (model, test) = digits();
    let accuracy = test.accuracy(&model).unwrap();
    assert!((accuracy - stated_accuracy()).abs() < 1e-4, "{accuracy}");
}

/// 6 inputs in 0..=3, 4 hidden units, 3 outputs: negative weights and biases, a shift and
/// a clip that both bite.
const SMALL: &str = r#"{"format": "encint-mlp", "version": 1, "input_size": 6, "input_max": 3,
  "layers": [
    {"weights": [[3, -2, 1, 0], [-1, 4, 0, 2], [2, 2, -3, 1], [0, -4, 1, 3], [1, 0, 2, -2],
                 [-3, 1, 1, 1]],
     "bias": [2, -5, 1, 0], "relu": {"shift": 1, "max": 3}},
    {"weights": [[2, -1, 0], [-3, 2, 1], [1, 1, -2], [0, -2, 3]], "bias": [1, 0, -4]}]}"#;

const SMALL_IMAGES: [[i64; 6]; 2] = [[3, 0, 2, 1, 3, 0], [0, 3, 1, 3, 2, 2]];

fn keys() -> &'static (ClientKey, Server) {
    static KEYS: OnceLock<(ClientKey, Server)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Server::new(key))
    })
}

fn real_run(weights: Weights) {
    let model = Model::from_json(SMALL).unwrap();
    let images: Vec<Vec<i64>> = SMALL_IMAGES.iter().map(|i| i.to_vec()).collect();
    let want: Vec<Vec<i64>> = images.iter().map(|i| model.logits(i).unwrap()).collect();
    // The hidden activations saturate and vanish somewhere: the test exercises the clip
    // and the ReLU, not only the sums.
    assert_ne!(want[0], want[1]);
    let inference = Inference::compile(&model, weights, 2).unwrap();
    assert_eq!(inference.run_clear(&images).unwrap(), want);
    let (client, server) = keys();
    let enc = inference.encrypt_images(&images, client).unwrap();
    let w = match weights {
        Weights::Clear => None,
        Weights::Encrypted => Some(inference.encrypt_weights(client).unwrap()),
    };
    let logits = inference.run(server, &enc, w.as_ref()).unwrap();
    assert_eq!(inference.decrypt(&logits, 2, client).unwrap(), want);
}

#[test]
fn small_model_on_real_keys_with_clear_weights() {
    real_run(Weights::Clear);
}

#[test]
fn small_model_on_real_keys_with_encrypted_weights() {
    real_run(Weights::Encrypted);
}

/// Models off the digits model's shape, on the clear executor against the reference for
/// every input: a clip above anything the accumulator holds, three layers, binary pixels,
/// a shift past the accumulator's width; both weight modes.
#[test]
fn other_model_shapes_match_the_reference_in_the_clear() {
    let models = [
        r#"{"format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 1,
            "layers": [{"weights": [[1, -1], [1, 0]], "bias": [0, 1],
                        "relu": {"shift": 0, "max": 100}},
                       {"weights": [[1], [-3]], "bias": [0]}]}"#,
        r#"{"format": "encint-mlp", "version": 1, "input_size": 3, "input_max": 2,
            "layers": [{"weights": [[2, -1], [-2, 3], [1, 1]], "bias": [-1, 0],
                        "relu": {"shift": 0, "max": 5}},
                       {"weights": [[1, -2, 0], [3, 1, -1]], "bias": [0, 2, -3],
                        "relu": {"shift": 1, "max": 2}},
                       {"weights": [[5, -6], [-7, 1], [2, 2]], "bias": [9, -9]}]}"#,
        r#"{"format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 3,
            "layers": [{"weights": [[1, 2], [2, -1]], "bias": [0, 3],
                        "relu": {"shift": 20, "max": 1}},
                       {"weights": [[1], [1]], "bias": [-1]}]}"#,
    ];
    for text in models {
        let model = Model::from_json(text).unwrap();
        let n = model.input_size;
        let base = model.input_max + 1;
        let all: Vec<Vec<i64>> = (0..base.pow(n as u32))
            .map(|mut code| {
                (0..n)
                    .map(|_| {
                        let p = code % base;
                        code /= base;
                        p
                    })
                    .collect()
            })
            .collect();
        for weights in [Weights::Clear, Weights::Encrypted] {
            let inference = Inference::compile(&model, weights, all.len()).unwrap();
            let got = inference.run_clear(&all).unwrap();
            for (image, logits) in all.iter().zip(&got) {
                assert_eq!(logits, &model.logits(image).unwrap(), "{image:?} {text}");
            }
        }
    }
}

#[test]
fn weights_of_another_key_set_are_refused() {
    let model = Model::from_json(SMALL).unwrap();
    let inference = Inference::compile(&model, Weights::Encrypted, 1).unwrap();
    let (client, server) = keys();
    let (other, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let enc = inference
        .encrypt_images(&[SMALL_IMAGES[0].to_vec()], client)
        .unwrap();
    let foreign = inference.encrypt_weights(&other).unwrap();
    let err = inference.run(server, &enc, Some(&foreign)).unwrap_err();
    assert!(matches!(err, Error::KeySetMismatch { .. }), "{err}");
}

/// The digits model on real keys, one image, weights in the clear: about 2,400 bootstraps,
/// several minutes on two loaded cores, so it runs on request (`cargo test --release
/// -p encint --test infer -- --ignored`); the small model above covers real keys in CI.
#[test]
#[ignore]
fn digits_on_real_keys_one_image() {
    let (model, test) = digits();
    let inference = Inference::compile(&model, Weights::Clear, 1).unwrap();
    let (client, server) = keys();
    let enc = inference.encrypt_images(&test.images[..1], client).unwrap();
    let logits = inference.run(server, &enc, None).unwrap();
    assert_eq!(
        inference.decrypt(&logits, 1, client).unwrap()[0],
        model.logits(&test.images[0]).unwrap()
    );
}

fn invalid(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::InvalidInput(msg)) => msg,
        other => panic!("expected an invalid-input error, got {other:?}"),
    }
}

#[test]
fn bad_images_are_typed_errors() {
    let (model, _) = digits();
    let inference = Inference::compile(&model, Weights::Clear, 2).unwrap();
    let short = vec![vec![0i64; 63]];
    let mut high = vec![vec![0i64; 64]];
    high[0][10] = 4;
    let mut negative = vec![vec![0i64; 64]];
    negative[0][0] = -1;
    for bad in [&short, &high, &negative] {
        invalid(model.logits(&bad[0]));
        invalid(inference.run_clear(bad));
    }
    assert!(invalid(inference.run_clear(&short)).contains("63 values"));
    assert!(invalid(inference.run_clear(&high)).contains("pixel 10"));
    let three = vec![vec![0i64; 64]; 3];
    invalid(inference.run_clear(&three));
    invalid(Inference::compile(&model, Weights::Clear, 0));
    let text = r#"{"format": "encint-images", "version": 1, "images": [[5]], "labels": [1]}"#;
    invalid(Images::from_json(text, &model));
}

#[test]
fn bad_models_are_typed_errors() {
    let cases = [
        ("not json", "{"),
        ("another format", &SMALL.replace("encint-mlp", "onnx")),
        (
            "a short weight row",
            &SMALL.replace("[3, -2, 1, 0]", "[3, -2, 1]"),
        ),
        (
            "a missing row",
            &SMALL.replace(",\n                 [-3, 1, 1, 1]]", "]"),
        ),
        (
            "a hidden layer without activation",
            &SMALL.replace(r#", "relu": {"shift": 1, "max": 3}"#, ""),
        ),
        (
            "an activation on the last layer",
            &SMALL.replace(
                r#""bias": [1, 0, -4]"#,
                r#""bias": [1, 0, -4], "relu": {"shift": 0, "max": 1}"#,
            ),
        ),
        (
            "a weight out of range",
            &SMALL.replace("[3, -2, 1, 0]", "[3000000, -2, 1, 0]"),
        ),
        (
            "a negative input range",
            &SMALL.replace(r#""input_max": 3"#, r#""input_max": 0"#),
        ),
        ("a zero clip", &SMALL.replace(r#""max": 3"#, r#""max": 0"#)),
        (
            "no layers",
            r#"{"format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 1, "layers": []}"#,
        ),
    ];
    for (what, text) in cases {
        assert!(
            matches!(Model::from_json(text), Err(Error::InvalidInput(_))),
            "{what}"
        );
    }
    assert!(Model::from_json(SMALL).is_ok());
    let model = Model::from_json(SMALL).unwrap();
    let inference = Inference::compile(&model, Weights::Clear, 1).unwrap();
    let (client, _) = keys();
    invalid(inference.encrypt_weights(client));
}
