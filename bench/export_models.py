#!/usr/bin/python3
"""Exports the benchmark model suite with Debian's python3-torch and python3-torchvision
(run with /usr/bin/python3).  The models (random weights, eval mode, batch 1) go to
bench/models/<name>.onnx (not committed: ResNet-18 alone is 45 MB) with one input sample and
PyTorch's output for it as .npy files.

usage: /usr/bin/python3 bench/export_models.py [NAME...]
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "models")
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
import export_fixtures as fx  # noqa: E402


class Encoder(nn.Module):
    """2-layer transformer encoder (d_model 128, 4 heads, GELU, 64 tokens)."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, activation="gelu", batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(40, 128, num_layers=2, batch_first=True)
        self.fc = nn.Linear(128, 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class GRUModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(40, 128, num_layers=2, batch_first=True)
        self.fc = nn.Linear(128, 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))

    def forward(self, x):
        return self.net(x)


def suite():
    import torchvision.models as tv
    return [
        # name, constructor, input shape, opset
        ("mlperf_dscnn", fx.DSCNN, (1, 1, 49, 10), 13),
        ("mlperf_vww_mobilenetv1", fx.MobileNetV1VWW, (1, 3, 96, 96), 13),
        ("mlperf_resnet8", fx.ResNet8, (1, 3, 32, 32), 13),
        ("mlperf_autoencoder", fx.AutoEncoder, (1, 640), 13),
        ("resnet18", tv.resnet18, (1, 3, 224, 224), 13),
        ("mobilenet_v2", tv.mobilenet_v2, (1, 3, 224, 224), 13),
        ("mobilenet_v3_small", tv.mobilenet_v3_small, (1, 3, 224, 224), 13),
        ("squeezenet1_1", tv.squeezenet1_1, (1, 3, 224, 224), 13),
        ("shufflenet_v2_x1_0", tv.shufflenet_v2_x1_0, (1, 3, 224, 224), 13),
        ("efficientnet_b0", tv.efficientnet_b0, (1, 3, 224, 224), 13),
        ("transformer_encoder", Encoder, (1, 64, 128), 17),
        ("lstm", LSTMModel, (1, 50, 40), 13),
        ("gru", GRUModel, (1, 50, 40), 13),
        ("mlp", MLP, (1, 784), 13),
    ]


def main():
    only = set(sys.argv[1:])
    os.makedirs(OUT, exist_ok=True)
    for i, (name, ctor, shape, opset) in enumerate(suite()):
        if only and name not in only:
            continue
        torch.manual_seed(i)
        model = ctor()
        fx.bn_stats(model, torch.Generator().manual_seed(100 + i))
        model.eval()
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(200 + i))
        with torch.no_grad():
            y = model(x)
        path = os.path.join(OUT, name + ".onnx")
        torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"], output_names=["output"])
        np.save(os.path.join(OUT, name + ".input.npy"), x.numpy())
        np.save(os.path.join(OUT, name + ".output.npy"), y.numpy())
        print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main()
