import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Where one epoch of a neural network's training goes, layer by layer (an OpenCoreML addition;
/// Core ML has no such report): what ``MLModel/trainingProfile(on:)`` measures and
/// `opencoreml bench lenet --profile` prints.
///
/// With one kernel thread each layer's time is the processor time of that thread (robust on a busy
/// machine); with more it is elapsed time.
public struct MLTrainingProfile: Sendable {
    /// One layer, or one of the steps around the layers (`loss`, `optimizer`, `batch copy`).
    public struct Entry: Sendable, Encodable {
        /// The layer's name, or `loss`, `optimizer` or `batch copy`.
        public var name: String
        /// The layer type, with the layer it was fused into, if any; empty for the other steps.
        public var type: String
        /// Seconds per mini-batch in the forward and backward pass (nil for the other steps).
        public var forwardSeconds: Double?
        /// Seconds per mini-batch in the backward pass (nil for the other steps).
        public var backwardSeconds: Double?
        /// Seconds per mini-batch in all.
        public var seconds: Double
        /// The layer's multiply-adds per example in a training step (forward and backward; 0 for
        /// layers without matrix products).
        public var trainingMultiplyAdds: Int
    }

    /// Every layer in order, then `loss`, `optimizer` and `batch copy`.
    public let entries: [Entry]
    /// Mini-batches timed.
    public let batches: Int
    /// Examples in the epoch.
    public let examples: Int
    /// Seconds per mini-batch, all entries together.
    public var secondsPerBatch: Double { entries.reduce(0) { $0 + $1.seconds } }
    /// Whether the times are one thread's processor time (else elapsed time).
    public let isProcessorTime: Bool
}

extension MLModel {
    /// The multiply-adds one example costs in a prediction and in a training step (forward plus
    /// backward) of a neural network's matrix products (convolutions and inner products): the
    /// measure GFLOP/s figures are computed from. Nil for other model types.
    public var multiplyAddsPerExample: (prediction: Int, training: Int)? {
        guard specification.neuralNetworkSpecification != nil, let network = try? Network(model: specification) else { return nil }
        let counts = network.multiplyAddsPerExample
        return (counts.forward, counts.training)
    }

    /// Runs one epoch of training on `trainingData` in order (no shuffling) on a copy of the
    /// model's network, timing every layer, the loss, the optimizer and the copying of each
    /// mini-batch. The model itself is not changed. Throws for models that are not updatable
    /// neural networks, or data that does not fit the model.
    public func trainingProfile(on trainingData: MLBatchProvider) throws -> MLTrainingProfile {
        guard let networkSpecification = specification.neuralNetworkSpecification, networkSpecification.hasUpdateParams else {
            throw MLModelError(.update, "only updatable neural networks can be profiled")
        }
        let settings = UpdateSettings(model: self)
        let limit = configuration.resolvedMemoryLimit
        let network: Network
        do {
            network = try Network(model: specification, memoryLimit: limit)
            try network.checkMemory(batch: settings.miniBatchSize, training: true, limit: limit)
            try network.checkGradientPaths()
        } catch let error as EngineError {
            throw MLModelError(.update, error.description)
        }
        let data = try TrainingSet(trainingData, network: network, specification: specification, memoryLimit: limit)
        let optimizer = Optimizer(settings.optimizer(for: networkSpecification.updateParams))
        let oneThread = OpenCoreMLRuntime.threadCount == 1
        network.enableTimings(clock: oneThread ? .threadCPU : .wall)
        var copying = 0.0
        var position = 0
        let order = Array(0..<data.count)
        while position < data.count {
            let size = min(settings.miniBatchSize, data.count - position)
            network.reserve(batch: size, training: true)
            copying += network.timings!.time { data.gather(order[position..<(position + size)], into: network) }
            do { _ = try network.trainingStep(batch: size) } catch let error as EngineError {
                throw MLModelError(.update, error.description)
            }
            network.timings!.optimizer += network.timings!.time { optimizer.update(network.parameters) }
            position += size
        }
        let timings = network.timings!
        let batches = Double(max(timings.batches, 1))
        var entries = timings.entries.map { entry in
            MLTrainingProfile.Entry(
                name: entry.name, type: entry.fusedInto.map { "\(entry.typeName) (in \($0))" } ?? entry.typeName,
                forwardSeconds: entry.forward / batches, backwardSeconds: entry.backward / batches,
                seconds: (entry.forward + entry.backward) / batches, trainingMultiplyAdds: entry.trainingMultiplyAdds)
        }
        for (name, seconds) in [("loss", timings.loss), ("optimizer", timings.optimizer), ("batch copy", copying)] {
            entries.append(MLTrainingProfile.Entry(name: name, type: "", seconds: seconds / batches, trainingMultiplyAdds: 0))
        }
        return MLTrainingProfile(entries: entries, batches: timings.batches, examples: data.count, isProcessorTime: oneThread)
    }
}
