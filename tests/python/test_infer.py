"""encint.Inference: the built-in digits model's circuit on the clear executor against the
model in plain integers, a small model file on real keys in both weight modes, and bad
input."""

import pytest

import encint


def test_clear_circuit_equals_the_integer_model():
    images, labels = encint.Inference.digits_test()
    assert len(images) == len(labels) == 450
    for model in ("mlp", "cnn"):
        for weights in ("clear", "encrypted"):
            inf = encint.Inference(model=model, weights=weights, batch=5)
            assert inf.batch == 5 and inf.weights == weights
            assert inf.cost()["bootstraps"] == round(inf.bootstraps_per_image * 5)
            got = inf.run_clear(images[:5])
            assert got == [inf.logits(i) for i in images[:5]]


def test_the_cnn_is_the_file_the_training_script_wrote():
    """The built-in CNN is models/digits_cnn.json: its logits on the first test images are
    the ones NumPy computed for the integer model when training."""
    import json
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "models" / "digits_cnn.json"
    numpy_logits = json.loads(path.read_text())["training"]["first_test_logits"]
    images, _ = encint.Inference.digits_test()
    for inf in (encint.Inference(model="cnn"), encint.Inference(model=str(path))):
        assert [inf.logits(i) for i in images[: len(numpy_logits)]] == numpy_logits


def test_bad_input_raises_invalid_input():
    images, _ = encint.Inference.digits_test()
    inf = encint.Inference(batch=1)
    with pytest.raises(encint.InvalidInputError):
        inf.run_clear([images[0][:63]])
    with pytest.raises(encint.InvalidInputError):
        inf.logits([4] + images[0][1:])
    with pytest.raises(encint.InvalidInputError):
        encint.Inference(weights="secret")
    with pytest.raises(encint.InvalidInputError):
        encint.Inference(model="no-such-model.json")
    with pytest.raises(encint.InvalidInputError):
        encint.Inference(batch=0)
    with pytest.raises(encint.InvalidInputError):
        inf.encrypt_weights(encint.ClientKey.clear())


# A model of 2 inputs in 0..=3, 2 hidden units `min(max(x.W1 + b1, 0), 3)`, 2 scores.
_SMALL = {
    "format": "encint-mlp",
    "version": 1,
    "input_size": 2,
    "input_max": 3,
    "layers": [
        {"weights": [[1, -2], [3, 1]], "bias": [0, 1], "relu": {"shift": 0, "max": 3}},
        {"weights": [[2, -1], [-1, 1]], "bias": [0, 0]},
    ],
}


def _small_logits(image):
    """The small model in plain Python (written here, not the library's reference)."""
    w1, b1 = _SMALL["layers"][0]["weights"], _SMALL["layers"][0]["bias"]
    w2, b2 = _SMALL["layers"][1]["weights"], _SMALL["layers"][1]["bias"]
    h = [min(max(sum(image[i] * w1[i][j] for i in range(2)) + b1[j], 0), 3) for j in range(2)]
    return [sum(h[i] * w2[i][j] for i in range(2)) + b2[j] for j in range(2)]


@pytest.mark.parametrize("weights", ["clear", "encrypted"])
def test_a_small_model_on_real_keys(keys, tmp_path, weights):
    """A model file on real keys, both weight modes: every image of a batch of four
    encrypted, run with the server key, decrypted, against the model written out here."""
    import json

    ck, _ = keys
    path = tmp_path / "small.json"
    path.write_text(json.dumps(_SMALL))
    inf = encint.Inference(model=str(path), weights=weights, batch=4)
    images = [[0, 0], [3, 3], [1, 2], [3, 0]]
    enc = inf.encrypt_images(images, ck)
    w = inf.encrypt_weights(ck) if weights == "encrypted" else None
    got = inf.decrypt(inf.run(enc, w), ck)
    assert got == [_small_logits(i) for i in images]
