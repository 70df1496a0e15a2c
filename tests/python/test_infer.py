"""encint.Inference: the built-in digits model's circuit on the clear executor against the
model in plain integers, real keys on one image of a small batch, and bad input."""

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
