/* newlib_shim.c - linked into the harness for the 32-bit ARM run of the string cases
   (arm-none-eabi-gcc + newlib + qemu-arm semihosting): newlib's aligned_alloc needs a
   memalign it does not provide there.  Test code only: the memory is never freed. */
#include <stdint.h>
#include <stdlib.h>

void *aligned_alloc(size_t align, size_t n) {
  char *p = malloc(n + align);
  return p ? p + (align - (uintptr_t)p % align) : p;
}
