#!/usr/bin/python3
"""Writes tests/images/cases: ImageDecoder models (opset 20) over images Pillow encodes, beyond
the one 32x32 RGB image per format of the ONNX node cases -- odd sizes (BMP row padding), gray,
gray+alpha, palette and RGBA sources, PNG filters and compression levels (stored, fixed and
dynamic Huffman blocks), TIFF with PackBits, text PNM -- in each pixel format.  Expected outputs
are Pillow's decodes, converted as the ImageDecoder spec says: RGB/BGR as img.convert("RGB"),
Grayscale as img.convert("L").  Run once with Debian's python3 (python3-pil): /usr/bin/python3 tests/images/make_cases.py;
the files are committed.

One case (declared_none) declares no output shape and is compiled with --image-size 24x40
(onnxc_flags.txt)."""
import io
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases")


def picture(h, w, seed):
    """Smooth gradients with a few blocks and some noise: every PNG filter type gets used."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    a = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 7) % 256], axis=2).astype(np.int32)
    a[h // 4: h // 2, w // 3: w // 2] = rng.integers(0, 256, 3)
    a += rng.integers(-12, 13, a.shape)
    return np.clip(a, 0, 255).astype(np.uint8)


def encode(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, format=fmt, **kw)
    return np.frombuffer(b.getvalue(), np.uint8)


def png_all_filters(a):
    """a PNG written here with row filters 0, 1, 2, 3, 4 in turn (Pillow's encoder never picks 3)
    over few distinct values, so that Paeth's ties (a != b, c halfway) occur"""
    import struct
    import zlib

    def paeth(a, b, c):
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else b if pb <= pc else c

    h, w, _ = a.shape
    raw = a.reshape(h, w * 3).astype(int)
    out = bytearray()
    for y in range(h):
        f = y % 5
        out.append(f)
        for x in range(w * 3):
            left = raw[y, x - 3] if x >= 3 else 0
            up = raw[y - 1, x] if y else 0
            ul = raw[y - 1, x - 3] if y and x >= 3 else 0
            pred = [0, left, up, (left + up) // 2, paeth(left, up, ul)][f]
            out.append((raw[y, x] - pred) % 256)

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(out), 9)) + chunk(b"IEND", b"")
    assert (np.asarray(Image.open(io.BytesIO(png))) == a).all()
    return np.frombuffer(png, np.uint8)


def case(name, data, img, pixel_format, declare=True, flags=None):
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    if pixel_format == "Grayscale":
        want = np.asarray(img.convert("L"))[:, :, None]
    else:
        want = np.asarray(img.convert("RGB"))
        if pixel_format == "BGR":
            want = want[:, :, ::-1]
    want = np.ascontiguousarray(want)
    node = helper.make_node("ImageDecoder", ["data"], ["image"], pixel_format=pixel_format)
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("data", TensorProto.UINT8, [len(data)])],
                          [helper.make_tensor_value_info("image", TensorProto.UINT8, list(want.shape) if declare else None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    onnx.save(m, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(data, "data").SerializeToString())
    with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(want, "image").SerializeToString())
    if flags:
        with open(os.path.join(d, "onnxc_flags.txt"), "w") as f:
            f.write(flags + "\n")


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    rgb = Image.fromarray(picture(23, 37, 1))
    big = Image.fromarray(picture(96, 130, 2))
    rgba = Image.fromarray(np.dstack([picture(20, 30, 3), picture(20, 30, 4)[:, :, 0]]), "RGBA")
    gray = rgb.convert("L")
    pal = big.convert("P", palette=Image.ADAPTIVE, colors=200)
    la = Image.fromarray(np.dstack([np.asarray(gray), np.asarray(gray)[::-1]]), "LA")
    # PNG
    case("png_rgb_level9_bgr", encode(big, "PNG", compress_level=9), big, "BGR")
    case("png_rgb_stored", encode(rgb, "PNG", compress_level=0), rgb, "RGB")
    few = np.random.default_rng(7).integers(0, 4, (15, 11, 3)).astype(np.uint8) * 61
    case("png_all_filters", png_all_filters(few), Image.fromarray(few), "RGB")
    tiny = Image.fromarray(picture(3, 5, 6))  # little data: zlib picks its fixed Huffman codes
    case("png_tiny_fixed_codes", encode(tiny, "PNG", compress_level=9), tiny, "RGB")
    case("png_rgb_level1_gray", encode(big, "PNG", compress_level=1), big, "Grayscale")
    case("png_rgba", encode(rgba, "PNG"), rgba, "RGB")
    case("png_rgba_gray", encode(rgba, "PNG"), rgba, "Grayscale")
    case("png_gray", encode(gray, "PNG"), gray, "RGB")
    case("png_gray_alpha", encode(la, "PNG"), la, "Grayscale")
    case("png_palette", encode(pal, "PNG"), pal, "RGB")
    case("png_palette_gray", encode(pal, "PNG", optimize=True), pal, "Grayscale")
    # BMP: 37 columns of 3 bytes pad each row to 112 bytes
    case("bmp_odd_width", encode(rgb, "BMP"), rgb, "RGB")
    case("bmp_odd_width_gray", encode(rgb, "BMP"), rgb, "Grayscale")
    case("bmp_palette_bgr", encode(pal, "BMP"), pal, "BGR")
    # TIFF
    case("tiff_raw_bgr", encode(big, "TIFF"), big, "BGR")
    case("tiff_packbits", encode(big, "TIFF", compression="packbits"), big, "RGB")
    case("tiff_gray", encode(gray, "TIFF"), gray, "RGB")
    case("tiff_rgba_gray", encode(rgba, "TIFF"), rgba, "Grayscale")
    # PNM: binary P6/P5; text P3 written here (Pillow writes binary only)
    case("pnm_p6_gray", encode(rgb, "PPM"), rgb, "Grayscale")
    case("pnm_p5", encode(gray, "PPM"), gray, "RGB")
    a = np.asarray(rgb)
    text = "P3\n# a comment\n%d %d\n255\n" % (a.shape[1], a.shape[0]) + "\n".join(" ".join(str(v) for v in row.reshape(-1)) for row in a) + "\n"
    case("pnm_p3_text", np.frombuffer(text.encode(), np.uint8), rgb, "BGR")
    # output shape from the flag
    img = Image.fromarray(picture(24, 40, 5))
    case("declared_none", encode(img, "PNG"), img, "RGB", declare=False, flags="--image-size 24x40")


if __name__ == "__main__":
    main()
