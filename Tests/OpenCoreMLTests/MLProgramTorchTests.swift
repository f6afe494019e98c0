import Foundation
import OpenCoreML
import Testing

/// ML Programs converted from PyTorch (make_torch_mlprograms.py: a CNN with batch norm and a
/// depthwise residual block, a transformer block for iOS 16–18, an encoder–decoder with upsampling,
/// iOS 18's scaled_dot_product_attention with and without masks, iOS 17's resize) and the MIL
/// builder's one-operation-per-output program (make_mlprogram_ops.py), run through `MLModel`
/// against the outputs PyTorch and numpy computed for the same inputs (torch_facts.json,
/// ops_facts.json): within 1e-4 for float32 programs; for float16 ones within 1e-2 of the output's
/// largest magnitude (float16 weights and a float32 reference; OpenCoreML computes in float32).
@Suite("ML Programs converted from PyTorch")
struct MLProgramTorchTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")

    /// A tensor in a facts file: its shape and values.
    struct Tensor {
        var shape: [Int]
        var values: [Double]

        init(_ json: Any?) throws {
            let object = try #require(json as? [String: Any])
            shape = try #require(object["shape"] as? [Int])
            values = try #require(object["values"] as? [Double])
        }
    }

    static func facts(_ file: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(file))) as? [String: Any])
    }

    /// The facts' inputs, each value times `scale`.
    static func features(_ facts: [String: Any], scale: Double = 1) throws -> MLDictionaryFeatureProvider {
        var features: [String: Any] = [:]
        for (name, json) in try #require(facts["inputs"] as? [String: Any]) {
            let input = try Tensor(json)
            let array = try MLMultiArray(shape: input.shape.map { NSNumber(value: $0) }, dataType: .float32)
            for (index, value) in input.values.enumerated() { array[index] = NSNumber(value: Float(value * scale)) }
            features[name] = array
        }
        return try MLDictionaryFeatureProvider(dictionary: features)
    }

    /// Runs `package` (or `model`, loaded from it) on the facts' inputs and compares every output
    /// the facts hold.
    static func check(_ package: String, _ facts: [String: Any], float16: Bool, model: MLModel? = nil) throws {
        let model = try model ?? MLModel(contentsOf: folder.appendingPathComponent(package))
        let prediction = try model.prediction(from: features(facts))
        let expected = try #require(facts["outputs"] as? [String: Any])
        #expect(Set(expected.keys) == Set(model.modelDescription.outputDescriptionsByName.keys))
        for (name, json) in expected {
            // Outputs come back in their declared type, as from Core ML (float16 for the fp16 UNet).
            let declared = model.modelDescription.outputDescriptionsByName[name]?.multiArrayConstraint?.dataType
            #expect(prediction.featureValue(for: name)?.multiArrayValue?.dataType == declared, "\(package): '\(name)' is \(String(describing: declared))")
            let reference = try Tensor(json)
            let y = try #require(prediction.featureValue(for: name)?.multiArrayValue, "\(package): output '\(name)'")
            #expect(y.shape.map(\.intValue) == (reference.shape.isEmpty ? [1] : reference.shape), "\(package): '\(name)' shape")
            guard y.count == reference.values.count else { continue }
            let tolerance = float16 ? 1e-2 * max(reference.values.map(abs).max() ?? 0, 1e-3) : 1e-4
            var worst = (difference: 0.0, index: 0)
            for (index, value) in reference.values.enumerated() {
                let difference = abs(y[index].doubleValue - value)
                if !(difference <= worst.difference) { worst = (difference, index) }
            }
            #expect(worst.difference <= tolerance,
                    "\(package): '\(name)'[\(worst.index)] is \(y[worst.index]), PyTorch/numpy \(reference.values[worst.index]) (tolerance \(tolerance))")
        }
    }

    @Test(arguments: ["TorchCNN.mlpackage", "TorchTransformer.mlpackage", "TorchTransformer16.mlpackage", "TorchUNet.mlpackage",
                      "TorchDecoder.mlpackage", "TorchTransformer18.mlpackage", "TorchAttention.mlpackage", "TorchAttention16.mlpackage",
                      "Resize17.mlpackage", "TorchCeilPool.mlpackage"])
    func predictsWhatPyTorchComputes(package: String) throws {
        let facts = try #require(try Self.facts("torch_facts.json")[package] as? [String: Any])
        try Self.check(package, facts, float16: facts["precision"] as? String == "float16")
    }

    /// A loaded model reuses its step buffers from one prediction to the next: a prediction on
    /// other inputs in between leaves nothing behind in them.
    @Test(arguments: ["TorchCNN.mlpackage", "TorchTransformer.mlpackage", "TorchUNet.mlpackage", "TorchDecoder.mlpackage", "TorchAttention.mlpackage"])
    func predictsTheSameAfterPredictingOtherInputs(package: String) throws {
        let facts = try #require(try Self.facts("torch_facts.json")[package] as? [String: Any])
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(package))
        let float16 = facts["precision"] as? String == "float16"
        try Self.check(package, facts, float16: float16, model: model)
        _ = try model.prediction(from: Self.features(facts, scale: -0.5))
        try Self.check(package, facts, float16: float16, model: model)
    }

    @Test func eachOperationAgreesWithNumpy() throws {
        try Self.check("Ops.mlpackage", try Self.facts("ops_facts.json"), float16: false)
    }

    /// The fixtures still exercise what they were made for (a regenerated fixture that lost an
    /// operation would otherwise pass without running it).
    @Test func theFixturesHoldTheOperationsTheyTest() throws {
        let torch = try Self.facts("torch_facts.json")
        func types(_ facts: Any?) -> Set<String> { Set(((facts as? [String: Any])?["operationCounts"] as? [String: Int] ?? [:]).keys) }
        #expect(types(torch["TorchCNN.mlpackage"]).isSuperset(of: ["batch_norm", "conv", "silu", "sigmoid_hard", "reduce_mean"]))
        #expect(types(torch["TorchTransformer.mlpackage"]).isSuperset(of: ["layer_norm", "gelu", "split", "matmul", "softmax"]))
        #expect(types(torch["TorchTransformer16.mlpackage"]).isSuperset(of: ["layer_norm", "gelu", "cast"]))
        #expect(types(torch["TorchUNet.mlpackage"]).isSuperset(of: ["instance_norm", "upsample_bilinear", "upsample_nearest_neighbor",
                                                                    "pad", "concat", "slice_by_index", "leaky_relu", "elu"]))
        #expect(types(torch["TorchDecoder.mlpackage"]).isSuperset(of: ["conv_transpose", "crop"]))
        #expect(types(torch["TorchCeilPool.mlpackage"]).isSuperset(of: ["max_pool", "avg_pool", "concat"]))
        #expect(types(torch["TorchTransformer18.mlpackage"]).isSuperset(of: ["layer_norm", "gelu", "matmul", "softmax"]))
        for attention in ["TorchAttention.mlpackage", "TorchAttention16.mlpackage"] {
            let counts = (torch[attention] as? [String: Any])?["operationCounts"] as? [String: Int]
            #expect(counts?["scaled_dot_product_attention"] == 5, "\(attention): no mask, causal, float mask, bool mask, cross-attention")
        }
        #expect(types(torch["Resize17.mlpackage"]).isSuperset(of: ["resize", "shape"]))
        let ops = types(try Self.facts("ops_facts.json"))
        #expect(ops.isSuperset(of: ["gather", "gather_along_axis", "tile", "select", "equal", "not_equal", "greater", "greater_equal",
                                    "less", "less_equal", "reduce_sum", "reduce_max", "reduce_min", "slice_by_size", "split",
                                    "thresholded_relu", "softplus", "rsqrt", "log"]))
    }
}
