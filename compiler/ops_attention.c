/* ops_attention.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef attention_rows[] = {
    {0},
};
OPS_FAMILY(attention);
