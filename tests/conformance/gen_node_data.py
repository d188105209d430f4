#!/usr/bin/env python3
"""Writes the ONNX node conformance cases of the installed onnx package (pip onnx==1.23.2).

The wheel ships the case generators (onnx/backend/test/case/node) and the model suites
(pytorch-converted, pytorch-operator, simple) as data, but not the node cases' data files; its
own cmd_tools only writes the model cases.  This runs the same generators for the node cases,
so the data (inputs and the reference outputs computed by ONNX's reference code) comes from
ONNX, not from onnxc.

usage: gen_node_data.py OUT_DIR     (writes OUT_DIR/node/<case>/...)
"""
import argparse
import sys
import warnings

import onnx.backend.test.case.model as model_test
import onnx.backend.test.case.node as node_test
import onnx.backend.test.cmd_tools as cmd_tools


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    warnings.filterwarnings("ignore")
    model_test.collect_testcases = lambda: node_test.collect_testcases()
    cmd_tools.generate_data(argparse.Namespace(output=sys.argv[1]))


if __name__ == "__main__":
    main()
