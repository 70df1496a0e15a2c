"""encint.FvInference: the digits networks on FV slots. The plan's polynomials in plain
integers on every test image against the MLP computed here in NumPy from its model file,
a small network on real keys in both weight modes against NumPy, and bad input."""

import json
import pathlib

import numpy as np
import pytest

import encint

ROOT = pathlib.Path(__file__).resolve().parents[2]

SMALL = {
    "format": "encint-mlp",
    "version": 1,
    "input_size": 3,
    "input_max": 3,
    "layers": [
        {"weights": [[2, -1], [1, 3], [-2, 1]], "bias": [1, -2], "relu": {"shift": 1, "max": 3}},
        {"weights": [[1, -3], [2, 1]], "bias": [0, 4]},
    ],
}


def numpy_logits(model, images):
    """A dense model of the file format in NumPy: h = min(max(xW + b, 0) >> shift, max)."""
    x = np.array(images, dtype=np.int64)
    for layer in model["layers"]:
        x = x @ np.array(layer["weights"], dtype=np.int64) + np.array(layer["bias"])
        if "relu" in layer:
            x = np.minimum(np.maximum(x, 0) >> layer["relu"]["shift"], layer["relu"]["max"])
    return x.tolist()


def test_the_mlp_plan_in_plain_integers_equals_numpy():
    model = json.loads((ROOT / "models" / "digits_mlp.json").read_text())
    images, _ = encint.Inference.digits_test()
    want = numpy_logits(model, images)
    for weights in ("clear", "encrypted"):
        fv = encint.FvInference(model="mlp", weights=weights)
        plan = fv.plan()
        assert plan["set"] == "128-16384" and plan["slots"] == 16384
        assert 1 <= plan["depth"] <= 11
        assert fv.run_clear(images) == want


@pytest.mark.parametrize("weights", ["clear", "encrypted"])
def test_a_small_network_on_real_keys(tmp_path, weights):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL))
    fv = encint.FvInference(model=str(path), weights=weights)
    keys = encint.FvBitsKeys(fv.plan()["set"])
    images = [[a, b, c] for a in range(4) for b in range(4) for c in range(4)]
    encrypted = fv.encrypt_images(images, keys)  # client
    w = fv.encrypt_weights(keys) if weights == "encrypted" else None  # model owner
    logits = fv.run(encrypted, w)  # server
    assert fv.decrypt(logits, keys) == numpy_logits(SMALL, images)


def test_bad_input_raises_typed_errors(tmp_path):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL))
    fv = encint.FvInference(model=str(path))
    keys = encint.FvBitsKeys(fv.plan()["set"])
    with pytest.raises(encint.InvalidInputError):
        fv.encrypt_images([[1, 2]], keys)
    with pytest.raises(encint.InvalidInputError):
        fv.encrypt_images([[1, 2, 4]], keys)
    with pytest.raises(encint.InvalidInputError):
        fv.encrypt_weights(keys)  # the weights stay in the clear
    other = "128-32768" if fv.plan()["set"] != "128-32768" else "128-8192"
    with pytest.raises(encint.InvalidInputError):
        fv.encrypt_images([[1, 2, 3]], encint.FvBitsKeys(other))
    with pytest.raises(encint.InvalidInputError):
        encint.FvInference(weights="secret")
