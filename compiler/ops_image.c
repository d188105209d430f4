/* ops_image.c - (family placeholder: rows are added here) */
#include "onnxc.h"

static const OpDef image_rows[] = {
    {0},
};
OPS_FAMILY(image);
