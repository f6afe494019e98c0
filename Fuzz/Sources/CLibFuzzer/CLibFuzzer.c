#include "CLibFuzzer.h"

// `-sanitize=fuzzer` links all of libFuzzer, whose own `main` (unused: SwiftPM's `main` runs and
// calls LLVMFuzzerRunDriver) refers to LLVMFuzzerTestOneInput, so every executable of this package
// defines it; it runs the callback runLibFuzzer registered, which makes a plain libFuzzer `main`
// work too.
static int (*registered_callback)(const uint8_t *data, size_t size);

void ocm_fuzz_register(int (*callback)(const uint8_t *data, size_t size)) {
    registered_callback = callback;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return registered_callback ? registered_callback(data, size) : 0;
}
