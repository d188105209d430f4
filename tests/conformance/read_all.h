/* read_all.h - the harnesses' file reader: the whole file in a malloc'd buffer (16 spare
   bytes), its length in *len; NULL when it cannot be read. */
#ifndef ONNXC_READ_ALL_H
#define ONNXC_READ_ALL_H
#include <stdio.h>
#include <stdlib.h>

static void *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc((size_t)n + 16);
  if (p && n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
  fclose(f);
  *len = (size_t)n;
  return p;
}

#endif
