#!/usr/bin/python3
"""Writes classifier.onnx: an untrained MLP (2 -> 32 -> 32 -> 3, tanh) with batch 32, its
initial weights from torch's default initialization (seed 0).  Run with Debian's
python3-torch (/usr/bin/python3); the .onnx is committed, so the example needs no Python."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 3))
torch.onnx.export(model, torch.zeros(32, 2), "classifier.onnx", opset_version=13, input_names=["points"],
                  output_names=["logits"], do_constant_folding=False)
