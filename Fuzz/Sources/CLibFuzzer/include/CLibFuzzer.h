#ifndef OPENCOREML_FUZZ_CLIBFUZZER_H
#define OPENCOREML_FUZZ_CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's libclang_rt.fuzzer, linked by `-sanitize=fuzzer`): parses the
/// libFuzzer flags in argv and calls `callback` once per input until a finding or a limit.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Makes `LLVMFuzzerTestOneInput` (defined here) call `callback`.
void ocm_fuzz_register(int (*callback)(const uint8_t *data, size_t size));

/// libFuzzer's classic entry point, forwarding to the registered callback.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
