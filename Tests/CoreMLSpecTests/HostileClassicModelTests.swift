import CoreMLSpec
import Foundation
import SwiftProtobuf
import Testing
import _OpenCoreMLTestSupport

/// Classic models whose sizes disagree with their inputs or outputs: refused when they load, each
/// naming the part, where they used to load and then fail (or quietly give another shape) at the
/// first prediction. And nesting past the protobuf decoder's depth: one error that says so.
struct HostileClassicModelTests {
    private static func array(_ name: String, _ shape: [Int64]) -> CoreML_Specification_FeatureDescription {
        TestSpecs.array(name, shape)
    }

    private static func scalar(_ name: String, int64: Bool = false) -> CoreML_Specification_FeatureDescription {
        TestSpecs.feature(name) { if int64 { $0.int64Type = .init() } else { $0.doubleType = .init() } }
    }

    private static func model(_ inputs: [CoreML_Specification_FeatureDescription], _ outputs: [CoreML_Specification_FeatureDescription],
                              _ configure: (inout CoreML_Specification_Model) -> Void) -> CoreML_Specification_Model {
        TestSpecs.model(inputs, outputs, configure)
    }

    private static func vectorizer(_ input: CoreML_Specification_FeatureDescription, dimensions: UInt64, output: [Int64] = []) -> CoreML_Specification_Model {
        model([input], [array("y", output)]) {
            var column = CoreML_Specification_FeatureVectorizer.InputColumn()
            column.inputColumn = input.name
            column.inputDimensions = dimensions
            $0.featureVectorizer.inputList = [column]
        }
    }

    private static func glm(rows: Int, output: [Int64]) -> CoreML_Specification_Model {
        model([array("x", [3])], [array("y", output)]) {
            $0.description_p.predictedFeatureName = "y"
            $0.glmRegressor.weights = (0..<rows).map { _ in
                var row = CoreML_Specification_GLMRegressor.DoubleArray()
                row.value = [1, 2, 3]
                return row
            }
            $0.glmRegressor.offset = [Double](repeating: 0, count: rows)
        }
    }

    private static func oneHot(_ input: CoreML_Specification_FeatureDescription, output: [Int64]) -> CoreML_Specification_Model {
        model([input], [array("y", output)]) { $0.oneHotEncoder.int64Categories.vector = [1, 2, 3] }
    }

    static let refused: [(String, CoreML_Specification_Model, String)] = [
        ("vectorizer column wider than its multi-array", vectorizer(array("x", [3]), dimensions: 7),
         "inputDimensions is 7, but the input's shape [3] holds 3 values"),
        ("vectorizer column of a number, two wide", vectorizer(scalar("x"), dimensions: 2), "inputDimensions is 2, but the input is one number"),
        ("vectorizer column 2^40 wide on a 3-value input", vectorizer(array("x", [3]), dimensions: 1 << 40), "inputDimensions is 1099511627776"),
        ("vectorizer output of another width", vectorizer(array("x", [3]), dimensions: 3, output: [10]), "declares shape [10] (10 values), but the columns together makes 3"),
        ("GLM output wider than its rows", glm(rows: 2, output: [7]), "output 'y': declares shape [7] (7 values), but the GLM's 2 weight row(s) makes 2"),
        ("one-hot output wider than its categories", oneHot(scalar("x", int64: true), output: [5]), "declares shape [5] (5 values), but one value per category makes 3"),
    ]

    @Test func sizesThatDisagreeAreRefusedWhenTheModelLoads() {
        for (what, model, message) in Self.refused {
            let issues = model.validationIssues().map(\.description)
            #expect(issues.contains { $0.contains(message) }, "\(what): \(issues)")
        }
        // The same models with agreeing sizes are valid.
        for model in [Self.vectorizer(Self.array("x", [3]), dimensions: 3, output: [3]), Self.vectorizer(Self.scalar("x"), dimensions: 1),
                      Self.glm(rows: 2, output: [2]), Self.oneHot(Self.scalar("x", int64: true), output: [3])] {
            #expect(model.validationIssues().isEmpty, "\(model.validationIssues())")
        }
    }

    /// Sixty pipelines inside each other pass the protobuf decoder's 100-level limit: an error
    /// that says so, naming the file, rather than a generic decoding failure.
    @Test func pipelinesNestedPastTheDecodersDepthAreOneClearError() throws {
        var inner = Self.model([Self.array("x", [3])], [Self.array("x", [3])]) { $0.identity = .init() }
        for _ in 0..<60 {
            let model = inner
            inner = Self.model([Self.array("x", [3])], [Self.array("x", [3])]) { $0.pipeline.models = [model] }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nested-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("nested.mlmodel")
        try inner.serializedData().write(to: url)
        do {
            _ = try CoreML_Specification_Model(contentsOf: url)
            Issue.record("a model nested 121 messages deep was read")
        } catch {
            #expect("\(error)".contains("nested.mlmodel") && "\(error)".contains("more than 100 levels"), "\(error)")
        }
    }
}
