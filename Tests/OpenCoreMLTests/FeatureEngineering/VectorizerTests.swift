import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Feature vectorizers, dict vectorizers and array feature extractors on hand-worked inputs, and
/// their hostile specifications.
@Suite("Vectorizers and array feature extractors")
struct VectorizerTests {
    typealias S = FeatureSpecs

    static func featureVectorizer(_ columns: [(String, UInt64)], inputs: [CoreML_Specification_FeatureDescription], width: Int64) -> CoreML_Specification_Model {
        S.model(inputs, [S.array("features", [width])]) { model in
            model.featureVectorizer.inputList = columns.map { name, width in
                var column = CoreML_Specification_FeatureVectorizer.InputColumn()
                column.inputColumn = name
                column.inputDimensions = width
                return column
            }
        }
    }

    @Test func featureVectorizerConcatenatesInListOrder() throws {
        let model = Self.featureVectorizer([("b", 2), ("a", 1), ("c", 3)],
                                           inputs: [S.double("a"), S.array("b", [2]), S.dictionary("c", stringKeys: false)], width: 6)
        // b = [1, 2], then a = 3, then c = {2: 9, 0: 4} spread over 3 positions: [4, 0, 9].
        let out = try S.predict(model, ["a": MLFeatureValue(double: 3), "b": S.vector([1, 2]),
                                        "c": S.dictionary([AnyHashable(Int64(2)): 9, AnyHashable(Int64(0)): 4])])
        S.expectClose(S.elements(out.featureValue(for: "features")), [1, 2, 3, 4, 0, 9])
        S.expectError(["input 'c'", "position 3", "outside its 3 values"]) {
            _ = try S.predict(model, ["a": MLFeatureValue(double: 3), "b": S.vector([1, 2]), "c": S.dictionary([AnyHashable(Int64(3)): 1])])
        }
        S.expectError(["input 'b'", "has 3 values", "takes 2"]) {
            _ = try S.predict(model, ["a": MLFeatureValue(double: 3), "b": S.vector([1, 2, 3]), "c": S.dictionary([:])])
        }
        S.expectError(["input 'a'", "is missing"]) { _ = try S.predict(model, ["b": S.vector([1, 2]), "c": S.dictionary([:])]) }
    }

    @Test func featureVectorizerRefusesHostileWidths() {
        // Zero width (Core ML's rule), widths that overflow a count, and widths past the memory limit.
        let zero = Self.featureVectorizer([("a", 0)], inputs: [S.double("a")], width: 1)
        #expect(S.issues(zero).contains("inputDimensions must be positive"))
        let overflow = Self.featureVectorizer([("a", UInt64.max), ("b", 2)], inputs: [S.double("a"), S.double("b")], width: 1)
        #expect(S.issues(overflow).contains("too large"))
        let halves = Self.featureVectorizer([("a", UInt64(Int.max)), ("b", UInt64(Int.max))], inputs: [S.double("a"), S.double("b")], width: 1)
        #expect(S.issues(halves).contains("more than a 64-bit count can hold"))
        let huge = Self.featureVectorizer([("a", 1 << 40)], inputs: [S.array("a", [1 << 40])], width: 1 << 40)
        #expect(huge.validationIssues().isEmpty)
        S.expectError(["memory limit"]) { _ = try S.predict(huge, [:]) }
        let unknownColumn = Self.featureVectorizer([("z", 1)], inputs: [S.double("a")], width: 1)
        #expect(S.issues(unknownColumn).contains("the model has no input of this name"))
        let stringInput = Self.featureVectorizer([("a", 1)], inputs: [S.string("a")], width: 1)
        #expect(S.issues(stringInput).contains("input 'a'"))
    }

    static func dictVectorizer(strings: [String]? = nil, int64s: [Int64]? = nil, output: CoreML_Specification_FeatureDescription) -> CoreML_Specification_Model {
        S.model([S.dictionary("x", stringKeys: strings != nil)], [output]) { model in
            if let strings { model.dictVectorizer.stringToIndex.vector = strings }
            if let int64s { model.dictVectorizer.int64ToIndex.vector = int64s }
        }
    }

    @Test func dictVectorizerPlacesValuesByTheKeyList() throws {
        // The format's own example: keys ["a", "c", "b", "z"], input {"a": 4, "c": 8} → [4, 8, 0, 0].
        let dense = Self.dictVectorizer(strings: ["a", "c", "b", "z"], output: S.array("y", [4]))
        let input = ["x": S.dictionary(["a": 4, "c": 8, "unseen": 21])]  // unknown keys are ignored
        S.expectClose(S.elements(try S.predict(dense, input).featureValue(for: "y")), [4, 8, 0, 0])
        S.expectClose(S.elements(try S.predict(dense, ["x": S.dictionary([:])]).featureValue(for: "y")), [0, 0, 0, 0])
        // Keys match by value across types: Int64 8 is the string "8"; 1 is not listed.
        let digits = Self.dictVectorizer(strings: ["8", "a"], output: S.array("y", [2]))
        S.expectClose(S.elements(try S.predict(digits, ["x": S.dictionary([AnyHashable(Int64(8)): 3, AnyHashable(Int64(1)): 5])])
            .featureValue(for: "y")), [3, 0])
        // Core ML's dictionary output: the sparse vector {position: value}.
        let sparse = Self.dictVectorizer(strings: ["a", "c", "b", "z"], output: S.dictionary("y", stringKeys: false))
        #expect(S.entries(try S.predict(sparse, input).featureValue(for: "y")) == [AnyHashable(Int64(0)): 4, AnyHashable(Int64(1)): 8])

        let int64Keys = Self.dictVectorizer(int64s: [5, 7], output: S.dictionary("y", stringKeys: false))
        #expect(S.entries(try S.predict(int64Keys, ["x": S.dictionary([AnyHashable(Int64(7)): 2.5])]).featureValue(for: "y"))
            == [AnyHashable(Int64(1)): 2.5])
    }

    @Test func dictVectorizerRules() throws {
        let noKeys = S.model([S.dictionary("x", stringKeys: true)], [S.array("y", [1])]) { $0.dictVectorizer = .init() }
        #expect(S.issues(noKeys).contains("no key list"))
        let wrongKeys = Self.dictVectorizer(int64s: [1], output: S.array("y", [1]))
        var stringInput = wrongKeys
        stringInput.description_p.input = [S.dictionary("x", stringKeys: true)]
        // coremltools declares String keys for scikit-learn's DictVectorizer of integer features;
        // Core ML takes it, and a key "1" then finds the Int64 1.
        #expect(!S.issues(stringInput).contains("keys"))
        S.expectClose(S.elements(try S.predict(stringInput, ["x": S.dictionary(["1": 6, "x": 9])]).featureValue(for: "y")), [6])
        let doubleInput = S.model([S.double("x")], [S.array("y", [1])]) { $0.dictVectorizer.int64ToIndex.vector = [1] }
        #expect(S.issues(doubleInput).contains("takes dictionary inputs"))
    }

    static func extractor(_ indexes: [UInt64], input: [Int64] = [4], output: CoreML_Specification_FeatureDescription) -> CoreML_Specification_Model {
        S.model([S.array("x", input)], [output]) { $0.arrayFeatureExtractor.extractIndex = indexes }
    }

    @Test func arrayFeatureExtractorPicksElements() throws {
        let x = ["x": S.vector([10, 20, 30.7, 40])]
        // One index and a Double output: the value itself.
        let scalar = try S.predict(Self.extractor([2], output: S.double("y")), x).featureValue(for: "y")
        #expect(scalar?.type == .double && scalar?.doubleValue == 30.7)
        // One index and a multi-array output: a one-element array.
        let single = try S.predict(Self.extractor([2], output: S.array("y", [1])), x).featureValue(for: "y")
        #expect(single?.multiArrayValue?.shape == [1])
        S.expectClose(S.elements(single), [30.7])
        // Several indexes, in the order listed.
        S.expectClose(S.elements(try S.predict(Self.extractor([3, 0], output: S.array("y", [2])), x).featureValue(for: "y")), [40, 10])
        // An Int64 output truncates, as coremltools' one-hot pipelines read categories.
        let category = try S.predict(Self.extractor([2], output: S.int64("y")), x).featureValue(for: "y")
        #expect(category?.type == .int64 && category?.int64Value == 30)
    }

    @Test func arrayFeatureExtractorRefusesBadIndexes() {
        #expect(S.issues(Self.extractor([4], output: S.double("y"))).contains("extractIndex 4 is outside the input's 4 values"))
        #expect(S.issues(Self.extractor([UInt64.max], output: S.double("y"))).contains("extractIndex 18446744073709551615"))
        #expect(S.issues(Self.extractor([0, 1], output: S.double("y"))).contains("exactly one index"))
        #expect(S.issues(Self.extractor([], output: S.array("y", [1]))).contains("no indexes"))
        #expect(S.issues(Self.extractor([0], output: S.string("y"))).contains("output 'y'"))
        // An input without a declared shape: checked against each array at prediction.
        var flexible = Self.extractor([5], output: S.double("y"))
        flexible.specificationVersion = 1
        flexible.description_p.input = [S.array("x", [])]
        #expect(flexible.validationIssues().isEmpty)
        S.expectError(["input 'x' has 4 values", "index 5"]) { _ = try S.predict(flexible, ["x": S.vector([1, 2, 3, 4])]) }
    }
}
