import Foundation
import OpenCoreML
import Testing

/// Hugging Face `transformers` encoders (BERT, GPT-2, DistilBERT, a T5 encoder; tiny seeded configs)
/// converted by coremltools with a flexible sequence length, `input_ids` int32 [1, 1...128]
/// (Scripts/make_transformer_fixtures.py): their programs compute shapes from the input's length
/// while they run (`shape` → `gather` → `concat` of scalars → `reshape`, `range_1d`, `tile`,
/// `fill_like`). One loaded model predicts at every length PyTorch recorded, in an order that grows
/// and shrinks the length, against PyTorch's `last_hidden_state`: float32 programs within 1e-4 of
/// the output's largest magnitude (at least 1e-4), float16 ones within 1e-2 of it (float16 weights
/// and activations against a float32 reference; OpenCoreML computes in float32).
@Suite("transformers encoders with a flexible sequence length")
struct TransformerFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/transformers")

    /// The facts of `package` in transformer_facts.json.
    static func facts(_ package: String) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.appendingPathComponent("transformer_facts.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require((json["models"] as? [String: Any])?[package] as? [String: Any], "\(package) is not in transformer_facts.json")
    }

    static let packages = ["Bert.mlpackage", "Bert16.mlpackage", "GPT2.mlpackage", "GPT216.mlpackage",
                           "DistilBert.mlpackage", "DistilBert16.mlpackage", "T5Encoder.mlpackage", "T5Encoder16.mlpackage"]

    static func tokens(_ ids: [Int]) throws -> MLDictionaryFeatureProvider {
        let array = try MLMultiArray(shape: [1, NSNumber(value: ids.count)], dataType: .int32)
        for (index, id) in ids.enumerated() { array[index] = NSNumber(value: id) }
        return try MLDictionaryFeatureProvider(dictionary: ["input_ids": array])
    }

    @Test(arguments: packages)
    func predictsWhatPyTorchComputesAtEveryLength(package: String) throws {
        let facts = try Self.facts(package)
        let float16 = facts["precision"] as? String == "float16"
        let lengths = try #require(facts["lengths"] as? [String: Any])
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(package))
        // Longest first, then shorter and longer again, then the first once more: nothing of one
        // length's run may stay behind in the next.
        let order = lengths.keys.compactMap(Int.init).sorted(by: >)
        #expect(order.count >= 3)
        for length in order + order.reversed() {
            let reference = try #require(lengths[String(length)] as? [String: Any])
            let ids = try #require(reference["input_ids"] as? [Int])
            let expected = try #require(reference["values"] as? [Double])
            let shape = try #require(reference["shape"] as? [Int])
            let output = try model.prediction(from: Self.tokens(ids))
            let y = try #require(output.featureValue(for: "last_hidden_state")?.multiArrayValue)
            #expect(y.shape.map(\.intValue) == shape, "\(package) at length \(length)")
            guard y.count == expected.count else { continue }
            let largest = expected.map(abs).max() ?? 0
            let tolerance = float16 ? 1e-2 * largest : 1e-4 * max(largest, 1)
            let values = y.floatValues()
            var worst = (difference: 0.0, index: 0)
            for (index, value) in expected.enumerated() {
                let difference = abs(Double(values[index]) - value)
                if !(difference <= worst.difference) { worst = (difference, index) }
            }
            #expect(worst.difference <= tolerance,
                    "\(package) at length \(length): [\(worst.index)] is \(values[worst.index]), PyTorch \(expected[worst.index]) (tolerance \(tolerance))")
        }
    }

    /// A length outside the input's range is refused before the program runs, with an error naming
    /// the input, its shape and the sizes it accepts.
    @Test func aLengthOutsideTheRangeIsRefused() throws {
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent("GPT2.mlpackage"))
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["input_ids"]?.multiArrayConstraint)
        #expect(constraint.shapeConstraint.type == .range)
        #expect(constraint.shapeConstraint.sizeRangeForDimension == [1...1, 1...128])
        #expect(throws: MLModelError.self) { try model.prediction(from: Self.tokens(Array(repeating: 1, count: 129))) }
        do {
            _ = try model.prediction(from: Self.tokens(Array(repeating: 1, count: 129)))
        } catch let error as MLModelError {
            #expect(error.code == .featureType)
            #expect(error.message.contains("input 'input_ids' has shape [1, 129]; the model accepts [1, 1...128]"), "\(error.message)")
        }
    }
}
