/* ops_tensor.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef tensor_rows[] = {
    {0},
};
OPS_FAMILY(tensor);
