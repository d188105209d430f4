/*
 * arena.c - memory for one compilation.
 *
 * Everything the compiler builds (IR nodes, values, attribute arrays, constant data, strings)
 * is carved from a chain of large blocks owned by the Ctx and released in one call at the end.
 * There is no per-object free, so passes can replace nodes freely.  Buf is the exception: the
 * emitter's output buffer grows with realloc and is freed by its owner.
 */
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

struct ArenaBlock {
  ArenaBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char mem[];
};

#define BLOCK_MIN ((size_t)1 << 20)

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  ArenaBlock *b = a->head;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > BLOCK_MIN ? n : BLOCK_MIN;
    b = malloc(sizeof(ArenaBlock) + cap);
    if (!b) { fputs("onnxc: error: out of memory\n", stderr); abort(); }
    b->cap = cap;
    b->used = 0;
    /* Keep the partly used block at the head when the new one is a one-off big block. */
    if (a->head && cap > BLOCK_MIN) {
      b->next = a->head->next;
      a->head->next = b;
    } else {
      b->next = a->head;
      a->head = b;
    }
  }
  void *p = b->mem + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

char *arena_strdup(Arena *a, const char *s) {
  size_t n = strlen(s);
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

void arena_free_all(Arena *a) {
  ArenaBlock *b = a->head;
  while (b) {
    ArenaBlock *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
}

void buf_put(Buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) { fputs("onnxc: error: out of memory\n", stderr); abort(); }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
  char tmp[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  if ((size_t)n < sizeof tmp) {
    buf_put(b, tmp, (size_t)n);
  } else {
    char *p = malloc((size_t)n + 1);
    if (!p) abort();
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    buf_put(b, p, (size_t)n);
    free(p);
  }
  va_end(ap2);
}

void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(b, fmt, ap);
  va_end(ap);
}

void buf_free(Buf *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

void vec_push(Arena *a, PtrVec *vec, void *p) {
  if (vec->n == vec->cap) {
    int cap = vec->cap ? vec->cap * 2 : 8;
    void **v = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (vec->n) memcpy(v, vec->v, sizeof(void *) * (size_t)vec->n);
    vec->v = v;
    vec->cap = cap;
  }
  vec->v[vec->n++] = p;
}
