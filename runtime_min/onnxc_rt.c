/* runtime_min: the few helpers generic drivers and custom-op functions need. No malloc, no stdio,
   no state. */
#include "onnxc_rt.h"
#include "onnxc_custom.h"

size_t onnxc_dtype_size(int32_t dtype) {
  switch (dtype) {
  case ONNXC_FLOAT: case ONNXC_INT32: case ONNXC_UINT32: return 4;
  case ONNXC_UINT8: case ONNXC_INT8: case ONNXC_BOOL: return 1;
  case ONNXC_UINT16: case ONNXC_INT16: case ONNXC_FLOAT16: case ONNXC_BFLOAT16: return 2;
  case ONNXC_INT64: case ONNXC_DOUBLE: case ONNXC_UINT64: return 8;
  case ONNXC_FLOAT8E4M3FN: case ONNXC_FLOAT8E4M3FNUZ: case ONNXC_FLOAT8E5M2:
  case ONNXC_FLOAT8E5M2FNUZ: case ONNXC_FLOAT8E8M0: return 1;
  case ONNXC_STRING: return sizeof(onnxc_string);
  default: return 0;
  }
}

size_t onnxc_dtype_bits(int32_t dtype) {
  switch (dtype) {
  case ONNXC_UINT4: case ONNXC_INT4: case ONNXC_FLOAT4E2M1: return 4;
  case ONNXC_UINT2: case ONNXC_INT2: return 2;
  default: return onnxc_dtype_size(dtype) * 8;
  }
}

size_t onnxc_tensor_bytes(const onnxc_tensor_info *info) {
  return ((size_t)onnxc_tensor_numel(info) * onnxc_dtype_bits(info->dtype) + 7) / 8;
}

int64_t onnxc_tensor_numel(const onnxc_tensor_info *info) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < info->rank; i++) n *= info->dims[i];
  return n;
}

static int str_eq(const char *a, const char *b) {
  while (*a && *a == *b) { a++; b++; }
  return *a == *b;
}

int onnxc_find_input(const onnxc_model *m, const char *name) {
  int32_t i;
  for (i = 0; i < m->n_inputs; i++)
    if (str_eq(m->inputs[i].name, name)) return (int)i;
  return -1;
}

int onnxc_find_output(const onnxc_model *m, const char *name) {
  int32_t i;
  for (i = 0; i < m->n_outputs; i++)
    if (str_eq(m->outputs[i].name, name)) return (int)i;
  return -1;
}

const char *onnxc_status_str(int status) {
  switch (status) {
  case ONNXC_OK: return "ok";
  case ONNXC_ERR_NULL: return "null pointer argument";
  case ONNXC_ERR_ALIGN: return "arena not aligned";
  case ONNXC_ERR_BOUNDS: return "data-dependent size exceeds its compile-time bound";
  case ONNXC_ERR_INDEX: return "index out of range";
  case ONNXC_ERR_NOT_FOUND: return "not found";
  case ONNXC_ERR_FORMAT: return "saved state does not match the model";
  case ONNXC_ERR_CAPACITY: return "the string heap is full";
  case ONNXC_ERR_PARSE: return "a string is not a number of the target type";
  case ONNXC_ERR_SHAPE: return "an input sequence's length or an item's dims differ from the compiled ones";
  case ONNXC_ERR_EMPTY: return "the optional holds no value";
  case ONNXC_ERR_IMAGE: return "not an image ImageDecoder decodes (malformed, or an unsupported kind)";
  default: return status >= ONNXC_ERR_CUSTOM ? "custom op failed" : "unknown status";
  }
}

int64_t onnxc_view_numel(const onnxc_tensor_view *v) {
  int64_t n = 1;
  int32_t d;
  for (d = 0; d < v->rank; d++) n *= v->dims[d];
  return n;
}

const onnxc_attr *onnxc_find_attr(const onnxc_attr *attrs, int n_attrs, const char *name) {
  int k;
  for (k = 0; k < n_attrs; k++)
    if (str_eq(attrs[k].name, name)) return &attrs[k];
  return (const onnxc_attr *)0;
}
