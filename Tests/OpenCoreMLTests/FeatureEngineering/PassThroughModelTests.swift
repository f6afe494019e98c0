import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Identity models and class confidence thresholders.
@Suite("Identity and class confidence thresholding")
struct PassThroughModelTests {
    typealias S = FeatureSpecs

    @Test func identityMapsOutputsToInputsByPosition() throws {
        let model = S.model([S.double("x"), S.string("s")], [S.double("y"), S.string("t")]) { $0.identity = .init() }
        let out = try S.predict(model, ["x": MLFeatureValue(double: 1.5), "s": MLFeatureValue(string: "hello")])
        #expect(out.featureValue(for: "y")?.doubleValue == 1.5)
        #expect(out.featureValue(for: "t")?.stringValue == "hello")
        S.expectError(["input 's'", "is missing"]) { _ = try S.predict(model, ["x": MLFeatureValue(double: 1.5)]) }
        let tooMany = S.model([S.double("x")], [S.double("y"), S.double("z")]) { $0.identity = .init() }
        S.expectError(["2 outputs but only 1 inputs"]) { _ = try S.predict(tooMany, ["x": MLFeatureValue(double: 1)]) }
    }

    static func curve(precision: [Float], thresholds: [Float]) -> CoreML_Specification_PrecisionRecallCurve {
        var curve = CoreML_Specification_PrecisionRecallCurve()
        curve.precisionValues.vector = precision
        curve.precisionConfidenceThresholds.vector = thresholds
        curve.recallValues.vector = precision
        curve.recallConfidenceThresholds.vector = thresholds
        return curve
    }

    static func thresholding(_ curves: [CoreML_Specification_PrecisionRecallCurve]) -> CoreML_Specification_Model {
        S.model([S.array("confidence", [3], .float32)], [S.array("filtered", [2, 3], .float32)]) {
            $0.classConfidenceThresholding.precisionRecallCurves = curves
        }
    }

    @Test func thresholdingKeepsConfidencesAndMarksEveryClassPresent() throws {
        let model = Self.thresholding(Array(repeating: Self.curve(precision: [0.5, 0.9], thresholds: [0.1, 0.6]), count: 3))
        let out = try S.predict(model, ["confidence": S.vector([0.25, 0.5, 0.125], .float32)]).featureValue(for: "filtered")
        // Row 0: the confidences; row 1: all ones.
        #expect(out?.multiArrayValue?.shape == [2, 3])
        #expect(out?.multiArrayValue?.dataType == .float32)
        S.expectClose(S.elements(out), [0.25, 0.5, 0.125, 1, 1, 1])
    }

    @Test func thresholdingRulesFollowCoreML() {
        #expect(S.issues(Self.thresholding([])).contains("no precision-recall curves"))
        #expect(S.issues(Self.thresholding([Self.curve(precision: [0.5, 0.9], thresholds: [0.1])])).contains("they must be as many"))
        #expect(S.issues(Self.thresholding([Self.curve(precision: [], thresholds: [])])).contains("at least one"))
        #expect(S.issues(Self.thresholding([Self.curve(precision: [-0.5], thresholds: [0.1])])).contains("negative, infinite or NaN"))
        #expect(S.issues(Self.thresholding([Self.curve(precision: [.nan], thresholds: [0.1])])).contains("negative, infinite or NaN"))
        #expect(Self.thresholding([Self.curve(precision: [0.5], thresholds: [0.1])]).validationIssues().isEmpty)
    }
}
