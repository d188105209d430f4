/* ops_reduce.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef reduce_rows[] = {
    {0},
};
OPS_FAMILY(reduce);
