/* ops_misc.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef misc_rows[] = {
    {0},
};
OPS_FAMILY(misc);
