"""JPEG 2000 samples for the ImageDecoder tests (templates/image_jp2.h).

samples() returns a list of (name, encoded bytes, expected uint8 [H, W, 3] RGB array): small
images made here with fixed seeds and encoded with Pillow's JPEG 2000 writer (OpenJPEG), the
expected output being Pillow's own decode, Image.open(...).convert("RGB").  Together they cover
JP2 and raw J2K files, gray / RGB / RGBA sources, lossless (5/3 + RCT) and irreversible (9/7 +
ICT) coding, quality layers, the five progression orders, precincts, code-block sizes, several
tiles with tile and image offsets, and a 1 x 1 image.  Run with Debian's /usr/bin/python3
(Pillow with OpenJPEG 2.5).
"""

import io

import numpy as np
from PIL import Image


def _image(w, h, mode, seed):
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    a = np.stack([xx * 255 // max(w - 1, 1), yy * 255 // max(h - 1, 1), (xx * 7 + yy * 3) % 256], -1)
    a = a + rng.randint(-12, 13, a.shape)
    if w > 4 and h > 4:  # a flat block and a noisy one
        a[h // 4: h // 2, w // 3: 2 * w // 3] = rng.randint(0, 256, 3)
        a[h // 2:, : w // 4] = rng.randint(0, 256, (h - h // 2, w // 4, 3))
    im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")
    if mode == "L":
        im = im.convert("L")
    elif mode == "RGBA":
        im = im.convert("RGBA")
        im.putalpha(Image.fromarray(rng.randint(0, 256, (h, w)).astype(np.uint8), "L"))
    return im


_CASES = [
    ("jp2_lossless_rgb_33x47", 33, 47, "RGB", {}),
    ("jp2_lossless_gray_j2k_17x5", 17, 5, "L", {"no_jp2": True, "num_resolutions": 2}),
    ("jp2_lossless_rgba_tiles_32x32", 32, 32, "RGBA", {"tile_size": (16, 16)}),
    ("jp2_irreversible_rgb_64x48", 64, 48, "RGB", {"irreversible": True}),
    ("jp2_layers_lrcp_rgb_48x40", 48, 40, "RGB",
     {"quality_mode": "rates", "quality_layers": [40, 10, 2], "progression": "LRCP"}),
    ("jp2_rpcl_precincts_rgb_40x40", 40, 40, "RGB",
     {"progression": "RPCL", "precinct_size": (16, 16), "codeblock_size": (8, 8), "num_resolutions": 3,
      "quality_mode": "rates", "quality_layers": [20, 4]}),
    ("jp2_pcrl_tiles_offsets_rgb_50x30", 50, 30, "RGB",
     {"progression": "PCRL", "tile_size": (32, 32), "tile_offset": (1, 2), "offset": (3, 5),
      "precinct_size": (16, 16), "num_resolutions": 3}),
    ("jp2_cprl_db_rgb_45x45", 45, 45, "RGB",
     {"progression": "CPRL", "num_resolutions": 3, "quality_mode": "dB", "quality_layers": [30, 40],
      "codeblock_size": (16, 32)}),
    ("jp2_irreversible_rlcp_gray_31x29", 31, 29, "L",
     {"irreversible": True, "progression": "RLCP", "quality_mode": "rates", "quality_layers": [20]}),
    ("jp2_irreversible_tiles_rgb_60x44", 60, 44, "RGB",
     {"irreversible": True, "tile_size": (24, 24), "precinct_size": (16, 16), "num_resolutions": 3,
      "no_jp2": True}),
    ("jp2_lossless_rgb_1x1", 1, 1, "RGB", {"num_resolutions": 1}),
]


def samples():
    out = []
    for i, (name, w, h, mode, opts) in enumerate(_CASES):
        buf = io.BytesIO()
        _image(w, h, mode, 1000 + i).save(buf, "JPEG2000", **opts)
        data = buf.getvalue()
        rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.uint8)
        out.append((name, data, rgb))
    return out


# code-block styles Pillow's writer does not set, from OpenJPEG's opj_compress (libopenjp2-tools):
# -M is the sum of 1 bypass (raw significance propagation and magnitude refinement passes below
# the 4 most significant bit-planes), 2 reset, 4 terminate each pass, 8 vertically causal,
# 16 predictable termination, 32 segmentation symbols
_OPJ_CASES = [
    ("jp2_bypass_lossless_rgb_30x22", 30, 22, "RGB", ".jp2", ["-M", "1", "-n", "4"]),
    ("jp2_termall_layers_gray_j2k_27x19", 27, 19, "L", ".j2k", ["-M", "4", "-r", "8,3,1", "-b", "8,8", "-n", "3"]),
    ("jp2_bypass_termall_styles_rpcl_rgb_26x20", 26, 20, "RGB", ".j2k",
     ["-M", "63", "-r", "6,2,1", "-p", "RPCL", "-b", "8,16", "-n", "3"]),
    ("jp2_irreversible_bypass_layers_rgb_32x24", 32, 24, "RGB", ".jp2", ["-M", "17", "-I", "-r", "6,2", "-b", "16,16", "-n", "4"]),
    ("jp2_bypass_reset_tiles_rgb_34x26", 34, 26, "RGB", ".j2k", ["-M", "3", "-t", "16,16", "-r", "4,1", "-n", "2"]),
    # progression order changes (POC: -POC T<tile>=first resolution, first component, end layer,
    # end resolution, end component, order / ...), which opj_compress writes in tile-part headers;
    # a packet already sent by an earlier entry is skipped by the later ones
    ("jp2_poc_tiles_layers_rgb_34x26", 34, 26, "RGB", ".jp2",
     ["-t", "16,16", "-n", "3", "-r", "8,3,1", "-c", "[16,16],[8,8]", "-POC", "T1=0,0,1,3,3,RPCL/T1=0,0,3,3,3,CPRL"]),
    ("jp2_poc_parts_components_rgb_30x22", 30, 22, "RGB", ".j2k",
     ["-n", "4", "-r", "5,1", "-p", "RPCL", "-TP", "C",
      "-POC", "T1=0,2,1,4,3,RLCP/T1=0,0,2,2,2,PCRL/T1=1,0,2,4,3,LRCP/T1=0,0,2,4,3,CPRL"]),
]

# with the POC segments moved from the tile-part header into the main header (a single tile)
_OPJ_MAIN_POC = ("jp2_poc_main_header_gray_j2k_27x19", 27, 19, "L", ".j2k",
                 ["-n", "3", "-r", "6,2", "-POC", "T1=1,0,2,3,1,PCRL/T1=0,0,2,1,1,LRCP"])


def poc_to_main(d):
    """the codestream d of one tile with the POC segments of its tile-part header moved into the
    main header"""
    import struct
    sot = d.find(b"\xff\x90")
    psot = struct.unpack(">I", d[sot + 6:sot + 10])[0]
    q, pocs, hdr = sot + 12, b"", b""
    while d[q:q + 2] != b"\xff\x93":
        seg = d[q:q + 2 + struct.unpack(">H", d[q + 2:q + 4])[0]]
        if seg[:2] == b"\xff\x5f":
            pocs += seg
        else:
            hdr += seg
        q += len(seg)
    assert pocs
    return d[:sot] + pocs + d[sot:sot + 6] + struct.pack(">I", psot - len(pocs) if psot else 0) + d[sot + 10:sot + 12] + hdr + d[q:]


def opj_encode(im, ext, args):
    """im encoded by opj_compress with the command-line options args"""
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in.pgm" if im.mode == "L" else "in.ppm"), os.path.join(d, "out" + ext)
        im.save(src)
        subprocess.run(["opj_compress", "-i", src, "-o", out] + args, check=True, capture_output=True)
        with open(out, "rb") as f:
            return f.read()


def opj_samples():
    """(name, encoded bytes, expected RGB array) for _OPJ_CASES: the bypass and terminate-each-pass
    code-block styles, alone and with the others, 5/3 and 9/7, layers, tiles; progression order
    changes in tile-part headers (with several tile-parts) and in the main header"""
    out = []
    for i, (name, w, h, mode, ext, args) in enumerate(_OPJ_CASES + [_OPJ_MAIN_POC]):
        data = opj_encode(_image(w, h, mode, 2000 + i), ext, args)
        if name == _OPJ_MAIN_POC[0]:
            data = poc_to_main(data)
        rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.uint8)
        out.append((name, data, rgb))
    return out


def opj_unsupported():
    """(name, encoded bytes, shape) of a JPEG 2000 image the decoder refuses: subsampled components
    (XRsiz = YRsiz = 2)"""
    data = opj_encode(_image(24, 20, "RGB", 2100), ".j2k", ["-n", "3", "-s", "2,2"])
    return [("jp2_subsampled", data, (20, 24, 3))]


if __name__ == "__main__":
    tot = 0
    for name, data, rgb in samples():
        tot += len(data)
        print(name, len(data), rgb.shape)
    for name, data, rgb in opj_samples():
        tot += len(data)
        print(name, len(data), rgb.shape)
    print("total bytes", tot)
