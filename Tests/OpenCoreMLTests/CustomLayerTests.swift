import CoreMLSpec
import Foundation
@testable import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// A swish with a learned scale: `y = scale · x · sigmoid(beta · x)`, `beta` a parameter and
/// `scale` the first float of the first weight; it records the shapes it is shown.
private final class ScaledSwish: MLCustomLayer {
    let beta: Float
    var scale: Float = 0
    nonisolated(unsafe) static var shapesSeen: [[Int]] = []
    nonisolated(unsafe) static var parametersSeen: [String: Any] = [:]

    required init(parameters: [String: Any]) throws {
        Self.parametersSeen = parameters
        guard let beta = parameters["beta"] as? Double else { throw SwishError.missingBeta }
        self.beta = Float(beta)
    }

    func setWeightData(_ weights: [Data]) throws {
        guard let first = weights.first, first.count >= 4 else { throw SwishError.missingScale }
        scale = first.withUnsafeBytes { $0.loadUnaligned(as: Float.self) }
    }

    func outputShapes(forInputShapes inputShapes: [[NSNumber]]) throws -> [[NSNumber]] {
        Self.shapesSeen = inputShapes.map { $0.map(\.intValue) }
        return inputShapes
    }

    func evaluate(inputs: [MLMultiArray], outputs: [MLMultiArray]) throws {
        if inputs[0].count > 0, inputs[0][0].floatValue == 99 { throw SwishError.refusedValue }
        inputs[0].withUnsafeBufferPointer(ofType: Float.self) { x, _ in
            outputs[0].withUnsafeMutableBufferPointer(ofType: Float.self) { y, _ in
                for i in x.indices { y[i] = scale * x[i] / (1 + exp(-beta * x[i])) }
            }
        }
    }

    enum SwishError: Error { case missingBeta, missingScale, refusedValue }
}

/// Gives one output shape too many.
private final class TooManyOutputs: MLCustomLayer {
    required init(parameters: [String: Any]) throws {}
    func setWeightData(_ weights: [Data]) throws {}
    func outputShapes(forInputShapes inputShapes: [[NSNumber]]) throws -> [[NSNumber]] { inputShapes + inputShapes }
    func evaluate(inputs: [MLMultiArray], outputs: [MLMultiArray]) throws {}
}

@Suite("Custom layers (MLCustomLayer)", .serialized)
struct CustomLayerTests {
    typealias Layer = CoreML_Specification_NeuralNetworkLayer

    /// x → custom (class `className`) → relu, under the rank-5 or the exact mapping.
    static func model(input: [Int64], exact: Bool, className: String) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [TestSpecs.array("x", input)]
        model.description_p.output = [TestSpecs.array("y", [])]
        if exact { model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping }
        model.neuralNetwork.layers = [
            TestSpecs.layer("swish", ["x"], ["s"]) {
                $0.custom.className = className
                var beta = CoreML_Specification_CustomLayerParams.CustomLayerParamValue()
                beta.doubleValue = 1.5
                var label = CoreML_Specification_CustomLayerParams.CustomLayerParamValue()
                label.stringValue = "gate"
                $0.custom.parameters = ["beta": beta, "label": label]
                $0.custom.weights = [TestSpecs.weights([2])]
            },
            TestSpecs.layer("relu", ["s"], ["y"]) { $0.activation.reLu = .init() },
        ]
        return model
    }

    static func input(_ shape: [Int], first: Float? = nil) throws -> MLFeatureProvider {
        let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
        for index in 0..<array.count { array[index] = NSNumber(value: Float(index) / 4 - 1) }
        if let first { array[0] = NSNumber(value: first) }
        return try MLDictionaryFeatureProvider(dictionary: ["x": MLFeatureValue(multiArray: array)])
    }

    static func expected(_ input: MLFeatureProvider) throws -> [Float] {
        try #require(input.featureValue(for: "x")?.multiArrayValue).floatValues().map { x in max(0, 2 * x / (1 + exp(-1.5 * x))) }
    }

    @Test func aRegisteredClassComputesTheLayerWithRank5Shapes() throws {
        MLCustomLayerRegistry.register(ScaledSwish.self, forClassName: "TestScaledSwish")
        defer { MLCustomLayerRegistry.unregister(className: "TestScaledSwish") }
        let model = try MLModel(specification: Self.model(input: [2, 3, 4], exact: false, className: "TestScaledSwish"))
        let input = try Self.input([2, 3, 4])
        let output = try #require(model.prediction(from: input).featureValue(for: "y")?.multiArrayValue)
        #expect(output.shape == [2, 3, 4])
        #expect(zip(output.floatValues(), try Self.expected(input)).allSatisfy { abs($0 - $1) < 1e-5 })
        // Core ML's view under the rank-5 mapping: [Seq, Batch, C, H, W].
        #expect(ScaledSwish.shapesSeen == [[1, 1, 2, 3, 4]])
        #expect(ScaledSwish.parametersSeen["label"] as? String == "gate")
        #expect((ScaledSwish.parametersSeen["beta"] as? NSNumber)?.doubleValue == 1.5)
    }

    @Test func underTheExactMappingTheLayerSeesTheBlobsOwnRank() throws {
        MLCustomLayerRegistry.register(ScaledSwish.self, forClassName: "TestScaledSwishND")
        defer { MLCustomLayerRegistry.unregister(className: "TestScaledSwishND") }
        let model = try MLModel(specification: Self.model(input: [3, 5], exact: true, className: "TestScaledSwishND"))
        let input = try Self.input([3, 5])
        let output = try #require(model.prediction(from: input).featureValue(for: "y")?.multiArrayValue)
        #expect(ScaledSwish.shapesSeen == [[3, 5]])
        #expect(zip(output.floatValues(), try Self.expected(input)).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test func anUnregisteredClassIsOneErrorNamingTheLayerAndClass() throws {
        #expect {
            // The Swift API compiles a model at its first prediction (the C interface when it loads).
            _ = try MLModel(specification: Self.model(input: [3], exact: false, className: "NobodyRegisteredThis")).prediction(from: Self.input([3]))
        } throws: { error in
            guard let error = error as? MLModelError else { return false }
            return error.code == .customLayer && error.message.contains("'swish'") && error.message.contains("NobodyRegisteredThis")
        }
    }

    @Test func whatTheClassThrowsNamesTheLayer() throws {
        MLCustomLayerRegistry.register(ScaledSwish.self, forClassName: "TestThrowingSwish")
        defer { MLCustomLayerRegistry.unregister(className: "TestThrowingSwish") }
        var spec = Self.model(input: [4], exact: false, className: "TestThrowingSwish")
        // No beta: init(parameters:) throws when the model compiles.
        spec.neuralNetwork.layers[0].custom.parameters["beta"] = nil
        #expect { _ = try MLModel(specification: spec).prediction(from: Self.input([4])) } throws: { error in
            (error as? MLModelError)?.code == .customLayer && "\(error)".contains("missingBeta") && "\(error)".contains("swish")
        }
        // evaluate throws at prediction.
        let model = try MLModel(specification: Self.model(input: [4], exact: false, className: "TestThrowingSwish"))
        #expect { _ = try model.prediction(from: Self.input([4], first: 99)) } throws: { error in
            (error as? MLModelError)?.code == .customLayer && "\(error)".contains("refusedValue")
        }
    }

    @Test func outputShapesForAnotherNumberOfOutputsIsAnError() throws {
        MLCustomLayerRegistry.register(TooManyOutputs.self, forClassName: "TestTooManyOutputs")
        defer { MLCustomLayerRegistry.unregister(className: "TestTooManyOutputs") }
        let model = try MLModel(specification: Self.model(input: [4], exact: false, className: "TestTooManyOutputs"))
        #expect { _ = try model.prediction(from: Self.input([4])) } throws: { error in
            "\(error)".contains("2 output shapes") && "\(error)".contains("swish")
        }
    }
}
