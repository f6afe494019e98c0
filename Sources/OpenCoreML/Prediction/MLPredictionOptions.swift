/// Options for a prediction. OpenCoreML always runs on the CPU; the options are accepted so that
/// Core ML code compiles unchanged.
open class MLPredictionOptions: @unchecked Sendable {
    /// Ignored: OpenCoreML runs on the CPU.
    @available(*, deprecated, message: "Use MLModelConfiguration.computeUnits")
    public var usesCPUOnly = false
    /// Output arrays to fill instead of allocating (not used yet: new arrays are returned).
    public var outputBackings: [String: Any] = [:]

    /// Options with the defaults.
    public init() {}
}
