/// Which processors a model may use.
///
/// OpenCoreML computes on the CPU whatever is chosen; the setting is kept for source compatibility.
public enum MLComputeUnits: Int, Sendable {
    case cpuOnly = 0
    case cpuAndGPU = 1
    case all = 2
    case cpuAndNeuralEngine = 3
}
