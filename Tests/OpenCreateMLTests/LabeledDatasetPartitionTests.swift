import Foundation
import OpenCreateML
import Testing

/// Federated shares: every client computes its own part from the same seed, so the parts must be
/// disjoint, cover every example, and (IID) be balanced or (Dirichlet) skewed by class.
@Suite("LabeledDataset partitions")
struct LabeledDatasetPartitionTests {
    static let digits = LabeledDataset.generatedDigits(600, seed: 5)

    /// Each part's examples, identified by their row values (generated digits are all different).
    static func rows(_ part: LabeledDataset) -> [[Float]] { (0..<part.count).map { Array(part.row($0)) } }

    @Test(arguments: [LabeledDataset.Partitioning.iid, .dirichlet(alpha: 0.5)])
    func partsAreDisjointAndCoverEveryExample(_ partitioning: LabeledDataset.Partitioning) throws {
        let parts = try (0..<3).map { try Self.digits.partition($0, of: 3, by: partitioning, seed: 9) }
        #expect(parts.map(\.count).reduce(0, +) == 600)
        let all = Set(parts.flatMap(Self.rows))
        #expect(all.count == 600)
        #expect(all == Set(Self.rows(Self.digits)))
        // The same seed gives the same part; another seed another.
        #expect(Self.rows(try Self.digits.partition(1, of: 3, by: partitioning, seed: 9)) == Self.rows(parts[1]))
        #expect(Self.rows(try Self.digits.partition(1, of: 3, by: partitioning, seed: 10)) != Self.rows(parts[1]))
    }

    @Test func iidPartsAreBalancedAndDirichletOnesSkewed() throws {
        let iid = try (0..<3).map { try Self.digits.partition($0, of: 3, seed: 1) }
        #expect(iid.map(\.count) == [200, 200, 200])
        func classShare(_ part: LabeledDataset) -> [Double] {
            (0..<10).map { label in Double(part.labels.filter { $0 == label }.count) / Double(part.count) }
        }
        let overall = classShare(Self.digits)
        let iidDeviation = iid.map { zip(classShare($0), overall).map { abs($0 - $1) }.max()! }.max()!
        let skewed = try (0..<3).map { try Self.digits.partition($0, of: 3, by: .dirichlet(alpha: 0.3), seed: 1) }
        let skewedDeviation = skewed.map { zip(classShare($0), overall).map { abs($0 - $1) }.max()! }.max()!
        #expect(iidDeviation < 0.08)
        #expect(skewedDeviation > 0.15)
    }

    @Test func badRequestsAreErrors() {
        #expect(throws: (any Error).self) { try Self.digits.partition(3, of: 3) }
        #expect(throws: (any Error).self) { try Self.digits.partition(0, of: 3, by: .dirichlet(alpha: 0)) }
        #expect(throws: (any Error).self) { try Self.digits.randomSplit(testFraction: 1) }
    }

    @Test func randomSplitHoldsOutTheFractionDisjointly() throws {
        let (training, test) = try Self.digits.randomSplit(testFraction: 0.2, seed: 4)
        #expect(training.count == 480 && test.count == 120)
        #expect(Set(Self.rows(training)).isDisjoint(with: Set(Self.rows(test))))
    }
}
