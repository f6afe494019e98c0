import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Imputers of every imputed-value and replace-value kind, on hand-worked inputs.
@Suite("Imputers")
struct ImputerTests {
    typealias S = FeatureSpecs

    static func imputer(_ input: CoreML_Specification_FeatureDescription, _ output: CoreML_Specification_FeatureDescription,
                        _ configure: (inout CoreML_Specification_Imputer) -> Void) -> CoreML_Specification_Model {
        S.model([input], [output]) { model in
            var imputer = CoreML_Specification_Imputer()
            configure(&imputer)
            model.imputer = imputer
        }
    }

    @Test func doubleValueReplacesNaNOrTheReplaceValue() throws {
        let nanModel = Self.imputer(S.double("x", optional: true), S.double("y")) { $0.imputedDoubleValue = 2.5 }
        #expect(try S.predict(nanModel, ["x": MLFeatureValue(double: .nan)]).featureValue(for: "y")?.doubleValue == 2.5)
        #expect(try S.predict(nanModel, ["x": MLFeatureValue(double: 1)]).featureValue(for: "y")?.doubleValue == 1)
        #expect(try S.predict(nanModel, [:]).featureValue(for: "y")?.doubleValue == 2.5)  // left out: imputed

        let replaceModel = Self.imputer(S.double("x"), S.double("y")) { $0.imputedDoubleValue = 2.5; $0.replaceDoubleValue = -1 }
        #expect(try S.predict(replaceModel, ["x": MLFeatureValue(double: -1)]).featureValue(for: "y")?.doubleValue == 2.5)
        // With a replace value of -1, NaN is an ordinary value.
        #expect(try S.predict(replaceModel, ["x": MLFeatureValue(double: .nan)]).featureValue(for: "y")?.doubleValue.isNaN == true)
        S.expectError(["input 'x'", "String", "a number"]) { _ = try S.predict(replaceModel, ["x": MLFeatureValue(string: "1")]) }
    }

    @Test func int64AndStringValuesReplaceTheReplaceValue() throws {
        let int64 = Self.imputer(S.int64("x", optional: true), S.int64("y")) { $0.imputedInt64Value = 7; $0.replaceInt64Value = 0 }
        #expect(try S.predict(int64, ["x": MLFeatureValue(int64: 0)]).featureValue(for: "y")?.int64Value == 7)
        #expect(try S.predict(int64, ["x": MLFeatureValue(int64: 3)]).featureValue(for: "y")?.int64Value == 3)
        #expect(try S.predict(int64, [:]).featureValue(for: "y")?.int64Value == 7)

        let string = Self.imputer(S.string("x"), S.string("y")) { $0.imputedStringValue = "unknown"; $0.replaceStringValue = "" }
        #expect(try S.predict(string, ["x": MLFeatureValue(string: "")]).featureValue(for: "y")?.stringValue == "unknown")
        #expect(try S.predict(string, ["x": MLFeatureValue(string: "a")]).featureValue(for: "y")?.stringValue == "a")
    }

    @Test func arraysImputeElementwise() throws {
        // As coremltools writes scikit-learn's SimpleImputer: one imputed value per column, replace NaN.
        let perColumn = Self.imputer(S.array("x", [3]), S.array("y", [3])) { $0.imputedDoubleArray.vector = [10, 20, 30]; $0.replaceDoubleValue = .nan }
        S.expectClose(S.elements(try S.predict(perColumn, ["x": S.vector([1, .nan, 3])]).featureValue(for: "y")), [1, 20, 3])
        S.expectError(["input 'x'", "has 2 values", "takes 3"]) { _ = try S.predict(perColumn, ["x": S.vector([1, 2])]) }

        // One imputed value for every element; float32 in and out.
        let oneValue = Self.imputer(S.array("x", [3], .float32, optional: true), S.array("y", [3], .float32)) { $0.imputedDoubleValue = 5 }
        let filled = try S.predict(oneValue, ["x": S.vector([.nan, 2, .nan], .float32)]).featureValue(for: "y")
        S.expectClose(S.elements(filled), [5, 2, 5])
        #expect(filled?.multiArrayValue?.dataType == .float32)
        S.expectClose(S.elements(try S.predict(oneValue, [:]).featureValue(for: "y")), [5, 5, 5])

        // Int64 imputed values replace the Int64 replace value.
        let int64s = Self.imputer(S.array("x", [3], .int32), S.array("y", [3], .int32)) { $0.imputedInt64Array.vector = [100, 200, 300]; $0.replaceInt64Value = -1 }
        S.expectClose(S.elements(try S.predict(int64s, ["x": S.vector([-1, 5, -1], .int32)]).featureValue(for: "y")), [100, 5, 300])
    }

    @Test func dictionariesImputeNaNValuesByKey() throws {
        let strings = Self.imputer(S.dictionary("x", stringKeys: true, optional: true), S.dictionary("y", stringKeys: true)) {
            $0.imputedStringDictionary.map = ["a": 1, "b": 2]
        }
        let out = try S.predict(strings, ["x": S.dictionary(["a": .nan, "b": 3, "c": .nan])]).featureValue(for: "y")
        let values = S.entries(out)
        #expect(values["a"] == 1 && values["b"] == 3 && values.count == 3)
        #expect(values["c"]?.isNaN == true)  // no imputed value for "c"
        #expect(S.entries(try S.predict(strings, [:]).featureValue(for: "y")) == ["a": 1, "b": 2])

        let int64s = Self.imputer(S.dictionary("x", stringKeys: false), S.dictionary("y", stringKeys: false)) {
            $0.imputedInt64Dictionary.map = [4: 0.5]
        }
        let keyed = S.entries(try S.predict(int64s, ["x": S.dictionary([AnyHashable(Int64(4)): .nan, AnyHashable(Int64(9)): 1])]).featureValue(for: "y"))
        #expect(keyed == [AnyHashable(Int64(4)): 0.5, AnyHashable(Int64(9)): 1])
    }

    @Test func imputerRulesFollowCoreML() {
        let mismatchedTypes = Self.imputer(S.double("x"), S.int64("y")) { $0.imputedDoubleValue = 1 }
        #expect(S.issues(mismatchedTypes).contains("an imputer keeps the type"))
        let shortArray = Self.imputer(S.array("x", [3]), S.array("y", [3])) { $0.imputedDoubleArray.vector = [1, 2] }
        #expect(S.issues(shortArray).contains("the imputed array has 2 values; the input has 3"))
        let twoDimensional = Self.imputer(S.array("x", [2, 2]), S.array("y", [2, 2])) { $0.imputedDoubleValue = 1 }
        #expect(S.issues(twoDimensional).contains("one-dimensional"))
        let otherShape = Self.imputer(S.array("x", [3]), S.array("y", [4])) { $0.imputedDoubleValue = 1 }
        #expect(S.issues(otherShape).contains("differs from the input's"))
        let wrongReplace = Self.imputer(S.double("x"), S.double("y")) { $0.imputedDoubleValue = 1; $0.replaceStringValue = "" }
        #expect(S.issues(wrongReplace).contains("the replace value is String"))
        let dictionaryReplace = Self.imputer(S.dictionary("x", stringKeys: true), S.dictionary("y", stringKeys: true)) {
            $0.imputedStringDictionary.map = ["a": 1]; $0.replaceDoubleValue = 0
        }
        #expect(S.issues(dictionaryReplace).contains("the replace value is Double"))
        let wrongKeys = Self.imputer(S.dictionary("x", stringKeys: false), S.dictionary("y", stringKeys: false)) { $0.imputedStringDictionary.map = ["a": 1] }
        #expect(S.issues(wrongKeys).contains("String keys"))
        let int64ForDouble = Self.imputer(S.double("x"), S.double("y")) { $0.imputedInt64Value = 1 }
        #expect(S.issues(int64ForDouble).contains("does not fit"))
        let unset = Self.imputer(S.double("x"), S.double("y")) { _ in }
        #expect(S.issues(unset).contains("no imputed value"))
    }
}
