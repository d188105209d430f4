#!/usr/bin/env python3
"""ImageDecoder on damaged images: for one model per format (tests/images/cases), the generated
C is built with AddressSanitizer and UndefinedBehaviorSanitizer and run on the intact image and
on seeded mutations of it (bytes flipped or zeroed, runs cut out and the rest shifted, header
fields set to extremes or moved by a little, the tail zeroed).  Every run must end with status 0, ONNXC_ERR_SHAPE (9)
or ONNXC_ERR_IMAGE (11) -- no crash, no sanitizer report, no hang -- and the intact image with 0.
The kinds it refuses (tests/images/unsupported: progressive JPEG, interlaced and 16-bit PNG, LZW
TIFF, animated WebP, JPEG 2000 with subsampled components) must end with ONNXC_ERR_IMAGE.

With --target cuda-emu the model is compiled with --target cuda and run on the CPU through
tests/cuda/emu (g++, the same sanitizers): the decoder's status reaches run_host through the
device status word (a failing node must not leave the run reporting success), one image of five
formats.

usage: check_bad_images.py [--build BUILD] [--cc CC] [-n MUTATIONS] [--target c|cuda-emu]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES = ["png_rgb_level9_bgr", "png_palette", "png_gray_alpha", "png_rgb_stored", "png_tiny_fixed_codes", "bmp_odd_width",
         "bmp_palette_bgr", "tiff_packbits", "tiff_raw_bgr", "pnm_p6_gray", "pnm_p3_text", "jpeg_420_odd", "jpeg_444",
         "jpeg_422_odd_gray", "jpeg_restart_5_odd", "jpeg_scan_per_component_restart_3_odd", "webp_lossy_gradient_q80",
         "webp_lossy_alpha_vp8x", "webp_lossless_palette", "webp_lossless_gradient", "jp2_layers_lrcp_rgb_48x40",
         "jp2_irreversible_tiles_rgb_60x44", "jp2_pcrl_tiles_offsets_rgb_50x30", "jp2_lossless_gray_j2k_17x5_bgr",
         "jp2_bypass_termall_styles_rpcl_rgb_26x20_bgr", "jp2_poc_parts_components_rgb_30x22",
         "jp2_poc_main_header_gray_j2k_27x19"]
# on the CUDA emulation one image of five formats: the decoders are the same C code as above (checked
# there under the sanitizers); what is new is the status word's path to run_host
CUDA_CASES = ["png_rgb_level9_bgr", "bmp_palette_bgr", "jpeg_420_odd", "webp_lossy_gradient_q80", "jp2_layers_lrcp_rgb_48x40"]

DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net.h"
static unsigned char arena[NET_ARENA_BYTES + 64] __attribute__((aligned(64)));
/* argv: input bytes, output bytes, files; buffers of exactly those sizes (ASan sees overruns) */
int main(int argc, char **argv) {
  long n = atol(argv[1]), no = atol(argv[2]);
  int i;
  for (i = 3; i < argc; i++) {
    unsigned char *in = malloc((size_t)n), *out = malloc((size_t)no);
    FILE *f = fopen(argv[i], "rb");
    size_t got;
    if (!f || !in || !out) return 2;
    memset(in, 0, (size_t)n);
    got = fread(in, 1, (size_t)n, f);
    fclose(f);
    (void)got;
    printf("%d\n", net_run(arena, in, out));
    free(in);
    free(out);
  }
  return 0;
}
"""

DRIVER_CUDA = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net.h"
/* argv: input bytes, output bytes, files; run_host's status per file */
int main(int argc, char **argv) {
  long n = atol(argv[1]), no = atol(argv[2]);
  int i;
  net_cuda *c = 0;
  if (net_cuda_create(&c, 0)) return 2;
  for (i = 3; i < argc; i++) {
    unsigned char *in = (unsigned char *)malloc((size_t)n), *out = (unsigned char *)malloc((size_t)no);
    FILE *f = fopen(argv[i], "rb");
    size_t got;
    if (!f || !in || !out) return 2;
    memset(in, 0, (size_t)n);
    got = fread(in, 1, (size_t)n, f);
    fclose(f);
    (void)got;
    printf("%d\n", net_cuda_run_host(c, in, out));
    free(in);
    free(out);
  }
  net_cuda_destroy(c);
  return 0;
}
"""


def mutate(rnd, data):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        k = rnd.random()
        p = rnd.randrange(len(b))
        if k < 0.35:
            b[p] ^= 1 << rnd.randrange(8)
        elif k < 0.55:
            b[p] = rnd.choice([0, 0xff, 0x7f, 0x80, 1])
        elif k < 0.6:  # a header field (sizes, offsets, counts) set to an extreme
            p = rnd.randrange(min(len(b), 64))
            for q in range(p, min(p + 4, len(b))):
                b[q] = rnd.choice([0, 0xff])
        elif k < 0.7:  # a header field a little larger or smaller (either byte order)
            p = rnd.randrange(min(len(b), 64) - 4)
            order = rnd.choice(["big", "little"])
            v = (int.from_bytes(b[p:p + 4], order) + rnd.randint(-64, 64)) % (1 << 32)
            b[p:p + 4] = v.to_bytes(4, order)
        elif k < 0.85:  # a run cut out, the rest shifted (the tail zero)
            ln = rnd.randint(1, 32)
            b = b[:p] + b[p + ln:] + bytes(ln)
        else:  # truncated
            b = b[:p] + bytes(len(b) - p)
    return bytes(b[:len(data)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("-n", type=int, default=250)
    ap.add_argument("--target", choices=["c", "cuda-emu"], default="c")
    args = ap.parse_args()
    onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
    work = tempfile.mkdtemp(prefix="onnxc_badimg_")
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g", "-O0"]  # -O0: 4x faster builds, and no access optimized away
    rnd = random.Random(20261126)
    runs = bad = 0
    def build(src, d):
        os.makedirs(d)
        t = onnx.TensorProto()
        with open(os.path.join(src, "test_data_set_0", "input_0.pb"), "rb") as f:
            t.ParseFromString(f.read())
        data = numpy_helper.to_array(t).tobytes()
        nout = 1
        for dim in onnx.load(os.path.join(src, "model.onnx")).graph.output[0].type.tensor_type.shape.dim:
            nout *= dim.dim_value
        flags = []
        fl = os.path.join(src, "onnxc_flags.txt")
        if os.path.exists(fl):
            flags = open(fl).read().split()
        rt = os.path.join(ROOT, "runtime_min")
        if args.target == "cuda-emu":
            emu = os.path.join(ROOT, "tests", "cuda", "emu")
            subprocess.run([onnxc, os.path.join(src, "model.onnx"), "--target", "cuda", "-o", os.path.join(d, "net.cu"), "--name", "net"] +
                           flags, check=True)
            with open(os.path.join(d, "driver.cpp"), "w") as f:
                f.write(DRIVER_CUDA)
            subprocess.run([args.cc] + san + ["-c", os.path.join(rt, "onnxc_rt.c"), "-o", os.path.join(d, "rt.o")], check=True)
            subprocess.run(["g++", "-std=c++17", "-w"] + san + ["-include", os.path.join(emu, "cuda_emu.h"), "-I", rt, "-I", emu, "-I", d,
                            "-x", "c++", os.path.join(d, "net.cu"), os.path.join(d, "driver.cpp"), os.path.join(emu, "rt_emu.cpp"),
                            "-x", "none", os.path.join(d, "rt.o"), "-o", os.path.join(d, "a.out"), "-lm"], check=True)
            return data, nout
        subprocess.run([onnxc, os.path.join(src, "model.onnx"), "-o", os.path.join(d, "net.c"), "--name", "net"] + flags, check=True)
        with open(os.path.join(d, "driver.c"), "w") as f:
            f.write(DRIVER)
        subprocess.run([args.cc] + san + ["-I", rt, "-I", d, os.path.join(d, "net.c"),
                        os.path.join(d, "driver.c"), os.path.join(rt, "onnxc_rt.c"), "-o", os.path.join(d, "a.out"), "-lm"],
                       check=True)
        return data, nout

    def run(d, data, nout, inputs):
        files = []
        for k, b in enumerate(inputs):
            p = os.path.join(d, "in%d.bin" % k)
            with open(p, "wb") as f:
                f.write(b)
            files.append(p)
        r = subprocess.run([os.path.join(d, "a.out"), str(len(data)), str(nout)] + files, capture_output=True, text=True, timeout=600)
        return r, r.stdout.split()

    cases = CASES if args.target == "c" else CUDA_CASES
    for name in cases:
        d = os.path.join(work, name)
        data, nout = build(os.path.join(HERE, "cases", name), d)
        r, st = run(d, data, nout, [data] + [mutate(rnd, data) for _ in range(args.n)])
        if r.returncode != 0 or len(st) != args.n + 1 or st[0] != "0" or any(s not in ("0", "9", "11") for s in st):
            print("FAIL %s: rc %d, statuses %s\n%s" % (name, r.returncode, " ".join(sorted(set(st))), r.stderr[-3000:]))
            bad += 1
        else:
            counts = {s: st.count(s) for s in ("0", "9", "11")}
            print("PASS %s: %d runs, status 0/9/11: %d/%d/%d" % (name, len(st), counts["0"], counts["9"], counts["11"]))
        runs += len(st)
    for name in sorted(os.listdir(os.path.join(HERE, "unsupported"))):
        d = os.path.join(work, "unsupported_" + name)
        data, nout = build(os.path.join(HERE, "unsupported", name), d)
        r, st = run(d, data, nout, [data])
        ok = r.returncode == 0 and st == ["11"]
        print("%s unsupported %s: status %s" % ("PASS" if ok else "FAIL", name, " ".join(st) or r.stderr[-2000:]))
        bad += not ok
        runs += 1
    print("%d images, %d runs, %d failed" % (len(cases), runs, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
