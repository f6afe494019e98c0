#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Time per layer, forward and backward, summed over the batches a network runs while the
/// timings are attached to it (`Network.timings`): where a training step's time goes.
///
/// A layer fused into the layer before it (a ReLU or max pooling run inside a convolution) has no
/// time of its own; its producer's entry includes it.
package final class LayerTimings: @unchecked Sendable {
    /// What the timings measure.
    package enum Clock: Sendable {
        /// Elapsed time.
        case wall
        /// Processor time of the calling thread: with one kernel thread, what each layer costs,
        /// whatever else the machine runs.
        case threadCPU

        /// The clock's reading, in seconds.
        package func seconds() -> Double {
            var spec = timespec()
            clock_gettime(self == .wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &spec)
            return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
        }
    }

    package struct Entry: Sendable {
        package let name: String
        package let typeName: String
        /// The type as profiles show it (a depthwise or pointwise convolution named as such).
        package let kind: String
        /// Seconds summed over batches.
        package var forward: Double = 0
        package var backward: Double = 0
        /// The name of the layer that runs this one inside its own pass, if any.
        package var fusedInto: String?
        /// Multiply-adds per example: forward, and forward plus backward.
        package var forwardMultiplyAdds = 0
        package var trainingMultiplyAdds = 0
    }

    package let clock: Clock
    package private(set) var entries: [Entry]
    /// Seconds in the losses (forward and their gradients).
    package var loss: Double = 0
    /// Seconds in the optimizer, when the caller times it (`time(_:)`).
    package var optimizer: Double = 0
    /// Batches run forward.
    package private(set) var batches = 0

    init(nodes: [LayerNode], clock: Clock = .wall) {
        self.clock = clock
        entries = nodes.map { node in
            let forward = node.multiplyAddsPerExample
            let inputGradient = node.inputs.first?.needsGradient ?? false
            let backward = (node.hasTrainableParameters ? forward : 0) + (inputGradient ? forward : 0)
            return Entry(name: node.name, typeName: node.typeName, kind: node.profileKind, fusedInto: node.fusedInto?.name,
                         forwardMultiplyAdds: forward, trainingMultiplyAdds: forward + backward)
        }
    }

    /// Seconds `body` takes on this timing's clock.
    package func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return now() - start
    }

    private func now() -> Double { clock.seconds() }

    func addForward(_ index: Int, _ seconds: Double) { entries[index].forward += seconds }
    func addBackward(_ index: Int, _ seconds: Double) { entries[index].backward += seconds }
    func countBatch() { batches += 1 }
}
