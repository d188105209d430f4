#!/usr/bin/python3
"""Exports the PyTorch fixture models (run with Debian's python3-torch: /usr/bin/python3).

Each fixture becomes tests/models/<name>/model.onnx plus test_data_set_0/{input,output}_0.npy
with PyTorch's own output for a random input; to_pb.py (run with the onnx package) turns the
.npy files into the input_0.pb/output_0.pb layout of ONNX backend tests, so the conformance
runner checks them.  Weights are random but fixed (seeded); BatchNorm layers get non-trivial
running statistics and affine parameters, and models are exported in eval mode.

The committed fixtures are small on purpose; the exports are deterministic for a given torch.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))


def bn_stats(model, gen):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=gen) * 0.5)
            m.running_var.copy_(torch.rand(c, generator=gen) * 1.5 + 0.25)
            m.weight.data.copy_(torch.rand(c, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(c, generator=gen) * 0.2)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64),
                                 nn.Tanh(), nn.Linear(64, 10), nn.Softmax(dim=1))

    def forward(self, x):
        return self.net(x)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 6, 5, padding=2)
        self.c2 = nn.Conv2d(6, 16, 5)
        self.f1 = nn.Linear(16 * 5 * 5, 120)
        self.f2 = nn.Linear(120, 84)
        self.f3 = nn.Linear(84, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.c1(x)), 2)
        x = nn.functional.avg_pool2d(torch.relu(self.c2(x)), 2)
        x = x.reshape(x.shape[0], -1)
        return self.f3(torch.relu(self.f2(torch.relu(self.f1(x)))))


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


class ResNet8(nn.Module):
    """MLPerf Tiny image classification (CIFAR-10) ResNet-8."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.l1 = BasicBlock(16, 16, 1)
        self.l2 = BasicBlock(16, 32, 2)
        self.l3 = BasicBlock(32, 64, 2)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.l3(self.l2(self.l1(self.stem(x))))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


class ResNetSmall(nn.Module):
    """ResNet-18-style residual CNN, two stages, global average pool."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.layers = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 16, 1), BasicBlock(16, 32, 2),
                                    BasicBlock(32, 32, 1))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


def dw_sep(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU6(),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6())


class MobileNetV1VWW(nn.Module):
    """MLPerf Tiny visual wake words: MobileNetV1 width 0.25, 96x96 input, 2 classes."""

    def __init__(self):
        super().__init__()
        cfg = [(8, 16, 1), (16, 32, 2), (32, 32, 1), (32, 64, 2), (64, 64, 1), (64, 128, 2),
               (128, 128, 1), (128, 128, 1), (128, 128, 1), (128, 128, 1), (128, 128, 1),
               (128, 256, 2), (256, 256, 1)]
        layers = [nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6()]
        layers += [dw_sep(a, b, s) for a, b, s in cfg]
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(256, 2)

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.avg_pool2d(x, 3)  # 96x96 input -> 3x3 feature map
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class InvertedResidual(nn.Module):
    """MobileNetV2 block: expand 1x1, depthwise 3x3, project 1x1, residual when shapes match."""

    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hid = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, hid, 1, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(),
            nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(),
            nn.Conv2d(hid, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class MobileNetV2Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(16, 16, 1, 1), InvertedResidual(16, 24, 2, 4),
                                    InvertedResidual(24, 24, 1, 4), InvertedResidual(24, 32, 2, 4))
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(x.mean([2, 3]))


class DSCNN(nn.Module):
    """MLPerf Tiny keyword spotting DS-CNN (small): 49x10 MFCC input, 12 classes."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(1, 64, (10, 4), (2, 2), (5, 1), bias=False), nn.BatchNorm2d(64), nn.ReLU())
        blocks = []
        for _ in range(4):
            blocks += [nn.Conv2d(64, 64, 3, 1, 1, groups=64, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                       nn.Conv2d(64, 64, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU()]
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        x = self.pool(self.blocks(self.conv1(x)))
        return self.fc(torch.flatten(x, 1))


class AutoEncoder(nn.Module):
    """MLPerf Tiny anomaly detection: fully connected autoencoder on 640-d log-mel frames."""

    def __init__(self):
        super().__init__()
        dims = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
        layers = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU()]
        layers += [nn.Linear(128, 640)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class KWSRecurrent(nn.Module):
    """Keyword spotting with recurrent layers: a 2-layer bidirectional LSTM (hidden 32) then a
    GRU (hidden 64) over 20 frames of 10 features (hidden sizes that take the panel layout of
    the recurrent weights)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(10, 32, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(64, 64, batch_first=True)
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        return self.fc(y[:, -1])


class RNNStack(nn.Module):
    """Stacked one-direction recurrent layers over 30 steps (batch 2): a 2-layer LSTM (hidden
    48), a GRU (hidden 40) and an RNN (hidden 24), each reading the one before's output
    sequence: with `--threads` the LSTM pair and the GRU -> RNN pair run as two-thread
    pipelines (onnxc_pipe_post / onnxc_pipe_wait)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(12, 48, num_layers=2)
        self.gru = nn.GRU(48, 40)
        self.rnn = nn.RNN(40, 24)
        self.fc = nn.Linear(24, 8)

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        y, _ = self.rnn(y)
        return self.fc(y[-1])


class MBConvNet(nn.Module):
    """Inverted-residual blocks whose expanded tensors exceed 1 MiB (onnxc runs them as DwBlock
    bands): 3x3 stride 1 with projection and residual, 3x3 stride 2, 5x5 stride 2 with SiLU and
    squeeze-excitation between the depthwise conv and the projection; then 1x1 convolutions on a
    7x7 plane (output channels in the vector lanes)."""

    def __init__(self):
        super().__init__()

        def cbn(cin, cout, k=1, s=1, g=1, act=nn.ReLU6):
            return [nn.Conv2d(cin, cout, k, s, k // 2, groups=g, bias=False), nn.BatchNorm2d(cout), act()]

        self.stem = nn.Sequential(*cbn(3, 16, 3))
        self.b1 = nn.Sequential(*cbn(16, 96), *cbn(96, 96, 3, 1, 96), nn.Conv2d(96, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.b2 = nn.Sequential(*cbn(16, 96), *cbn(96, 96, 3, 2, 96), nn.Conv2d(96, 40, 1, bias=False), nn.BatchNorm2d(40))
        self.b3 = nn.Sequential(*cbn(40, 384, act=nn.SiLU), *cbn(384, 384, 5, 2, 384, act=nn.SiLU))
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(384, 24, 1), nn.SiLU(), nn.Conv2d(24, 384, 1), nn.Sigmoid())
        self.b3p = nn.Sequential(nn.Conv2d(384, 40, 1, bias=False), nn.BatchNorm2d(40))
        self.tail = nn.Sequential(nn.AvgPool2d(2), *cbn(40, 96, act=nn.ReLU), nn.Conv2d(96, 48, 1))
        self.fc = nn.Linear(48, 10)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.b1(x)
        x = self.b2(x)
        y = self.b3(x)
        x = self.b3p(y * self.se(y))
        return self.fc(self.tail(x).mean([2, 3]))


class EffNetStem(nn.Module):
    """EfficientNet-B0's first block on a 92 x 92 plane: the 3x3 stride-2 stem, the 3x3
    depthwise convolution (both with SiLU), squeeze-and-excitation, the 1x1 projection.  The
    stem's output is over 1 MiB, so onnxc fuses the stem and the depthwise convolution into a
    ConvDw without projection (the excitation scales the depthwise output before it) whose
    plane means feed the excitation."""

    def __init__(self):
        super().__init__()

        def cbn(cin, cout, k=1, s=1, g=1, act=nn.SiLU):
            return [nn.Conv2d(cin, cout, k, s, k // 2, groups=g, bias=False), nn.BatchNorm2d(cout), act()]

        self.stem = nn.Sequential(*cbn(3, 32, 3, 2))
        self.dw = nn.Sequential(*cbn(32, 32, 3, 1, 32))
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(32, 8, 1), nn.SiLU(), nn.Conv2d(8, 32, 1), nn.Sigmoid())
        self.pj = nn.Sequential(nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.pool = nn.AvgPool2d(4)

    def forward(self, x):
        y = self.dw(self.stem(x))
        return self.pool(self.pj(y * self.se(y)))


class Transformer(nn.Module):
    """One post-norm transformer encoder layer (d_model 32, 2 heads, feed-forward 64, 40 tokens):
    the attention MatMul -> Softmax -> MatMul chain, LayerNorm, GELU from Erf."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=2, dim_feedforward=64, dropout=0.0, activation="gelu",
                                           batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


FIXTURES = [
    # name, model, input shape, opset
    ("mlp_op11", MLP, (2, 1, 8, 8), 11),
    ("lenet_op12", LeNet, (1, 1, 28, 28), 12),
    ("resnet_small_op13", ResNetSmall, (1, 3, 64, 64), 13),
    ("resnet8_op14", ResNet8, (1, 3, 32, 32), 14),
    ("mobilenetv2_small_op15", MobileNetV2Small, (1, 3, 64, 64), 15),
    ("dscnn_op16", DSCNN, (1, 1, 49, 10), 16),
    ("vww_mobilenetv1_op17", MobileNetV1VWW, (1, 3, 96, 96), 17),
    ("autoencoder_op13", AutoEncoder, (4, 640), 13),
    ("mlp_op17", MLP, (3, 1, 8, 8), 17),
    ("lenet_op17", LeNet, (2, 1, 28, 28), 17),
    ("kws_recurrent_op14", KWSRecurrent, (2, 20, 10), 14),
    ("mbconv_op17", MBConvNet, (2, 3, 56, 56), 17),
    ("transformer_op17", Transformer, (2, 40, 32), 17),
    ("rnn_stack_op14", RNNStack, (30, 2, 12), 14),
    ("effnet_stem_op17", EffNetStem, (1, 3, 184, 184), 17),
]


def main():
    only = set(sys.argv[1:])
    for i, (name, cls, shape, opset) in enumerate(FIXTURES):
        if only and name not in only:
            continue
        torch.manual_seed(1000 + i)
        gen = torch.Generator().manual_seed(2000 + i)
        model = cls()
        bn_stats(model, gen)
        model.eval()
        x = torch.randn(*shape, generator=gen)
        with torch.no_grad():
            y = model(x)
        d = os.path.join(HERE, name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        torch.onnx.export(model, x, os.path.join(d, "model.onnx"), opset_version=opset,
                          input_names=["input"], output_names=["output"], do_constant_folding=(i % 2 == 0),
                          # odd fixtures keep BatchNormalization nodes (eval semantics) instead of
                          # letting the exporter fold them into the convolutions
                          training=torch.onnx.TrainingMode.PRESERVE if i % 2 else torch.onnx.TrainingMode.EVAL)
        np.save(os.path.join(d, "test_data_set_0", "input_0.npy"), x.numpy())
        np.save(os.path.join(d, "test_data_set_0", "output_0.npy"), y.numpy())
        print(f"exported {name} (opset {opset}): {os.path.getsize(os.path.join(d, 'model.onnx'))} bytes")


if __name__ == "__main__":
    main()
