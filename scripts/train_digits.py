#!/usr/bin/env python3
"""Train the quantised digits MLP that `encint infer` runs on encrypted images.

scikit-learn's `load_digits` (8x8 images, pixels 0..16, 10 classes; shipped with
scikit-learn, no download) is split 75/25 (stratified, fixed seed). Pixels are quantised
to 2 bits (`min(p // 4, 3)`), a float MLP 64 -> 32 -> 10 with ReLU is trained on them,
then its weights are rounded to 4-bit signed integers (-7..7, one scale per layer) and
its biases to integers of the same scale. Between the layers the integer model computes

    h = min(max(W1 x + b1, 0) >> shift, 7)       (ReLU, rescale, 3-bit activation)
    logits = W2 h + b2

with `shift` chosen on the training split. Everything is integer, so the encrypted
circuit computes exactly the same logits.

Writes `models/digits_mlp.json` (the integer model and the accuracies) and
`models/digits_test.json` (the quantised test images and their labels). Run from the
repository root:

    python3 scripts/train_digits.py            # needs numpy and scikit-learn
"""
import argparse
import json
import os

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

SEED = 0
INPUT_MAX = 3  # 2-bit pixels
WEIGHT_MAX = 7  # 4-bit signed weights
ACT_MAX = 7  # 3-bit hidden activations
HIDDEN = 32


def quantise_pixels(x):
    return np.minimum(x // 4, INPUT_MAX).astype(np.int64)


def integer_logits(x, w1, b1, shift, w2, b2):
    h = np.minimum(np.maximum(x @ w1 + b1, 0) >> shift, ACT_MAX)
    return h @ w2 + b2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models", help="output folder (default: models)")
    args = ap.parse_args()

    digits = load_digits()
    x, y = digits.data.astype(np.int64), digits.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(
        x, y, test_size=0.25, random_state=SEED, stratify=y
    )
    q_tr, q_te = quantise_pixels(x_tr), quantise_pixels(x_te)

    mlp = MLPClassifier(
        (HIDDEN,), activation="relu", alpha=1e-3, max_iter=2000, random_state=SEED
    ).fit(q_tr / INPUT_MAX, y_tr)
    float_acc = float(mlp.score(q_te / INPUT_MAX, y_te))

    (w1f, w2f), (b1f, b2f) = mlp.coefs_, mlp.intercepts_
    s1 = np.abs(w1f).max() / WEIGHT_MAX
    s2 = np.abs(w2f).max() / WEIGHT_MAX
    w1 = np.round(w1f / s1).astype(np.int64)
    w2 = np.round(w2f / s2).astype(np.int64)
    # Hidden accumulators count in units of s1 / INPUT_MAX.
    b1 = np.round(b1f / (s1 / INPUT_MAX)).astype(np.int64)

    best = None
    for shift in range(0, 10):
        b2 = np.round(b2f / (s2 * s1 / INPUT_MAX * 2**shift)).astype(np.int64)
        acc = (integer_logits(q_tr, w1, b1, shift, w2, b2).argmax(1) == y_tr).mean()
        if best is None or acc > best[0]:
            best = (acc, shift, b2)
    _, shift, b2 = best
    quant_acc = float(
        (integer_logits(q_te, w1, b1, shift, w2, b2).argmax(1) == y_te).mean()
    )

    model = {
        "format": "encint-mlp",
        "version": 1,
        "description": "scikit-learn load_digits, MLP 64-32-10 with ReLU, 2-bit pixels, "
        "4-bit weights, 3-bit hidden activations",
        "input_size": 64,
        "input_max": INPUT_MAX,
        "layers": [
            {
                "weights": w1.tolist(),
                "bias": b1.tolist(),
                "relu": {"shift": int(shift), "max": ACT_MAX},
            },
            {"weights": w2.tolist(), "bias": b2.tolist()},
        ],
        "training": {
            "dataset": "sklearn.datasets.load_digits",
            "split": "train_test_split(test_size=0.25, random_state=0, stratify=y)",
            "pixels": "min(p // 4, 3)",
            "float_test_accuracy": round(float_acc, 4),
            "quantised_test_accuracy": round(quant_acc, 4),
            "test_images": int(len(y_te)),
        },
    }
    test = {
        "format": "encint-images",
        "version": 1,
        "input_size": 64,
        "input_max": INPUT_MAX,
        "images": q_te.tolist(),
        "labels": y_te.tolist(),
    }
    os.makedirs(args.out, exist_ok=True)
    for name, obj in (("digits_mlp.json", model), ("digits_test.json", test)):
        with open(os.path.join(args.out, name), "w") as f:
            # One row per line: readable diffs, small files.
            text = json.dumps(obj, separators=(",", ":"))
            f.write(text.replace("],[", "],\n[") + "\n")
    print(f"float model test accuracy     {float_acc:.4f}")
    print(f"quantised model test accuracy {quant_acc:.4f} (shift {shift})")
    print(f"wrote {args.out}/digits_mlp.json and {args.out}/digits_test.json")


if __name__ == "__main__":
    main()
