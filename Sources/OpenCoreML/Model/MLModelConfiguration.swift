import Foundation

/// Settings for loading a model: compute units and parameter overrides.
///
/// `parameters` overrides the model's defaults (learning rate, epochs, k, ...). Each value is checked
/// against what the model allows when the model is loaded; a value outside the allowed range or set
/// is an error (Core ML ignores some, such as `numberOfNeighbors`).
open class MLModelConfiguration: @unchecked Sendable {
    public var computeUnits: MLComputeUnits = .all
    public var parameters: [MLParameterKey: Any]?
    public var allowLowPrecisionAccumulationOnGPU = false
    public var modelDisplayName: String?
    /// The most memory, in bytes, that the model's buffers and its training data may take (an
    /// OpenCoreML addition; nil: ``OpenCoreMLRuntime/defaultMemoryLimit``, half of the physical
    /// memory). A model or data set that would need more fails with an error saying how much it needs
    /// and for which layer or input, before anything large is allocated: a hostile or broken model
    /// cannot exhaust a server's memory.
    public var memoryLimit: Int?

    public init() {}

    /// ``memoryLimit``, or the process-wide default.
    var resolvedMemoryLimit: Int { memoryLimit ?? OpenCoreMLRuntime.defaultMemoryLimit }

    /// A copy, so a model keeps the configuration it was loaded with.
    public func copy() -> MLModelConfiguration {
        let copy = MLModelConfiguration()
        copy.computeUnits = computeUnits
        copy.parameters = parameters
        copy.allowLowPrecisionAccumulationOnGPU = allowLowPrecisionAccumulationOnGPU
        copy.modelDisplayName = modelDisplayName
        copy.memoryLimit = memoryLimit
        return copy
    }
}
