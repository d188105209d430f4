#!/usr/bin/env bash
# Builds one kernel-template test (tests/kernels/*.c) with a given C compiler and flags, strict
# C99, and runs it, through an emulator when one is given:
#   run_kernel_test.sh TEST.c CC "CFLAGS" [WRAPPER...]
# e.g. run_kernel_test.sh tests/kernels/test_gemm.c aarch64-linux-gnu-gcc "-O2 -static" qemu-aarch64
set -euo pipefail
src=$1 cc=$2 cflags=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086
$cc -std=c99 -Wall -Wextra -Werror -pedantic $cflags -I "$root/templates" "$src" -lm -o "$dir/test"
"$@" "$dir/test"
