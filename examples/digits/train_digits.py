#!/usr/bin/python3
"""Trains the demo model and writes digits.onnx and samples.h (run with Debian's python3-torch
and python3-sklearn: /usr/bin/python3 train_digits.py).

Data: scikit-learn's bundled 8x8 handwritten digits (1797 images, offline).  The first 80% train
a small CNN-free MLP with PyTorch; the held-out 20% measure accuracy.  100 held-out images and
their labels go to samples.h so the C demo can classify them without any file I/O.
"""
import os

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    torch.manual_seed(0)
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    y = d.target.astype(np.int64)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(x))
    x, y = x[idx], y[idx]
    ntr = int(0.8 * len(x))
    xtr, ytr, xte, yte = map(torch.from_numpy, (x[:ntr], y[:ntr], x[ntr:], y[ntr:]))
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(),
                          nn.Linear(32, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(60):
        perm = torch.randperm(ntr)
        for i in range(0, ntr, 64):
            b = perm[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xtr[b]), ytr[b])
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(xte).argmax(1) == yte).float().mean().item()
    print(f"held-out accuracy (PyTorch): {acc:.4f} on {len(xte)} images")
    torch.onnx.export(model, xte[:1], os.path.join(HERE, "digits.onnx"), opset_version=13,
                      input_names=["image"], output_names=["logits"])
    n = 100
    with open(os.path.join(HERE, "samples.h"), "w") as f:
        f.write("/* 100 held-out images of scikit-learn's digits data (8x8, scaled to [0,1]) and their\n"
                "   labels; written by train_digits.py. */\n")
        f.write(f"#define N_SAMPLES {n}\n")
        f.write("static const float sample_images[N_SAMPLES][64] = {\n")
        for i in range(n):
            f.write("  {" + ", ".join(f"{v:.4f}f" for v in xte[i].reshape(-1).tolist()) + "},\n")
        f.write("};\n")
        f.write("static const int sample_labels[N_SAMPLES] = {" + ", ".join(str(int(v)) for v in yte[:n]) + "};\n")


if __name__ == "__main__":
    main()
