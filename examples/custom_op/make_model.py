#!/usr/bin/python3
"""Writes swirl.onnx: an untrained MLP (2 -> 32 -> 32 -> 4, batch 32) whose two activations are
the custom op com.example::LearnedSwish(X, Beta) = X * sigmoid(Beta * X), Beta one learnable
value per feature (initialised uniformly in [0.5, 1.5]).  Its C forward and backward are learned_swish.c.

The op is a torch.autograd.Function whose `symbolic` writes the custom node when exporting
(the PyTorch analogue of the C functions).  Run with Debian's python3-torch (/usr/bin/python3);
the .onnx is committed, so the example needs no Python."""
import torch
import torch.nn as nn


class LearnedSwish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def symbolic(g, x, beta):
        return g.op("com.example::LearnedSwish", x, beta)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(2, 32)
        self.beta1 = nn.Parameter(torch.rand(32) + 0.5)
        self.l2 = nn.Linear(32, 32)
        self.beta2 = nn.Parameter(torch.rand(32) + 0.5)
        self.l3 = nn.Linear(32, 4)

    def forward(self, x):
        h = LearnedSwish.apply(self.l1(x), self.beta1)
        h = LearnedSwish.apply(self.l2(h), self.beta2)
        return self.l3(h)


torch.manual_seed(0)
torch.onnx.export(Net(), torch.zeros(32, 2), "swirl.onnx", opset_version=13, input_names=["points"],
                  output_names=["logits"], do_constant_folding=False, custom_opsets={"com.example": 1})
