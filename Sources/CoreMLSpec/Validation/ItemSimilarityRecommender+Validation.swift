extension CoreML_Specification_ItemSimilarityRecommender {
    /// The item identifiers the features use: strings, integers, or the item numbers themselves.
    public enum ItemIdentifiers: Equatable, Sendable {
        case strings([String])
        case int64s([Int64])
        /// No list: an item's identifier is its number, 0 ..< count.
        case numbers(count: Int)

        /// How many items there are.
        public var count: Int {
            switch self {
            case .strings(let ids): return ids.count
            case .int64s(let ids): return ids.count
            case .numbers(let count): return count
            }
        }
    }

    /// The largest item number the similarities mention, or nil when there are none; throws
    /// nothing, but gives `Int.max` for a number that does not fit in `Int`.
    var largestItemNumber: Int? {
        var largest: Int?
        for items in itemItemSimilarities {
            for number in [items.itemID] + items.similarItemList.map(\.itemID) {
                let value = checkedSize(number) ?? .max
                largest = max(largest ?? value, value)
            }
        }
        return largest
    }

    /// The identifiers, as the item lists give them (the integer list when both are given, which
    /// validation refuses); the item count with no list is one more than the largest item number.
    public var itemIdentifiers: ItemIdentifiers {
        if hasItemInt64Ids && !itemInt64Ids.vector.isEmpty { return .int64s(itemInt64Ids.vector) }
        if hasItemStringIds && !itemStringIds.vector.isEmpty { return .strings(itemStringIds.vector) }
        let largest = largestItemNumber
        return .numbers(count: largest.map { $0 == .max ? .max : $0 + 1 } ?? 0)
    }

    /// The input holding the user's items: the named one, or the only input when none is named.
    public func itemInputName(in description: CoreML_Specification_ModelDescription) -> String {
        if itemInputFeatureName.isEmpty && description.input.count == 1 { return description.input[0].name }
        return itemInputFeatureName
    }

    /// Core ML's rules: one kind of item identifier, enough identifiers for every item number and
    /// no duplicates; the item input a dictionary (item → rating), a sequence or a multi-array; the
    /// number of recommendations an int64; the restriction and exclusion inputs sequences or
    /// multi-arrays; the item list output a sequence and the score output a dictionary, at least
    /// one of them named.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        let hasInt64 = hasItemInt64Ids && !itemInt64Ids.vector.isEmpty
        let hasStrings = hasItemStringIds && !itemStringIds.vector.isEmpty
        if hasInt64 && hasStrings {
            context.fail("the item identifiers must be integers or strings, not both")
        }
        let largest = largestItemNumber
        if largest == .max {
            context.fail("an item number is too large for this machine")
        }
        if hasInt64 || hasStrings {
            let identifiers = itemIdentifiers
            if let largest, largest >= identifiers.count {
                context.fail("the similarities mention item \(largest), but there are only \(identifiers.count) item identifiers")
            }
            switch identifiers {
            case .int64s(let ids) where Set(ids).count != ids.count:
                context.fail("the integer item identifiers contain duplicates")
            case .strings(let ids) where Set(ids).count != ids.count:
                context.fail("the string item identifiers contain duplicates")
            default:
                break
            }
        }

        func check(_ name: String, in features: [CoreML_Specification_FeatureDescription], kind: String, field: String, allowed: [String],
                   _ matches: (CoreML_Specification_FeatureType.OneOf_Type?) -> Bool) {
            guard let feature = features.first(where: { $0.name == name }) else {
                context.fail("the \(kind) '\(name)' named by \(field) is not among the model's \(kind)s")
                return
            }
            if !matches(feature.type.type) {
                context.fail("must be \(allowed.joined(separator: " or "))", at: "\(kind) '\(name)'")
            }
        }
        let itemInput = itemInputName(in: description)
        if itemInput.isEmpty {
            context.fail("the item input is not named (itemInputFeatureName) and the model has more than one input")
        } else {
            check(itemInput, in: description.input, kind: "input", field: "itemInputFeatureName", allowed: ["a dictionary", "a sequence", "a multi-array"]) {
                switch $0 {
                case .dictionaryType?, .sequenceType?, .multiArrayType?: return true
                default: return false
                }
            }
        }
        if !numRecommendationsInputFeatureName.isEmpty {
            check(numRecommendationsInputFeatureName, in: description.input, kind: "input", field: "numRecommendationsInputFeatureName", allowed: ["an int64"]) {
                if case .int64Type? = $0 { return true }
                return false
            }
        }
        for (name, field) in [(itemRestrictionInputFeatureName, "itemRestrictionInputFeatureName"), (itemExclusionInputFeatureName, "itemExclusionInputFeatureName")]
        where !name.isEmpty {
            check(name, in: description.input, kind: "input", field: field, allowed: ["a sequence", "a multi-array"]) {
                switch $0 {
                case .sequenceType?, .multiArrayType?: return true
                default: return false
                }
            }
        }
        if !recommendedItemScoreOutputFeatureName.isEmpty {
            check(recommendedItemScoreOutputFeatureName, in: description.output, kind: "output", field: "recommendedItemScoreOutputFeatureName",
                  allowed: ["a dictionary"]) {
                if case .dictionaryType? = $0 { return true }
                return false
            }
        }
        if !recommendedItemListOutputFeatureName.isEmpty {
            check(recommendedItemListOutputFeatureName, in: description.output, kind: "output", field: "recommendedItemListOutputFeatureName",
                  allowed: ["a sequence"]) {
                if case .sequenceType? = $0 { return true }
                return false
            }
        }
        if recommendedItemScoreOutputFeatureName.isEmpty && recommendedItemListOutputFeatureName.isEmpty {
            context.fail("the recommender names no output (recommendedItemListOutputFeatureName or recommendedItemScoreOutputFeatureName)")
        }
    }
}
