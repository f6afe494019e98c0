import CoreMLSpec
import Foundation

/// Predicts with a one-hot encoder: a String or Int64 category becomes a 1 at its position among
/// the model's categories, in a multi-array of zeros as long as the list (or, for a sparse output,
/// the dictionary `{position: 1}`). An unknown category is an error (ErrorOnUnknown) or all zeros,
/// an empty dictionary when sparse (IgnoreUnknown). A category listed twice takes its first position.
final class OneHotEncoderRunner: ModelRunner, @unchecked Sendable {
    private enum Categories {
        case strings([String: Int])
        case int64s([Int64: Int])
    }

    private let categories: Categories
    private let count: Int
    private let ignoresUnknown: Bool
    private let sparse: Bool
    private let input: CoreML_Specification_FeatureDescription
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the one-hot encoder"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .oneHotEncoder(let encoder)? = specification.type else { preconditionFailure("not a one-hot encoder") }
        guard let input = specification.description_p.input.first, let output = specification.description_p.output.first else {
            throw MLModelError(.generic, "the one-hot encoder needs one input and one output")
        }
        self.input = input
        self.output = output
        sparse = encoder.outputSparse
        ignoresUnknown = encoder.handleUnknown == .ignoreUnknown
        switch encoder.categoryType {
        case .stringCategories(let list)?:
            guard case .stringType? = input.type.type else {
                throw MLModelError(.featureType, "the one-hot encoder's categories are strings, but input '\(input.name)' is \(input.type.summary)")
            }
            categories = .strings(Self.positions(list.vector))
            count = list.vector.count
        case .int64Categories(let list)?:
            guard case .int64Type? = input.type.type else {
                throw MLModelError(.featureType, "the one-hot encoder's categories are Int64, but input '\(input.name)' is \(input.type.summary)")
            }
            categories = .int64s(Self.positions(list.vector))
            count = list.vector.count
        case nil:
            throw MLModelError(.generic, "the one-hot encoder has no categories")
        }
        if sparse, case .stringKeyType? = output.type.dictionaryType.keyType {
            throw MLModelError(.featureType, "the sparse one-hot encoder gives {position: 1} with Int64 keys; output '\(output.name)' has String keys")
        }
        if !sparse && count == 0 {
            throw MLModelError(.generic, "the one-hot encoder has an empty category list, so its output array would have no values")
        }
        if !sparse && count > memoryLimit / MemoryLayout<Double>.stride {
            throw MLModelError(.generic, "the one-hot encoder's \(count) categories need more memory than the limit of \(memoryLimit) bytes")
        }
    }

    private static func positions<Key: Hashable>(_ list: [Key]) -> [Key: Int] {
        var positions: [Key: Int] = [:]
        for (index, key) in list.enumerated() where positions[key] == nil { positions[key] = index }
        return positions
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var row = [Double](repeating: 0, count: sparse ? 0 : count)
        return try examples.enumerated().map { number, example in
            // A missing optional input is an unknown category.
            let value = try ClassicInputValue.read(input, from: example, number: number, modelName: modelName)
            var position: Int?
            var shown = "missing"
            switch (categories, value) {
            case (.strings(let positions), let value?):
                let category = try value.string
                (position, shown) = (positions[category], "'\(category)'")
            case (.int64s(let positions), let value?):
                let category = try value.int64
                (position, shown) = (positions[category], "\(category)")
            case (_, nil):
                break
            }
            if position == nil && !ignoresUnknown {
                throw MLModelError(.featureType, "example \(number): input '\(input.name)' is \(shown), not one of the one-hot encoder's \(count) categories")
            }
            if sparse {
                let entries: [AnyHashable: NSNumber] = position.map { [AnyHashable(Int64($0)): NSNumber(value: 1.0)] } ?? [:]
                return MLDictionaryFeatureProvider(featureValues: [output.name: try MLFeatureValue(dictionary: entries)])
            }
            if let position { row[position] = 1 }
            defer { if let position { row[position] = 0 } }
            let array = try row.withUnsafeBufferPointer { try ClassicOutputs.value($0, as: output, modelName: modelName) }
            return MLDictionaryFeatureProvider(featureValues: [output.name: array])
        }
    }
}
