import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// A pipeline of feature-engineering models built in Swift: dict vectorizer → imputer → scaler →
/// L2 normalizer, checked against values worked by hand.
@Suite("Feature-engineering pipelines")
struct FeatureEngineeringPipelineTests {
    typealias S = FeatureSpecs

    /// With `sparse`, the dict vectorizer gives Core ML's `{position: value}` and a feature
    /// vectorizer spreads it into an array (as coremltools' converter builds it); otherwise the
    /// dict vectorizer gives the dense array itself.
    static func pipeline(sparse: Bool) -> CoreML_Specification_Model {
        var stages: [CoreML_Specification_Model] = []
        if sparse {
            stages.append(S.model([S.dictionary("features", stringKeys: true)], [S.dictionary("sparse", stringKeys: false)]) {
                $0.dictVectorizer.stringToIndex.vector = ["x", "y", "z"]
            })
            stages.append(S.model([S.dictionary("sparse", stringKeys: false)], [S.array("dense", [3])]) { model in
                var column = CoreML_Specification_FeatureVectorizer.InputColumn()
                column.inputColumn = "sparse"
                column.inputDimensions = 3
                model.featureVectorizer.inputList = [column]
            })
        } else {
            stages.append(S.model([S.dictionary("features", stringKeys: true)], [S.array("dense", [3])]) {
                $0.dictVectorizer.stringToIndex.vector = ["x", "y", "z"]
            })
        }
        // Absent keys come out as 0, which the imputer treats as missing.
        stages.append(S.model([S.array("dense", [3])], [S.array("imputed", [3])]) {
            $0.imputer.imputedDoubleArray.vector = [2, 4, 6]
            $0.imputer.replaceDoubleValue = 0
        })
        stages.append(S.model([S.array("imputed", [3])], [S.array("scaled", [3])]) {
            $0.scaler.shiftValue = [1]
            $0.scaler.scaleValue = [1, 0.5, 0.25]
        })
        stages.append(S.model([S.array("scaled", [3])], [S.array("normalized", [3])]) { $0.normalizer.normType = .l2 })
        return S.model([S.dictionary("features", stringKeys: true)], [S.array("normalized", [3])]) { $0.pipeline.models = stages }
    }

    @Test(arguments: [false, true])
    func pipelineGivesTheHandWorkedResult(sparse: Bool) throws {
        let model = try MLModel(specification: Self.pipeline(sparse: sparse))
        let batch = MLArrayBatchProvider(array: [
            MLDictionaryFeatureProvider(featureValues: ["features": S.dictionary(["x": 1, "z": 7])]),
            MLDictionaryFeatureProvider(featureValues: ["features": S.dictionary(["y": 3, "unseen": 100])]),
        ])
        let outputs = try model.predictions(fromBatch: batch)
        // {"x": 1, "z": 7} → [1, 0, 7] → imputed [1, 4, 7] → (+1) × [1, 0.5, 0.25] = [2, 2.5, 2]
        // → L2 norm √(4 + 6.25 + 4) = √14.25.
        let first = 14.25.squareRoot()
        S.expectClose(S.elements(outputs.features(at: 0).featureValue(for: "normalized")), [2 / first, 2.5 / first, 2 / first])
        // {"y": 3} → [0, 3, 0] → imputed [2, 3, 6] → [3, 2, 1.75] → √(9 + 4 + 3.0625) = √16.0625.
        let second = 16.0625.squareRoot()
        S.expectClose(S.elements(outputs.features(at: 1).featureValue(for: "normalized")), [3 / second, 2 / second, 1.75 / second])
    }

    @Test func pipelineErrorsNameTheInput() throws {
        let model = try MLModel(specification: Self.pipeline(sparse: true))
        #expect(throws: MLModelError.self) {
            _ = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": MLFeatureValue(double: 1)]))
        }
        // An Int64 key matches a listed String key by its digits; 0 is not listed, so it counts as absent.
        let unlisted = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": S.dictionary([AnyHashable(Int64(0)): 1])]))
        let empty = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": S.dictionary([:])]))
        #expect(S.elements(unlisted.featureValue(for: "normalized")) == S.elements(empty.featureValue(for: "normalized")))
    }
}
