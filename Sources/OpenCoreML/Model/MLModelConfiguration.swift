import Foundation

/// Settings for loading a model: compute units and parameter overrides.
///
/// `parameters` overrides the model's defaults (learning rate, epochs, k, ...). Each value is checked
/// against what the model allows when the model is loaded; a value outside the allowed range or set
/// is an error (Core ML ignores some, such as `numberOfNeighbors`).
open class MLModelConfiguration: @unchecked Sendable {
    /// Which processors the model may use; accepted for Core ML compatibility (OpenCoreML uses the CPU).
    public var computeUnits: MLComputeUnits = .all
    /// Values that override the model's parameter defaults, such as `[.epochs: 5, .learningRate: 0.01]`:
    /// `Int`, `Double` or `Bool` values as each parameter needs. Nil keeps every default.
    public var parameters: [MLParameterKey: Any]?
    /// Accepted for Core ML compatibility; OpenCoreML accumulates in single precision on the CPU.
    public var allowLowPrecisionAccumulationOnGPU = false
    /// A name for the model in logs and tools (kept, not used by OpenCoreML).
    public var modelDisplayName: String?
    /// The most memory, in bytes, that the model's buffers and its training data may take (an
    /// OpenCoreML addition; nil: ``OpenCoreMLRuntime/defaultMemoryLimit``, half of the physical
    /// memory). A model or data set that would need more fails with an error saying how much it needs
    /// and for which layer or input, before anything large is allocated: a hostile or broken model
    /// cannot exhaust a server's memory.
    public var memoryLimit: Int?
    /// The most work the `while_loop`s of one ML Program prediction may do, in multiply-adds (a
    /// matrix product counts its multiply-adds, every other value a step writes 32); an OpenCoreML
    /// addition (nil: ``OpenCoreMLRuntime/defaultLoopWorkLimit``, 2⁴⁰). A loop that would do more
    /// ends the prediction with an error naming it, so a hostile model cannot keep a server busy.
    public var loopWorkLimit: Int?
    /// The function of a multifunction ML Program to load (Core ML: iOS 18); nil loads the model's
    /// default function. The model's description is then that function's: its inputs, outputs and
    /// states. A model with one function takes nil or `"main"`.
    public var functionName: String?

    /// A configuration with the defaults: all compute units and no parameter overrides.
    public init() {}

    /// ``memoryLimit``, or the process-wide default.
    var resolvedMemoryLimit: Int { memoryLimit ?? OpenCoreMLRuntime.defaultMemoryLimit }

    /// ``loopWorkLimit``, or the process-wide default.
    var resolvedLoopWorkLimit: Int { loopWorkLimit ?? OpenCoreMLRuntime.defaultLoopWorkLimit }

    /// A copy, so a model keeps the configuration it was loaded with.
    public func copy() -> MLModelConfiguration {
        let copy = MLModelConfiguration()
        copy.computeUnits = computeUnits
        copy.parameters = parameters
        copy.allowLowPrecisionAccumulationOnGPU = allowLowPrecisionAccumulationOnGPU
        copy.modelDisplayName = modelDisplayName
        copy.memoryLimit = memoryLimit
        copy.loopWorkLimit = loopWorkLimit
        copy.functionName = functionName
        return copy
    }
}
