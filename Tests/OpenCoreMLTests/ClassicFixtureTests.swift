import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

extension ClassicFixtures.Case: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// Models that coremltools 9.0's own converters made from scikit-learn and XGBoost, against what
/// scikit-learn and XGBoost themselves predict (`Tests/Fixtures/make_classic.py`): every label
/// equal, every number within the case's relative tolerance, |ours − theirs| ≤ tolerance · max(|theirs|, 1)
/// (1e-5; 1e-4 for XGBoost, which computes in float32). Each example runs in a batch and alone.
@Suite("Classic model types against scikit-learn and XGBoost")
struct ClassicFixtureTests {
    @Test("the fixture set covers the converters", arguments: [
        "glmClassifier", "glmRegressor", "supportVectorClassifier", "supportVectorRegressor", "treeEnsembleClassifier",
        "treeEnsembleRegressor", "scaler", "normalizer", "imputer", "oneHotEncoder", "dictVectorizer", "featureVectorizer",
        "arrayFeatureExtractor", "pipeline", "pipelineClassifier", "pipelineRegressor",
    ])
    func coverage(modelType: String) {
        #expect(ClassicFixtures.cases.contains { $0.modelTypes.contains(modelType) })
    }

    @Test("predicts as the source library", arguments: ClassicFixtures.cases)
    func parity(_ fixture: ClassicFixtures.Case) throws {
        let model = try MLModel(contentsOf: ClassicFixtures.directory.appendingPathComponent(fixture.file))
        let description = model.modelDescription
        let providers = try fixture.examples.map { example in
            var values: [String: MLFeatureValue] = [:]
            for (input, json) in example.inputs {
                let feature = try #require(description.inputDescriptionsByName[input], "\(fixture.name): no input '\(input)'")
                values[input] = try Self.featureValue(json, for: feature)
            }
            return MLDictionaryFeatureProvider(featureValues: values)
        }
        let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: providers))
        #expect(batch.count == providers.count)
        for (number, example) in fixture.examples.enumerated() {
            let single = try model.prediction(from: providers[number])
            for (output, expected) in example.outputs {
                let place = "\(fixture.name) example \(number) output '\(output)'"
                let ofBatch = try #require(batch.features(at: number).featureValue(for: output), "\(place) missing from the batch")
                let alone = try #require(single.featureValue(for: output), "\(place) missing")
                Self.expect(ofBatch, equals: expected, tolerance: fixture.tolerance, place)
                #expect(Self.comparable(ofBatch) == Self.comparable(alone), "\(place): batch and single predictions differ")
            }
        }
    }

    /// A dictionary's key as the model types it: `{"dictionary": [[key, value], …]}` keys are
    /// strings or whole numbers.
    static func key(_ json: JSONValue) -> AnyHashable {
        if let text = json.string { return AnyHashable(text) }
        return AnyHashable(Int64(json.number ?? .nan))
    }

    static func featureValue(_ json: JSONValue, for feature: MLFeatureDescription) throws -> MLFeatureValue {
        switch json {
        case .array(let values):
            let declared = feature.multiArrayConstraint?.shape ?? []
            let array = try MLMultiArray(shape: declared.isEmpty ? [NSNumber(value: values.count)] : declared,
                                         dataType: feature.multiArrayConstraint?.dataType ?? .double)
            // JSON has no NaN: make_classic.py writes a missing value as null.
            for (index, value) in values.enumerated() { array[index] = NSNumber(value: value.number ?? .nan) }
            return MLFeatureValue(multiArray: array)
        case .object(let object):
            let pairs = try #require(object["dictionary"]?.array)
            var dictionary: [AnyHashable: NSNumber] = [:]
            for pair in pairs {
                let entry = try #require(pair.array)
                dictionary[key(entry[0])] = NSNumber(value: try #require(entry[1].number))
            }
            return try MLFeatureValue(dictionary: dictionary)
        case .string(let text):
            return MLFeatureValue(string: text)
        case .number(let number):
            return feature.type == .int64 ? MLFeatureValue(int64: Int64(number)) : MLFeatureValue(double: number)
        case .null:
            throw FixtureError("a null input")
        }
    }

    /// The value in a comparable form: multi-array elements, a number, a dictionary's entries by
    /// key, a string.
    static func comparable(_ value: MLFeatureValue) -> [String] {
        switch value.type {
        case .multiArray:
            let array = value.multiArrayValue!
            return (0..<array.count).map { "\(array[$0].doubleValue)" }
        case .dictionary:
            return value.dictionaryValue.map { "\($0.key)=\($0.value.doubleValue)" }.sorted()
        case .int64: return ["\(value.int64Value)"]
        case .double: return ["\(value.doubleValue)"]
        case .string: return [value.stringValue]
        default: return ["\(value)"]
        }
    }

    static func close(_ actual: Double, _ expected: Double, _ tolerance: Double) -> Bool {
        abs(actual - expected) <= tolerance * max(abs(expected), 1)
    }

    static func expect(_ actual: MLFeatureValue, equals expected: JSONValue, tolerance: Double, _ place: String) {
        switch expected {
        case .string(let text):
            #expect(actual.type == .string && actual.stringValue == text, "\(place): \(actual) is not '\(text)'")
        case .array(let values):
            guard let array = actual.multiArrayValue, array.count == values.count else {
                Issue.record("\(place): \(actual) is not an array of \(values.count) values")
                return
            }
            for (index, value) in values.enumerated() {
                let want = value.number ?? .nan
                #expect(close(array[index].doubleValue, want, tolerance), "\(place)[\(index)]: \(array[index].doubleValue) vs \(want)")
            }
        case .object(let object):
            let pairs = object["dictionary"]?.array ?? []
            let got = actual.dictionaryValue
            #expect(got.count == pairs.count, "\(place): \(got.count) entries, expected \(pairs.count)")
            for pair in pairs {
                guard let entry = pair.array, entry.count == 2, let want = entry[1].number else {
                    Issue.record("\(place): unreadable entry \(pair)")
                    continue
                }
                let key = key(entry[0])
                guard let value = got[key] else {
                    Issue.record("\(place): no entry for \(key) in \(got)")
                    continue
                }
                #expect(close(value.doubleValue, want, tolerance), "\(place)[\(key)]: \(value.doubleValue) vs \(want)")
            }
        case .number(let number):
            switch actual.type {
            case .int64:
                #expect(Double(actual.int64Value) == number, "\(place): \(actual.int64Value) vs \(number)")
            case .double:
                #expect(close(actual.doubleValue, number, tolerance), "\(place): \(actual.doubleValue) vs \(number)")
            case .multiArray where actual.multiArrayValue!.count == 1:
                let got = actual.multiArrayValue![0].doubleValue
                #expect(close(got, number, tolerance), "\(place): \(got) vs \(number)")
            default:
                Issue.record("\(place): \(actual) is not a number")
            }
        case .null:
            Issue.record("\(place): a null expectation")
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
