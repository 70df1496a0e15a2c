#!/usr/bin/env python3
"""The digits MLP in Concrete ML beside `encint infer`, weights in the clear (optional).

Runs, in one process and on the same CPUs, the quantised MLP of `models/digits_mlp.json`
(64 -> 32 -> 10, ReLU, 2-bit pixels, 4-bit weights, 3-bit activations) three ways on the
same test images of `models/digits_test.json`:

1. Concrete ML 1.9 (`concrete.ml.torch.compile.compile_torch_model`): a torch network
   with the model's integer weights and biases, the activation `min(relu(h) / 2^shift,
   max)`, quantised by Concrete ML itself (post-training, 2-bit inputs, 4-bit weights,
   3-bit activations); its own accuracy in the clear on every test image, then FHE.
2. Concrete (`concrete.fhe`, the compiler Concrete ML runs on) on exactly the model's
   integer function (`min(max(W1 x + b1, 0) >> shift, max)`, then `W2 h + b2`): its
   decrypted logits must equal the integer model's.
3. `encint infer --images N --threads T --json` (weights in the clear on the server).
4. `encint infer --fv --images M --threads T --json`: the same model on FV slots, the M
   test images (default: all 450) in one batch.

It prints one JSON object (compile, key generation and time per image of each, the
ratio of encint's time per image to each of the others, the load average before and
after) and writes it to `--out`. Not run by CI. Needs a Python 3.11 virtual environment
with Concrete ML, outside the repository, and the release build of `encint`:

    python3.11 -m venv ~/venv-cml && ~/venv-cml/bin/pip install concrete-ml==1.9.0
    cargo build --release -p encint-cli
    ~/venv-cml/bin/python scripts/concrete_ml_digits.py --images 1 --ml-images 0 --threads 2

`--threads T` pins the whole process (and encint, its child) to the first T CPUs.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load():
    model = json.loads((ROOT / "models" / "digits_mlp.json").read_text())
    test = json.loads((ROOT / "models" / "digits_test.json").read_text())
    return model, test


def integer_logits(np, x, layers):
    """The integer model in NumPy (the reference every run is checked against)."""
    (w1, b1, shift, amax), (w2, b2) = layers
    h = np.minimum(np.maximum(x @ w1 + b1, 0) >> shift, amax)
    return h @ w2 + b2


def timed(f, *args):
    t = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - t


def concrete_ml_run(np, layers, x_train, x_test, y_test, count):
    """Concrete ML's own quantisation of the same network: compile, accuracy, and (when
    `count` > 0) key generation and FHE."""
    import torch
    from concrete.ml.torch.compile import compile_torch_model

    (w1, b1, shift, amax), (w2, b2) = layers

    class Mlp(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(64, 32)
            self.fc2 = torch.nn.Linear(32, 10)
            with torch.no_grad():
                self.fc1.weight.copy_(torch.tensor(w1.T, dtype=torch.float32))
                self.fc1.bias.copy_(torch.tensor(b1, dtype=torch.float32))
                self.fc2.weight.copy_(torch.tensor(w2.T, dtype=torch.float32))
                self.fc2.bias.copy_(torch.tensor(b2, dtype=torch.float32))

        def forward(self, x):
            h = torch.clamp(torch.relu(self.fc1(x)) / 2**shift, 0, amax)
            return self.fc2(h)

    net = Mlp().eval()
    bits = {"model_inputs": 2, "op_inputs": 3, "op_weights": 4, "model_outputs": 8}
    qm, compile_s = timed(
        lambda: compile_torch_model(net, x_train.astype(np.float32), n_bits=bits)
    )
    clear = qm.forward(x_test.astype(np.float32), fhe="disable").argmax(1)
    stats = qm.fhe_circuit.statistics
    report = {
        "n_bits": bits,
        "compile_s": compile_s,
        "accuracy_clear_quantised": float((clear == y_test).mean()),
        "programmable_bootstraps": stats.get("programmable_bootstrap_count"),
        "max_bit_width": qm.fhe_circuit.graph.maximum_integer_bit_width(),
    }
    if count == 0:
        return report
    _, keygen_s = timed(qm.fhe_circuit.keygen)
    times, agree = [], 0
    for i in range(count):
        out, s = timed(lambda: qm.forward(x_test[i : i + 1].astype(np.float32), fhe="execute"))
        times.append(s)
        agree += int(out.argmax(1)[0] == clear[i])
    report.update(
        keygen_s=keygen_s,
        fhe_images=count,
        fhe_predictions_equal_clear=agree,
        fhe_s_per_image=sum(times) / count,
        fhe_s=times,
    )
    return report


def concrete_exact_run(np, layers, x_train, x_test, count):
    """Concrete on exactly the integer model: the decrypted logits must equal it."""
    from concrete import fhe

    (w1, b1, shift, amax), (w2, b2) = layers

    def mlp(x):
        h = np.minimum(np.maximum(x @ w1 + b1, 0) // 2**shift, amax)
        return h @ w2 + b2

    inputset = [x for x in x_train] + [np.zeros(64, np.int64), np.full(64, 3, np.int64)]
    circuit, compile_s = timed(fhe.Compiler(mlp, {"x": "encrypted"}).compile, inputset)
    _, keygen_s = timed(circuit.keygen)
    times, equal = [], 0
    for i in range(count):
        out, s = timed(circuit.encrypt_run_decrypt, x_test[i])
        times.append(s)
        equal += int(np.array_equal(out, integer_logits(np, x_test[i : i + 1], layers)[0]))
    return {
        "compile_s": compile_s,
        "keygen_s": keygen_s,
        "fhe_images": count,
        "logits_equal_integer_model": equal,
        "fhe_s_per_image": sum(times) / count,
        "fhe_s": times,
        "programmable_bootstraps": circuit.statistics.get("programmable_bootstrap_count"),
        "max_bit_width": circuit.graph.maximum_integer_bit_width(),
    }


def encint_run(binary, count, threads, fv=False):
    cmd = [str(binary), "infer", "--images", str(count), "--threads", str(threads), "--json"]
    if fv:
        cmd.append("--fv")
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out = json.loads(r.stdout)
    out["command"] = " ".join(["encint", *cmd[1:]])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--images", type=int, default=5, help="test images run in FHE")
    ap.add_argument(
        "--ml-images",
        type=int,
        help="test images Concrete ML runs in FHE (default: --images; 0: compile and "
        "accuracy only, no keys)",
    )
    ap.add_argument(
        "--fv-images",
        type=int,
        default=450,
        help="test images encint runs on FV slots, in one batch (0: no FV run)",
    )
    ap.add_argument("--threads", type=int, default=2, help="CPUs for every run")
    ap.add_argument("--encint", default=str(ROOT / "target" / "release" / "encint"))
    ap.add_argument("--out", help="also write the JSON report here")
    args = ap.parse_args()

    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.threads]))
    for var in ("OMP_NUM_THREADS", "RAYON_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import numpy as np
    import sklearn.datasets
    import sklearn.model_selection

    ml_images = args.images if args.ml_images is None else args.ml_images
    model, test = load()
    l1, l2 = model["layers"]
    layers = (
        (np.array(l1["weights"]), np.array(l1["bias"]), l1["relu"]["shift"], l1["relu"]["max"]),
        (np.array(l2["weights"]), np.array(l2["bias"])),
    )
    # The training split of scripts/train_digits.py (the calibration and input sets).
    digits = sklearn.datasets.load_digits()
    x, y = digits.data.astype(np.int64), digits.target
    x_train, _, _, _ = sklearn.model_selection.train_test_split(
        x, y, test_size=0.25, random_state=0, stratify=y
    )
    x_train = np.minimum(x_train // 4, 3)
    x_test, y_test = np.array(test["images"]), np.array(test["labels"])

    report = {
        "cpus": sorted(os.sched_getaffinity(0)),
        "load_average_before": os.getloadavg(),
        "integer_model_accuracy": float(
            (integer_logits(np, x_test, layers).argmax(1) == y_test).mean()
        ),
    }
    for key, run in (
        ("concrete_ml", lambda: concrete_ml_run(np, layers, x_train, x_test, y_test, ml_images)),
        ("concrete_exact", lambda: concrete_exact_run(np, layers, x_train, x_test, args.images)),
        ("encint", lambda: encint_run(args.encint, args.images, args.threads)),
        ("encint_fv", lambda: encint_run(args.encint, args.fv_images, args.threads, True)),
    ):
        if key == "encint_fv" and args.fv_images == 0:
            continue
        print(f"running {key} ...", file=sys.stderr, flush=True)
        report[key] = run()
        report[f"load_average_after_{key}"] = os.getloadavg()
        print(json.dumps({key: report[key]}), file=sys.stderr, flush=True)
    for key in ("concrete_ml", "concrete_exact"):
        theirs = report[key].get("fhe_s_per_image")
        if theirs is None:
            continue
        report[f"encint_over_{key}"] = report["encint"]["server_s_per_image"] / theirs
        if "encint_fv" in report:
            fv = report["encint_fv"]
            report[f"encint_fv_over_{key}"] = fv["server_s_per_image"] / theirs
            full = fv["fv"]["server_s_per_image_full_batch"]
            report[f"encint_fv_full_batch_over_{key}"] = full / theirs
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
