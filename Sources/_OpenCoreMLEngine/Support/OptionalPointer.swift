/// Hands `body` a pointer to `values`' storage, or nil when there are no values (an optional
/// bias, scale or peephole that a C kernel takes as a null pointer).
func withOptionalPointer<Result>(_ values: [Float]?, _ body: (UnsafePointer<Float>?) throws -> Result) rethrows -> Result {
    guard let values else { return try body(nil) }
    return try values.withUnsafeBufferPointer { try body($0.baseAddress) }
}
