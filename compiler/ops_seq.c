/* ops_seq.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef seq_rows[] = {
    {0},
};
OPS_FAMILY(seq);
