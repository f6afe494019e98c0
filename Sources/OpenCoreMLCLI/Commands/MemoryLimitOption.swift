import ArgumentParser
import OpenCoreML

/// `--memory-limit GB`: the most memory a model's buffers and training data may take (default: half
/// of the physical memory); beyond it a command fails with one error saying how much is needed.
/// `--loop-work-limit N`: the most work an ML Program's loops may do in one prediction.
struct MemoryLimitOption: ParsableArguments {
    @Option(name: .customLong("memory-limit"), help: ArgumentHelp("The most memory the model's buffers and data may take, in GB (default: half of the physical memory).", valueName: "GB"))
    var gigabytes: Double?

    @Option(name: .customLong("loop-work-limit"), help: ArgumentHelp("The most work the loops of one ML Program prediction may do, in multiply-adds (default: 2^40).", valueName: "N"))
    var loopWork: Double?

    func validate() throws {
        if let gigabytes, !(gigabytes > 0 && gigabytes.isFinite && gigabytes < 1e9) {
            throw ValidationError("--memory-limit must be a positive number of gigabytes, got \(gigabytes)")
        }
        if let loopWork, !(loopWork >= 1 && loopWork < 9e18) {
            throw ValidationError("--loop-work-limit must be a number of multiply-adds from 1 to 9e18, got \(loopWork)")
        }
    }

    /// Makes the limits the defaults of every model the command loads.
    func apply() {
        if let gigabytes { OpenCoreMLRuntime.defaultMemoryLimit = Int(gigabytes * 1e9) }
        if let loopWork { OpenCoreMLRuntime.defaultLoopWorkLimit = Int(loopWork) }
    }
}
