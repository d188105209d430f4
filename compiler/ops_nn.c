/* ops_nn.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef nn_rows[] = {
    {0},
};
OPS_FAMILY(nn);
