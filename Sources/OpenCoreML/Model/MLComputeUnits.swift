/// Which processors a model may use.
///
/// OpenCoreML computes on the CPU whatever is chosen; the setting is kept for source compatibility.
public enum MLComputeUnits: Int, Sendable {
    /// The CPU only.
    case cpuOnly = 0
    /// The CPU and the GPU (OpenCoreML uses the CPU).
    case cpuAndGPU = 1
    /// Every processor available (OpenCoreML uses the CPU); the default.
    case all = 2
    /// The CPU and the Neural Engine (OpenCoreML uses the CPU).
    case cpuAndNeuralEngine = 3
}
