#!/usr/bin/env python3
"""Writes the corpus of bad models (run once; the files are committed).

Each case is a file (or folder) under tests/bad/corpus and a line in expected.txt:
    <path relative to corpus>\t<substring the one-line error must contain>[\t<onnxc flags>]
(the flags shell-quoted; onnxc runs in corpus/, so paths in them are relative to it).
"""
import os
import random

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")


def model(nodes, inputs, outputs, inits=(), opset=17, **kw):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    kw.setdefault("opset_imports", [helper.make_opsetid("", opset)])
    m = helper.make_model(g, **kw)
    m.ir_version = 8
    return m


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def save(name, m):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(m.SerializeToString() if hasattr(m, "SerializeToString") else m)


def main():
    os.makedirs(OUT, exist_ok=True)
    exp = []
    good = model([helper.make_node("Relu", ["x"], ["y"], name="relu0")], [vi("x", [1, 4])], [vi("y", [1, 4])])

    exp.append(("does_not_exist.onnx", "cannot open"))
    save("empty.onnx", b"")
    exp.append(("empty.onnx", "the file is empty"))
    rnd = random.Random(1234)
    save("random_bytes.onnx", bytes(rnd.randrange(256) for _ in range(4096)))
    exp.append(("random_bytes.onnx", "not an ONNX model"))
    data = good.SerializeToString()
    save("truncated.onnx", data[: len(data) // 2])
    exp.append(("truncated.onnx", "not an ONNX model"))

    save("cycle.onnx", model([helper.make_node("Add", ["x", "b"], ["a"], name="add_a"),
                              helper.make_node("Relu", ["a"], ["b"], name="relu_b")],
                             [vi("x", [2])], [vi("b", [2])]))
    exp.append(("cycle.onnx", "cycle"))

    save("undefined_input.onnx", model([helper.make_node("Relu", ["nowhere"], ["y"], name="relu0")],
                                       [vi("x", [2])], [vi("y", [2])]))
    exp.append(("undefined_input.onnx", "node 'relu0' (Relu): input 'nowhere' is not produced"))

    save("unsupported_op.onnx", model([helper.make_node("FancyOp", ["x"], ["y"], name="fancy", domain="com.example")],
                                      [vi("x", [2])], [vi("y", [2])],
                                      opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 3)]))
    exp.append(("unsupported_op.onnx", "node 'fancy' (FancyOp): unsupported op: domain 'com.example', op type 'FancyOp', "
                "opset 3; if it is your own op, describe it with --custom-op 'com.example::FancyOp:outputs=...'"))

    big = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 40, 1 << 40], raw_data=b"")
    save("count_overflow.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
                                      [vi("x", [2])], [vi("y", [2])], inits=[big]))
    exp.append(("count_overflow.onnx", "element count overflows"))

    short = helper.make_tensor("w", TensorProto.FLOAT, [4, 4], vals=[1.0] * 16, raw=False)
    del short.float_data[8:]
    save("short_data.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
                                  [vi("x", [4, 4])], [vi("y", [4, 4])], inits=[short]))
    exp.append(("short_data.onnx", "data holds 8 elements but dims [4,4] need 16"))

    short_raw = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, 4], raw_data=b"\0" * 20)
    save("short_raw.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
                                 [vi("x", [4, 4])], [vi("y", [4, 4])], inits=[short_raw]))
    exp.append(("short_raw.onnx", "raw data holds 20 bytes but dims [4,4] need 64"))

    os.makedirs(os.path.join(OUT, "escape"), exist_ok=True)
    with open(os.path.join(OUT, "outside.bin"), "wb") as f:
        f.write(b"\0" * 64)
    ext = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, 4])
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../outside.bin"), ("offset", "0"), ("length", "64")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    save("escape/external_escape.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
                                              [vi("x", [4, 4])], [vi("y", [4, 4])], inits=[ext]))
    exp.append(("escape/external_escape.onnx", "leaves the model's folder"))
    ext.external_data[0].value = "/etc/passwd"
    save("escape/external_absolute.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
                                                [vi("x", [4, 4])], [vi("y", [4, 4])], inits=[ext]))
    exp.append(("escape/external_absolute.onnx", "is absolute"))
    ext.external_data[0].value = "missing.bin"
    save("escape/external_missing.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
                                               [vi("x", [4, 4])], [vi("y", [4, 4])], inits=[ext]))
    exp.append(("escape/external_missing.onnx", "cannot open external data"))
    with open(os.path.join(OUT, "escape", "short.bin"), "wb") as f:
        f.write(b"\0" * 10)
    ext.external_data[0].value = "short.bin"
    ext.external_data[2].value = "64"
    save("escape/external_short.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
                                             [vi("x", [4, 4])], [vi("y", [4, 4])], inits=[ext]))
    exp.append(("escape/external_short.onnx", "shorter than its dims"))

    save("opset_too_new.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                                     [vi("x", [2])], [vi("y", [2])], opset=99))
    exp.append(("opset_too_new.onnx", "opset 99; onnxc knows opsets up to"))

    save("symbolic_dim.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                                    [vi("x", ["batch", 4])], [vi("y", ["batch", 4])]))
    exp.append(("symbolic_dim.onnx", "--dim batch=N"))

    save("two_producers.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r1"),
                                      helper.make_node("Neg", ["x"], ["y"], name="r2")],
                                     [vi("x", [2])], [vi("y", [2])]))
    exp.append(("two_producers.onnx", "also produced by node"))

    save("bad_broadcast.onnx", model([helper.make_node("Add", ["x", "z"], ["y"], name="add0")],
                                     [vi("x", [2, 3]), vi("z", [4])], [vi("y", [2, 3])]))
    exp.append(("bad_broadcast.onnx", "node 'add0' (Add): inputs [2,3] and [4] do not broadcast"))

    save("missing_output.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                                      [vi("x", [2])], [vi("nothing", [2])]))
    exp.append(("missing_output.onnx", "graph output 'nothing' is not produced"))

    save("wrong_type.onnx", model([helper.make_node("Exp", ["x"], ["y"], name="exp0")],
                                  [vi("x", [2], TensorProto.INT32)], [vi("y", [2], TensorProto.INT32)]))
    exp.append(("wrong_type.onnx", "node 'exp0' (Exp): element type int32 is not supported"))

    save("no_graph.onnx", onnx.ModelProto(ir_version=8))
    exp.append(("no_graph.onnx", "no graph"))

    custom_cases(exp)
    string_cases(exp)
    sequence_cases(exp)
    flex_cases(exp)
    gradient_cases(exp)
    random_cases(exp)

    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("# bad model (relative to corpus/)\tsubstring of the expected one-line error[\tonnxc flags]\n")
        for e in exp:
            f.write("\t".join(e) + "\n")


def custom_cases(exp):
    """Custom ops (--custom-op / --custom-ops): specs that do not fit the model, bad spec files,
    a missing backward, attributes and places custom ops cannot have."""
    os.makedirs(os.path.join(OUT, "custom"), exist_ok=True)
    dom = [helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], vals=[0.5] * 9)
    a = helper.make_tensor("a", TensorProto.FLOAT, [3], vals=[1.0] * 3)
    act = model([helper.make_node("Gemm", ["x", "w"], ["h"], name="gemm0"),
                 helper.make_node("Act", ["h", "a"], ["y"], name="act0", domain="com.example", alpha=0.5)],
                [vi("x", [2, 3])], [vi("y", [2, 3])], inits=[w, a], opset_imports=dom)
    save("custom/act.onnx", act)
    ok = "com.example::Act:outputs=in0"
    for flags, want in (
            (f"--custom-op {ok[:-1]}2", "node 'act0' (Act): output 0 of its --custom-op spec refers to input 2, which the node does not have"),
            ("--custom-op 'com.example::Act:outputs=float[in0.0,in0.5]'", "output 0 of its --custom-op spec takes axis 5 of input 0, which has rank 2"),
            (f"--custom-op {ok} --gradients --loss mse", "custom op com.example::Act has no backward (add backward=inputs|outputs|all"),
            (f"--custom-op {ok} --train --loss mse:y --optimizer sgd:lr=0.1", "custom op com.example::Act has no backward"),
            (f"--custom-op {ok} --custom-op {ok}:backward=all", "custom op com.example::Act is described twice"),
            (f"--custom-op {ok} --custom-op com_example::Act:outputs=in0", "custom ops com.example::Act and com_example::Act have the same C name 'com_example_Act'"),
            ("--custom-ops custom/bad_spec.txt", "--custom-ops custom/bad_spec.txt line 3: unknown key 'bogus' (outputs, workspace, backward, nograd)"),
            ("--custom-ops custom/no_such_file.txt", "--custom-ops: cannot open 'custom/no_such_file.txt'")):
        exp.append(("custom/act.onnx", want, flags))
    with open(os.path.join(OUT, "custom", "bad_spec.txt"), "w") as f:
        f.write("# a spec file with a bad third line\n\ncom.example::Act:outputs=in0:bogus=1\n")

    two = model([helper.make_node("Split2", ["x"], ["y", "z"], name="split0", domain="com.example")],
                [vi("x", [2, 3])], [vi("y", [2, 3]), vi("z", [2, 3])], opset_imports=dom)
    save("custom/two_outputs.onnx", two)
    exp.append(("custom/two_outputs.onnx", "node 'split0' (Split2): the node has 2 outputs; its --custom-op spec declares 1",
                "--custom-op com.example::Split2:outputs=in0"))

    t = helper.make_tensor("t", TensorProto.FLOAT, [1], vals=[1.0])
    tattr = model([helper.make_node("Act", ["x"], ["y"], name="act0", domain="com.example", table=t)],
                  [vi("x", [2, 3])], [vi("y", [2, 3])], opset_imports=dom)
    save("custom/tensor_attr.onnx", tattr)
    exp.append(("custom/tensor_attr.onnx", "attribute 'table': custom ops take float, int, string, floats, ints and strings attributes only",
                f"--custom-op {ok}"))

    branch = helper.make_graph([helper.make_node("Act", ["x"], ["b"], name="act_in_if", domain="com.example")], "then",
                               [], [vi("b", [2, 3])])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["c"], name="neg0")], "else", [], [vi("c", [2, 3])])
    in_if = model([helper.make_node("If", ["cond"], ["y"], name="if0", then_branch=branch, else_branch=other)],
                  [vi("x", [2, 3]), vi("cond", [], TensorProto.BOOL)], [vi("y", [2, 3])], opset_imports=dom)
    save("custom/in_if.onnx", in_if)
    exp.append(("custom/in_if.onnx", "node 'act_in_if' (Act): custom ops inside If/Loop/Scan bodies are not supported",
                f"--custom-op {ok}"))


def string_cases(exp):
    """String tensors: ops given the wrong element types, strings reaching ops that do not take
    them, patterns and shapes the string ops refuse."""
    os.makedirs(os.path.join(OUT, "strings"), exist_ok=True)
    S, F = TensorProto.STRING, TensorProto.FLOAT
    cases = (
        ("concat_float.onnx", [helper.make_node("StringConcat", ["x", "z"], ["y"], name="cat0")],
         [vi("x", [2], S), vi("z", [2], F)], [vi("y", [2], S)], 20,
         "node 'cat0' (StringConcat): input 'z' must be a string tensor, not float"),
        ("string_add.onnx", [helper.make_node("Add", ["x", "z"], ["y"], name="add0")],
         [vi("x", [2], S), vi("z", [2], S)], [vi("y", [2], S)], 20,
         "node 'add0' (Add): string tensors are not supported by this op"),
        ("string_transpose.onnx", [helper.make_node("Transpose", ["x"], ["y"], name="tr0")],
         [vi("x", [2, 3], S)], [vi("y", [3, 2], S)], 20,
         "node 'tr0' (Transpose): string tensors are not supported by this op"),
        ("regex_bad.onnx", [helper.make_node("RegexFullMatch", ["x"], ["y"], name="re0", pattern="(ab")],
         [vi("x", [2], S)], [vi("y", [2], TensorProto.BOOL)], 20,
         "node 're0' (RegexFullMatch): pattern '(ab': missing )"),
        ("regex_unicode_class.onnx", [helper.make_node("RegexFullMatch", ["x"], ["y"], name="re0", pattern=r"\p{Greek}+")],
         [vi("x", [2], S)], [vi("y", [2], TensorProto.BOOL)], 20,
         "Unicode classes (\\p, \\P) are not supported"),
        ("normalizer_2d.onnx", [helper.make_node("StringNormalizer", ["x"], ["y"], name="norm0")],
         [vi("x", [2, 3], S)], [vi("y", [2, 3], S)], 10,
         "node 'norm0' (StringNormalizer): input must have shape [C] or [1, C], not [2,3]"),
        ("cast_string_bool.onnx", [helper.make_node("Cast", ["x"], ["y"], name="cast0", to=TensorProto.BOOL)],
         [vi("x", [2], S)], [vi("y", [2], TensorProto.BOOL)], 13,
         "node 'cast0' (Cast): cast from string to bool is not supported"),
        ("label_encoder_types.onnx", [helper.make_node("LabelEncoder", ["x"], ["y"], name="le0", domain="ai.onnx.ml",
                                                        keys_strings=["a"], values_int64s=[1])],
         [vi("x", [2], TensorProto.INT64)], [vi("y", [2], TensorProto.INT64)], 17,
         "node 'le0' (LabelEncoder): input element type int64 differs from the keys' (string)"),
    )
    for name, nodes, ins, outs, opset, want in cases:
        imports = [helper.make_opsetid("", opset), helper.make_opsetid("ai.onnx.ml", 4)]
        save("strings/" + name, model(nodes, ins, outs, opset=opset, opset_imports=imports))
        exp.append(("strings/" + name, want))
    # a StringSplit whose pieces feed another op: data-dependent shapes only as graph outputs
    save("strings/split_then_concat.onnx",
         model([helper.make_node("StringSplit", ["x"], ["p", "n"], name="split0"),
                helper.make_node("StringConcat", ["p", "p"], ["y"], name="cat0")],
               [vi("x", [2], S)], [vi("y", [2, 3], S)], opset=20))
    exp.append(("strings/split_then_concat.onnx", "node 'cat0' (StringConcat): input 'p' has a data-dependent shape"))
    # string values crossing an If/Loop/Scan boundary (the bodies' copies move bytes)
    then = helper.make_graph([helper.make_node("StringConcat", ["x", "x"], ["b"], name="cat_in_if")], "then", [], [vi("b", [2], S)])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["c"], name="id0")], "else", [], [vi("c", [2], S)])
    save("strings/concat_in_if.onnx",
         model([helper.make_node("If", ["cond"], ["y"], name="if0", then_branch=then, else_branch=other)],
               [vi("x", [2], S), vi("cond", [], TensorProto.BOOL)], [vi("y", [2], S)], opset=20))
    exp.append(("strings/concat_in_if.onnx", "node 'if0' (If): string tensors are not supported by this op"))


def sequence_cases(exp):
    """Sequences and optionals: inputs without (or with bad) --seq-input specs, structures that
    onnxc cannot make static, Loops it cannot unroll, backends and modes without them."""
    os.makedirs(os.path.join(OUT, "seq"), exist_ok=True)
    F = TensorProto.FLOAT
    seq_f3 = helper.make_tensor_sequence_value_info("x", F, [3])
    seq_out = helper.make_tensor_sequence_value_info("y", F, None)
    save("seq/identity.onnx", model([helper.make_node("Identity", ["x"], ["y"], name="id0")], [seq_f3], [seq_out]))
    for flags, want in (
            ("", "input 'x' is a sequence; onnxc needs its length and item shapes at compile time: --seq-input x=ITEMS"),
            ("--seq-input x=2:floot[3]", "--seq-input x=2:floot[3]: unknown element type 'floot'"),
            ("--seq-input x=2:float", "expected '[' and the dims after 'float'"),
            ("--seq-input x=float[3,]", "expected ',' or ']' in the dims"),
            ("--seq-input x=int64[3]", "--seq-input x: items of type int64, the model declares float"),
            ("--seq-input x=float[3],float[4]", "--seq-input x: item 1's dims do not match the item shape the model declares"),
            ("--seq-input x=float[3] --seq-input x=float[3]", "--seq-input x is given twice"),
            ("--seq-input x=", "--seq-input x=: no items (an empty sequence is 0:TYPE[])"),
            ("--seq-input x=5000:float[3]", "more than 4096 items"),
            ("--seq-input x=float[3] --const-input x=x.pb", "--const-input x: the input is not a tensor")):
        exp.append(("seq/identity.onnx", want, flags))
    save("seq/add_sequence.onnx", model([helper.make_node("Add", ["x", "x"], ["y"], name="add0")], [seq_f3], [vi("y", [3])]))
    exp.append(("seq/add_sequence.onnx", "node 'add0' (Add): sequence and optional inputs are not supported by this op",
                "--seq-input x=float[3]"))
    save("seq/map_input.onnx", model([helper.make_node("Identity", ["m"], ["y"], name="id0")],
                                     [helper.make_value_info("m", helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(F, [])))],
                                     [vi("y", [3])]))
    exp.append(("seq/map_input.onnx", "input 'm' is not a tensor, a sequence or an optional"))
    save("seq/seq_of_seq.onnx", model([helper.make_node("Identity", ["x"], ["y"], name="id0")],
                                      [helper.make_value_info("x", helper.make_sequence_type_proto(
                                          helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, [3]))))],
                                      [seq_out]))
    exp.append(("seq/seq_of_seq.onnx", "input 'x' is a sequence of sequences; onnxc supports sequences of tensors"))
    # an If whose branches give sequences of different lengths
    then = helper.make_graph([helper.make_node("SequenceConstruct", ["t"], ["a"], name="sc1")], "then", [],
                             [helper.make_tensor_sequence_value_info("a", F, [3])])
    other = helper.make_graph([helper.make_node("SequenceConstruct", ["t", "t"], ["b"], name="sc2")], "else", [],
                              [helper.make_tensor_sequence_value_info("b", F, [3])])
    save("seq/if_lengths.onnx", model([helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then, else_branch=other)],
                                      [vi("t", [3]), vi("c", [], TensorProto.BOOL)], [seq_out]))
    exp.append(("seq/if_lengths.onnx", "node 'if0' (If): output 0: the branches give sequences of 1 and 2 items"))
    # OptionalGetElement of an optional that never holds a value
    save("seq/get_empty.onnx", model([helper.make_node("Optional", [], ["o"], name="opt0", type=helper.make_tensor_type_proto(F, [3])),
                                      helper.make_node("OptionalGetElement", ["o"], ["y"], name="get0")],
                                     [vi("x", [3])], [vi("y", [3])], opset=18))
    exp.append(("seq/get_empty.onnx", "node 'get0' (OptionalGetElement): the optional is always empty here"))
    # Loops carrying a sequence: unrolled, which needs M and the condition at compile time
    body = helper.make_graph([helper.make_node("Identity", ["c_in"], ["c_out"], name="cid"),
                              helper.make_node("SequenceInsert", ["s_in", "t"], ["s_out"], name="ins0")], "body",
                             [vi("i", [], TensorProto.INT64), vi("c_in", [], TensorProto.BOOL),
                              helper.make_tensor_sequence_value_info("s_in", F, [3])],
                             [vi("c_out", [], TensorProto.BOOL), helper.make_tensor_sequence_value_info("s_out", F, [3])])
    loop = [helper.make_node("SequenceEmpty", [], ["s0"], name="empty0", dtype=F),
            helper.make_node("Loop", ["M", "", "s0"], ["y"], name="loop0", body=body)]
    save("seq/loop_runtime_m.onnx", model(loop, [vi("t", [3]), vi("M", [], TensorProto.INT64)], [seq_out]))
    exp.append(("seq/loop_runtime_m.onnx", "node 'loop0' (Loop): it carries a sequence or an optional; onnxc unrolls such a Loop, "
                "so its input 'M' (trip count M) must be known at compile time"))
    big = helper.make_tensor("M", TensorProto.INT64, [], [5000])
    save("seq/loop_too_long.onnx", model(loop, [vi("t", [3])], [seq_out], inits=[big]))
    exp.append(("seq/loop_too_long.onnx", "onnxc unrolls such a Loop, and this one runs more than 4096 iterations"))
    body_rt = helper.make_graph([helper.make_node("ReduceSum", ["t"], ["sum"], name="sum0", keepdims=0),
                                 helper.make_node("Cast", ["sum"], ["c_out"], name="cast0", to=TensorProto.BOOL),
                                 helper.make_node("SequenceInsert", ["s_in", "t"], ["s_out"], name="ins0")], "body",
                                list(body.input), list(body.output))
    three = helper.make_tensor("M", TensorProto.INT64, [], [3])
    save("seq/loop_runtime_cond.onnx", model([loop[0], helper.make_node("Loop", ["M", "", "s0"], ["y"], name="loop0", body=body_rt)],
                                             [vi("t", [3])], [seq_out], inits=[three]))
    exp.append(("seq/loop_runtime_cond.onnx", "so the condition its body computes ('c_out') must be known at compile time"))
    # SequenceMap over sequences of different lengths
    mbody = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"], name="add0")], "map", [vi("a", [3]), vi("b", [3])],
                              [vi("c", [3])])
    save("seq/map_lengths.onnx", model([helper.make_node("SequenceMap", ["x", "z"], ["y"], name="map0", body=mbody)],
                                       [seq_f3, helper.make_tensor_sequence_value_info("z", F, [3])], [seq_out]))
    exp.append(("seq/map_lengths.onnx", "node 'map0' (SequenceMap): input sequences have 2 and 3 items",
                "--seq-input x=2:float[3] --seq-input z=3:float[3]"))
    # an item whose size depends on data
    save("seq/dynamic_item.onnx", model([helper.make_node("NonZero", ["t"], ["nz"], name="nz0"),
                                         helper.make_node("SequenceConstruct", ["nz"], ["y"], name="sc0")],
                                        [vi("t", [3])], [helper.make_tensor_sequence_value_info("y", TensorProto.INT64, None)]))
    exp.append(("seq/dynamic_item.onnx", "node 'sc0' (SequenceConstruct): input 'nz' has a data-dependent shape"))


def flex_cases(exp):
    """FlexAttention with score_mod/prob_mod subgraphs (expanded around them): refused types and shapes."""
    H = TensorProto.FLOAT16
    sub = helper.make_graph([helper.make_node("Identity", ["s"], ["t"])], "mod", [vi("s", None, H)], [vi("t", None, H)])
    ops = [helper.make_opsetid("", 26), helper.make_opsetid("ai.onnx.preview", 1)]

    def flex(name, t, qh, kh, mod):
        node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], name=name, domain="ai.onnx.preview", score_mod=mod)
        return model([node], [vi("Q", [1, qh, 3, 4], t), vi("K", [1, kh, 5, 4], t), vi("V", [1, kh, 5, 4], t)],
                     [vi("Y", [1, qh, 3, 4], t)], opset_imports=ops)
    save("flex_fp16_mod.onnx", flex("flex0", H, 2, 2, sub))
    exp.append(("flex_fp16_mod.onnx", "node 'flex0' (FlexAttention): score_mod/prob_mod are supported for float and double, not float16"))
    subf = helper.make_graph([helper.make_node("Identity", ["s"], ["t"])], "mod", [vi("s", None)], [vi("t", None)])
    save("flex_heads.onnx", flex("flex1", TensorProto.FLOAT, 3, 2, subf))
    exp.append(("flex_heads.onnx", "node 'flex1' (FlexAttention): query heads 3 are not a multiple of key/value heads 2"))


def gradient_cases(exp):
    """ai.onnx.preview.training::Gradient (expanded by autodiff): y must be one float element,
    the inputs the values xs/zs name, every op between them differentiable."""
    ops = [helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.preview.training", 1)]

    def grad(name, ys_shape, ins, xs, extra=()):
        nodes = list(extra) + [helper.make_node("Gradient", ins, ["d" + x for x in xs], name=name,
                                                domain="ai.onnx.preview.training", xs=xs, y="y")]
        return model(nodes, [vi("a", [2, 3]), vi("b", [2, 3])], [vi("d" + x, [2, 3]) for x in xs], opset_imports=ops)
    mul = helper.make_node("Mul", ["a", "b"], ["y"])
    # (not Gradient: an op given more outputs than it has)
    save("extra_output.onnx", model([helper.make_node("Relu", ["x"], ["y", "y2"], name="relu1")], [vi("x", [2])],
                                    [vi("y", [2]), vi("y2", [2])]))
    exp.append(("extra_output.onnx", "node 'relu1' (Relu): has 2 outputs; output 1 ('y2') is not one this op produces"))
    # ImageDecoder without a known output size, and with a pixel format it does not know
    def imgdec(name, out_shape, fmt="RGB"):
        return model([helper.make_node("ImageDecoder", ["d"], ["y"], name=name, pixel_format=fmt)],
                     [vi("d", [100], TensorProto.UINT8)], [vi("y", out_shape, TensorProto.UINT8)], opset=20)
    save("image_no_size.onnx", imgdec("dec0", None))
    exp.append(("image_no_size.onnx", "node 'dec0' (ImageDecoder): the decoded image's size must be known at compile time"))
    save("image_format.onnx", imgdec("dec1", [4, 4, 3], "CMYK"))
    exp.append(("image_format.onnx", "node 'dec1' (ImageDecoder): pixel_format 'CMYK' is not one of RGB, BGR, Grayscale"))
    save("gradient_y_shape.onnx", grad("grad0", [2, 3], ["a"], ["a"], [mul]))
    exp.append(("gradient_y_shape.onnx", "node 'grad0' (Gradient): y ('y') must be a floating-point tensor of one element, not float [2,3]"))
    red = helper.make_node("ReduceSum", ["p"], ["y"], keepdims=0)
    save("gradient_input.onnx", grad("grad1", [], ["b"], ["a"], [helper.make_node("Mul", ["a", "b"], ["p"]), red]))
    exp.append(("gradient_input.onnx", "node 'grad1' (Gradient): input 0 must be the value 'a' (xs[0])"))
    save("gradient_no_rule.onnx", grad("grad2", [], ["a"], ["a"], [helper.make_node("Cos", ["a"], ["p"], name="cos0"), red]))
    exp.append(("gradient_no_rule.onnx", "node 'cos0' (Cos): no gradient rule for op Cos (it lies between a value of xs and y of a Gradient node)"))


def random_cases(exp):
    """The random-number ops (ops_random.c): a static shape, a float output type, a 2-D
    Multinomial input, a seed numpy accepts."""
    save("random_no_shape.onnx", model([helper.make_node("RandomNormal", [], ["y"], name="rn0", seed=1.0)], [],
                                       [vi("y", [2, 3])]))
    exp.append(("random_no_shape.onnx", "node 'rn0' (RandomNormal): attribute 'shape' is required"))
    save("random_int_dtype.onnx", model([helper.make_node("RandomUniform", [], ["y"], name="ru0", shape=[4],
                                                          dtype=TensorProto.INT32)], [], [vi("y", [4], TensorProto.INT32)]))
    exp.append(("random_int_dtype.onnx", "node 'ru0' (RandomUniform): dtype 6 (int32) is not one of float, double, float16, bfloat16"))
    save("random_like_int.onnx", model([helper.make_node("RandomNormalLike", ["x"], ["y"], name="rnl0")],
                                       [vi("x", [2, 2], TensorProto.INT64)], [vi("y", [2, 2])]))
    exp.append(("random_like_int.onnx", "node 'rnl0' (RandomNormalLike): the input's element type int64 is not a valid output "
                                        "type (float, double, float16, bfloat16): give the dtype attribute"))
    save("multinomial_3d.onnx", model([helper.make_node("Multinomial", ["x"], ["y"], name="mn0", sample_size=2)],
                                      [vi("x", [2, 3, 4])], [vi("y", [2, 2], TensorProto.INT32)]))
    exp.append(("multinomial_3d.onnx", "node 'mn0' (Multinomial): input must be 2-D [batch_size, class_size], not [2,3,4]"))
    save("random_seed_negative.onnx", model([helper.make_node("Bernoulli", ["x"], ["y"], name="bern0", seed=-3.0)],
                                            [vi("x", [5])], [vi("y", [5])]))
    exp.append(("random_seed_negative.onnx", "node 'bern0' (Bernoulli): seed -3 is outside [0, 2^32)"))


if __name__ == "__main__":
    main()
