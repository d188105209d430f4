#!/usr/bin/python3
"""Exports the training fixtures (run with Debian's python3-torch: /usr/bin/python3), then run
to_pb.py (with the onnx package) to turn them into the conformance layout.

Each fixture becomes tests/training/<name>/ with
  model.onnx            the forward model (training-mode export where it matters: BatchNorm keeps
                        batch statistics), initializers named after the torch parameters
  onnxc_flags.txt       the onnxc flags of the case: --gradients --loss KIND:OUTPUT [--freeze ...]
  test_data_set_0/      input_0.npy (the model input), input_1.npy (the label, when the loss has
                        one), ref.npz: `loss` and `<param>_grad` from torch autograd
to_pb.py orders the gradients as the model's initializers and writes input_*.pb / output_*.pb,
so tests/conformance/run.py checks loss and gradients (--max-rel-err 1e-4).

Losses are torch's: mse_loss, cross_entropy, binary_cross_entropy_with_logits (mean), or a
scalar the model computes itself (`output`).
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class MLP(nn.Module):
    """Gemm, Relu, Tanh, LeakyRelu, Sigmoid, Softmax (opset 11: the 2-D coerced form)."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(16, 32)
        self.l2 = nn.Linear(32, 32)
        self.l3 = nn.Linear(32, 24)
        self.l4 = nn.Linear(24, 6)

    def forward(self, x):
        x = torch.relu(self.l1(torch.flatten(x, 1)))
        x = torch.tanh(self.l2(x))
        x = F.leaky_relu(self.l3(x), 0.1)
        x = torch.sigmoid(x) * x
        return torch.softmax(self.l4(x), dim=1)


class CNN(nn.Module):
    """Conv with pads / strides / dilations / groups, MaxPool (padded, strided), AveragePool,
    HardSwish, Clip (ReLU6), Flatten, Gemm; cross_entropy."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 8, 5, padding=2)
        self.c2 = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2)
        self.c3 = nn.Conv2d(8, 12, 3, stride=2, padding=1)
        self.c4 = nn.Conv2d(12, 12, 3, padding=1, groups=12, bias=False)
        self.fc = nn.Linear(12 * 2 * 2, 5)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.c1(x)), 3, 2, 1)  # 16 -> 8
        x = F.hardswish(self.c2(x))
        x = F.relu6(self.c3(x))  # 8 -> 4
        x = F.avg_pool2d(self.c4(x), 2)  # 4 -> 2
        return self.fc(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return torch.relu(y + (self.short(x) if self.short is not None else x))


class ResNetBN(nn.Module):
    """Residual CNN with BatchNorm in training mode (batch statistics), GlobalAveragePool."""

    def __init__(self, width=16, classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.l1 = BasicBlock(8, 8, 1)
        self.l2 = BasicBlock(8, width, 2)
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x = self.l2(self.l1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class EncoderBlock(nn.Module):
    """Token embedding (Gather) + learned positions, pre-norm self-attention (LayerNorm,
    MatMul, Softmax, head split via Reshape/Transpose), GELU MLP (Erf), residuals; logits
    [B, V, T] for a per-token cross_entropy."""

    def __init__(self, vocab=11, d=16, heads=2, t=6):
        super().__init__()
        self.h, self.d = heads, d
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(t, d) * 0.1)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.ln3 = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        b, t = ids.shape
        x = self.emb(ids) + self.pos
        q, k, v = self.qkv(self.ln1(x)).split(self.d, dim=-1)
        dh = self.d // self.h
        q = q.reshape(b, t, self.h, dh).transpose(1, 2)
        k = k.reshape(b, t, self.h, dh).transpose(1, 2)
        v = v.reshape(b, t, self.h, dh).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) / (dh ** 0.5), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, self.d)
        x = x + self.proj(y)
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return self.head(self.ln3(x)).transpose(1, 2)


class Zoo(nn.Module):
    """Many small rules: Slice, Concat, Pad, Where, Expand, Pow, Sqrt, Exp, Log, Div, Sub, Neg,
    ReduceSum/ReduceMean, Unsqueeze/Squeeze, Erf, Gather with indices, Transpose, MatMul with a
    broadcast batch; bce_logits over [N, 6]."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 12) * 0.3)
        self.b = nn.Parameter(torch.randn(12) * 0.1)
        self.s = nn.Parameter(torch.rand(1, 12) + 0.5)
        self.m = nn.Parameter(torch.randn(3, 4, 4) * 0.3)
        self.v = nn.Parameter(torch.randn(6, 1) * 0.2)

    def forward(self, x):
        h = x @ self.w + self.b                       # [N, 12]
        a, c = h[:, :4], h[:, 4:]                     # Slice
        a = F.pad(a, (1, 1))                          # Pad -> [N, 6]
        c = torch.where(c > 0, c * self.s[:, 4:], torch.exp(c) - 1)   # Where, Exp
        h = torch.cat([a, c], dim=1)                  # Concat -> [N, 14]
        h = h / torch.sqrt((h * h).mean(1, keepdim=True) + 1e-3)  # Pow-free RMS norm
        h = h[:, 1:13].reshape(-1, 3, 4)              # [N, 3, 4]
        h = torch.matmul(h.unsqueeze(2), self.m).squeeze(2)        # broadcast batch MatMul
        h = torch.erf(h.transpose(1, 2)).reshape(h.shape[0], 12)   # [N, 12]
        h = h - torch.log(1 + h.pow(2)) + (-h).sum(1, keepdim=True).expand(-1, 12) * 0.1
        idx = torch.tensor([0, 2, 5, 7, 9, 11])
        return h[:, idx] + self.v.t()                 # Gather -> [N, 6]


class SelfLoss(nn.Module):
    """A model that returns its own scalar loss (--loss output): ReduceMean of a squared error
    against a fixed target, plus an L2 penalty through Pow."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(10, 20)
        self.l2 = nn.Linear(20, 3)

    def forward(self, x):
        y = self.l2(torch.tanh(self.l1(x)))
        t = torch.tensor([[0.5, -1.0, 2.0]])
        return ((y - t) ** 2).mean() + 0.01 * (self.l2.weight ** 2).sum()


class LSTMNet(nn.Module):
    """Bidirectional LSTM (torch reorders the gates with Slice/Concat on the weights) and a
    Linear head on the last step: the LSTM gradient runs back-propagation through time."""

    def __init__(self):
        super().__init__()
        self.l = nn.LSTM(4, 6, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        y, _ = self.l(x)
        return self.fc(torch.tanh(y[:, -1]))


class GRUNet(nn.Module):
    """Bidirectional GRU (linear_before_reset=1, gates reordered by Slice/Concat) with a learned
    initial state (Expand -> initial_h), both Y and Y_h feeding the head."""

    def __init__(self):
        super().__init__()
        self.g = nn.GRU(4, 5, batch_first=True, bidirectional=True)
        self.h0 = nn.Parameter(torch.randn(2, 1, 5) * 0.3)
        self.fc = nn.Linear(10, 3)
        self.fc_h = nn.Linear(10, 3)

    def forward(self, x):
        y, h = self.g(x, self.h0.expand(-1, x.shape[0], -1).contiguous())
        return self.fc(y[:, -1]) + self.fc_h(h.transpose(0, 1).reshape(x.shape[0], -1))


class RNNNet(nn.Module):
    """A ReLU RNN feeding a bidirectional tanh RNN, head on every step's output."""

    def __init__(self):
        super().__init__()
        self.r1 = nn.RNN(4, 6, nonlinearity="relu", batch_first=True)
        self.r2 = nn.RNN(6, 5, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(10, 2)

    def forward(self, x):
        y, _ = self.r1(x)
        y, _ = self.r2(y)
        return self.fc(y)


# name, model class, input maker(gen), loss kind, opset, training-mode export[, frozen params]
def randn(*s):
    return lambda gen: torch.randn(*s, generator=gen)


FIXTURES = [
    ("mlp_mse_op11", MLP, randn(5, 1, 4, 4), "mse", 11, False),
    ("cnn_ce_op13", CNN, randn(3, 2, 16, 16), "cross_entropy", 13, False, ["c1.weight", "c1.bias"]),
    ("resnet_bn_ce_op15", ResNetBN, randn(4, 3, 12, 12), "cross_entropy", 15, True),
    ("transformer_ce_op17", EncoderBlock, lambda gen: torch.randint(0, 11, (2, 6), generator=gen), "cross_entropy", 17, False),
    ("zoo_bce_op13", Zoo, randn(4, 8), "bce_logits", 13, False),
    ("selfloss_output_op14", SelfLoss, randn(7, 10), "output", 14, False),
    ("lstm_mse_op14", LSTMNet, randn(3, 7, 4), "mse", 14, False),
    ("gru_mse_op14", GRUNet, randn(3, 6, 4), "mse", 14, False),
    ("rnn_mse_op14", RNNNet, randn(3, 5, 4), "mse", 14, False),
]


def perturb_norms(model, gen):
    """Non-trivial affine parameters (torch would also merge equal initializers otherwise)."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
            m.weight.data.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(m.bias.shape, generator=gen) * 0.2)


def make_label(kind, y, gen):
    if kind == "mse":
        return torch.randn(*y.shape, generator=gen)
    if kind == "cross_entropy":
        shape = (y.shape[0],) + tuple(y.shape[2:])
        return torch.randint(0, y.shape[1], shape, generator=gen)
    if kind == "bce_logits":
        return torch.rand(*y.shape, generator=gen)
    return None


def loss_of(kind, y, label):
    if kind == "mse":
        return F.mse_loss(y, label)
    if kind == "cross_entropy":
        return F.cross_entropy(y, label)
    if kind == "bce_logits":
        return F.binary_cross_entropy_with_logits(y, label)
    return y


def main():
    only = set(sys.argv[1:])
    for i, (name, cls, make_x, kind, opset, training, *frozen) in enumerate(FIXTURES):
        if only and name not in only:
            continue
        frozen = frozen[0] if frozen else []
        torch.manual_seed(3000 + i)
        gen = torch.Generator().manual_seed(4000 + i)
        model = cls()
        perturb_norms(model, gen)
        x = make_x(gen)
        d = os.path.join(HERE, name)
        ds = os.path.join(d, "test_data_set_0")
        os.makedirs(ds, exist_ok=True)
        mode = torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL
        model.train(training)
        # export first: a training-mode export runs the model once; keep the parameters as
        # they were so the reference below sees the same weights
        state = {k: v.clone() for k, v in model.state_dict().items()}
        torch.onnx.export(model, x, os.path.join(d, "model.onnx"), opset_version=opset, input_names=["input"],
                          output_names=["output"], do_constant_folding=False, training=mode)
        model.load_state_dict(state)
        model.train(training)
        model.zero_grad()
        for pname, p in model.named_parameters():
            p.requires_grad_(pname not in frozen)
        y = model(x)
        label = make_label(kind, y, gen)
        loss = loss_of(kind, y, label)
        loss.backward()
        ref = {"loss": loss.detach().numpy().astype(np.float32).reshape(())}
        for pname, p in model.named_parameters():
            if pname not in frozen:
                ref[pname + "_grad"] = p.grad.numpy().copy()
        np.save(os.path.join(ds, "input_0.npy"), x.numpy())
        if label is not None:
            np.save(os.path.join(ds, "input_1.npy"), label.numpy())
        np.savez(os.path.join(ds, "ref.npz"), **ref)
        with open(os.path.join(d, "onnxc_flags.txt"), "w") as fh:
            fh.write(f"--gradients --loss {kind}:output" + (f" --freeze {','.join(frozen)}" if frozen else "") + "\n")
        print(f"exported {name} (opset {opset}, loss {kind}): {os.path.getsize(os.path.join(d, 'model.onnx'))} bytes")


if __name__ == "__main__":
    main()
