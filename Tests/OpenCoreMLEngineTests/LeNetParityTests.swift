import CoreMLSpec
import Foundation
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// The LeNet fixture against the independent numpy reference (`Tests/Fixtures/make_parity.py`,
/// itself cross-checked with TensorFlow 2.21): forward values, loss, gradients, and the weights
/// after one SGD and one Adam step, within 1e-4 of each array's scale.
@Suite("LeNet parity with the numpy/TensorFlow reference")
struct LeNetParityTests {
    struct Manifest: Decodable {
        struct Entry: Decodable {
            let shape: [Int]
            let file: String
            let sum: Double
            let sumOfSquares: Double
            let truncatedTo: Int?
        }
        struct SGD: Decodable { let learningRate: Double; let momentum: Double }
        struct Adam: Decodable { let learningRate: Double; let beta1: Double; let beta2: Double; let eps: Double }
        let model: String
        let batch: Int
        let labels: [Int]
        let loss: Double
        let sgd: SGD
        let adam: Adam
        let files: [String: Entry]
    }

    static let folder = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("parity")
    static let manifest: Manifest = try! JSONDecoder().decode(Manifest.self, from: Data(contentsOf: folder.appendingPathComponent("parity.json")))

    static func values(_ name: String) throws -> [Float] {
        let data = try Data(contentsOf: folder.appendingPathComponent(manifest.files[name]!.file))
        return data.withUnsafeBytes { raw in (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) } }
    }

    /// A LeNet network with the reference batch and labels loaded.
    static func loadedNetwork() throws -> Network {
        let network = try Network(model: try Fixtures.model("lenet_updatable.mlmodel"))
        let batch = manifest.batch
        network.reserve(batch: batch, training: true)
        let input = try values("input")
        network.inputBlob(named: "image")!.value.pointer.update(from: input, count: input.count)
        for (index, label) in manifest.labels.enumerated() { network.inputBlob(named: "output_true")!.value.pointer[index] = Float(label) }
        return network
    }

    /// Compares `actual` with the named reference (its saved prefix, and the full array's sums).
    static func expectClose(_ actual: [Float], _ name: String, tolerance: Double = 1e-4, absolute: Double = 0,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let entry = manifest.files[name]!
        let expected = try values(name)
        #expect(actual.count == entry.shape.reduce(1, *), "\(name): count", sourceLocation: sourceLocation)
        let scale = expected.map { abs(Double($0)) }.max() ?? 1
        var worst = 0.0
        for (a, e) in zip(actual, expected) { worst = max(worst, abs(Double(a) - Double(e))) }
        #expect(worst <= tolerance * scale + absolute, "\(name): worst difference \(worst) (scale \(scale))", sourceLocation: sourceLocation)
        let sum = actual.reduce(0.0) { $0 + Double($1) }
        let squares = actual.reduce(0.0) { $0 + Double($1) * Double($1) }
        #expect(abs(sum - entry.sum) <= tolerance * max(1, Double(actual.count).squareRoot() * scale) + absolute * Double(actual.count).squareRoot(),
                "\(name): sum \(sum), reference \(entry.sum)", sourceLocation: sourceLocation)
        #expect(abs(squares - entry.sumOfSquares) <= tolerance * max(entry.sumOfSquares, 1e-12) + absolute * absolute * Double(actual.count) * 4,
                "\(name): sum of squares \(squares), reference \(entry.sumOfSquares)", sourceLocation: sourceLocation)
    }

    static let parameterFiles = [
        ("conv1.weights", "conv1_weights"), ("conv1.bias", "conv1_bias"), ("conv2.weights", "conv2_weights"), ("conv2.bias", "conv2_bias"),
        ("dense1.weights", "dense1_weights"), ("dense1.bias", "dense1_bias"), ("dense2.weights", "dense2_weights"), ("dense2.bias", "dense2_bias"),
    ]

    static func parameter(_ network: Network, _ name: String) -> Parameter {
        network.parameters.first { $0.name == name }!
    }

    @Test func forwardAndLoss() throws {
        let network = try Self.loadedNetwork()
        let loss = try network.trainingStep(batch: Self.manifest.batch)
        #expect(abs(Double(loss) - Self.manifest.loss) <= 1e-4 * Self.manifest.loss)
        try Self.expectClose(network.blobs["flatten_out"]!.value.array(8 * 1152), "flatten")
        try Self.expectClose(network.blobs["dense2_out"]!.value.array(80), "logits")
        try Self.expectClose(network.blobs["output"]!.value.array(80), "probabilities")
    }

    @Test func gradients() throws {
        let network = try Self.loadedNetwork()
        _ = try network.trainingStep(batch: Self.manifest.batch)
        for (parameter, file) in Self.parameterFiles {
            try Self.expectClose(Self.parameter(network, parameter).gradient.array(Self.parameter(network, parameter).count), "grad_\(file)")
        }
    }

    @Test func oneSGDStep() throws {
        let network = try Self.loadedNetwork()
        _ = try network.trainingStep(batch: Self.manifest.batch)
        Optimizer(.sgd(learningRate: Self.manifest.sgd.learningRate, momentum: Self.manifest.sgd.momentum)).update(network.parameters)
        for (parameter, file) in Self.parameterFiles {
            try Self.expectClose(Self.parameter(network, parameter).values, "sgd_\(file)")
        }
    }

    @Test func oneAdamStep() throws {
        let network = try Self.loadedNetwork()
        _ = try network.trainingStep(batch: Self.manifest.batch)
        let adam = Self.manifest.adam
        Optimizer(.adam(learningRate: adam.learningRate, beta1: adam.beta1, beta2: adam.beta2, eps: adam.eps)).update(network.parameters)
        // Adam turns even float32-noise gradients (|g| ≈ 1e-10) into steps of up to lr, so the
        // weights are compared with an absolute tolerance of lr/100 on top of the relative one.
        for (parameter, file) in Self.parameterFiles {
            try Self.expectClose(Self.parameter(network, parameter).values, "adam_\(file)", absolute: adam.learningRate / 100)
        }
    }
}
