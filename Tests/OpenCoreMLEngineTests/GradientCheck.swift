import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// Compares the engine's parameter gradients with central finite differences of its loss.
///
/// The engine computes in float32, so the differences use a step of `1e-2` and the loss is
/// summed in float64; agreement within a few percent (relative, with an absolute floor) catches
/// wrong formulas, missing terms and sign errors while tolerating float32 rounding.
enum GradientCheck {
    /// Fills inputs and targets with random values (class indices for 1-element int targets).
    static func fillRandomly(_ network: Network, model: CoreML_Specification_Model, batch: Int, seed: UInt64, classes: Int = 0) {
        var random = TestRandom(seed: seed)
        network.reserve(batch: batch, training: true)
        for name in network.inputNames + network.targetNames {
            let blob = network.inputBlob(named: name)!
            let count = batch * blob.shape.count
            if network.targetNames.contains(name) && classes > 0 {
                for i in 0..<count { blob.value.pointer[i] = Float(random.int(0..<classes)) }
            } else {
                for i in 0..<count { blob.value.pointer[i] = random.float(-1, 1) }
            }
        }
    }

    /// Checks every trainable parameter at up to `samples` positions; returns the worst relative error.
    @discardableResult
    static func check(
        _ model: CoreML_Specification_Model, batch: Int = 3, classes: Int = 0, samples: Int = 12, step: Float = 1e-2,
        tolerance: Double = 3e-2, seed: UInt64 = 1, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Double {
        try model.validate()
        let network = try Network(model: model)
        #expect(network.isTrainable, sourceLocation: sourceLocation)
        fillRandomly(network, model: model, batch: batch, seed: seed, classes: classes)
        return try checkFilled(network, batch: batch, samples: samples, step: step, tolerance: tolerance, seed: seed &+ 99,
                               sourceLocation: sourceLocation)
    }

    /// The check itself, on a network whose inputs and targets are already filled (for inputs
    /// `fillRandomly` cannot make, such as embedding indices). `seed` picks the positions checked.
    @discardableResult
    static func checkFilled(
        _ network: Network, batch: Int, samples: Int = 12, step: Float = 1e-2, tolerance: Double = 3e-2, seed: UInt64 = 7,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Double {
        _ = try network.trainingStep(batch: batch)
        var worst = 0.0
        var checked = 0
        var random = TestRandom(seed: seed)
        // Every analytic gradient is read before any perturbed pass overwrites it.
        let trainable = network.parameters.filter(\.isTrainable)
        let gradients = trainable.map { $0.gradient.array($0.count) }
        for (parameter, analytic) in zip(trainable, gradients) {
            let positions = parameter.count <= samples ? Array(0..<parameter.count) : (0..<samples).map { _ in random.int(0..<parameter.count) }
            for index in positions {
                let original = parameter.value.pointer[index]
                parameter.value.pointer[index] = original + step
                let plus = Double(try network.trainingStep(batch: batch))
                parameter.value.pointer[index] = original - step
                let minus = Double(try network.trainingStep(batch: batch))
                parameter.value.pointer[index] = original
                let numeric = (plus - minus) / (2 * Double(step))
                let error = abs(numeric - Double(analytic[index])) / max(abs(numeric), abs(Double(analytic[index])), 1e-2)
                worst = max(worst, error)
                #expect(error < tolerance, "\(parameter.name)[\(index)]: analytic \(analytic[index]), numeric \(numeric)", sourceLocation: sourceLocation)
                checked += 1
            }
        }
        #expect(checked > 0, "no trainable parameter was checked", sourceLocation: sourceLocation)
        return worst
    }
}
