#!/usr/bin/env python3
"""Train the quantised digits MLP and CNN that `encint infer` runs on encrypted images.

scikit-learn's `load_digits` (8x8 images, pixels 0..16, 10 classes; shipped with
scikit-learn, no download) is split 75/25 (stratified, fixed seed). Pixels are quantised
to 2 bits (`min(p // 4, 3)`), a float MLP 64 -> 32 -> 10 with ReLU is trained on them,
then its weights are rounded to 4-bit signed integers (-7..7, one scale per layer) and
its biases to integers of the same scale. Between the layers the integer model computes

    h = min(max(W1 x + b1, 0) >> shift, 7)       (ReLU, rescale, 3-bit activation)
    logits = W2 h + b2

with `shift` chosen on the training split. Everything is integer, so the encrypted
circuit computes exactly the same logits.

The CNN (on the same split and pixels) is one 3x3 convolution with 4 output channels
(stride 1, no padding: 8x8 -> 6x6x4), ReLU, a dense layer 144 -> 10, trained in NumPy
(Adam on the cross-entropy, mini-batches of 128, 200 epochs, seeded: a few seconds),
then quantised the same way (4-bit weights, 3-bit activations, shift chosen on the
training split):

    h[i,j,c] = min(max(sum_{di,dj} K[di,dj,c] x[i+di,j+dj] + bc[c], 0) >> shift, 7)
    logits = Wd h + bd                 (h flattened position-major: (i*6 + j)*4 + c)

Writes `models/digits_mlp.json` and `models/digits_cnn.json` (the integer models, their
accuracies, and the integer model's predictions on the test split and logits of its
first images, computed here in NumPy as a reference for the Rust evaluator), and
`models/digits_test.json` (the quantised test images and their labels). Run from the
repository root:

    python3 scripts/train_digits.py            # needs numpy and scikit-learn
"""
import argparse
import json
import os
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

SEED = 0
INPUT_MAX = 3  # 2-bit pixels
WEIGHT_MAX = 7  # 4-bit signed weights
ACT_MAX = 7  # 3-bit hidden activations
HIDDEN = 32
KERNEL = 3  # CNN: 3x3 kernel
CHANNELS = 4  # CNN: output channels
SIDE = 8  # image side
OUT_SIDE = SIDE - KERNEL + 1  # 6: valid convolution
REFERENCE_LOGITS = 20  # test images whose NumPy logits the model file keeps


def quantise_pixels(x):
    return np.minimum(x // 4, INPUT_MAX).astype(np.int64)


def integer_logits(x, w1, b1, shift, w2, b2):
    h = np.minimum(np.maximum(x @ w1 + b1, 0) >> shift, ACT_MAX)
    return h @ w2 + b2


def windows(x):
    """The 3x3 windows of 8x8 images (rows of 64 values): shape (n, 36, 9), window
    (i*6 + j), tap (di*3 + dj)."""
    idx = np.array(
        [
            [(i + di) * SIDE + j + dj for di in range(KERNEL) for dj in range(KERNEL)]
            for i in range(OUT_SIDE)
            for j in range(OUT_SIDE)
        ]
    )
    return x[:, idx]


def cnn_integer_logits(x, k, bc, shift, wd, bd):
    """The integer CNN on quantised images x (n, 64): k (9, 4), wd (144, 10)."""
    h = np.minimum(np.maximum(windows(x) @ k + bc, 0) >> shift, ACT_MAX)
    return h.reshape(len(x), -1) @ wd + bd


def train_cnn(x_tr, y_tr, epochs=200, lr=0.01, batch=128, decay=1e-4):
    """A float CNN (conv 3x3x4, ReLU, dense 144 -> 10) by Adam in NumPy, seeded."""
    rng = np.random.default_rng(SEED)
    taps, flat = KERNEL * KERNEL, OUT_SIDE * OUT_SIDE * CHANNELS
    params = [
        rng.normal(0, np.sqrt(2 / taps), (taps, CHANNELS)),
        np.zeros(CHANNELS),
        rng.normal(0, np.sqrt(2 / flat), (flat, 10)),
        np.zeros(10),
    ]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    p_tr, onehot = windows(x_tr), np.eye(10)[y_tr]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(y_tr))
        for s in range(0, len(order), batch):
            b = order[s : s + batch]
            k, bc, wd, bd = params
            z = p_tr[b] @ k + bc
            a = np.maximum(z, 0).reshape(len(b), -1)
            logits = a @ wd + bd
            e = np.exp(logits - logits.max(1, keepdims=True))
            g = (e / e.sum(1, keepdims=True) - onehot[b]) / len(b)
            ga = (g @ wd.T).reshape(z.shape) * (z > 0)
            grads = [
                np.einsum("npk,npc->kc", p_tr[b], ga) + decay * k,
                ga.sum((0, 1)),
                a.T @ g + decay * wd,
                g.sum(0),
            ]
            step += 1
            for p, (m, v), gr in zip(params, moments, grads):
                m *= 0.9
                m += 0.1 * gr
                v *= 0.999
                v += 0.001 * gr * gr
                p -= lr * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return params


def cnn_float_predict(x, params):
    k, bc, wd, bd = params
    a = np.maximum(windows(x) @ k + bc, 0).reshape(len(x), -1)
    return (a @ wd + bd).argmax(1)


def quantise(params, logits, q_tr, y_tr):
    """Integer weights (-7..7, one scale per layer) and biases of a two-layer network
    (first layer, then the last), and the shift between them that does best on the
    training split; `logits(x, w1, b1, shift, w2, b2)` is its integer model."""
    w1f, b1f, w2f, b2f = params
    s1 = np.abs(w1f).max() / WEIGHT_MAX
    s2 = np.abs(w2f).max() / WEIGHT_MAX
    w1 = np.round(w1f / s1).astype(np.int64)
    w2 = np.round(w2f / s2).astype(np.int64)
    # First-layer accumulators count in units of s1 / INPUT_MAX.
    b1 = np.round(b1f / (s1 / INPUT_MAX)).astype(np.int64)
    best = None
    for shift in range(0, 10):
        b2 = np.round(b2f / (s2 * s1 / INPUT_MAX * 2**shift)).astype(np.int64)
        acc = (logits(q_tr, w1, b1, shift, w2, b2).argmax(1) == y_tr).mean()
        if best is None or acc > best[0]:
            best = (acc, shift, b2)
    _, shift, b2 = best
    return w1, b1, shift, w2, b2


def training(logits, y_te, float_acc):
    """A model file's `training` section: the data, both accuracies and the integer
    model's outputs on the test split (`logits`), computed here in NumPy."""
    quant_acc = float((logits.argmax(1) == y_te).mean())
    return {
        "dataset": "sklearn.datasets.load_digits",
        "split": "train_test_split(test_size=0.25, random_state=0, stratify=y)",
        "pixels": "min(p // 4, 3)",
        "float_test_accuracy": round(float_acc, 4),
        "quantised_test_accuracy": round(quant_acc, 4),
        "test_images": int(len(y_te)),
        "test_predictions": logits.argmax(1).tolist(),
        "first_test_logits": logits[:REFERENCE_LOGITS].tolist(),
    }


def cnn_model(q_tr, y_tr, q_te, y_te):
    t = time.time()
    params = train_cnn(q_tr / INPUT_MAX, y_tr)
    float_acc = float((cnn_float_predict(q_te / INPUT_MAX, params) == y_te).mean())
    k, bc, shift, wd, bd = quantise(params, cnn_integer_logits, q_tr, y_tr)
    logits = cnn_integer_logits(q_te, k, bc, shift, wd, bd)
    seconds = time.time() - t
    model = {
        "format": "encint-mlp",
        "version": 2,
        "description": "scikit-learn load_digits, CNN: 3x3 convolution with 4 channels "
        "(8x8 -> 6x6x4), ReLU, dense 144-10; 2-bit pixels, 4-bit weights, 3-bit activations",
        "input_size": SIDE * SIDE,
        "input_max": INPUT_MAX,
        "layers": [
            {
                "kind": "conv2d",
                "input_shape": [SIDE, SIDE, 1],
                # [kernel height][kernel width][input channels][output channels]
                "weights": k.reshape(KERNEL, KERNEL, 1, CHANNELS).tolist(),
                "bias": bc.tolist(),
                "relu": {"shift": int(shift), "max": ACT_MAX},
            },
            {"kind": "dense", "weights": wd.tolist(), "bias": bd.tolist()},
        ],
        "training": training(logits, y_te, float_acc),
    }
    print(f"CNN float test accuracy       {float_acc:.4f} (trained in {seconds:.1f} s)")
    quant_acc = model["training"]["quantised_test_accuracy"]
    print(f"CNN quantised test accuracy   {quant_acc:.4f} (shift {shift})")
    return model


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
    w1, b1, shift, w2, b2 = quantise((w1f, b1f, w2f, b2f), integer_logits, q_tr, y_tr)
    logits = integer_logits(q_te, w1, b1, shift, w2, b2)

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
        "training": training(logits, y_te, float_acc),
    }
    test = {
        "format": "encint-images",
        "version": 1,
        "input_size": 64,
        "input_max": INPUT_MAX,
        "images": q_te.tolist(),
        "labels": y_te.tolist(),
    }
    print(f"MLP float test accuracy       {float_acc:.4f}")
    quant_acc = model["training"]["quantised_test_accuracy"]
    print(f"MLP quantised test accuracy   {quant_acc:.4f} (shift {shift})")
    cnn = cnn_model(q_tr, y_tr, q_te, y_te)
    os.makedirs(args.out, exist_ok=True)
    files = (("digits_mlp.json", model), ("digits_cnn.json", cnn), ("digits_test.json", test))
    for name, obj in files:
        with open(os.path.join(args.out, name), "w") as f:
            # One row per line: readable diffs, small files.
            text = json.dumps(obj, separators=(",", ":"))
            f.write(text.replace("],[", "],\n[") + "\n")
    print(f"wrote {', '.join(f'{args.out}/{name}' for name, _ in files)}")


if __name__ == "__main__":
    main()
