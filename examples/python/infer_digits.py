"""Private inference: classify an encrypted handwritten digit.

The model is a small quantised network trained on scikit-learn's 8x8 digits by
scripts/train_digits.py: "mlp" (64 pixels -> 32 hidden units with ReLU -> 10 classes) or
"cnn" (a 3x3 convolution with 4 channels, ReLU, a dense layer to 10 classes); pixels are
0..3, weights -7..7. The client encrypts the image, the server computes the ten class
scores with the server key only, the client decrypts them and takes the largest.

    python examples/python/infer_digits.py                 # weights in the clear, 1 image
    python examples/python/infer_digits.py --clear          # no keys: every test image
    python examples/python/infer_digits.py --weights encrypted
    python examples/python/infer_digits.py --model cnn --clear
    python examples/python/infer_digits.py --fv             # all 450 test images at once
"""

import argparse
import time

import encint

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--clear", action="store_true", help="run without encryption, every test image")
ap.add_argument("--weights", choices=["clear", "encrypted"], default="clear")
ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
ap.add_argument("--fv", action="store_true", help="every test image in one batch on FV slots")
args = ap.parse_args()

images, labels = encint.Inference.digits_test()
model = encint.Inference(model=args.model, weights=args.weights, batch=1)
print(f"{model.bootstraps_per_image:.0f} bootstraps per image (known before any key exists)")

if args.fv:
    # One image per slot of FV ciphertexts: every test image in one run.
    fv = encint.FvInference(model=args.model, weights=args.weights)
    plan = fv.plan()
    print(f"FV set {plan['set']}: depth {plan['depth']}, up to {plan['slots']} images per run")
    if args.clear:
        scores = fv.run_clear(images)  # the plan's polynomials in plain integers
    else:
        keys = encint.FvBitsKeys(plan["set"])  # the client's secret keys
        encrypted = fv.encrypt_images(images, keys)  # client side
        weights = fv.encrypt_weights(keys) if args.weights == "encrypted" else None
        start = time.time()
        out = fv.run(encrypted, weights)  # server side
        print(f"server {time.time() - start:.1f} s for {len(images)} images")
        scores = fv.decrypt(out, keys)  # client side
    assert scores == [model.logits(image) for image in images]  # exactly, every image
    right = sum(s.index(max(s)) == label for s, label in zip(scores, labels))
    print(f"accuracy on {len(images)} test images: {right / len(images):.4f}")
elif args.clear:
    # The same circuit on the clear executor: the scores equal the model's, image by image.
    right = 0
    for image, label in zip(images, labels):
        scores = model.run_clear([image])[0]
        assert scores == model.logits(image)
        right += scores.index(max(scores)) == label
    print(f"accuracy on {len(images)} test images: {right / len(images):.4f}")
else:
    client = encint.ClientKey.generate()  # the client's secret key
    encint.set_server_key(client.server_key())  # the server gets only the server key
    weights = model.encrypt_weights(client) if args.weights == "encrypted" else None

    encrypted = model.encrypt_images([images[0]], client)  # client side
    start = time.time()
    out = model.run(encrypted, weights)  # server side: never sees the image
    elapsed = time.time() - start
    scores = model.decrypt(out, client)[0]  # client side

    assert scores == model.logits(images[0])  # the plain-integer model's scores, exactly
    print(f"scores {scores}")
    print(f"predicted {scores.index(max(scores))}, label {labels[0]}, server {elapsed:.1f} s")
