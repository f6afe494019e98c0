import ArgumentParser
import OpenCoreML

/// `--memory-limit GB`: the most memory a model's buffers and training data may take (default: half
/// of the physical memory); beyond it a command fails with one error saying how much is needed.
struct MemoryLimitOption: ParsableArguments {
    @Option(name: .customLong("memory-limit"), help: ArgumentHelp("The most memory the model's buffers and data may take, in GB (default: half of the physical memory).", valueName: "GB"))
    var gigabytes: Double?

    func validate() throws {
        if let gigabytes, !(gigabytes > 0 && gigabytes.isFinite && gigabytes < 1e9) {
            throw ValidationError("--memory-limit must be a positive number of gigabytes, got \(gigabytes)")
        }
    }

    /// Makes the limit the default of every model the command loads.
    func apply() {
        if let gigabytes { OpenCoreMLRuntime.defaultMemoryLimit = Int(gigabytes * 1e9) }
    }
}
