import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Models that coremltools 9.0's own converters made from scikit-learn and XGBoost, against what
/// scikit-learn and XGBoost themselves predict (`Tests/Fixtures/make_classic.py`): every label
/// equal, every number within the case's relative tolerance, |ours − theirs| ≤ tolerance · max(|theirs|, 1)
/// (1e-5; 1e-4 for XGBoost, which computes in float32).
@Suite("Classic model types against scikit-learn and XGBoost")
struct ClassicFixtureTests {
    static let folder = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("classic")

    /// The manifest's cases, by name.
    static func manifest() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: folder.appendingPathComponent("classic.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(object["cases"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: cases.map { ($0["name"] as! String, $0) })
    }

    static let names: [String] = (try? manifest().keys.sorted()) ?? []

    @Test("the fixture set covers the converters", arguments: [
        "glmClassifier", "glmRegressor", "supportVectorClassifier", "supportVectorRegressor", "treeEnsembleClassifier",
        "treeEnsembleRegressor", "scaler", "normalizer", "imputer", "oneHotEncoder", "dictVectorizer", "pipeline",
        "pipelineClassifier", "pipelineRegressor",
    ])
    func coverage(modelType: String) throws {
        let types = try Self.manifest().values.flatMap { $0["modelTypes"] as? [String] ?? [] }
        #expect(types.contains(modelType))
    }

    @Test("predicts as the source library", arguments: names)
    func parity(_ name: String) throws {
        let fixture = try #require(try Self.manifest()[name])
        let tolerance = try #require(fixture["tolerance"] as? Double)
        let examples = try #require(fixture["examples"] as? [[String: [String: Any]]])
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(name + ".mlmodel"))
        let description = model.modelDescription
        let providers = try examples.map { example in
            var values: [String: MLFeatureValue] = [:]
            for (input, json) in example["inputs"]! {
                let feature = try #require(description.inputDescriptionsByName[input], "\(name): no input '\(input)'")
                values[input] = try Self.featureValue(json, for: feature)
            }
            return MLDictionaryFeatureProvider(featureValues: values)
        }
        let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: providers))
        #expect(batch.count == providers.count)
        for (number, example) in examples.enumerated() {
            let single = try model.prediction(from: providers[number])
            for (output, expected) in example["outputs"]! {
                let where_ = "\(name) example \(number) output '\(output)'"
                let ofBatch = try #require(batch.features(at: number).featureValue(for: output), "\(where_) missing from the batch")
                let alone = try #require(single.featureValue(for: output), "\(where_) missing")
                Self.expect(ofBatch, equals: expected, tolerance: tolerance, where_)
                #expect(Self.numbers(ofBatch) == Self.numbers(alone), "\(where_): batch and single predictions differ")
            }
        }
    }

    static func featureValue(_ json: Any, for feature: MLFeatureDescription) throws -> MLFeatureValue {
        switch json {
        case let values as [Any]:
            let shape = feature.multiArrayConstraint?.shape.isEmpty == false ? feature.multiArrayConstraint!.shape : [NSNumber(value: values.count)]
            let array = try MLMultiArray(shape: shape, dataType: feature.multiArrayConstraint?.dataType ?? .double)
            for (index, value) in values.enumerated() { array[index] = NSNumber(value: (value as? Double) ?? .nan) }
            return MLFeatureValue(multiArray: array)
        case let object as [String: Any]:
            let pairs = try #require(object["dictionary"] as? [[Any]])
            var dictionary: [AnyHashable: NSNumber] = [:]
            for pair in pairs {
                let key: AnyHashable = pair[0] is String ? AnyHashable(pair[0] as! String) : AnyHashable(Int64((pair[0] as! NSNumber).int64Value))
                dictionary[key] = NSNumber(value: (pair[1] as! NSNumber).doubleValue)
            }
            return try MLFeatureValue(dictionary: dictionary)
        case let text as String:
            return MLFeatureValue(string: text)
        case let number as NSNumber:
            return feature.type == .int64 ? MLFeatureValue(int64: number.int64Value) : MLFeatureValue(double: number.doubleValue)
        default:
            throw FixtureError("unreadable input \(json)")
        }
    }

    /// The value's numbers (or texts) in a comparable form: multi-array elements, a number, a
    /// dictionary's entries by key, a string.
    static func numbers(_ value: MLFeatureValue) -> [String] {
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

    static func expect(_ actual: MLFeatureValue, equals expected: Any, tolerance: Double, _ where_: String) {
        switch expected {
        case let text as String:
            #expect(actual.type == .string && actual.stringValue == text, "\(where_): \(actual) is not '\(text)'")
        case let values as [Any]:
            guard let array = actual.multiArrayValue, array.count == values.count else {
                Issue.record("\(where_): \(actual) is not an array of \(values.count) values")
                return
            }
            for (index, value) in values.enumerated() {
                let want = (value as! NSNumber).doubleValue
                #expect(close(array[index].doubleValue, want, tolerance), "\(where_)[\(index)]: \(array[index].doubleValue) vs \(want)")
            }
        case let object as [String: Any]:
            let pairs = object["dictionary"] as! [[Any]]
            let got = actual.dictionaryValue
            #expect(got.count == pairs.count, "\(where_): \(got.count) entries, expected \(pairs.count)")
            for pair in pairs {
                let key: AnyHashable = pair[0] is String ? AnyHashable(pair[0] as! String) : AnyHashable(Int64((pair[0] as! NSNumber).int64Value))
                let want = (pair[1] as! NSNumber).doubleValue
                guard let value = got[key] else {
                    Issue.record("\(where_): no entry for \(key) in \(got)")
                    continue
                }
                #expect(close(value.doubleValue, want, tolerance), "\(where_)[\(key)]: \(value.doubleValue) vs \(want)")
            }
        case let number as NSNumber:
            switch actual.type {
            case .int64:
                #expect(actual.int64Value == number.int64Value, "\(where_): \(actual.int64Value) vs \(number)")
            case .double:
                #expect(close(actual.doubleValue, number.doubleValue, tolerance), "\(where_): \(actual.doubleValue) vs \(number)")
            case .multiArray where actual.multiArrayValue!.count == 1:
                let got = actual.multiArrayValue![0].doubleValue
                #expect(close(got, number.doubleValue, tolerance), "\(where_): \(got) vs \(number)")
            default:
                Issue.record("\(where_): \(actual) is not a number")
            }
        default:
            Issue.record("\(where_): unreadable expectation \(expected)")
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
