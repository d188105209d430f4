/*
 * ops.c - the op table.
 *
 * Each ops_*.c file defines an array of OpDef rows for one family of operators (shape rule,
 * constant folding, C emitter, scratch size, flags, opset range) and exports it with
 * OPS_FAMILY().  Lookup picks the row whose [since, until] opset range holds the model's opset
 * for the node's domain.  --list-ops and docs/SUPPORTED_OPS.md print this same table.  Custom
 * ops (ops_custom.c) are not in it: their rows come from the --custom-op specs of a compile and
 * take precedence (infer.c).
 */
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

extern const OpTable ops_elementwise, ops_tensor, ops_nn, ops_reduce, ops_misc, ops_quant, ops_seq,
    ops_image, ops_attention, ops_control,
    ops_grad, ops_extra, ops_string, ops_random;

extern const OpTable ops_sequence;
static const OpTable *const families[] = {&ops_sequence, &ops_elementwise, &ops_tensor, &ops_nn, &ops_reduce,
                                          &ops_misc, &ops_quant, &ops_seq, &ops_image,
                                          &ops_attention, &ops_control,
                                          &ops_grad, &ops_extra, &ops_string, &ops_random};
#define N_FAMILIES ((int)(sizeof families / sizeof families[0]))

const OpDef *op_lookup(const char *domain, const char *op_type, int opset) {
  for (int f = 0; f < N_FAMILIES; f++)
    for (int i = 0; i < families[f]->n; i++) {
      const OpDef *d = &families[f]->rows[i];
      if (!d->name || strcmp(d->name, op_type) != 0) continue;
      if (strcmp(d->domain ? d->domain : "", domain) != 0) continue;
      if (opset >= d->since && opset <= d->until) return d;
    }
  return NULL;
}

bool op_known_name(const char *domain, const char *op_type) {
  for (int f = 0; f < N_FAMILIES; f++)
    for (int i = 0; i < families[f]->n; i++) {
      const OpDef *d = &families[f]->rows[i];
      if (d->name && strcmp(d->name, op_type) == 0 && strcmp(d->domain ? d->domain : "", domain) == 0)
        return true;
    }
  return false;
}

static int cmp_rows(const void *a, const void *b) {
  const OpDef *x = *(const OpDef *const *)a, *y = *(const OpDef *const *)b;
  int c = strcmp(x->domain ? x->domain : "", y->domain ? y->domain : "");
  if (c) return c;
  c = strcmp(x->name, y->name);
  if (c) return c;
  return x->since - y->since;
}

void op_list(FILE *f) {
  const OpDef *rows[2048];
  int n = 0;
  for (int fam = 0; fam < N_FAMILIES; fam++)
    for (int i = 0; i < families[fam]->n && n < 2048; i++)
      if (families[fam]->rows[i].name) rows[n++] = &families[fam]->rows[i];
  qsort(rows, (size_t)n, sizeof rows[0], cmp_rows);
  fprintf(f, "%-28s %-10s %-7s %s\n", "op", "domain", "opsets", "types");
  for (int i = 0; i < n; i++) {
    char range[32];
    if (rows[i]->until >= ONNXC_MAX_OPSET) snprintf(range, sizeof range, "%d+", rows[i]->since);
    else snprintf(range, sizeof range, "%d-%d", rows[i]->since, rows[i]->until);
    fprintf(f, "%-28s %-10s %-7s %s\n", rows[i]->name,
            rows[i]->domain && *rows[i]->domain ? rows[i]->domain : "ai.onnx", range,
            rows[i]->types ? rows[i]->types : "");
  }
}
