#!/usr/bin/python3
"""Exports the --train loss-curve fixtures (run with Debian's python3-torch: /usr/bin/python3).

For every model, tests/training/train_curve/<name>/ gets
  model.onnx    the model with its initial weights (initializers named after the torch parameters)
  data.npz      x [K, B, ...] and y [K, B, ...]: K fixed batches; step s uses batch s % K
  curves.json   per optimizer: the onnxc --loss / --optimizer flags and torch's loss at each of
                STEPS steps (the loss of the batch before that step's update), all from the same
                initial weights
For models with BatchNorm (exported in training mode: batch statistics, running statistics
updated), curves.json also holds, per optimizer, torch's running_mean/var buffers after the steps
(`stats`) and the eval-mode output of the trained model on batch 0 (`eval_out`).
run_curves.py compiles each case with onnxc --train and compares every step's loss.

usage: /usr/bin/python3 export_curves.py [NAME...]
"""
import copy
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from export_training import ResNetBN  # noqa: E402
STEPS = 100
K = 4

OPTIMIZERS = {
    # name: (onnxc --optimizer, torch constructor)
    "sgd_momentum_wd": ("sgd:lr=0.02,momentum=0.9,weight_decay=0.001",
                        lambda p: torch.optim.SGD(p, lr=0.02, momentum=0.9, weight_decay=0.001)),
    "sgd_nesterov": ("sgd:lr=0.02,momentum=0.8,nesterov=1,weight_decay=0.0005",
                     lambda p: torch.optim.SGD(p, lr=0.02, momentum=0.8, nesterov=True, weight_decay=0.0005)),
    "adamw": ("adamw:lr=0.003,weight_decay=0.01",
              lambda p: torch.optim.AdamW(p, lr=0.003, weight_decay=0.01)),
}


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 24)
        self.fc2 = nn.Linear(24, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc3(torch.tanh(self.fc2(torch.relu(self.fc1(x)))))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 2 * 2, 3)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)  # 8 -> 4
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)  # 4 -> 2
        return self.fc(torch.flatten(x, 1))


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(6, 12)
        self.out = nn.Linear(12, 3)

    def forward(self, x):
        return self.out(torch.sigmoid(self.hidden(x)))


def dataset(name, g):
    if name == "resnet_bn_ce":
        x = torch.randn(K, 8, 3, 8, 8, generator=g) * 1.5 + 0.3  # running stats move away from 0 / 1
        y = torch.randint(0, 3, (K, 8), generator=g)
        x[..., 0, :4, :4] += y[..., None, None].float() * 0.8
        return x, y
    if name == "mlp_ce":
        x = torch.randn(K, 8, 10, generator=g)
        w = torch.randn(10, 4, generator=g)
        y = (x @ w).argmax(-1)
        return x, y
    if name == "cnn_ce":
        x = torch.randn(K, 6, 1, 8, 8, generator=g)
        y = torch.randint(0, 3, (K, 6), generator=g)
        x[..., 0, :4, :] += y[..., None, None].float() * 0.7  # something learnable
        return x, y
    x = torch.randn(K, 8, 6, generator=g)
    y = torch.stack([x[..., 0] * x[..., 1], torch.sin(x[..., 2]), x[..., 3:].sum(-1) * 0.5], -1)
    return x, y


# name, model, loss, optimizers (None: all), export opset
CASES = [("mlp_ce", MLP, "cross_entropy", None, 13), ("cnn_ce", CNN, "cross_entropy", None, 13),
         ("mlp_mse", Regressor, "mse", None, 13),
         ("resnet_bn_ce", lambda: ResNetBN(width=12, classes=3), "cross_entropy", ["sgd_momentum_wd", "adamw"], 15)]


def loss_fn(kind, out, y):
    return F.cross_entropy(out, y) if kind == "cross_entropy" else F.mse_loss(out, y)


def main():
    only = set(sys.argv[1:])
    for name, cls, kind, opts, opset in CASES:
        if only and name not in only:
            continue
        torch.manual_seed(7)
        g = torch.Generator().manual_seed(11)
        model = cls()
        x, y = dataset(name, g)
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        has_bn = any(isinstance(m, nn.BatchNorm2d) for m in model.modules())
        # a training-mode export runs the model once (updating the running statistics): keep
        # the state as it was
        state = copy.deepcopy(model.state_dict())
        model.train(has_bn)
        torch.onnx.export(model, x[0], os.path.join(d, "model.onnx"), opset_version=opset, input_names=["input"],
                          output_names=["output"], do_constant_folding=False,
                          training=torch.onnx.TrainingMode.TRAINING if has_bn else torch.onnx.TrainingMode.EVAL)
        model.load_state_dict(state)
        np.savez(os.path.join(d, "data.npz"), x=x.numpy(), y=y.numpy())
        curves = {}
        for oname, (flag, make) in OPTIMIZERS.items():
            if opts and oname not in opts:
                continue
            m = copy.deepcopy(model)
            m.train()
            opt = make(m.parameters())
            losses = []
            for s in range(STEPS):
                opt.zero_grad()
                loss = loss_fn(kind, m(x[s % K]), y[s % K])
                loss.backward()
                opt.step()
                losses.append(float(loss))
            curves[oname] = {"loss": f"{kind}:output", "optimizer": flag, "losses": losses}
            if has_bn:
                m.eval()
                with torch.no_grad():
                    curves[oname]["eval_out"] = m(x[0]).flatten().tolist()
                curves[oname]["stats"] = {k: v.flatten().tolist() for k, v in m.state_dict().items()
                                          if k.endswith("running_mean") or k.endswith("running_var")}
            print(f"{name} {oname}: {losses[0]:.4f} -> {losses[-1]:.4f} min {min(losses):.4f}")
        with open(os.path.join(d, "curves.json"), "w") as f:
            json.dump(curves, f, indent=1)


if __name__ == "__main__":
    main()
