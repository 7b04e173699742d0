/*
 * The libFuzzer entry point the targets define and replay_main.c calls.
 *
 * The targets are built only by tests/fuzz/fuzz.mk, which defines
 * FUZZ_TARGET. The test runner compiles every tests/<dir>/<file>.c (the
 * top-level Makefile's wildcard), so without FUZZ_TARGET each target file
 * compiles to nothing there: no second main() or LLVMFuzzerTestOneInput in
 * run-tests.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input; returns 0. A failed property calls abort(). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
