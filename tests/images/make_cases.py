#!/usr/bin/python3
"""Writes tests/images/cases: ImageDecoder models (opset 20) over images Pillow encodes, beyond
the one 32x32 RGB image per format of the ONNX node cases -- odd sizes (BMP row padding), gray,
gray+alpha, palette and RGBA sources, PNG filters and compression levels (stored, fixed and
dynamic Huffman blocks), TIFF with PackBits, text PNM -- in each pixel format.  Expected outputs
are Pillow's decodes, converted as the ImageDecoder spec says: RGB/BGR as img.convert("RGB"),
Grayscale as img.convert("L").  Run once with Debian's python3 (python3-pil): /usr/bin/python3 tests/images/make_cases.py;
the files are committed.

The restart-marker and one-scan-per-component JPEGs come from libjpeg's encoder
(jpeg_variants.c, compiled here against libjpeg-dev), decoded by Pillow like the rest.
One case (declared_none) declares no output shape and is compiled with --image-size 24x40
(onnxc_flags.txt)."""
import io
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases")
sys.path.insert(0, HERE)


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


def png_interlaced(a):
    """an Adam7-interlaced PNG header over plain rows (refused before its data is read)"""
    import struct
    import zlib

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    h, w, _ = a.shape
    raw = b"".join(b"\0" + a[y].tobytes() for y in range(h))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 1))
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return np.frombuffer(png, np.uint8)


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


def unsupported(name, data, shape):
    """tests/images/unsupported/NAME: an image of a kind ImageDecoder refuses (ONNXC_ERR_IMAGE)"""
    d = os.path.join(HERE, "unsupported", name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    node = helper.make_node("ImageDecoder", ["data"], ["image"])
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("data", TensorProto.UINT8, [len(data)])],
                          [helper.make_tensor_value_info("image", TensorProto.UINT8, list(shape))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    onnx.save(m, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(data, "data").SerializeToString())


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    shutil.rmtree(os.path.join(HERE, "unsupported"), ignore_errors=True)
    sample_cases()
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
    # JPEG (baseline): 4:2:0, 4:2:2, 4:4:4, odd sizes, gray, optimized Huffman tables, qualities
    case("jpeg_420_odd", encode(rgb, "JPEG"), Image.open(io.BytesIO(encode(rgb, "JPEG").tobytes())), "RGB")
    for name, img, kw, fmt in [("jpeg_420_big_bgr", big, {"quality": 90}, "BGR"),
                               ("jpeg_422_odd_gray", rgb, {"subsampling": 1, "quality": 60}, "Grayscale"),
                               ("jpeg_444", big, {"subsampling": 0, "quality": 95}, "RGB"),
                               ("jpeg_420_optimized_q30", big, {"optimize": True, "quality": 30}, "RGB"),
                               ("jpeg_gray_source", gray, {}, "RGB"),
                               ("jpeg_rgba_source_gray", Image.fromarray(picture(37, 29, 8)), {"quality": 85}, "Grayscale")]:
        data = encode(img, "JPEG", **kw)
        case(name, data, Image.open(io.BytesIO(data.tobytes())), fmt)
    # restart markers and per-component scans: libjpeg's encoder through jpeg_variants.c
    exe = os.path.join(OUT, "..", "jpeg_variants")
    subprocess.run(["cc", "-O2", os.path.join(HERE, "jpeg_variants.c"), "-o", exe, "-ljpeg"], check=True)
    for name, img, restart, percomp, fmt in [("jpeg_restart_1", big, 1, 0, "RGB"), ("jpeg_restart_5_odd", rgb, 5, 0, "BGR"),
                                             ("jpeg_scan_per_component", big, 0, 1, "RGB"),
                                             ("jpeg_scan_per_component_restart_3_odd", rgb, 3, 1, "Grayscale")]:
        a = np.asarray(img)
        r = subprocess.run([exe, str(restart), str(percomp)], input=b"%d %d\n" % a.shape[:2] + a.tobytes(), capture_output=True, check=True)
        data = np.frombuffer(r.stdout, np.uint8)
        case(name, data, Image.open(io.BytesIO(r.stdout)), fmt)
    os.remove(exe)
    # kinds it refuses
    unsupported("jpeg_progressive", encode(big, "JPEG", progressive=True), (96, 130, 3))
    unsupported("png_interlaced", png_interlaced(np.asarray(rgb)), (23, 37, 3))
    unsupported("png_16bit", encode(Image.fromarray((np.asarray(gray).astype(np.uint16) * 257), "I;16"), "PNG"), (23, 37, 3))
    unsupported("tiff_lzw", encode(big, "TIFF", compression="tiff_lzw"), (96, 130, 3))
    if "WEBP" in Image.SAVE:
        unsupported("webp", encode(big, "WEBP"), (96, 130, 3))
    # output shape from the flag
    img = Image.fromarray(picture(24, 40, 5))
    case("declared_none", encode(img, "PNG"), img, "RGB", declare=False, flags="--image-size 24x40")


def sample_cases():
    """WebP (lossy, lossless, VP8X with alpha) and JPEG 2000 (reversible and irreversible, layers,
    tiles, precincts, progression orders, raw J2K) from webp_samples.py / jp2_samples.py; the
    expected images are Pillow's decodes.  A few in BGR and Grayscale."""
    import jp2_samples
    import webp_samples
    for mod, prefix in ((webp_samples, "webp_"), (jp2_samples, "jp2_")):
        for k, (name, data, want) in enumerate(mod.samples()):
            fmt = "BGR" if k == 1 else "Grayscale" if k == 2 else "RGB"
            case((name if name.startswith(prefix) else prefix + name) + ("" if fmt == "RGB" else "_" + fmt.lower()), np.frombuffer(data, np.uint8),
                 Image.fromarray(want), fmt)
    opj_cases()
    # an animated WebP (ONNXC_ERR_IMAGE)
    frames = [Image.fromarray(picture(16, 16, 10 + i)) for i in range(2)]
    b = io.BytesIO()
    frames[0].save(b, format="WEBP", save_all=True, append_images=frames[1:], duration=100)
    unsupported("webp_animated", np.frombuffer(b.getvalue(), np.uint8), (16, 16, 3))


def opj_cases():
    """JPEG 2000 from OpenJPEG's opj_compress (jp2_samples.opj_samples): the bypass and
    terminate-each-pass code-block styles, alone and with reset, vertically causal, predictable
    termination and segmentation symbols, 5/3 and 9/7; progression order changes (POC) in
    tile-part headers, over several tiles and tile-parts, and in the main header; one in BGR, one
    in Grayscale.  And a JPEG 2000 image with subsampled components, refused."""
    import jp2_samples
    for k, (name, data, want) in enumerate(jp2_samples.opj_samples()):
        fmt = "BGR" if k == 2 else "Grayscale" if k == 3 else "RGB"
        case(name + ("" if fmt == "RGB" else "_" + fmt.lower()), np.frombuffer(data, np.uint8), Image.fromarray(want), fmt)
    for name, data, shape in jp2_samples.opj_unsupported():
        unsupported(name, np.frombuffer(data, np.uint8), shape)


if __name__ == "__main__":
    main()
