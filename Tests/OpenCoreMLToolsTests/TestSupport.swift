import CoreMLSpec
import Foundation
import OpenCoreML
import _OpenCoreMLTestSupport

/// Feature values and training runs shared by the tools tests.
enum Support {
    static func array(_ values: [Float], shape: [Int]) -> MLFeatureValue {
        let array = try! MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return MLFeatureValue(multiArray: array)
    }

    static func floats(_ value: MLFeatureValue?) -> [Float] {
        guard let array = value?.multiArrayValue else { return [] }
        return (0..<array.count).map { array[$0].floatValue }
    }

    /// The prediction's values for `name`: a multi-array's elements, or a probability dictionary's
    /// values in the order of `labels`.
    static func output(of model: MLModel, _ inputs: [String: MLFeatureValue], _ name: String, labels: [String] = []) throws -> [Float] {
        let result = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: inputs))
        let value = result.featureValue(for: name)
        if !labels.isEmpty, let dictionary = value?.dictionaryValue {
            return labels.map { dictionary[$0]?.floatValue ?? .nan }
        }
        return floats(value)
    }

    /// Waits for an update task's completion handler.
    final class Completion: @unchecked Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private(set) var context: MLUpdateContext?
        var epochLosses: [Double] = []

        func finish(_ context: MLUpdateContext) {
            self.context = context
            semaphore.signal()
        }

        func wait() -> MLUpdateContext? {
            _ = semaphore.wait(timeout: .now() + 300)
            return context
        }
    }

    /// Trains the model at `url` with `MLUpdateTask` and returns the trained model and each epoch's loss.
    static func train(_ url: URL, on examples: [MLFeatureProvider], parameters: [MLParameterKey: Any] = [:]) throws -> (model: MLModel, losses: [Double]) {
        let configuration = MLModelConfiguration()
        configuration.parameters = parameters
        let completion = Completion()
        let handlers = MLUpdateProgressHandlers(
            forEvents: [.epochEnd],
            progressHandler: { context in
                if let loss = context.metrics[.lossValue] as? Double { completion.epochLosses.append(loss) }
            },
            completionHandler: { completion.finish($0) })
        let task = try MLUpdateTask(forModelAt: url, trainingData: MLArrayBatchProvider(array: examples),
                                    configuration: configuration, progressHandlers: handlers)
        task.resume()
        guard let context = completion.wait() else { throw ModelToolsTestError("training did not finish") }
        if let error = context.task.error { throw error }
        return (context.model, completion.epochLosses)
    }

    static func softmax(_ logits: [Float]) -> [Float] {
        let top = logits.max() ?? 0
        let exps = logits.map { Foundation.exp(Double($0 - top)) }
        let sum = exps.reduce(0, +)
        return exps.map { Float($0 / sum) }
    }

    /// `weights · x + bias` for an inner-product layer stored row by row.
    static func dense(_ layer: CoreML_Specification_InnerProductLayerParams, _ x: [Float]) -> [Float] {
        let columns = Int(layer.inputChannels)
        return (0..<Int(layer.outputChannels)).map { row in
            var sum = Double(layer.hasBias_p ? layer.bias.floatValue[row] : 0)
            for column in 0..<columns { sum += Double(layer.weights.floatValue[row * columns + column]) * Double(x[column]) }
            return Float(sum)
        }
    }

    /// Writes `spec` under the folder named by `OPENCOREML_DSL_MODELS` (CI checks those files with
    /// coremltools), when that variable is set.
    static func export(_ spec: CoreML_Specification_Model, as name: String) throws {
        guard let folder = ProcessInfo.processInfo.environment["OPENCOREML_DSL_MODELS"], !folder.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try spec.write(to: URL(fileURLWithPath: folder).appendingPathComponent("\(name).mlmodel"))
    }
}

struct ModelToolsTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
