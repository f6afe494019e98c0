import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// One-hot encoders and categorical mappings on hand-worked categories.
@Suite("One-hot encoders and categorical mappings")
struct CategoryEncodingTests {
    typealias S = FeatureSpecs

    static func encoder(strings: [String]? = nil, int64s: [Int64]? = nil, sparse: Bool, ignoreUnknown: Bool,
                        input: CoreML_Specification_FeatureDescription, output: CoreML_Specification_FeatureDescription) -> CoreML_Specification_Model {
        S.model([input], [output]) { model in
            if let strings { model.oneHotEncoder.stringCategories.vector = strings }
            if let int64s { model.oneHotEncoder.int64Categories.vector = int64s }
            model.oneHotEncoder.outputSparse = sparse
            model.oneHotEncoder.handleUnknown = ignoreUnknown ? .ignoreUnknown : .errorOnUnknown
        }
    }

    @Test func denseStringCategoriesPutAOneAtThePosition() throws {
        let model = Self.encoder(strings: ["cat", "dog", "fish"], sparse: false, ignoreUnknown: false,
                                 input: S.string("animal"), output: S.array("encoded", [3]))
        // "dog" is category 1 of 3: [0, 1, 0].
        let dog = try S.predict(model, ["animal": MLFeatureValue(string: "dog")])
        #expect(S.elements(dog.featureValue(for: "encoded")) == [0, 1, 0])
        #expect(dog.featureValue(for: "encoded")?.multiArrayValue?.shape == [3])
        S.expectError(["example 0", "input 'animal'", "'cow'", "3 categories"]) {
            _ = try S.predict(model, ["animal": MLFeatureValue(string: "cow")])
        }
        S.expectError(["input 'animal'", "Int64", "String"]) {
            _ = try S.predict(model, ["animal": MLFeatureValue(int64: 1)])
        }
    }

    @Test func ignoringUnknownCategoriesGivesZeros() throws {
        let model = Self.encoder(strings: ["cat", "dog", "fish"], sparse: false, ignoreUnknown: true,
                                 input: S.string("animal"), output: S.array("encoded", [3], .float32))
        let cow = try S.predict(model, ["animal": MLFeatureValue(string: "cow")])
        #expect(S.elements(cow.featureValue(for: "encoded")) == [0, 0, 0])
        #expect(cow.featureValue(for: "encoded")?.multiArrayValue?.dataType == .float32)
        let fish = try S.predict(model, ["animal": MLFeatureValue(string: "fish")])
        #expect(S.elements(fish.featureValue(for: "encoded")) == [0, 0, 1])
    }

    @Test func sparseInt64CategoriesGiveOneEntry() throws {
        // As coremltools' scikit-learn converter writes it: Int64 in, {position: 1} out.
        let model = Self.encoder(int64s: [10, 20, 30], sparse: true, ignoreUnknown: true,
                                 input: S.int64("code"), output: S.dictionary("encoded", stringKeys: false))
        let thirty = try S.predict(model, ["code": MLFeatureValue(int64: 30)])
        #expect(S.entries(thirty.featureValue(for: "encoded")) == [AnyHashable(Int64(2)): 1.0])
        // A whole Double reads as its Int64.
        let twenty = try S.predict(model, ["code": MLFeatureValue(double: 20)])
        #expect(S.entries(twenty.featureValue(for: "encoded")) == [AnyHashable(Int64(1)): 1.0])
        let unknown = try S.predict(model, ["code": MLFeatureValue(int64: 5)])
        #expect(unknown.featureValue(for: "encoded")?.type == .dictionary)
        #expect(S.entries(unknown.featureValue(for: "encoded")).isEmpty)

        var strict = model
        strict.oneHotEncoder.handleUnknown = .errorOnUnknown
        S.expectError(["input 'code'", "is 5", "3 categories"]) { _ = try S.predict(strict, ["code": MLFeatureValue(int64: 5)]) }
        S.expectError(["input 'code'", "20.5 is not a whole number"]) { _ = try S.predict(strict, ["code": MLFeatureValue(double: 20.5)]) }
        S.expectError(["input 'code'", "is missing"]) { _ = try S.predict(strict, [:]) }
    }

    @Test func encoderRulesFollowCoreML() {
        // Sparse output must be a dictionary; dense a multi-array; categories required; String or Int64 input.
        let sparseArray = Self.encoder(int64s: [1], sparse: true, ignoreUnknown: false, input: S.int64("x"), output: S.array("y", [1]))
        #expect(S.issues(sparseArray).contains("takes dictionary outputs"))
        let denseDictionary = Self.encoder(int64s: [1], sparse: false, ignoreUnknown: false, input: S.int64("x"),
                                           output: S.dictionary("y", stringKeys: false))
        #expect(S.issues(denseDictionary).contains("takes multi-array outputs"))
        let none = S.model([S.int64("x")], [S.array("y", [1])]) { $0.oneHotEncoder = .init() }
        #expect(S.issues(none).contains("has no categories"))
        let doubleInput = Self.encoder(int64s: [1], sparse: false, ignoreUnknown: false, input: S.double("x"), output: S.array("y", [1]))
        #expect(S.issues(doubleInput).contains("input 'x'"))
        let good = Self.encoder(int64s: [1], sparse: false, ignoreUnknown: false, input: S.int64("x"), output: S.array("y", [1]))
        #expect(good.validationIssues().isEmpty)
        // Categories of the other type than the input: refused when the model loads.
        let mismatched = Self.encoder(strings: ["a"], sparse: false, ignoreUnknown: false, input: S.int64("x"), output: S.array("y", [1]))
        S.expectError(["categories are strings", "input 'x'"]) { _ = try S.predict(mismatched, ["x": MLFeatureValue(int64: 1)]) }
        let empty = Self.encoder(int64s: [], sparse: false, ignoreUnknown: true, input: S.int64("x"), output: S.array("y", [1]))
        S.expectError(["empty category list"]) { _ = try S.predict(empty, ["x": MLFeatureValue(int64: 1)]) }
    }

    static func mapping(_ configure: (inout CoreML_Specification_CategoricalMapping) -> Void, input: CoreML_Specification_FeatureDescription,
                        output: CoreML_Specification_FeatureDescription) -> CoreML_Specification_Model {
        S.model([input], [output]) { model in
            var mapping = CoreML_Specification_CategoricalMapping()
            configure(&mapping)
            model.categoricalMapping = mapping
        }
    }

    @Test func stringToInt64Mapping() throws {
        let strict = Self.mapping({ $0.stringToInt64Map.map = ["red": 1, "green": 2] }, input: S.string("colour"), output: S.int64("code"))
        let green = try S.predict(strict, ["colour": MLFeatureValue(string: "green")])
        #expect(green.featureValue(for: "code")?.type == .int64)
        #expect(green.featureValue(for: "code")?.int64Value == 2)
        S.expectError(["example 0", "input 'colour'", "'blue'", "no value for unknown"]) {
            _ = try S.predict(strict, ["colour": MLFeatureValue(string: "blue")])
        }
        S.expectError(["input 'colour'", "a String"]) { _ = try S.predict(strict, ["colour": MLFeatureValue(double: 1)]) }

        let lenient = Self.mapping({ $0.stringToInt64Map.map = ["red": 1, "green": 2]; $0.int64Value = -1 },
                                   input: S.string("colour"), output: S.int64("code"))
        #expect(try S.predict(lenient, ["colour": MLFeatureValue(string: "blue")]).featureValue(for: "code")?.int64Value == -1)
        #expect(try S.predict(lenient, ["colour": MLFeatureValue(string: "red")]).featureValue(for: "code")?.int64Value == 1)
    }

    @Test func int64ToStringMapping() throws {
        let model = Self.mapping({ $0.int64ToStringMap.map = [1: "one", 2: "two"]; $0.strValue = "?" },
                                 input: S.int64("number"), output: S.string("word"))
        #expect(try S.predict(model, ["number": MLFeatureValue(int64: 2)]).featureValue(for: "word")?.stringValue == "two")
        #expect(try S.predict(model, ["number": MLFeatureValue(int64: 7)]).featureValue(for: "word")?.stringValue == "?")
    }

    @Test func mappingRulesFollowCoreML() {
        let wrongDefault = Self.mapping({ $0.stringToInt64Map.map = ["a": 1]; $0.strValue = "x" }, input: S.string("s"), output: S.int64("i"))
        #expect(S.issues(wrongDefault).contains("value on unknown is a String"))
        let wrongInput = Self.mapping({ $0.stringToInt64Map.map = ["a": 1] }, input: S.int64("s"), output: S.int64("i"))
        #expect(S.issues(wrongInput).contains("input 's'"))
        let wrongOutput = Self.mapping({ $0.int64ToStringMap.map = [1: "a"] }, input: S.int64("i"), output: S.int64("s"))
        #expect(S.issues(wrongOutput).contains("output 's'"))
        let noMap = Self.mapping({ _ in }, input: S.string("s"), output: S.int64("i"))
        #expect(S.issues(noMap).contains("has no map"))
    }
}
