#!/usr/bin/env python3
"""Writes the string-tensor cases under tests/strings/cases (run once; the files are committed).

Each case is a conformance-style folder (model.onnx + test_data_set_0) whose reference outputs
come from Python and NumPy, not from onnxc:
  regex    RegexFullMatch over many patterns and texts, against Python's re (ASCII classes,
           patterns written so that re and RE2 agree)
  split    StringSplit (delimiters, maxsplit) against str.split; StringNormalizer LOWER/UPPER
           of ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic against str.lower/upper
  cast     Cast between text and double/float16/int8/int32/int64/uint64 against NumPy's str()
           and float(); text -> number -> text round trips
  move     Constant strings, Reshape/Identity/Unsqueeze/Flatten/Shape of strings, Equal,
           StringConcat of constants, a graph input passed through to an output
tests/strings/check_status.py checks the run-time statuses (heap full, bound exceeded, text
that is not a number).
"""
import os
import random
import re

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases")
S = TensorProto.STRING


def write_case(name, nodes, inputs, outputs, opset=20, inits=(), ml=None):
    """inputs/outputs: (name, elem_type, array); ml: the ai.onnx.ml opset, if used."""
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, a.shape) for n, t, a in inputs],
                          [helper.make_tensor_value_info(n, t, None) for n, t, _ in outputs], initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)] +
                          ([helper.make_opsetid("ai.onnx.ml", ml)] if ml else []))
    m.ir_version = 9
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, (n, _, a) in enumerate(inputs):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(a), n).SerializeToString())
    for k, (n, _, a) in enumerate(outputs):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(a), n).SerializeToString())


def strings(items):
    a = np.empty(len(items), dtype=object)
    a[:] = items
    return a


# (RE2 pattern, the same language in Python's re with re.ASCII, fullmatch)
PATTERNS = [
    (r"www\.[\w.-]+\.\bcom\b", None), (r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)", r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|\Z)"),
    (r"a*", None), (r"a+b?", None), (r"(ab|cd)*e", None), (r"[^abc]+", None), (r"x{2,4}", None), (r"x{3}", None),
    (r"x{2,}", None), (r"(a|b)*abb", None), (r"\d+(\.\d+)?", None), (r"[[:alpha:]]+[[:digit:]]*", r"[a-zA-Z]+[0-9]*"),
    (r"(?i)hello", None), (r"(?i:AbC)d", None), (r".*", None), (r"(?s).*", None), (r"^abc$", r"^abc\Z"),
    (r"\Aab\z", r"\Aab\Z"), (r"a\b b", None), (r"\Bb\B", None), (r"[a-c-]+", None), (r"[]a]+", r"[\]a]+"),
    (r"\x41\x{42}C", r"\x41\x42C"), (r"\Q.*\E+", r"\.\*+"), (r"(?:foo|bar)+", None), (r"(?P<n>q)r", None),
    (r"é+", None), (r"[α-ω]+", None), (r".", None), (r"\.", None), (r"[\d\s]+", r"[\d\t\n\f\r ]+"), (r"[^\W\d]+", None),
    (r"\S+", r"[^\t\n\f\r ]+"), (r"(a*)*b", None), (r"(|a)+", None), (r"a{0}b", None), (r"\n", None),
    (r"[\x00-\x7f]*", None), (r"(?m)^a$", None), (r"colou?r", None), (r"(a|ab)(c|bcd)(d*)", None),
    (r"\w+@\w+\.\w+", None), (r"[.]", None), (r"a.c", None), (r"\t", None), (r"(x+x+)+y", None),
    (r"a{,3}", r"a\{,3\}"), (r"\{", None), (r"[a-z]{1,3}\d{2}", None), (r"(?i)[^a-c]+", None), (r"a*?b+?", None),
    (r"\101\0", r"A\x00"),
]


def regex_case():
    rnd = random.Random(5)
    alpha = "ab cdexyz.@-_1230\nABCéαβ\t{},"
    texts = ["", "a", "ab", "abb", "www.google.com", "www.bbc.co.uk", "account@gmail.com", "not email", "hello", "HeLLo",
             "abcd", "xx", "xxx", "xxxxx", "12.5", "12.", "abc", "a b", "a\nb", "a\n", "\nb", "colour", "color", "é", "éé",
             "αβγ", "A", "ABC", "xxxxxxxxxxxxy", "{", "a{,3}", "ab12", "abc12", ".*", ".*.*", "foobarfoo", "qr", "abd",
             "aaab", "\t", "\n", "DEF", "aabbb"]
    texts += ["".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 12))) for _ in range(200)]
    nodes, outs = [], []
    for i, (p, py) in enumerate(PATTERNS):
        nodes.append(helper.make_node("RegexFullMatch", ["x"], [f"y{i}"], name=f"re{i}", pattern=p))
        want = np.array([re.fullmatch(py or p, t, re.ASCII) is not None for t in texts])
        outs.append((f"y{i}", TensorProto.BOOL, want))
    write_case("regex", nodes, [("x", S, strings(texts))], outs)


def ours(c, up):
    """The one-to-one case pairs StringNormalizer maps (templates/text.h), from Python's."""
    o = ord(c)
    if not (o < 0x80 or o == 0xB5 or 0xC0 <= o <= 0x17F or 0x386 <= o <= 0x3CE or 0x400 <= o <= 0x45F):
        return c
    if c in "\u0130\u0131\u017f\u0149\u00df":
        return c
    r = c.upper() if up else c.lower()
    if up and o == 0x3C2:
        return "\u03a3"
    return r if len(r) == 1 and len(r.encode()) == len(c.encode()) else c


def split_case():
    rnd = random.Random(7)
    alpha = ["a", "b", " ", "  ", "\t", "\n", ".", "-", "--", "é", "\u3000", "\xa0", "x", "\x1c", "ab"]
    texts = ["", " ", "a", "a b", " a ", "a.b.", ".", "..", "hello world !", "  hello   world !", "o-n-n--x-", "\u3000a\u3000b"]
    texts += ["".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 10))) for _ in range(150)]
    cfgs = [(None, None), ("", None), (".", None), ("-", None), ("--", None), (" ", None), (None, 0), (None, 1), (None, 2),
            (".", 1), ("-", 2), ("ab", None), ("é", 1), (None, -1)]
    nodes, outs = [], []
    for i, (d, ms) in enumerate(cfgs):
        kw = {}
        if d is not None:
            kw["delimiter"] = d
        if ms is not None:
            kw["maxsplit"] = ms
        nodes.append(helper.make_node("StringSplit", ["x"], [f"s{i}", f"n{i}"], name=f"split{i}", **kw))
        parts = [t.split(d or None, -1 if ms is None else ms) for t in texts]
        k = max(len(p) for p in parts)
        arr = np.empty((len(texts), k), dtype=object)
        for r, p in enumerate(parts):
            arr[r] = p + [""] * (k - len(p))
        outs += [(f"s{i}", S, arr), (f"n{i}", TensorProto.INT64, np.array([len(p) for p in parts], dtype=np.int64))]
    chars = [chr(c) for c in list(range(0x20, 0x7F)) + list(range(0xA0, 0x250)) + list(range(0x370, 0x460))]
    ctexts = ["".join(rnd.choice(chars) for _ in range(8)) for _ in range(200)] + chars
    for up in (0, 1):
        nodes.append(helper.make_node("StringNormalizer", ["z"], [f"c{up}"], name=f"case{up}",
                                      case_change_action="UPPER" if up else "LOWER"))
        outs.append((f"c{up}", S, strings(["".join(ours(ch, up) for ch in t) for t in ctexts])))
    # case-insensitive stop words over non-ASCII letters
    stop = ["ÉTÉ", "straße", "Ωμέγα", "привет"]
    words = ["été", "Été", "STRASSE", "straße", "ωμέγα", "ΩΜΈΓΑ", "ПРИВЕТ", "hello", "", "été "]
    nodes.append(helper.make_node("StringNormalizer", ["w"], ["kept"], name="stop", stopwords=stop))
    kept = [w for w in words if not any("".join(ours(c, 0) for c in w) == "".join(ours(c, 0) for c in s) for s in stop)]
    outs.append(("kept", S, strings(kept)))
    write_case("split_case", nodes, [("x", S, strings(texts)), ("z", S, strings(ctexts)), ("w", S, strings(words))], outs)


def cast_case():
    rnd = random.Random(3)
    n = 300
    d = np.array([rnd.choice([rnd.uniform(-1e3, 1e3), 10 ** rnd.uniform(-320, 308), -10 ** rnd.uniform(-30, 30), 0.0, -0.0,
                              float("inf"), float("nan"), 1e16, 1e-4, 123456789012345678.0, 5e-324]) for _ in range(n)])
    hb = np.array([rnd.getrandbits(16) for _ in range(n)], dtype=np.uint16)
    hb[(hb & 0x7C00) == 0x7C00] = 0x7E00  # one NaN pattern (NumPy warns converting the others)
    hb[:4] = [0x7C00, 0xFC00, 0x0001, 0x7BFF]
    h = hb.view(np.float16)
    f = np.array([rnd.getrandbits(32) for _ in range(n)], dtype=np.uint32).view(np.float32)
    i8 = np.array([rnd.randint(-128, 127) for _ in range(n)], dtype=np.int8)
    i64 = np.array([rnd.choice([rnd.randint(-2 ** 63, 2 ** 63 - 1), -2 ** 63, 0, 5]) for _ in range(n)], dtype=np.int64)
    u64 = np.array([rnd.choice([rnd.randint(0, 2 ** 64 - 1), 2 ** 64 - 1, 0]) for _ in range(n)], dtype=np.uint64)
    ints = [str(rnd.randint(-2 ** 31, 2 ** 31 - 1)) for _ in range(n - 6)] + ["  12 ", "+7", "-0", "100.5", "-2147483648", "2147483647"]
    dtext = [repr(float(x)) for x in d[:n - 6]] + ["1e400", "-1e-400", " nan", "Infinity", "-INF", "0.1e1"]
    nodes = [helper.make_node("Cast", ["d"], ["sd"], to=S, name="d2s"), helper.make_node("Cast", ["h"], ["sh"], to=S, name="h2s"),
             helper.make_node("Cast", ["f"], ["sf"], to=S, name="f2s"),
             helper.make_node("Cast", ["i8"], ["si8"], to=S, name="i82s"), helper.make_node("Cast", ["i64"], ["si64"], to=S, name="i642s"),
             helper.make_node("Cast", ["u64"], ["su64"], to=S, name="u642s"),
             helper.make_node("Cast", ["ints"], ["ii"], to=TensorProto.INT32, name="s2i"),
             helper.make_node("Cast", ["dtext"], ["dd"], to=TensorProto.DOUBLE, name="s2d"),
             helper.make_node("Cast", ["sd"], ["rt"], to=TensorProto.DOUBLE, name="roundtrip_d"),
             helper.make_node("Cast", ["sf"], ["rtf"], to=TensorProto.FLOAT, name="roundtrip_f"),
             helper.make_node("Cast", ["sh"], ["rth"], to=TensorProto.FLOAT16, name="roundtrip_h"),
             helper.make_node("CastLike", ["rtf", "like"], ["sf2"], name="castlike")]
    with np.errstate(all="ignore"):
        ins = [("d", TensorProto.DOUBLE, d), ("h", TensorProto.FLOAT16, h), ("f", TensorProto.FLOAT, f), ("i8", TensorProto.INT8, i8),
               ("i64", TensorProto.INT64, i64), ("u64", TensorProto.UINT64, u64), ("ints", S, strings(ints)),
               ("dtext", S, strings(dtext)), ("like", S, strings(["x"]))]
        outs = [("sd", S, d.astype(str).astype(object)), ("sh", S, h.astype(str).astype(object)), ("sf", S, f.astype(str).astype(object)),
                ("si8", S, i8.astype(str).astype(object)), ("si64", S, i64.astype(str).astype(object)),
                ("su64", S, u64.astype(str).astype(object)),
                ("ii", TensorProto.INT32, np.array([int(s.split(".")[0]) for s in ints], dtype=np.int32)),
                ("dd", TensorProto.DOUBLE, np.array([float(s) for s in dtext])), ("rt", TensorProto.DOUBLE, d),
                ("rtf", TensorProto.FLOAT, f), ("rth", TensorProto.FLOAT16, h), ("sf2", S, f.astype(str).astype(object))]
    write_case("cast", nodes, ins, outs, opset=21)


def move_case():
    x = strings(["a", "bb", "ccc", "", "é", "z"]).reshape(2, 3)
    ax = numpy_helper.from_array(np.array([0], dtype=np.int64), "ax")
    shp = numpy_helper.from_array(np.array([3, 2], dtype=np.int64), "shp")
    nodes = [helper.make_node("Constant", [], ["c"], value_strings=["-1", "-2", "-3"], name="k"),
             helper.make_node("StringConcat", ["x", "c"], ["xc"], name="cat"),
             helper.make_node("Reshape", ["xc", "shp"], ["r"], name="reshape"),
             helper.make_node("Identity", ["r"], ["ri"], name="id"),
             helper.make_node("Unsqueeze", ["ri", "ax"], ["u"], name="unsqueeze"),
             helper.make_node("Flatten", ["x"], ["f"], name="flatten", axis=0),
             helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Constant", [], ["cs"], value_string="const\"?\\", name="k3"),
             helper.make_node("Equal", ["x", "cs"], ["eq"], name="eq"),
             helper.make_node("Equal", ["x", "x2"], ["eq2"], name="eq2"),
             helper.make_node("StringConcat", ["cs", "cs"], ["cc"], name="cat2"),
             helper.make_node("Identity", ["x"], ["xid"], name="pass")]
    x2 = strings(["a", "b", "ccc"])
    ins = [("x", S, x), ("x2", S, x2)]
    outs = [("u", S, strings(["a-1", "bb-2", "ccc-3", "-1", "é-2", "z-3"]).reshape(1, 3, 2)), ("f", S, x.reshape(1, 6)),
            ("s", TensorProto.INT64, np.array([2, 3], dtype=np.int64)), ("eq", TensorProto.BOOL, np.zeros((2, 3), dtype=bool)),
            ("eq2", TensorProto.BOOL, x == x2), ("cc", S, np.array('const"?\\const"?\\', dtype=object)), ("xid", S, x),
            ("cs", S, np.array('const"?\\', dtype=object))]
    write_case("move", nodes, ins, outs, inits=[ax, shp])


def label_case():
    """LabelEncoder to strings longer than the CUDA targets' 256-byte fetch of the device code's
    literals (run_host copies them out in pieces), some repeated, and the default."""
    table = {1: "a", 2: "x" * 600 + "end", 3: "b" * 300, 4: "é" * 200}
    keys = np.array([1, 2, 3, 9, 2, 4, 4, 1], dtype=np.int64)
    nodes = [helper.make_node("LabelEncoder", ["k"], ["v"], domain="ai.onnx.ml", keys_int64s=list(table),
                              values_strings=list(table.values()), default_string="zz", name="enc")]
    write_case("label_long", nodes, [("k", TensorProto.INT64, keys)],
               [("v", S, strings([table.get(int(k), "zz") for k in keys]))], opset=18, ml=3)


def main():
    label_case()
    regex_case()
    split_case()
    cast_case()
    move_case()


if __name__ == "__main__":
    main()
