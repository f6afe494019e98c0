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

    public init() {}

    /// A copy, so a model keeps the configuration it was loaded with.
    public func copy() -> MLModelConfiguration {
        let copy = MLModelConfiguration()
        copy.computeUnits = computeUnits
        copy.parameters = parameters
        copy.allowLowPrecisionAccumulationOnGPU = allowLowPrecisionAccumulationOnGPU
        copy.modelDisplayName = modelDisplayName
        return copy
    }
}
