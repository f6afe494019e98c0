// The entry point the fuzz targets share: libFuzzer's driver with a Swift closure per input.
//
// SwiftPM links an executable target's `main` under a renamed symbol (`<Target>_main`, aliased to
// `main` at link time), so the targets keep an ordinary `@main` and hand control to
// `LLVMFuzzerRunDriver`, which parses the libFuzzer flags (`-runs=`, `-max_total_time=`, corpus
// folders, a crash file to replay, ...) as the `main` of `-fsanitize=fuzzer` would.

import CLibFuzzer
import Foundation

nonisolated(unsafe) private var body: ((Data) -> Void)?

/// Runs libFuzzer with the process's arguments, calling `test` once per input; returns the
/// driver's exit status (0 when it ran out of time or runs without a finding).
public func runLibFuzzer(_ test: @escaping (Data) -> Void) -> Int32 {
    body = test
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
        // libFuzzer's own copy of the input, exactly `size` bytes long, so AddressSanitizer sees
        // any read past its end; nothing keeps the `Data` after the call.
        let bytes = size == 0 || data == nil
            ? Data()
            : Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: data!), count: size, deallocator: .none)
        body!(bytes)
        return 0
    }
    ocm_fuzz_register(callback)
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}
