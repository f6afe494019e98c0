import Foundation
import _OpenCoreMLEngine

/// Where a neural network's predictions spend their time, layer by layer (an OpenCoreML addition;
/// Core ML has no such report): what ``MLModel/predictionProfile(for:calls:)`` measures and
/// `opencoreml bench predict --profile` prints.
///
/// With one kernel thread each layer's time is the processor time of that thread (robust on a busy
/// machine); with more it is elapsed time. The time outside the layers (turning inputs into arrays,
/// outputs into feature values) is the difference to the whole call's time.
public struct MLPredictionProfile: Sendable {
    /// One layer.
    public struct Entry: Sendable, Encodable {
        /// The layer's name.
        public var name: String
        /// The layer type (a depthwise or pointwise convolution named as such), with the layer it was
        /// fused into, if any (a fused layer's time is in the layer that runs it).
        public var type: String
        /// Seconds per prediction call.
        public var seconds: Double
        /// The layer's multiply-adds per example (0 for layers without matrix products).
        public var multiplyAdds: Int
    }

    /// Every layer in order.
    public let entries: [Entry]
    /// Prediction calls timed.
    public let calls: Int
    /// Examples per call.
    public let examplesPerCall: Int
    /// Whether the times are one thread's processor time (else elapsed time).
    public let isProcessorTime: Bool
    /// Seconds per call in the layers, all together.
    public var secondsPerCall: Double { entries.reduce(0) { $0 + $1.seconds } }
    /// For an ML Program, the most bytes its tensors (inputs and intermediate values) held at once
    /// in one prediction, each buffer counted once; nil for a neural network.
    public var peakTensorBytes: Int? = nil
}

extension MLModel {
    /// Makes `calls` prediction calls on `examples` (`predictions(fromBatch:)`, as the model always
    /// runs them) with a clock around every layer (every step of an ML Program's `main`), after one
    /// untimed call. Throws for models that are neither neural networks nor ML Programs, and for
    /// inputs that do not fit the model.
    public func predictionProfile(for examples: MLBatchProvider, calls: Int = 10) throws -> MLPredictionProfile {
        guard calls >= 1 else { throw MLModelError(.generic, "calls must be at least 1, got \(calls)") }
        let runner = try runner()
        let inputs = (0..<examples.count).map { examples.features(at: $0) }
        _ = try runner.predictions(inputs)
        let oneThread = OpenCoreMLRuntime.threadCount == 1
        if let program = runner as? MLProgramRunner {
            // An ML Program's steps: one per operation (a fused pair as one), a nested block's in its operation's.
            let (steps, peakValues) = try program.profile(inputs, calls: calls, clock: oneThread ? .threadCPU : .wall)
            var profile = MLPredictionProfile(entries: steps.map { MLPredictionProfile.Entry(name: $0.name, type: $0.type, seconds: $0.seconds, multiplyAdds: 0) },
                                              calls: calls, examplesPerCall: examples.count, isProcessorTime: oneThread)
            profile.peakTensorBytes = peakValues * MemoryLayout<Float>.size
            return profile
        }
        guard let runner = runner as? NeuralNetworkRunner else {
            throw MLModelError(.generic, "only neural networks and ML Programs can be profiled layer by layer")
        }
        let timings = try runner.timedPredictions(inputs, calls: calls, clock: oneThread ? .threadCPU : .wall)
        let entries = timings.entries.map { entry in
            MLPredictionProfile.Entry(
                name: entry.name, type: entry.fusedInto.map { "\(entry.kind) (in \($0))" } ?? entry.kind,
                seconds: entry.forward / Double(calls), multiplyAdds: entry.forwardMultiplyAdds)
        }
        return MLPredictionProfile(entries: entries, calls: calls, examplesPerCall: examples.count, isProcessorTime: oneThread)
    }
}
