import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Scalers and normalizers on hand-worked inputs.
@Suite("Scalers and normalizers")
struct ScalerNormalizerTests {
    typealias S = FeatureSpecs

    static func scaler(shift: [Double], scale: [Double], input: CoreML_Specification_FeatureDescription,
                       output: CoreML_Specification_FeatureDescription) -> CoreML_Specification_Model {
        S.model([input], [output]) { model in
            model.scaler.shiftValue = shift
            model.scaler.scaleValue = scale
        }
    }

    @Test func scalerShiftsThenScales() throws {
        // Per-element shifts and one scale: ([1, 1, 1] + [1, 2, 3]) × 2 = [4, 6, 8].
        let arrays = Self.scaler(shift: [1, 2, 3], scale: [2], input: S.array("x", [3]), output: S.array("y", [3]))
        S.expectClose(S.elements(try S.predict(arrays, ["x": S.vector([1, 1, 1])]).featureValue(for: "y")), [4, 6, 8])
        // One shift and per-element scales: ([0, 2, 4] + 1) × [1, 0.5, 0.25] = [1, 1.5, 1.25].
        let perScale = Self.scaler(shift: [1], scale: [1, 0.5, 0.25], input: S.array("x", [3], .float32), output: S.array("y", [3], .float32))
        S.expectClose(S.elements(try S.predict(perScale, ["x": S.vector([0, 2, 4], .float32)]).featureValue(for: "y")), [1, 1.5, 1.25])
        // No shift and no scale: unchanged.
        let none = Self.scaler(shift: [], scale: [], input: S.array("x", [2]), output: S.array("y", [2]))
        S.expectClose(S.elements(try S.predict(none, ["x": S.vector([-3, 5])]).featureValue(for: "y")), [-3, 5])
        // A Double: (5 - 1) × 0.5 = 2.
        let scalar = Self.scaler(shift: [-1], scale: [0.5], input: S.double("x"), output: S.double("y"))
        #expect(try S.predict(scalar, ["x": MLFeatureValue(double: 5)]).featureValue(for: "y")?.doubleValue == 2)
    }

    @Test func scalerInt64OutputMustBeExact() throws {
        // (4 + 2) × 0.5 = 3 fits an Int64; (3 + 2) × 0.5 = 2.5 does not.
        let model = Self.scaler(shift: [2], scale: [0.5], input: S.int64("x"), output: S.int64("y"))
        let exact = try S.predict(model, ["x": MLFeatureValue(int64: 4)]).featureValue(for: "y")
        #expect(exact?.type == .int64 && exact?.int64Value == 3)
        S.expectError(["example 0", "2.5", "output 'y'"]) { _ = try S.predict(model, ["x": MLFeatureValue(int64: 3)]) }
        // Int64 in, Double out.
        let toDouble = Self.scaler(shift: [2], scale: [0.5], input: S.int64("x"), output: S.double("y"))
        #expect(try S.predict(toDouble, ["x": MLFeatureValue(int64: 3)]).featureValue(for: "y")?.doubleValue == 2.5)
    }

    @Test func scalerRulesFollowCoreML() {
        #expect(S.issues(Self.scaler(shift: [1, 2], scale: [], input: S.array("x", [3]), output: S.array("y", [3])))
            .contains("shiftValue has 2 values; it must be empty, one value, or 3 values"))
        #expect(S.issues(Self.scaler(shift: [], scale: [1, 2], input: S.double("x"), output: S.double("y")))
            .contains("scaleValue has 2 values; it must be empty or one value"))
        #expect(S.issues(Self.scaler(shift: [], scale: [], input: S.double("x"), output: S.array("y", [1])))
            .contains("a scaler keeps the type"))
        #expect(S.issues(Self.scaler(shift: [], scale: [], input: S.double("x"), output: S.int64("y")))
            .contains("a scaler keeps the type"))
        #expect(S.issues(Self.scaler(shift: [], scale: [], input: S.array("x", [2, 2]), output: S.array("y", [2, 2])))
            .contains("one-dimensional"))
        #expect(S.issues(Self.scaler(shift: [], scale: [], input: S.string("x"), output: S.string("y"))).contains("input 'x'"))
        // A declared length past the memory limit is refused when the model loads.
        let huge = Self.scaler(shift: [1], scale: [], input: S.array("x", [1 << 50]), output: S.array("y", [1 << 50]))
        #expect(huge.validationIssues().isEmpty)
        S.expectError(["input 'x'", "memory limit"]) { _ = try S.predict(huge, [:]) }
    }

    static func normalizer(_ norm: CoreML_Specification_Normalizer.NormType, _ dataType: CoreML_Specification_ArrayFeatureType.ArrayDataType = .double) -> CoreML_Specification_Model {
        S.model([S.array("x", [2], dataType)], [S.array("y", [2], dataType)]) { $0.normalizer.normType = norm }
    }

    @Test func normalizerDividesByTheNorm() throws {
        let x = ["x": S.vector([3, -4])]
        // L1: |3| + |-4| = 7.
        S.expectClose(S.elements(try S.predict(Self.normalizer(.l1), x).featureValue(for: "y")), [3.0 / 7, -4.0 / 7])
        // L2: √(9 + 16) = 5.
        S.expectClose(S.elements(try S.predict(Self.normalizer(.l2), x).featureValue(for: "y")), [0.6, -0.8])
        // LMax: max(|3|, |-4|) = 4, as scikit-learn's norm="max".
        S.expectClose(S.elements(try S.predict(Self.normalizer(.lmax), x).featureValue(for: "y")), [0.75, -1])
        // A zero vector passes through.
        for norm in [CoreML_Specification_Normalizer.NormType.l1, .l2, .lmax] {
            S.expectClose(S.elements(try S.predict(Self.normalizer(norm), ["x": S.vector([0, 0])]).featureValue(for: "y")), [0, 0])
        }
        // L2 of huge values neither overflows nor loses them: [3e300, 4e300] / 5e300.
        S.expectClose(S.elements(try S.predict(Self.normalizer(.l2), ["x": S.vector([3e300, 4e300])]).featureValue(for: "y")), [0.6, 0.8])
        // Float32 in and out.
        let single = try S.predict(Self.normalizer(.l2, .float32), ["x": S.vector([3, -4], .float32)]).featureValue(for: "y")
        #expect(single?.multiArrayValue?.dataType == .float32)
        S.expectClose(S.elements(single), [0.6, -0.8], tolerance: 1e-7)
    }

    @Test func normalizerRules() {
        var unknown = Self.normalizer(.l2)
        unknown.normalizer.normType = .UNRECOGNIZED(7)
        #expect(S.issues(unknown).contains("normType 7"))
        let scalar = S.model([S.double("x")], [S.array("y", [1])]) { $0.normalizer.normType = .l1 }
        #expect(S.issues(scalar).contains("takes multi-array inputs"))
        S.expectError(["input 'x'", "has 3 values", "takes 2"]) { _ = try S.predict(Self.normalizer(.l1), ["x": S.vector([1, 2, 3])]) }
    }
}
