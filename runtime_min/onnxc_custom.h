/*
 * onnxc_custom.h - the ABI of custom operators: C functions the user writes for a node of a
 * non-ONNX domain (see docs/CUSTOM_OPS.md).
 *
 * `onnxc model.onnx -o net.c --custom-op 'com.example::MyAct:outputs=in0:backward=inputs'`
 * compiles every node `com.example::MyAct` to one call of
 *
 *   int com_example_MyAct_forward(const onnxc_tensor_view *inputs, int n_inputs,
 *                                 onnxc_tensor_view *outputs, int n_outputs,
 *                                 const onnxc_attr *attrs, int n_attrs,
 *                                 void *workspace, size_t workspace_bytes);
 *
 * and, where --gradients / --train differentiate through the node, of
 *
 *   int com_example_MyAct_backward(const onnxc_tensor_view *inputs, int n_inputs,
 *                                  const onnxc_tensor_view *outputs, int n_outputs,
 *                                  const onnxc_tensor_view *grad_outputs,
 *                                  onnxc_tensor_view *grad_inputs,
 *                                  const onnxc_attr *attrs, int n_attrs,
 *                                  void *workspace, size_t workspace_bytes);
 *
 * The C name is "<domain>_<op>" with every character outside [A-Za-z0-9_] replaced by '_'
 * (com.example::MyAct -> com_example_MyAct).  The generated net.h declares the functions a
 * model needs.
 *
 * Tensors are views of buffers onnxc owns (caller buffers, weights, the arena): dims and
 * dtype are fixed at compile time, `data` is row-major, dense, in the host's byte order.
 *   forward:  inputs[n_inputs] are read-only; the function writes every element of each
 *             outputs[k] whose data is not NULL (data is NULL for an output nobody reads or
 *             one the node omits).  An omitted optional input has data NULL and dtype 0.
 *   backward: inputs / outputs are the forward node's (data NULL where the spec's
 *             `backward=inputs` or `backward=outputs` says the function does not read them);
 *             grad_outputs[k] has outputs[k]'s dtype and dims, data NULL when no gradient
 *             flows into output k (read it as zeros); the function writes (overwrites, does
 *             not accumulate) every grad_inputs[k] whose data is not NULL -- the gradient of
 *             the loss with respect to inputs[k]; data is NULL for inputs that need none.
 * attrs are the node's attributes, as in the model (float, int, string, floats, ints,
 * strings).  workspace is `workspace=N` bytes of the spec inside the model's arena (aligned
 * like the arena; NULL when N is 0), scratch for this call only.
 *
 * Return 0 (ONNXC_OK) on success.  Any other value stops the run at once and net_run /
 * net_train_step / net_infer return it unchanged (outputs are then unspecified); use
 * ONNXC_ERR_CUSTOM (100) or above so callers can tell your codes from onnxc's own.
 * The functions must be pure (the same inputs give the same outputs; onnxc drops a call whose
 * outputs nobody reads) and reentrant if the model runs concurrently.
 */
#ifndef ONNXC_CUSTOM_H
#define ONNXC_CUSTOM_H

#include <stddef.h>
#include <stdint.h>

#include "onnxc_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One tensor: dtype is an ONNX TensorProto.DataType value (ONNXC_FLOAT, ONNXC_INT64, ...). */
typedef struct onnxc_tensor_view {
  int32_t dtype;
  int32_t rank;
  const int64_t *dims;   /* rank entries (rank 0: a scalar, one element) */
  void *data;            /* NULL: see above; read-only for inputs */
} onnxc_tensor_view;

/* ONNX AttributeProto.AttributeType values of the attributes a custom op receives. */
enum {
  ONNXC_ATTR_FLOAT = 1, ONNXC_ATTR_INT = 2, ONNXC_ATTR_STRING = 3,
  ONNXC_ATTR_FLOATS = 6, ONNXC_ATTR_INTS = 7, ONNXC_ATTR_STRINGS = 8
};

/* One attribute.  Only the fields of its type are set; n is 1 for FLOAT and INT, the byte
   length of s for STRING (s is also NUL-terminated), the number of values otherwise. */
typedef struct onnxc_attr {
  const char *name;
  int32_t type;
  int32_t n;
  float f;
  int64_t i;
  const char *s;
  const float *floats;
  const int64_t *ints;
  const char *const *strings;
} onnxc_attr;

/* Elements of a view (1 for a scalar).  In libonnxc_rt, like the helpers of onnxc_rt.h. */
int64_t onnxc_view_numel(const onnxc_tensor_view *v);
/* The attribute called name, or NULL. */
const onnxc_attr *onnxc_find_attr(const onnxc_attr *attrs, int n_attrs, const char *name);

#ifdef __cplusplus
}
#endif
#endif
