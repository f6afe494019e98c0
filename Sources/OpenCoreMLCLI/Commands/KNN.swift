import ArgumentParser
import Foundation
import OpenCoreML

/// `opencoreml knn …`: editing the samples of k-NN classifiers.
struct KNN: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "knn",
        abstract: "Edit the samples of a k-NN classifier (or of a pipeline ending in one).",
        subcommands: [Remove.self]
    )
}

extension KNN {
    /// `opencoreml knn remove MODEL --label L | --index I … --output OUT`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove samples by label or by index and write the model that remains.",
            discussion: """
                Core ML can add samples to an updatable k-NN classifier but never remove them. OUT is a \
                regular .mlmodel that Core ML and coremltools read; it is written only if every label and \
                index names a sample.
                """
        )

        @Argument(help: "The k-NN classifier (.mlmodel or .mlmodelc), or a pipeline ending in one.")
        var model: String

        @Option(name: .customLong("label"), help: "Remove every sample with this label (repeatable).")
        var labels: [String] = []

        @Option(name: .customLong("index"), parsing: .singleValue, help: "Remove the sample at this index, from 0; a list (3,5,8) or a range (10-19) also works (repeatable).")
        var indices: [String] = []

        @Option(help: "Where to write the edited model (.mlmodel or .mlmodelc).")
        var output: String

        func validate() throws {
            guard !labels.isEmpty || !indices.isEmpty else {
                throw ValidationError("name the samples to remove with --label or --index")
            }
            guard output.hasSuffix(".mlmodel") || output.hasSuffix(".mlmodelc") else {
                throw CLIError.unsupportedExtension(path: output)
            }
        }

        func run() throws {
            try checkOutputs(output)
            let loaded = try loadModel(model)
            guard let before = loaded.sampleCount else {
                throw CLIError.model("\(model): not a k-NN classifier (or a pipeline ending in one); it has no samples")
            }
            let positions = try Self.parse(indices)
            var edited = loaded
            do {
                if !positions.isEmpty { edited = try edited.removingSamples(at: positions) }
                let isInt64 = loaded.modelDescription.classLabels?.first is NSNumber
                for label in labels {
                    if isInt64, let number = Int64(label) {
                        edited = try edited.removingSamples(labeled: number)
                    } else {
                        edited = try edited.removingSamples(labeled: label)
                    }
                }
                try edited.write(to: URL(fileURLWithPath: output))
            } catch {
                throw CLIError.model("\(model): \(CLIError.wrap(error))")
            }
            let after = edited.sampleCount ?? 0
            print("Removed \(grouped(before - after)) of \(grouped(before)) samples; \(grouped(after)) remain.")
            print("Wrote \(output)")
        }

        /// "3", "3,5,8" and "10-19" into indices.
        static func parse(_ arguments: [String]) throws -> [Int] {
            var result: [Int] = []
            for argument in arguments {
                for part in argument.split(separator: ",") {
                    let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
                    if bounds.count == 1, let index = Int(bounds[0]) {
                        result.append(index)
                    } else if bounds.count == 2, let low = Int(bounds[0]), let high = Int(bounds[1]), low <= high {
                        result.append(contentsOf: low...high)
                    } else {
                        throw CLIError.model("--index \(argument): '\(part)' is not an index, a list or a range like 10-19")
                    }
                }
            }
            return result
        }
    }
}
