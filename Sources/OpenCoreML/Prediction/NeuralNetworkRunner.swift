import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Runs a neural-network model's predictions through the engine: the network is compiled once,
/// examples go through in passes of a few at a time (a lock serializes callers).
///
/// A batch of several passes per thread (or of equal passes, one or more per thread) runs its
/// passes on separate threads, each pass end to end on one thread with a copy of the network of
/// its own (made on the first such batch, its weights counted against the memory limit), so the
/// threads do not meet at every layer; the kernels inside a pass then run serially. A pass's
/// results are the same either way: the kernels split a picture's work by the configured thread
/// count, not by the threads that run the parts.
final class NeuralNetworkRunner: ModelRunner, @unchecked Sendable {
    /// The most examples one pass takes; `Network.inferencePassSize` makes passes smaller for
    /// networks with large activations, so that they stay in cache.
    static let batchLimit = 64

    private let network: Network
    private let lock = NSLock()
    private let specification: CoreML_Specification_Model
    /// The other threads' copies of the network and their probability blobs, made on the first
    /// batch that runs passes on separate threads; empty when they do not fit in the memory limit.
    private var workers: [(network: Network, probabilityBlob: Blob?)]?
    /// Whether batches may run their passes on separate threads (tests compare both paths).
    var passesOnSeparateThreads = true
    /// Whether copies of the network for other threads were made (for tests).
    var hasThreadCopies: Bool { lock.withLock { workers?.isEmpty == false } }
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
        self.specification = specification
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
            guard let blob = Self.probabilityBlob(in: network, specification: specification), blob.shape.count == classLabels.count else {
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

    /// A classifier's probabilities blob in `network`: the layer the classifier names, else the last.
    private static func probabilityBlob(in network: Network, specification: CoreML_Specification_Model) -> Blob? {
        guard case .neuralNetworkClassifier(let classifier)? = specification.type else { return nil }
        let named = classifier.labelProbabilityLayerName
        return network.blobs[named]
            ?? network.nodes.first(where: { $0.name == named })?.outputs.first
            ?? network.nodes.last?.outputs.first
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        lock.lock()
        defer { lock.unlock() }
        let threads = OpenCoreMLRuntime.threadCount
        let passSize = network.inferencePassSize(threads: threads, limit: Self.batchLimit)
        let passes = (examples.count + passSize - 1) / passSize
        if passesOnSeparateThreads, threads > 1, network.timings == nil,
           passes >= 2 * threads || (passes >= threads && examples.count % passSize == 0),
           let workers = workers(threads: threads, passSize: passSize) {
            return try predictionsOnSeparateThreads(examples, passSize: passSize, passes: passes, workers: workers)
        }
        var results: [MLFeatureProvider] = []
        results.reserveCapacity(examples.count)
        var start = 0
        while start < examples.count {
            let batch = min(passSize, examples.count - start)
            if batch > checkedBatch {
                do { try network.checkMemory(batch: batch, training: false, limit: memoryLimit) } catch let error as EngineError {
                    throw MLModelError(.generic, error.description)
                }
                checkedBatch = batch
            }
            try runPass(examples, start: start, batch: batch, network: network, probabilityBlob: probabilityBlob) { results.append($0) }
            start += batch
        }
        return results
    }

    /// Runs `examples[start..<start + batch]` through `network` and hands each example's outputs to
    /// `emit`, in order.
    private func runPass(
        _ examples: [MLFeatureProvider], start: Int, batch: Int, network: Network, probabilityBlob: Blob?,
        emit: (MLFeatureProvider) -> Void
    ) throws {
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
        for row in 0..<batch { emit(try outputFeatures(network: network, probabilityBlob: probabilityBlob, row: row)) }
    }

    /// The networks for `threads` threads running passes of `passSize` (this one first), made once;
    /// nil when the copies' weights and every thread's buffers do not fit in the memory limit.
    private func workers(threads: Int, passSize: Int) -> [(network: Network, probabilityBlob: Blob?)]? {
        if workers == nil || (workers!.count > 0 && workers!.count < threads) {
            workers = []
            // A copy holds the weights twice at most (values, and a packed layout for products).
            let weightBytes = network.parameters.reduce(0) { $0 + $1.count } * 4 * 2
            let (copies, overflow) = weightBytes.multipliedReportingOverflow(by: threads - 1)
            guard !overflow, copies < memoryLimit,
                  (try? network.checkMemory(batch: passSize * threads, training: false, limit: memoryLimit - copies)) != nil
            else { return nil }
            var made: [(network: Network, probabilityBlob: Blob?)] = [(network, probabilityBlob)]
            for _ in 1..<threads {
                guard let copy = try? Network(model: specification, memoryLimit: memoryLimit) else { return nil }
                made.append((copy, Self.probabilityBlob(in: copy, specification: specification)))
            }
            workers = made
        }
        guard let workers, workers.count >= threads else { return nil }
        return workers
    }

    /// Runs the passes of `examples` on separate threads, each pass on the network of the thread
    /// that takes it (nested kernel calls inside the job run serially).
    private func predictionsOnSeparateThreads(
        _ examples: [MLFeatureProvider], passSize: Int, passes: Int, workers: [(network: Network, probabilityBlob: Blob?)]
    ) throws -> [MLFeatureProvider] {
        // `workers(threads:passSize:)` checked every thread's buffers for a pass against the limit.
        var results = [MLFeatureProvider?](repeating: nil, count: examples.count)
        var errors = [Error?](repeating: nil, count: passes)
        results.withUnsafeMutableBufferPointer { results in
            errors.withUnsafeMutableBufferPointer { errors in
                parallelForEach(passes, slots: workers.count) { thread, pass in
                    let start = pass * passSize
                    let batch = min(passSize, examples.count - start)
                    var row = start
                    do {
                        try runPass(examples, start: start, batch: batch, network: workers[thread].network,
                                    probabilityBlob: workers[thread].probabilityBlob) { features in
                            results[row] = features
                            row += 1
                        }
                    } catch {
                        errors[pass] = error
                    }
                }
            }
        }
        if let error = errors.lazy.compactMap({ $0 }).first { throw error }
        return results.compactMap { $0 }
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

    private func outputFeatures(network: Network, probabilityBlob: Blob?, row: Int) throws -> MLFeatureProvider {
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
