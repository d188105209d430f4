"""WebP samples for the ImageDecoder tests: samples() -> [(name, encoded bytes, expected uint8 [H, W, 3])].

Run with a Python whose Pillow has WebP support (Debian's /usr/bin/python3: Pillow 9.4 with
libwebp 1.2.4).  The images are synthetic and seeded, so the output is deterministic; the
expected arrays are Pillow's own decode, Image.open(...).convert("RGB").
"""
import io

import numpy as np
from PIL import Image


def _image(h, w, kind, seed, alpha=False):
    r = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    if kind == "gradient":
        a = np.stack([xx * 255 // max(w - 1, 1), yy * 255 // max(h - 1, 1), ((xx + yy) * 3) % 256], -1)
    elif kind == "noise":
        a = r.randint(0, 256, (h, w, 3))
    elif kind == "mixed":
        a = np.stack([xx * 255 // max(w - 1, 1), yy * 255 // max(h - 1, 1), 128 + 0 * xx], -1)
        a = a + r.randint(-20, 21, (h, w, 3))
        a[h // 4:h // 2, w // 4:w // 2] = [200, 30, 90]
    elif kind == "checker":
        a = np.zeros((h, w, 3)) + [10, 200, 60]
        a[(xx // 8 + yy // 8) % 2 == 1] = [250, 250, 250]
    else:  # waves
        a = np.sin(xx / 5.0)[..., None] * 100 + np.cos(yy / 7.0)[..., None] * 100 + 128 + r.randn(h, w, 3) * 8
    a = np.clip(a, 0, 255).astype(np.uint8)
    if alpha:
        al = ((xx * 7 + yy * 3) % 256).astype(np.uint8)[..., None]
        return Image.fromarray(np.concatenate([a, al], -1), "RGBA")
    return Image.fromarray(a, "RGB")


# name, (H, W), kind, seed, alpha, save options
_CASES = [
    ("lossy_gradient_q80", (32, 32), "gradient", 1, False, dict(quality=80)),
    ("lossy_mixed_17x5", (17, 5), "mixed", 2, False, dict(quality=75, method=4)),
    ("lossy_waves_33x47_q30", (33, 47), "waves", 3, False, dict(quality=30, method=6)),
    ("lossy_noise_q95", (24, 40), "noise", 4, False, dict(quality=95, method=0)),
    ("lossy_checker_q5", (48, 64), "checker", 5, False, dict(quality=5, method=2)),
    ("lossy_alpha_vp8x", (31, 29), "mixed", 6, True, dict(quality=60)),
    ("lossy_1x1", (1, 1), "noise", 7, False, dict(quality=50)),
    ("lossless_gradient", (20, 30), "gradient", 8, False, dict(lossless=True)),
    ("lossless_noise_alpha", (9, 13), "noise", 9, True, dict(lossless=True, method=6)),
    ("lossless_palette", (40, 36), "checker", 10, False, dict(lossless=True, quality=100)),
    ("lossless_waves", (37, 23), "waves", 11, False, dict(lossless=True, quality=0, method=0)),
]


def samples():
    out = []
    for name, (h, w), kind, seed, alpha, opts in _CASES:
        im = _image(h, w, kind, seed, alpha)
        b = io.BytesIO()
        im.save(b, "WEBP", **opts)
        data = b.getvalue()
        exp = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.uint8)
        assert exp.shape == (h, w, 3)
        out.append((name, data, exp))
    return out


if __name__ == "__main__":
    tot = 0
    for name, data, exp in samples():
        tot += len(data)
        print(name, len(data), exp.shape, bytes(data[12:16]))
    print("total", tot)
