import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Item-similarity recommenders built in Swift, against scores worked by hand.
@Suite("Item-similarity recommender")
struct ItemSimilarityRecommenderTests {
    typealias Recommender = CoreML_Specification_ItemSimilarityRecommender

    static func feature(_ name: String, optional: Bool = false, _ set: (inout CoreML_Specification_FeatureType) -> Void) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        set(&feature.type)
        feature.type.isOptional = optional
        return feature
    }

    static func sequenceType(strings: Bool) -> CoreML_Specification_SequenceFeatureType {
        var sequence = CoreML_Specification_SequenceFeatureType()
        if strings { sequence.stringType = CoreML_Specification_StringFeatureType() } else { sequence.int64Type = CoreML_Specification_Int64FeatureType() }
        return sequence
    }

    static func dictionaryType(strings: Bool) -> CoreML_Specification_DictionaryFeatureType {
        var dictionary = CoreML_Specification_DictionaryFeatureType()
        if strings { dictionary.stringKeyType = CoreML_Specification_StringFeatureType() } else { dictionary.int64KeyType = CoreML_Specification_Int64FeatureType() }
        return dictionary
    }

    /// Four items a, b, c, d (numbers 0…3):
    /// - a lists b (0.5) and c (0.2);
    /// - b lists a (0.5) and d (0.4), with score adjustment 1;
    /// - c lists d (0.9).
    /// Inputs: "items" (dictionary item → rating, or a sequence when `sequenceInput`), optional "k",
    /// "exclude", "restrict"; outputs "recommendations" and "scores". `strings: false` identifies
    /// the items by their numbers.
    static func model(strings: Bool = true, sequenceInput: Bool = false) -> CoreML_Specification_Model {
        var recommender = Recommender()
        func similar(_ item: UInt64, _ links: [(UInt64, Double)], adjustment: Double = 0) -> Recommender.SimilarItems {
            var entry = Recommender.SimilarItems()
            entry.itemID = item
            entry.itemScoreAdjustment = adjustment
            entry.similarItemList = links.map { id, score in
                var connected = Recommender.ConnectedItem()
                connected.itemID = id
                connected.similarityScore = score
                return connected
            }
            return entry
        }
        recommender.itemItemSimilarities = [similar(0, [(1, 0.5), (2, 0.2)]), similar(1, [(0, 0.5), (3, 0.4)], adjustment: 1), similar(2, [(3, 0.9)])]
        if strings {
            var ids = CoreML_Specification_StringVector()
            ids.vector = ["a", "b", "c", "d"]
            recommender.itemStringIds = ids
        }
        recommender.itemInputFeatureName = "items"
        recommender.numRecommendationsInputFeatureName = "k"
        recommender.itemExclusionInputFeatureName = "exclude"
        recommender.itemRestrictionInputFeatureName = "restrict"
        recommender.recommendedItemListOutputFeatureName = "recommendations"
        recommender.recommendedItemScoreOutputFeatureName = "scores"
        var spec = CoreML_Specification_Model()
        spec.specificationVersion = 4
        spec.description_p.input = [
            sequenceInput ? feature("items") { $0.sequenceType = sequenceType(strings: strings) } : feature("items") { $0.dictionaryType = dictionaryType(strings: strings) },
            feature("k", optional: true) { $0.int64Type = CoreML_Specification_Int64FeatureType() },
            feature("exclude", optional: true) { $0.sequenceType = sequenceType(strings: strings) },
            feature("restrict", optional: true) { $0.sequenceType = sequenceType(strings: strings) },
        ]
        spec.description_p.output = [
            feature("recommendations") { $0.sequenceType = sequenceType(strings: strings) },
            feature("scores") { $0.dictionaryType = dictionaryType(strings: strings) },
        ]
        spec.itemSimilarityRecommender = recommender
        return spec
    }

    static func recommend(_ spec: CoreML_Specification_Model, _ inputs: [String: MLFeatureValue]) throws -> (items: [String], scores: [String: Double]) {
        let output = try MLModel(specification: spec).prediction(from: MLDictionaryFeatureProvider(featureValues: inputs))
        let sequence = try #require(output.featureValue(for: "recommendations")?.sequenceValue)
        let items = sequence.type == .string ? sequence.stringValues : sequence.int64Values.map { "\($0.int64Value)" }
        let dictionary = try #require(output.featureValue(for: "scores")?.dictionaryValue)
        var scores: [String: Double] = [:]
        for (key, value) in dictionary { scores[(key.base as? String) ?? "\(key.base)"] = value.doubleValue }
        return (items, scores)
    }

    /// The user rated a 3 and b 2. From a: b += 0.5·3 = 1.5, c += 0.2·3 = 0.6. From b (adjusted
    /// rating 2 − 1 = 1): a += 0.5, d += 0.4. Scores: a 0.5, b 1.5, c 0.6, d 0.4.
    static let rated: [String: MLFeatureValue] = ["items": try! MLFeatureValue(dictionary: [AnyHashable("a"): NSNumber(value: 3), AnyHashable("b"): NSNumber(value: 2), AnyHashable("unknown"): NSNumber(value: 5)])]

    @Test func scoresAreSimilaritiesTimesAdjustedRatingsAndTheRatedItemsAreLeftOut() throws {
        let (items, scores) = try Self.recommend(Self.model(), Self.rated)
        #expect(items == ["c", "d"])
        #expect(abs(scores["c"]! - 0.6) < 1e-12 && abs(scores["d"]! - 0.4) < 1e-12 && scores.count == 2)
    }

    @Test func theNumberOfRecommendationsCutsTheList() throws {
        var inputs = Self.rated
        inputs["k"] = MLFeatureValue(int64: 1)
        #expect(try Self.recommend(Self.model(), inputs).items == ["c"])
        inputs["k"] = MLFeatureValue(int64: 0)
        #expect(try Self.recommend(Self.model(), inputs).items.isEmpty)
        inputs["k"] = MLFeatureValue(int64: -1)
        #expect(throws: MLModelError.self) { try Self.recommend(Self.model(), inputs) }
    }

    @Test func anExclusionListReplacesTheRatedItems() throws {
        var inputs = Self.rated
        inputs["exclude"] = MLFeatureValue(sequence: .emptySequence(of: .string))
        let (items, scores) = try Self.recommend(Self.model(), inputs)
        #expect(items == ["b", "c", "a", "d"])
        #expect(abs(scores["b"]! - 1.5) < 1e-12 && abs(scores["a"]! - 0.5) < 1e-12)
        inputs["exclude"] = MLFeatureValue(sequence: MLSequence(strings: ["b", "c"]))
        #expect(try Self.recommend(Self.model(), inputs).items == ["a", "d"])
    }

    @Test func aRestrictionListLimitsTheCandidates() throws {
        var inputs = Self.rated
        inputs["restrict"] = MLFeatureValue(sequence: MLSequence(strings: ["d", "a"]))
        // a is rated, so excluded; d remains.
        #expect(try Self.recommend(Self.model(), inputs).items == ["d"])
    }

    @Test func aSequenceOfItemsRatesEachOne() throws {
        // a and c, each rated 1: b 0.5, c 0.2 (from a), d 0.9 (from c); a and c are left out.
        let inputs = ["items": MLFeatureValue(sequence: MLSequence(strings: ["a", "c"]))]
        let (items, scores) = try Self.recommend(Self.model(sequenceInput: true), inputs)
        #expect(items == ["d", "b"])
        #expect(abs(scores["d"]! - 0.9) < 1e-12 && abs(scores["b"]! - 0.5) < 1e-12)
    }

    @Test func withoutAnIdentifierListItemsAreTheirNumbers() throws {
        let inputs = ["items": try MLFeatureValue(dictionary: [AnyHashable(Int64(0)): NSNumber(value: 3), AnyHashable(Int64(1)): NSNumber(value: 2), AnyHashable(Int64(99)): NSNumber(value: 1)])]
        let (items, scores) = try Self.recommend(Self.model(strings: false), inputs)
        #expect(items == ["2", "3"])
        #expect(abs(scores["2"]! - 0.6) < 1e-12)
    }

    @Test func itemsOfTheWrongKindAreErrorsNamingTheInput() throws {
        let inputs = ["items": MLFeatureValue(sequence: MLSequence(int64s: [0, 2]))]
        do {
            _ = try Self.recommend(Self.model(sequenceInput: true), inputs)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("'items'") && "\(error)".contains("strings"))
        }
    }

    @Test func validationFollowsCoreMLsRules() {
        #expect(Self.model().validationIssues().isEmpty)
        #expect(Self.model(strings: false, sequenceInput: true).validationIssues().isEmpty)
        var spec = Self.model()
        spec.itemSimilarityRecommender.itemStringIds.vector = ["a", "b", "c"]
        #expect(spec.validationIssues().contains { "\($0)".contains("item 3") })
        spec = Self.model()
        spec.itemSimilarityRecommender.itemStringIds.vector = ["a", "b", "c", "a"]
        #expect(spec.validationIssues().contains { "\($0)".contains("duplicates") })
        spec = Self.model()
        var ints = CoreML_Specification_Int64Vector()
        ints.vector = [10, 20, 30, 40]
        spec.itemSimilarityRecommender.itemInt64Ids = ints
        #expect(spec.validationIssues().contains { "\($0)".contains("not both") })
        spec = Self.model()
        spec.description_p.output[1].type.int64Type = CoreML_Specification_Int64FeatureType()
        #expect(spec.validationIssues().contains { "\($0)".contains("must be a dictionary") })
        spec = Self.model()
        spec.itemSimilarityRecommender.numRecommendationsInputFeatureName = "count"
        #expect(spec.validationIssues().contains { "\($0)".contains("'count'") })
        spec = Self.model()
        spec.itemSimilarityRecommender.recommendedItemListOutputFeatureName = ""
        spec.itemSimilarityRecommender.recommendedItemScoreOutputFeatureName = ""
        #expect(spec.validationIssues().contains { "\($0)".contains("names no output") })
        spec = Self.model()
        spec.itemSimilarityRecommender.itemItemSimilarities[0].itemID = .max
        #expect(!spec.validationIssues().isEmpty)
    }
}
