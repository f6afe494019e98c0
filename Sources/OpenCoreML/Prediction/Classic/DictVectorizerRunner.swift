import CoreMLSpec
import Foundation

/// Predicts with a dict vectorizer: each key of the input dictionary that the model lists goes to
/// its position in the list (the first, if listed twice); keys the model does not list are
/// ignored, as Core ML ignores them. Keys match by value across types: coremltools declares a
/// String-keyed input for scikit-learn's `DictVectorizer` of integer features (a list of Int64
/// keys), so a String key that is a decimal integer matches that Int64, and an Int64 key matches
/// the String of its decimal digits.
///
/// A dictionary output (what Core ML's validator requires, and coremltools' converter declares)
/// is the sparse vector `{position: value}` of the listed keys present; a multi-array output
/// (an OpenCoreML addition: the dense array the format's documentation describes) holds every
/// position, 0 where the key is absent.
final class DictVectorizerRunner: ModelRunner, @unchecked Sendable {
    private let positions: [AnyHashable: Int]
    private let count: Int
    private let stringKeys: Bool
    private let dense: Bool
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the dict vectorizer"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .dictVectorizer(let vectorizer)? = specification.type else { preconditionFailure("not a dict vectorizer") }
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first else {
            throw MLModelError(.generic, "the dict vectorizer needs one input and one output")
        }
        self.input = input
        self.output = output
        let keys: [AnyHashable]
        switch vectorizer.map {
        case .stringToIndex(let list)?:
            keys = list.vector.map { AnyHashable($0) }
            stringKeys = true
        case .int64ToIndex(let list)?:
            keys = list.vector.map { AnyHashable($0) }
            stringKeys = false
        case nil:
            throw MLModelError(.generic, "the dict vectorizer has no key list")
        }
        var positions: [AnyHashable: Int] = [:]
        for (index, key) in keys.enumerated() where positions[key] == nil { positions[key] = index }
        self.positions = positions
        count = keys.count
        if case .multiArrayType? = output.type.type {
            dense = true
            guard count > 0, count <= memoryLimit / MemoryLayout<Double>.stride else {
                throw MLModelError(.generic, "the dict vectorizer's dense output of \(count) values must have at least one and fit the memory limit of \(memoryLimit) bytes")
            }
        } else {
            dense = false
        }
    }

    /// `key` as the list's key type: an Int64 as its decimal digits, a String of decimal digits as
    /// that Int64 (anything else stays as it is, and matches nothing).
    private static func key(_ key: AnyHashable, asString: Bool) -> AnyHashable {
        switch (key.base, asString) {
        case (let text as String, false): return Int64(text).map { AnyHashable($0) } ?? key
        case (let number as Int64, true): return AnyHashable(String(number))
        default: return key
        }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var row = [Double](repeating: 0, count: dense ? count : 0)
        return try examples.enumerated().map { number, example in
            let dictionary = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName)?.dictionary ?? [:]
            var sparse: [AnyHashable: NSNumber] = [:]
            for (key, value) in dictionary {
                guard let position = positions[Self.key(key, asString: stringKeys)] else { continue }
                if dense { row[position] = value.doubleValue } else { sparse[AnyHashable(Int64(position))] = value }
            }
            guard dense else {
                return MLDictionaryFeatureProvider(featureValues: [output.name: try MLFeatureValue(dictionary: sparse)])
            }
            defer { row.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
            let array = try row.withUnsafeBufferPointer { try ClassicOutputs.value($0, as: output, modelName: modelName) }
            return MLDictionaryFeatureProvider(featureValues: [output.name: array])
        }
    }
}
