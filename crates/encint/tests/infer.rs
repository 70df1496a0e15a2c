//! Private inference (`encint::infer`) against the model computed in plain integers
//! (`Model::logits`): the digits model's circuit on the clear executor over every test
//! image, with clear and with encrypted weights; a small model on real keys in both modes;
//! a ciphertext of another key set; bad models, images and arguments as typed errors.

use std::path::PathBuf;
use std::sync::OnceLock;

use encint::infer::{argmax, Conv2d, Images, Inference, LayerKind, Model, Weights, MAX_BATCH};
use encint::{ClientKey, Error, Server, DEFAULT_PARAMETERS};

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

/// A built-in model (`"mlp"` or `"cnn"`) read from its file, and the test split.
fn digits(name: &str) -> (Model, Images) {
    let model = Model::load(&models().join(format!("digits_{name}.json"))).unwrap();
    assert_eq!(model, Model::builtin(name).unwrap());
    let images = Images::load(&models().join("digits_test.json"), &model).unwrap();
    (model, images)
}

/// The `training` section of a model file: what the training script computed with NumPy.
fn training(name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(models().join(format!("digits_{name}.json"))).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    file["training"].clone()
}

/// The quantised test accuracy the training script computed with NumPy.
fn stated_accuracy(name: &str) -> f64 {
    training(name)["quantised_test_accuracy"].as_f64().unwrap()
}

/// The circuit on the clear executor over `images` (in batches of 15) against the
/// plain-integer model, image by image; the share of images classified right.
fn clear_run_matches_model(
    model: &Model,
    weights: Weights,
    images: &[Vec<i64>],
    labels: &[usize],
) -> f64 {
    let inference = Inference::compile(model, weights, 15).unwrap();
    let mut right = 0;
    for (chunk, labels) in images.chunks(15).zip(labels.chunks(15)) {
        let got = inference.run_clear(chunk).unwrap();
        assert_eq!(got.len(), chunk.len());
        for ((image, logits), &label) in chunk.iter().zip(&got).zip(labels) {
            assert_eq!(logits, &model.logits(image).unwrap());
            right += usize::from(argmax(logits) == label);
        }
    }
    right as f64 / images.len() as f64
}

/// Every test image: the logits equal the model's, the accuracy the stated one.
fn whole_split_matches_model(name: &str, weights: Weights) -> f64 {
    let (model, test) = digits(name);
    assert_eq!(test.images.len(), 450);
    let accuracy = clear_run_matches_model(&model, weights, &test.images, &test.labels);
    assert!(
        (accuracy - stated_accuracy(name)).abs() < 1e-4,
        "{accuracy}"
    );
    accuracy
}

#[test]
fn digits_circuit_with_clear_weights_equals_the_model_on_every_test_image() {
    let accuracy = whole_split_matches_model("mlp", Weights::Clear);
    assert!(accuracy >= 0.90, "{accuracy}");
}

#[test]
fn digits_circuit_with_encrypted_weights_equals_the_model_on_every_test_image() {
    whole_split_matches_model("mlp", Weights::Encrypted);
}

#[test]
fn cnn_circuit_with_clear_weights_equals_the_model_on_every_test_image() {
    whole_split_matches_model("cnn", Weights::Clear);
}

#[test]
fn cnn_circuit_with_encrypted_weights_equals_the_model_on_every_test_image() {
    whole_split_matches_model("cnn", Weights::Encrypted);
}

/// The Rust reference (`Model::logits`) against the training script's integer model in
/// NumPy: the logits of the first test images, every test image's prediction, the accuracy.
#[test]
fn the_reference_agrees_with_numpy() {
    for name in ["mlp", "cnn"] {
        let (model, test) = digits(name);
        let numpy = training(name);
        let logits = numpy["first_test_logits"].as_array().unwrap();
        assert_eq!(logits.len(), 20);
        for (image, want) in test.images.iter().zip(logits) {
            let want: Vec<i64> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            assert_eq!(model.logits(image).unwrap(), want, "{name}");
        }
        let predictions = numpy["test_predictions"].as_array().unwrap();
        assert_eq!(predictions.len(), test.images.len());
        for (image, want) in test.images.iter().zip(predictions) {
            let want = want.as_u64().unwrap() as usize;
            assert_eq!(model.predict(image).unwrap(), want, "{name}");
        }
        let accuracy = test.accuracy(&model).unwrap();
        assert!(
            (accuracy - stated_accuracy(name)).abs() < 1e-4,
            "{name} {accuracy}"
        );
    }
}

/// The CNN's layer kinds: a convolution then a dense layer, 8x8 -> 6x6x4 -> 10.
#[test]
fn the_cnn_is_a_convolution_and_a_dense_layer() {
    let (model, _) = digits("cnn");
    let conv = Conv2d {
        height: 8,
        width: 8,
        channels: 1,
        kernel: [3, 3],
    };
    assert_eq!(model.layers[0].kind, LayerKind::Conv2d(conv));
    assert_eq!((model.layers[0].inputs, model.layers[0].outputs), (64, 144));
    assert_eq!(model.layers[0].matrix_shape(), [9, 4]);
    assert_eq!(model.layers[1].kind, LayerKind::Dense);
    assert_eq!((model.layers[1].inputs, model.layers[1].outputs), (144, 10));
    invalid(model.layers[0].eval(&[0; 63]));
    invalid(model.layers[1].eval(&[0; 145]));
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

/// `images` through `model`'s circuit on real keys (one batch), against the reference.
fn real_run(model: &Model, images: &[Vec<i64>], weights: Weights) {
    let want: Vec<Vec<i64>> = images.iter().map(|i| model.logits(i).unwrap()).collect();
    let inference = Inference::compile(model, weights, images.len()).unwrap();
    assert_eq!(inference.run_clear(images).unwrap(), want);
    let (client, server) = keys();
    let enc = inference.encrypt_images(images, client).unwrap();
    let w = match weights {
        Weights::Clear => None,
        Weights::Encrypted => Some(inference.encrypt_weights(client).unwrap()),
    };
    let logits = inference.run(server, &enc, w.as_ref()).unwrap();
    assert_eq!(
        inference.decrypt(&logits, images.len(), client).unwrap(),
        want
    );
}

fn small_real_run(weights: Weights) {
    let model = Model::from_json(SMALL).unwrap();
    let images: Vec<Vec<i64>> = SMALL_IMAGES.iter().map(|i| i.to_vec()).collect();
    // The hidden activations saturate and vanish somewhere: the test exercises the clip
    // and the ReLU, not only the sums.
    assert_ne!(
        model.logits(&images[0]).unwrap(),
        model.logits(&images[1]).unwrap()
    );
    real_run(&model, &images, weights);
}

#[test]
fn small_model_on_real_keys_with_clear_weights() {
    small_real_run(Weights::Clear);
}

#[test]
fn small_model_on_real_keys_with_encrypted_weights() {
    small_real_run(Weights::Encrypted);
}

/// A convolution on a 1x3 input of 2 channels, a 1x2 kernel, one output channel, as the
/// last layer: `y(j) = x(j, 0) + 2 x(j, 1) + 3 x(j+1, 0) - x(j+1, 1)`.
const TINY_CONV: &str = r#"{"format": "encint-mlp", "version": 2, "input_size": 6, "input_max": 3,
  "layers": [{"kind": "conv2d", "input_shape": [1, 3, 2],
              "weights": [[[[1], [2]], [[3], [-1]]]], "bias": [0]}]}"#;

/// The layout of a convolution's inputs (position-major, channels innermost) and of its
/// kernel, against values worked out by hand.
#[test]
fn a_convolution_computes_its_definition() {
    let model = Model::from_json(TINY_CONV).unwrap();
    // Positions (1, 2), (3, 0), (2, 1): y(0) = 1 + 4 + 9 - 0, y(1) = 3 + 0 + 6 - 1.
    let image = vec![1, 2, 3, 0, 2, 1];
    assert_eq!(model.logits(&image).unwrap(), vec![14, 8]);
    for weights in [Weights::Clear, Weights::Encrypted] {
        let inference = Inference::compile(&model, weights, 1).unwrap();
        assert_eq!(
            inference.run_clear(std::slice::from_ref(&image)).unwrap(),
            vec![vec![14, 8]]
        );
    }
}

/// A small CNN on a 3x3 binary image: a 2x2 convolution to 2 channels, a 1x2 convolution
/// over both channels, a dense layer; negative weights, shifts and clips that bite.
const SMALL_CNN: &str = r#"{"format": "encint-mlp", "version": 2, "input_size": 9, "input_max": 1,
  "layers": [
    {"kind": "conv2d", "input_shape": [3, 3, 1],
     "weights": [[[[2, -1]], [[-1, 3]]], [[[1, 1]], [[3, -2]]]], "bias": [0, 1],
     "relu": {"shift": 1, "max": 2}},
    {"kind": "conv2d", "input_shape": [2, 2, 2],
     "weights": [[[[1], [-2]], [[2], [1]]]], "bias": [1], "relu": {"shift": 0, "max": 3}},
    {"kind": "dense", "weights": [[1, -2, 3], [2, 1, -1]], "bias": [0, 3, -2]}]}"#;

/// Every image of `model`'s input range.
fn every_image(model: &Model) -> Vec<Vec<i64>> {
    let n = model.input_size;
    let base = model.input_max + 1;
    (0..base.pow(n as u32))
        .map(|mut code| {
            (0..n)
                .map(|_| {
                    let p = code % base;
                    code /= base;
                    p
                })
                .collect()
        })
        .collect()
}

/// The small CNN with encrypted weights on real keys, one image (every image of its input
/// range runs on the clear executor in `other_model_shapes_match_the_reference_in_the_clear`;
/// the real run checks the same circuit's ciphertexts, in about a minute).
#[test]
fn small_cnn_on_real_keys_with_encrypted_weights() {
    let model = Model::from_json(SMALL_CNN).unwrap();
    let image = vec![1, 0, 1, 1, 1, 0, 0, 1, 1];
    // A non-zero answer, so that a circuit returning zeros cannot pass.
    let logits = model.logits(&image).unwrap();
    assert!(logits.iter().any(|&l| l != 0), "{logits:?}");
    real_run(&model, &[image], Weights::Encrypted);
}

/// The digits CNN on real keys, a test image, weights in the clear (about 5,400
/// bootstraps; every test image runs on the clear executor above, and the
/// encrypted-weight run is measured by `encint infer --model cnn --weights encrypted`, see
/// docs/INFERENCE.md).
#[test]
fn digits_cnn_on_real_keys_one_image() {
    let (model, test) = digits("cnn");
    real_run(&model, &test.images[..1], Weights::Clear);
}

/// Models off the digits models' shapes, on the clear executor against the reference for
/// every input: a clip above anything the accumulator holds, three layers, binary pixels,
/// a shift past the accumulator's width, two convolutions in a row, a convolution over
/// two channels as the last layer; both weight modes.
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
    for text in models.into_iter().chain([SMALL_CNN, TINY_CONV]) {
        let model = Model::from_json(text).unwrap();
        let all = every_image(&model);
        for weights in [Weights::Clear, Weights::Encrypted] {
            let batch = all.len().min(MAX_BATCH);
            let inference = Inference::compile(&model, weights, batch).unwrap();
            for chunk in all.chunks(batch) {
                let got = inference.run_clear(chunk).unwrap();
                for (image, logits) in chunk.iter().zip(&got) {
                    assert_eq!(logits, &model.logits(image).unwrap(), "{image:?} {text}");
                }
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
    let (model, test) = digits("mlp");
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
        Err(
            Error::InvalidInput(msg)
            | Error::ShapeMismatch(msg)
            | Error::OutOfRange(msg)
            | Error::Malformed(msg),
        ) => msg,
        other => panic!("expected an invalid-input error, got {other:?}"),
    }
}

#[test]
fn bad_images_are_typed_errors() {
    let (model, _) = digits("mlp");
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
            matches!(Model::from_json(text), Err(Error::Malformed(_))),
            "{what}"
        );
    }
    assert!(Model::from_json(SMALL).is_ok());
    // Edits of the tiny convolution: (what, a fragment of the error, from, to).
    let edits = [
        (
            "a layer kind in version 1",
            "needs version 2",
            r#""version": 2"#,
            r#""version": 1"#,
        ),
        (
            "version 3",
            "version 3, expected",
            r#""version": 2"#,
            r#""version": 3"#,
        ),
        ("an unknown kind", "kind \"pool\"", "conv2d", "pool"),
        (
            "no input shape",
            "needs \"input_shape\"",
            r#" "input_shape": [1, 3, 2],"#,
            "",
        ),
        (
            "an input shape of 2 dimensions",
            "needs \"input_shape\"",
            "[1, 3, 2]",
            "[3, 2]",
        ),
        (
            "an input shape of other inputs",
            "[1, 2, 2] for 6 inputs",
            "[1, 3, 2]",
            "[1, 2, 2]",
        ),
        (
            "a zero input shape",
            "[0, 3, 2] for 6 inputs",
            "[1, 3, 2]",
            "[0, 3, 2]",
        ),
        (
            "a kernel taller than the input",
            "kernel of 2x2",
            "[[[[1], [2]], [[3], [-1]]]]",
            "[[[[1], [2]], [[3], [-1]]], [[[1], [2]], [[3], [-1]]]]",
        ),
        (
            "a kernel wider than the input",
            "kernel of 1x4",
            "[[3], [-1]]]]",
            "[[3], [-1]], [[1], [1]], [[1], [1]]]]",
        ),
        (
            "a ragged kernel",
            "weights[0][1]: 1 values",
            "[[3], [-1]]]]",
            "[[3]]]]",
        ),
        (
            "a kernel of other input channels",
            "weights[0][0]: 3 values",
            "[[1], [2]]",
            "[[1], [2], [4]]",
        ),
        (
            "more output channels than biases",
            "weights[0][1][0]: 2 values",
            "[[3], [-1]]",
            "[[3, 1], [-1, 1]]",
        ),
        (
            "an empty kernel",
            "kernel of 0x0",
            "[[[[1], [2]], [[3], [-1]]]]",
            "[]",
        ),
        (
            "a fractional weight",
            "3.5 is not an integer",
            "[[3], [-1]]",
            "[[3.5], [-1]]",
        ),
        (
            "a weight out of range",
            "weight 3000000",
            "[[3], [-1]]",
            "[[3000000], [-1]]",
        ),
    ];
    let conv = r#""kind": "conv2d", "input_shape": [1, 3, 2],"#;
    let others = [
        (
            "a dense layer with an input shape",
            "dense layer has no input shape",
            SMALL.replace(r#""version": 1"#, r#""version": 2"#).replace(
                r#"{"weights": [[2, -1, 0]"#,
                r#"{"input_shape": [4, 1, 1], "weights": [[2, -1, 0]"#,
            ),
        ),
        (
            "an unknown layer field",
            "unknown field `stride`",
            TINY_CONV.replace(conv, &format!("{conv} \"stride\": 2,")),
        ),
        (
            "a convolution of too many outputs",
            "8192 outputs",
            r#"{"format": "encint-mlp", "version": 2, "input_size": 4096, "input_max": 1,
                "layers": [{"kind": "conv2d", "input_shape": [64, 64, 1],
                            "weights": [[[[1, 1]]]], "bias": [0, 0]}]}"#
                .to_string(),
        ),
    ];
    let cnn_cases = edits
        .iter()
        .map(|&(what, fragment, from, to)| (what, fragment, TINY_CONV.replace(from, to)))
        .chain(others);
    for (what, fragment, text) in cnn_cases {
        let err = invalid(Model::from_json(&text));
        assert!(
            err.starts_with("model: ") && err.contains(fragment),
            "{what}: {err}"
        );
    }
    assert!(Model::from_json(TINY_CONV).is_ok());
    let model = Model::from_json(SMALL).unwrap();
    let inference = Inference::compile(&model, Weights::Clear, 1).unwrap();
    let (client, _) = keys();
    invalid(inference.encrypt_weights(client));
}

/// Model and image files: a top-level field the format does not have is refused (the
/// notes `description` and `training` of the training script's files are read as notes),
/// an image file stating another input shape than the model's is refused, and an endless
/// file is refused after at most the loader's limit instead of filling memory.
#[test]
fn model_files_refuse_unknown_fields_and_endless_input() {
    let base = serde_json::json!({
        "format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 3,
        "description": "two inputs", "training": {"seed": 1},
        "layers": [{"weights": [[1], [2]], "bias": [0]}]
    });
    let model = Model::from_json(&base.to_string()).unwrap();
    let mut extra = base.clone();
    extra["layerz"] = serde_json::json!([]);
    match Model::from_json(&extra.to_string()) {
        Err(Error::Malformed(m)) => assert!(m.contains("layerz"), "{m}"),
        other => panic!("{other:?}"),
    }
    let images = |extra: serde_json::Value| {
        let mut v = serde_json::json!({
            "format": "encint-images", "version": 1, "images": [[1, 2]], "labels": [0]
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        Images::from_json(&v.to_string(), &model)
    };
    assert!(images(serde_json::json!({})).is_ok());
    assert!(images(serde_json::json!({"input_size": 2, "input_max": 3})).is_ok());
    assert!(matches!(
        images(serde_json::json!({"input_size": 3})),
        Err(Error::ShapeMismatch(_))
    ));
    assert!(matches!(
        images(serde_json::json!({"input_max": 1})),
        Err(Error::OutOfRange(_))
    ));
    assert!(matches!(
        images(serde_json::json!({"comment": "x"})),
        Err(Error::Malformed(_))
    ));
    #[cfg(target_os = "linux")]
    match Model::load(std::path::Path::new("/dev/zero")) {
        Err(Error::InvalidInput(m)) => assert!(m.contains("larger than"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[path = "common/docs.rs"]
mod docs;

/// The bootstraps per image and the depth docs/INFERENCE.md states for both built-in
/// networks in both weight modes are those of their circuits (batches of 16 images,
/// planned for two threads, as the page says).
#[test]
fn the_documented_costs_per_image_are_the_circuits() {
    let rows = docs::doc_table(
        "docs/INFERENCE.md",
        "## The circuit",
        &[
            "model",
            "weights",
            "bootstraps per image",
            "depth",
            "measured with",
        ],
    );
    assert_eq!(rows.len(), 4);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for row in rows {
        let model = Model::builtin(&row[0].to_lowercase()).unwrap();
        let weights = match row[1].as_str() {
            "clear" => Weights::Clear,
            _ => Weights::Encrypted,
        };
        let f = pool
            .install(|| Inference::compile(&model, weights, 16))
            .unwrap();
        let got = [
            f.bootstraps_per_image().to_string(),
            f.cost().depth.to_string(),
        ];
        let want = [row[2].replace(',', ""), row[3].clone()];
        assert_eq!(got, want, "{} {weights:?}", row[0]);
    }
}
