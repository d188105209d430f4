#!/usr/bin/python3
"""Exports the custom-op fixtures with Debian's python3-torch (/usr/bin/python3); then run
`python3 tests/models/to_pb.py tests/custom_ops/infer_mlp` and
`python3 tests/training/to_pb.py tests/custom_ops/grad_mlp/test_data_set_0` (the onnx package)
to write the .pb files.

The model is an MLP whose activations are two custom ops (C side: ops.c, specs: ops.txt):
  test.custom::PGate(X, A) -> Y       scale * X * tanh(A * X), A a learnable value per column
  test.custom::RowNorm(X) -> (Y, S)   row normalisation and its statistics S = (mean, rstd)
Each is a torch.autograd.Function whose `symbolic` writes the custom node at export; the
reference outputs and the gradients come from the same functions written with plain torch ops
(torch autograd differentiates them), so the C backward functions are checked against torch.

  infer_mlp/   model.onnx; input_0 (x), output_0 (out)
  grad_mlp/    model.onnx; onnxc_flags.txt (--gradients --loss mse); input_0 (x), input_1 (label),
               ref.npz (loss and every parameter's gradient, PGate's A included)
  train_losses.json   torch.optim.SGD(lr=0.02, momentum=0.9) on that batch: the loss before each
               of 20 steps (check_abi.py runs onnxc --train against it)
"""
import copy
import json
import os

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))


def pgate(x, a, scale):
    return scale * x * torch.tanh(a * x)


def rownorm(x, eps):
    mean = x.mean(dim=1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=1, keepdim=True)
    rstd = 1.0 / torch.sqrt(var + eps)
    return (x - mean) * rstd, torch.cat([mean, rstd], dim=1)


class PGate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, a, scale):
        return pgate(x, a, scale)

    @staticmethod
    def symbolic(g, x, a, scale):
        return g.op("test.custom::PGate", x, a, scale_f=scale)


class RowNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        return rownorm(x, eps)

    @staticmethod
    def symbolic(g, x, eps):
        return g.op("test.custom::RowNorm", x, eps_f=eps, outputs=2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(12, 16)
        self.a1 = nn.Parameter(torch.rand(16) + 0.5)
        self.l2 = nn.Linear(16, 10)
        self.a2 = nn.Parameter(torch.rand(10) + 0.5)
        self.l3 = nn.Linear(10, 4)
        self.ls = nn.Linear(2, 4)
        self.export = False

    def forward(self, x):
        pg = PGate.apply if self.export else pgate
        rn = RowNorm.apply if self.export else rownorm
        h = pg(self.l1(x), self.a1, 1.5)
        y1, s1 = rn(h, 1e-3)  # statistics used: a gradient flows into both outputs
        h = pg(self.l2(y1), self.a2, 0.5)
        y2, _ = rn(h, 1e-5)  # statistics unused: no gradient for that output
        return self.l3(y2) + self.ls(s1)


def main():
    torch.manual_seed(0)
    net = Net()
    x = torch.randn(8, 12)
    label = torch.randn(8, 4)
    for case in ("infer_mlp", "grad_mlp"):
        d = os.path.join(HERE, case)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        net.export = True
        torch.onnx.export(net, x, os.path.join(d, "model.onnx"), opset_version=13, input_names=["x"],
                          output_names=["out"], do_constant_folding=False,
                          custom_opsets={"test.custom": 1})
        net.export = False
    ds = os.path.join(HERE, "infer_mlp", "test_data_set_0")
    with torch.no_grad():
        np.save(os.path.join(ds, "input_0.npy"), x.numpy())
        np.save(os.path.join(ds, "output_0.npy"), net(x).numpy())
    d = os.path.join(HERE, "grad_mlp")
    with open(os.path.join(d, "onnxc_flags.txt"), "w") as f:
        f.write("--gradients --loss mse\n")
    net.zero_grad()
    loss = torch.nn.functional.mse_loss(net(x), label)
    loss.backward()
    ref = {"loss": loss.detach().numpy()}
    for name, p in net.named_parameters():
        ref[name + "_grad"] = p.grad.numpy()
    ds = os.path.join(d, "test_data_set_0")
    np.save(os.path.join(ds, "input_0.npy"), x.numpy())
    np.save(os.path.join(ds, "input_1.npy"), label.numpy())
    np.savez(os.path.join(ds, "ref.npz"), **ref)
    tnet = copy.deepcopy(net)
    opt = torch.optim.SGD(tnet.parameters(), lr=0.02, momentum=0.9)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(tnet(x), label)
        losses.append(float(loss))
        loss.backward()
        opt.step()
    with open(os.path.join(HERE, "train_losses.json"), "w") as f:
        json.dump({"optimizer": "sgd:lr=0.02,momentum=0.9", "losses": losses}, f, indent=1)


if __name__ == "__main__":
    main()
