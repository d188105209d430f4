/* ops_quant.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef quant_rows[] = {
    {0},
};
OPS_FAMILY(quant);
