import CoreMLSpec
import Foundation

/// Predicts with an item-similarity recommender: scores every item by its similarity to the items
/// the user rated, and recommends the best.
///
/// Per example:
/// - The item input gives the user's items: a dictionary item → rating, or a sequence or
///   multi-array of items, each rated 1. Items are identified as the model's identifier list says
///   (strings, integers, or the item numbers themselves); items the model does not know are ignored.
/// - Each rated item `i` adds `similarity(i → k) × (rating(i) − adjustment(i))` to the score of every
///   item `k` it lists as similar (the adjustment is the `itemScoreAdjustment` of `i`'s entry).
///   Items no rated item lists score 0.
/// - The candidates are the items of the restriction input, when given (else every item), minus
///   those of the exclusion input, when given (else minus the user's items).
/// - The recommendations are the candidates with the highest scores, highest first (ties in item
///   order), as many as the number-of-recommendations input says (all candidates when absent).
/// - Outputs: the recommended items as a sequence, and their scores as a dictionary item → score.
final class ItemSimilarityRecommenderRunner: ModelRunner, @unchecked Sendable {
    private let recommender: CoreML_Specification_ItemSimilarityRecommender
    private let identifiers: CoreML_Specification_ItemSimilarityRecommender.ItemIdentifiers
    private let itemInputName: String
    /// For each item number, the items it lists as similar and their similarities.
    private let similar: [Int: [(item: Int, similarity: Double)]]
    private let adjustments: [Int: Double]
    private let stringNumbers: [String: Int]
    private let int64Numbers: [Int64: Int]

    /// Refuses a model whose per-item scores would not fit in `memoryLimit` bytes.
    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .itemSimilarityRecommender(let recommender)? = specification.type else {
            preconditionFailure("not an item-similarity recommender")
        }
        self.recommender = recommender
        identifiers = recommender.itemIdentifiers
        itemInputName = recommender.itemInputName(in: specification.description_p)
        // Per item and prediction: a score, a candidate flag and a rank (17 bytes), and an entry of the
        // score dictionary when every item is returned (about 100 bytes): 128 bytes each, reckoned.
        guard let bytes = checkedProduct([identifiers.count, 128]), bytes <= memoryLimit else {
            throw MLModelError(.generic, "the recommender's \(identifiers.count) items would need more than the memory limit (\(memoryLimit) bytes)")
        }
        var similar: [Int: [(item: Int, similarity: Double)]] = [:]
        var adjustments: [Int: Double] = [:]
        for entry in recommender.itemItemSimilarities {
            // Validation checked that every number fits and is below the item count.
            guard let item = checkedSize(entry.itemID) else { continue }
            similar[item, default: []] += entry.similarItemList.compactMap { connected in
                checkedSize(connected.itemID).map { (item: $0, similarity: connected.similarityScore) }
            }
            if entry.itemScoreAdjustment != 0 { adjustments[item] = entry.itemScoreAdjustment }
        }
        self.similar = similar
        self.adjustments = adjustments
        switch identifiers {
        case .strings(let ids): stringNumbers = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        default: stringNumbers = [:]
        }
        switch identifiers {
        case .int64s(let ids): int64Numbers = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        default: int64Numbers = [:]
        }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try examples.enumerated().map { try prediction($1, example: $0) }
    }

    private func prediction(_ example: MLFeatureProvider, example number: Int) throws -> MLFeatureProvider {
        guard let input = example.featureValue(for: itemInputName), !input.isUndefined else {
            throw MLModelError(.featureType, "example \(number): input '\(itemInputName)' is missing")
        }
        let rated = try ratings(input, name: itemInputName, example: number)
        var scores = [Double](repeating: 0, count: identifiers.count)
        for (item, rating) in rated {
            let shifted = rating - (adjustments[item] ?? 0)
            for link in similar[item] ?? [] where link.item < scores.count { scores[link.item] += link.similarity * shifted }
        }

        var candidate: [Bool]
        if let restriction = try items(of: recommender.itemRestrictionInputFeatureName, in: example, example: number) {
            candidate = [Bool](repeating: false, count: identifiers.count)
            for item in restriction { candidate[item] = true }
        } else {
            candidate = [Bool](repeating: true, count: identifiers.count)
        }
        let excluded = try items(of: recommender.itemExclusionInputFeatureName, in: example, example: number) ?? rated.map(\.item)
        for item in excluded { candidate[item] = false }

        var ranked = candidate.indices.filter { candidate[$0] }
        ranked.sort { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        if let limit = try recommendationCount(in: example, example: number), limit < ranked.count {
            ranked.removeLast(ranked.count - limit)
        }

        var values: [String: MLFeatureValue] = [:]
        if !recommender.recommendedItemListOutputFeatureName.isEmpty {
            values[recommender.recommendedItemListOutputFeatureName] = MLFeatureValue(sequence: sequence(of: ranked))
        }
        if !recommender.recommendedItemScoreOutputFeatureName.isEmpty {
            var dictionary: [AnyHashable: NSNumber] = [:]
            for item in ranked { dictionary[key(of: item)] = NSNumber(value: scores[item]) }
            values[recommender.recommendedItemScoreOutputFeatureName] = try MLFeatureValue(dictionary: dictionary)
        }
        return MLDictionaryFeatureProvider(featureValues: values)
    }

    /// The user's items and ratings: a dictionary's entries, or a list's items rated 1 (each item once, the last rating kept).
    private func ratings(_ value: MLFeatureValue, name: String, example number: Int) throws -> [(item: Int, rating: Double)] {
        if value.type == .dictionary {
            var rated: [Int: Double] = [:]
            for (key, rating) in value.dictionaryValue {
                try checkKind(of: key.base, name: name, example: number)
                guard let item = self.number(of: key.base) else { continue }
                rated[item] = rating.doubleValue
            }
            return rated.sorted { $0.key < $1.key }.map { (item: $0.key, rating: $0.value) }
        }
        guard let list = try itemList(value, name: name, example: number) else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' must be a dictionary of item ratings, a sequence or a multi-array of items")
        }
        return Array(Set(list)).sorted().map { (item: $0, rating: 1) }
    }

    /// The items the input `name` lists, or nil when the model does not name it or the example lacks it.
    private func items(of name: String, in example: MLFeatureProvider, example number: Int) throws -> [Int]? {
        guard !name.isEmpty, let value = example.featureValue(for: name), !value.isUndefined else { return nil }
        guard let list = try itemList(value, name: name, example: number) else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' must be a sequence or a multi-array of items")
        }
        return list
    }

    /// The known items of a sequence or multi-array (unknown ones left out), or nil for another type.
    private func itemList(_ value: MLFeatureValue, name: String, example number: Int) throws -> [Int]? {
        if let sequence = value.sequenceValue {
            if sequence.count > 0 { try checkKind(of: sequence.type == .string ? "" as Any : Int64(0) as Any, name: name, example: number) }
            return sequence.type == .string ? sequence.stringValues.compactMap { self.number(of: $0) } : sequence.int64Array.compactMap { self.number(of: $0) }
        }
        if let array = value.multiArrayValue {
            return try (0..<array.count).compactMap { index in
                let element = array[index].doubleValue
                guard let integer = Int64(exactly: element) else {
                    throw MLModelError(.featureType, "example \(number): input '\(name)' holds \(element), which is not an item")
                }
                return self.number(of: integer)
            }
        }
        return nil
    }

    private func recommendationCount(in example: MLFeatureProvider, example number: Int) throws -> Int? {
        let name = recommender.numRecommendationsInputFeatureName
        guard !name.isEmpty, let value = example.featureValue(for: name), !value.isUndefined else { return nil }
        guard value.type == .int64 || value.type == .double else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' must be an integer")
        }
        guard value.int64Value >= 0 else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' is \(value.int64Value); the number of recommendations cannot be negative")
        }
        return Int(clamping: value.int64Value)
    }

    /// Throws unless `identifier` is of the kind the model identifies items by (strings, or integers).
    private func checkKind(of identifier: Any, name: String, example number: Int) throws {
        let isString = identifier is String
        let wantsString: Bool
        if case .strings = identifiers { wantsString = true } else { wantsString = false }
        guard isString == wantsString else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' gives items as \(isString ? "strings" : "integers"); "
                + "the recommender identifies them by \(wantsString ? "strings" : "integers")")
        }
    }

    /// The item number of an identifier, or nil for an item the model does not know.
    private func number(of identifier: Any) -> Int? {
        switch (identifiers, identifier) {
        case (.strings, let text as String): return stringNumbers[text]
        case (.int64s, let integer as Int64): return int64Numbers[integer]
        case (.int64s, let integer as Int): return int64Numbers[Int64(integer)]
        case (.numbers(let count), let integer as Int64): return integer >= 0 && integer < count ? Int(integer) : nil
        case (.numbers(let count), let integer as Int): return integer >= 0 && integer < count ? integer : nil
        default: return nil
        }
    }

    private func key(of item: Int) -> AnyHashable {
        switch identifiers {
        case .strings(let ids): return AnyHashable(ids[item])
        case .int64s(let ids): return AnyHashable(ids[item])
        case .numbers: return AnyHashable(Int64(item))
        }
    }

    private func sequence(of items: [Int]) -> MLSequence {
        switch identifiers {
        case .strings(let ids): return items.isEmpty ? .emptySequence(of: .string) : MLSequence(strings: items.map { ids[$0] })
        case .int64s(let ids): return items.isEmpty ? .emptySequence(of: .int64) : MLSequence(int64Values: items.map { ids[$0] })
        case .numbers: return items.isEmpty ? .emptySequence(of: .int64) : MLSequence(int64Values: items.map { Int64($0) })
        }
    }
}
