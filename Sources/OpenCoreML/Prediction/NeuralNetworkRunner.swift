import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Runs a neural-network model's predictions through the engine: the network is compiled once,
/// examples go through in passes of a few at a time (a lock serializes callers).
final class NeuralNetworkRunner: ModelRunner, @unchecked Sendable {
    /// The most examples one pass takes; `Network.inferencePassSize` makes passes smaller for
    /// networks with large activations, so that they stay in cache.
    static let batchLimit = 64

    private let network: Network
    private let lock = NSLock()
    private let inputs: [(name: String, count: Int, shape: [Int], image: CoreML_Specification_ImageFeatureType?, isOptional: Bool)]
    private let outputs: [CoreML_Specification_FeatureDescription]
    private let predictedFeatureName: String?
    private let probabilitiesName: String?
    private let classLabels: ClassLabelSet
    /// The probability dictionary's keys, made once.
    private let labelKeys: [AnyHashable]
    /// The blob holding class probabilities (classifiers only).
    private let probabilityBlob: Blob?
    private let memoryLimit: Int
    /// The largest batch whose buffers were checked against the memory limit.
    private var checkedBatch = 0

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        let network: Network
        do {
            network = try Network(model: specification, memoryLimit: memoryLimit)
            try network.checkMemory(batch: 1, training: false, limit: memoryLimit)
        } catch let error as EngineError {
            throw MLModelError(.generic, error.description)
        }
        self.memoryLimit = memoryLimit
        checkedBatch = 1
        self.network = network
        let description = specification.description_p
        inputs = description.input.map { feature in
            let blob = network.inputBlob(named: feature.name)!
            let declared: [Int]
            if case .multiArrayType(let array)? = feature.type.type, !array.shape.isEmpty {
                declared = array.shape.map(Int.init)
            } else {
                declared = blob.shape.dims
            }
            return (feature.name, blob.shape.count, declared, FeatureEncoding.imageType(of: feature), feature.type.isOptional)
        }
        outputs = description.output
        if case .neuralNetworkClassifier(let classifier)? = specification.type {
            classLabels = classifier.classLabelSet
            predictedFeatureName = description.predictedFeatureName.isEmpty ? nil : description.predictedFeatureName
            probabilitiesName = description.predictedProbabilitiesName.isEmpty ? nil : description.predictedProbabilitiesName
            let named = classifier.labelProbabilityLayerName
            let blob = network.blobs[named]
                ?? network.nodes.first(where: { $0.name == named })?.outputs.first
                ?? network.nodes.last?.outputs.first
            guard let blob, blob.shape.count == classLabels.count else {
                throw MLModelError(.generic, "the classifier's probabilities blob does not have one value per class (\(classLabels.count))")
            }
            probabilityBlob = blob
            labelKeys = classLabels.keys
        } else {
            classLabels = .none
            predictedFeatureName = nil
            probabilitiesName = nil
            probabilityBlob = nil
            labelKeys = []
        }
        for output in outputs where output.name != predictedFeatureName && output.name != probabilitiesName {
            guard network.blobs[output.name] != nil else {
                throw MLModelError(.generic, "output '\(output.name)' is produced by no layer")
            }
        }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        lock.lock()
        defer { lock.unlock() }
        var results: [MLFeatureProvider] = []
        results.reserveCapacity(examples.count)
        let passSize = network.inferencePassSize(threads: OpenCoreMLRuntime.threadCount, limit: Self.batchLimit)
        var start = 0
        while start < examples.count {
            let batch = min(passSize, examples.count - start)
            if batch > checkedBatch {
                do { try network.checkMemory(batch: batch, training: false, limit: memoryLimit) } catch let error as EngineError {
                    throw MLModelError(.generic, error.description)
                }
                checkedBatch = batch
            }
            network.reserve(batch: batch, training: false)
            for input in inputs {
                let blob = network.inputBlob(named: input.name)!
                for row in 0..<batch {
                    try FeatureEncoding.write(
                        examples[start + row].featureValue(for: input.name), name: input.name, example: start + row,
                        count: input.count, shape: input.shape, image: input.image, isOptional: input.isOptional,
                        to: blob.value.pointer + row * input.count)
                }
            }
            network.forward(batch: batch)
            for row in 0..<batch { results.append(try outputFeatures(row: row)) }
            start += batch
        }
        return results
    }

    /// Runs `predictions(examples)` `calls` times with a clock around every layer (`clock`), and
    /// returns the layers' times summed over the calls and the passes the calls made.
    func timedPredictions(_ examples: [MLFeatureProvider], calls: Int, clock: LayerTimings.Clock) throws -> LayerTimings {
        lock.lock()
        network.enableTimings(clock: clock)
        lock.unlock()
        defer {
            lock.lock()
            network.disableTimings()
            lock.unlock()
        }
        for _ in 0..<calls { _ = try predictions(examples) }
        return network.timings!
    }

    private func outputFeatures(row: Int) throws -> MLFeatureProvider {
        var values: [String: MLFeatureValue] = [:]
        for output in outputs {
            if output.name == predictedFeatureName || output.name == probabilitiesName, let blob = probabilityBlob {
                let count = blob.shape.count
                let probabilities = blob.value.pointer + row * count
                if output.name == probabilitiesName {
                    values[output.name] = MLFeatureValue(classProbabilities: probabilities, keys: labelKeys)
                } else {
                    var best = 0
                    for index in 1..<max(count, 1) where probabilities[index] > probabilities[best] { best = index }
                    values[output.name] = classLabels.featureValue(at: best)
                }
                continue
            }
            let blob = network.blobs[output.name]!
            let count = blob.shape.count
            var shape = blob.shape.dims
            var dataType = MLMultiArrayDataType.float32
            if case .multiArrayType(let array)? = output.type.type {
                if !array.shape.isEmpty, checkedProduct(array.shape) == count { shape = array.shape.map(Int.init) }
                dataType = MLMultiArrayDataType(rawValue: array.dataType.rawValue) ?? .float32
            }
            switch output.type.type {
            case .doubleType?: values[output.name] = MLFeatureValue(double: Double(blob.value.pointer[row * count]))
            case .int64Type?:
                let value = blob.value.pointer[row * count].rounded()
                guard let integer = Int64(exactly: value) else {
                    throw MLModelError(.generic, "output '\(output.name)' is declared int64, but the network computed \(value), which is not an int64")
                }
                values[output.name] = MLFeatureValue(int64: integer)
            case .imageType(let image)?:
                values[output.name] = MLFeatureValue(pixelBuffer: try PixelBuffer.imageOutput(
                    planes: blob.value.pointer + row * count, count: count, type: image, name: output.name))
            default:
                values[output.name] = MLFeatureValue(multiArray: try MLMultiArray.make(shape: shape, dataType: dataType, values: blob.value.pointer + row * count))
            }
        }
        return MLDictionaryFeatureProvider(featureValues: values)
    }
}
