import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml predict --input NAME=FILE.json` with JSON strings, numbers and objects for String,
/// number and dictionary inputs, and `--json` printing labels, dictionaries, numbers and arrays.
struct FeatureInputCommandTests {
    private static func feature(_ name: String, _ configure: (inout CoreML_Specification_FeatureType) -> Void) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        configure(&feature.type)
        return feature
    }

    private static func model(_ inputs: [CoreML_Specification_FeatureDescription], _ outputs: [CoreML_Specification_FeatureDescription],
                              _ configure: (inout CoreML_Specification_Model) -> Void) -> CoreML_Specification_Model {
        TestSpecs.model(inputs, outputs, configure)
    }

    /// Runs `predict --json` on `model` with each input's JSON text in a file of its own; the exit
    /// status, the parsed object (nil on failure) and standard error.
    private func predict(_ model: CoreML_Specification_Model, _ inputs: [String: String]) throws -> (Int32, [String: Any]?, String) {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("model.mlmodel")
            try model.write(to: url)
            var arguments = ["predict", url.path, "--json"]
            for (name, text) in inputs.sorted(by: { $0.key < $1.key }) {
                let file = folder.appendingPathComponent("\(name).json")
                try Data(text.utf8).write(to: file)
                arguments += ["--input", "\(name)=\(file.path)"]
            }
            let result = try CommandRunner.run(arguments)
            let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return (result.status, object, result.stderr)
        }
    }

    private static let oneHot = model([feature("animal") { $0.stringType = .init() }],
                                      [feature("encoded") { $0.multiArrayType.shape = [3]; $0.multiArrayType.dataType = .double }]) {
        $0.oneHotEncoder.stringCategories.vector = ["cat", "dog", "fish"]
    }

    @Test func stringInputFromAJSONString() throws {
        let (status, object, stderr) = try predict(Self.oneHot, ["animal": "\"dog\""])
        #expect(status == 0, "\(stderr)")
        let encoded = try #require(object?["encoded"] as? [String: Any])
        #expect(encoded["shape"] as? [Int] == [3])
        #expect(encoded["values"] as? [Double] == [0, 1, 0])

        let (badStatus, _, badError) = try predict(Self.oneHot, ["animal": "3"])
        #expect(badStatus == 1)
        #expect(badError.contains("animal.json") && badError.contains("input 'animal' is a String"), "\(badError)")
        let (unknownStatus, _, unknownError) = try predict(Self.oneHot, ["animal": "\"cow\""])
        #expect(unknownStatus == 1 && unknownError.contains("'cow'"), "\(unknownError)")
    }

    private static func dictVectorizer(int64Keys: Bool, sparse: Bool) -> CoreML_Specification_Model {
        let input = feature("x") { if int64Keys { $0.dictionaryType.int64KeyType = .init() } else { $0.dictionaryType.stringKeyType = .init() } }
        let output = sparse ? feature("y") { $0.dictionaryType.int64KeyType = .init() }
            : feature("y") { $0.multiArrayType.shape = [4]; $0.multiArrayType.dataType = .double }
        return model([input], [output]) {
            if int64Keys { $0.dictVectorizer.int64ToIndex.vector = [5, 7, 9, 11] } else { $0.dictVectorizer.stringToIndex.vector = ["a", "c", "b", "z"] }
        }
    }

    @Test func dictionaryInputFromAJSONObject() throws {
        // {"a": 4, "c": 8} over the keys [a, c, b, z]: [4, 8, 0, 0].
        let (status, object, stderr) = try predict(Self.dictVectorizer(int64Keys: false, sparse: false), ["x": #"{"a": 4, "c": 8.5}"#])
        #expect(status == 0, "\(stderr)")
        #expect((object?["y"] as? [String: Any])?["values"] as? [Double] == [4, 8.5, 0, 0])

        // Int64 keys from whole-number names; the sparse output {position: value} as an object.
        let (sparseStatus, sparse, sparseError) = try predict(Self.dictVectorizer(int64Keys: true, sparse: true), ["x": #"{"7": 2.5, "11": 1}"#])
        #expect(sparseStatus == 0, "\(sparseError)")
        #expect(sparse?["y"] as? [String: Double] == ["1": 2.5, "3": 1])

        let (badKeyStatus, _, badKey) = try predict(Self.dictVectorizer(int64Keys: true, sparse: true), ["x": #"{"seven": 2.5}"#])
        #expect(badKeyStatus == 1 && badKey.contains("x.json") && badKey.contains("\"seven\"") && badKey.contains("input 'x' has Int64 keys"), "\(badKey)")
        let (notObjectStatus, _, notObject) = try predict(Self.dictVectorizer(int64Keys: false, sparse: false), ["x": "[1, 2]"])
        #expect(notObjectStatus == 1 && notObject.contains("x.json") && notObject.contains("JSON object of numbers"), "\(notObject)")
        let (textValueStatus, _, textValue) = try predict(Self.dictVectorizer(int64Keys: false, sparse: false), ["x": #"{"a": "4"}"#])
        #expect(textValueStatus == 1 && textValue.contains("input 'x' is a dictionary"), "\(textValue)")

        // NaN and infinities are values (Python's json spelling, and null for NaN).
        let (specialStatus, special, specialError) = try predict(Self.dictVectorizer(int64Keys: false, sparse: false),
                                                                 ["x": #"{"a": NaN, "c": -Infinity, "z": null}"#])
        #expect(specialStatus == 0, "\(specialError)")
        let values = (special?["y"] as? [String: Any])?["values"] as? [Any]
        #expect(values?.map { "\($0)" } == ["NaN", "-Infinity", "0", "NaN"], "\(String(describing: values))")
    }

    @Test func numbersAndInt64OutputsPrintAsJSONNumbers() throws {
        let toCode = Self.model([Self.feature("colour") { $0.stringType = .init() }], [Self.feature("code") { $0.int64Type = .init() }]) {
            $0.categoricalMapping.stringToInt64Map.map = ["red": 1, "green": 2]
        }
        let (status, object, stderr) = try predict(toCode, ["colour": "\"green\""])
        #expect(status == 0, "\(stderr)")
        #expect(object?["code"] as? Int == 2)

        let toWord = Self.model([Self.feature("number") { $0.int64Type = .init() }], [Self.feature("word") { $0.stringType = .init() }]) {
            $0.categoricalMapping.int64ToStringMap.map = [1: "one", 2: "two"]
        }
        let (wordStatus, word, wordError) = try predict(toWord, ["number": "2"])
        #expect(wordStatus == 0, "\(wordError)")
        #expect(word?["word"] as? String == "two")

        // A missing optional Double scales to NaN, which JSON spells as a string.
        var optional = Self.feature("x") { $0.doubleType = .init() }
        optional.type.isOptional = true
        let scaler = Self.model([optional], [Self.feature("y") { $0.doubleType = .init() }]) { $0.scaler.scaleValue = [2] }
        let (nanStatus, nan, nanError) = try predict(scaler, [:])
        #expect(nanStatus == 0, "\(nanError)")
        #expect(nan?["y"] as? String == "NaN")
        let (scaledStatus, scaled, scaledError) = try predict(scaler, ["x": "1.25"])
        #expect(scaledStatus == 0, "\(scaledError)")
        #expect(scaled?["y"] as? Double == 2.5)
    }

    @Test func int64ClassLabelsAndProbabilitiesPrintAsCoremltoolsGivesThem() throws {
        try withTemporaryDirectory { folder in
            let input = folder.appendingPathComponent("features.json")
            try Data("[0, 0, 0]".utf8).write(to: input)
            let result = try CommandRunner.run(["predict", Fixtures.url("knn_kdtree_int64.mlmodel").path, "--input", "features=\(input.path)", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            // The label is a number; the probabilities an object keyed by the labels (as text: JSON keys are strings).
            let label = try #require(object["label"] as? Int64)
            let probabilities = try #require(object["labelProbs"] as? [String: Double])
            #expect(Set(probabilities.keys) == ["10", "300", "5000000000"])
            #expect(probabilities.max { $0.value < $1.value }?.key == String(label))
        }
    }
}
