import Foundation
import Testing
import _OpenCoreMLTestSupport
@testable import _OpenCoreMLEngine

/// Trees trained here against XGBoost 3.x ("hist", depthwise) and scikit-learn's decision trees on
/// data whose features have few distinct values, so binning is exact and the references make the
/// same splits (`Scripts/make_tree_training_fixtures.py` → `Tests/Fixtures/tree_training/trees.json`).
@Suite("Tree training parity with XGBoost and scikit-learn")
struct TreeTrainingParityTests {
    struct Case {
        let name: String
        let objective: String
        let classes: Int
        let missing: Bool
        let targets: [Double]
        let rounds: Int
        let baseScore: [Double]
        let scores: [Double]
    }

    struct Fixture {
        let columns: [[Double]]
        let columnsMissing: [[Double]]
        let cases: [Case]
    }

    static let fixture: Fixture = {
        let url = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("tree_training/trees.json")
        let object = (try? JSONSerialization.jsonObject(with: Data(contentsOf: url))) as? [String: Any] ?? [:]
        func columns(_ key: String) -> [[Double]] {
            (object[key] as? [[Any]] ?? []).map { $0.map { ($0 as? NSNumber)?.doubleValue ?? .nan } }
        }
        let cases = (object["cases"] as? [[String: Any]] ?? []).map { c in
            let base = (c["base_score"] as? String ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return Case(name: c["name"] as? String ?? "", objective: c["objective"] as? String ?? "",
                        classes: c["classes"] as? Int ?? 0, missing: c["missing"] as? Bool ?? false,
                        targets: (c["targets"] as? [NSNumber] ?? []).map(\.doubleValue), rounds: c["rounds"] as? Int ?? 0,
                        baseScore: base.split(separator: ",").compactMap { Double($0) },
                        scores: (c["scores"] as? [NSNumber] ?? []).map(\.doubleValue))
        }
        return Fixture(columns: columns("columns"), columnsMissing: columns("columns_missing"), cases: cases)
    }()

    static func testCase(_ name: String) -> Case? { fixture.cases.first { $0.name == name } }

    static let boostedCases = ["regression", "binary", "three-class", "regression-missing", "binary-missing"]

    @Test("Boosted trees predict XGBoost's scores", arguments: boostedCases)
    func boosted(_ name: String) throws {
        let c = try #require(Self.testCase(name))
        let columns = c.missing ? Self.fixture.columnsMissing : Self.fixture.columns
        let data = try BinnedFeatures(columns: columns, kinds: Array(repeating: .numeric, count: columns.count))
        let objective: TreeObjective = switch c.objective {
        case "reg:squarederror": .squaredError
        case "binary:logistic": .logistic
        default: .softmax(classCount: c.classes)
        }
        let growth = TreeGrowthParameters(maxDepth: 3, minLossReduction: 0, minChildWeight: 1, l2Regularization: 1)
        let booster = GradientBoostedTrees(objective: objective, growth: growth, iterations: c.rounds, stepSize: 0.3,
                                           earlyStoppingRounds: nil)
        let fit = try booster.fit(training: data, targets: c.targets, validation: nil) { _ in true }
        #expect(fit.trees.count == c.rounds * objective.dimensions)
        // XGBoost keeps a logistic start as a probability, the others as scores.
        let base = objective == .logistic ? fit.baseValues.map { 1 / (1 + exp(-$0)) } : fit.baseValues
        #expect(base.count == c.baseScore.count)
        for (ours, theirs) in zip(base, c.baseScore) { #expect(abs(ours - theirs) < 1e-6) }
        let scores = fit.scores(columns: columns)
        #expect(scores.count == c.scores.count)
        var worst = 0.0
        for (ours, theirs) in zip(scores, c.scores) { worst = max(worst, abs(ours - theirs) / max(1, abs(theirs))) }
        #expect(worst < 2e-6, "\(name): largest relative difference \(worst)")
    }

    @Test("A decision tree predicts as scikit-learn's", arguments: ["decision-tree-regressor", "decision-tree-classifier"])
    func decisionTree(_ name: String) throws {
        let c = try #require(Self.testCase(name))
        let columns = Self.fixture.columns
        let data = try BinnedFeatures(columns: columns, kinds: Array(repeating: .numeric, count: columns.count))
        let task: RandomForestTrees.Task = c.classes > 0 ? .classification(classCount: c.classes) : .regression
        let tree = RandomForestTrees(task: task, growth: TreeGrowthParameters(maxDepth: 3, minChildWeight: 1), treeCount: 1)
        let fit = try tree.fit(training: data, targets: c.targets, validation: nil) { _ in true }
        #expect(fit.trees.count == 1 && fit.trees[0].depth == 3)
        let scores = fit.scores(columns: columns)
        #expect(scores.count == c.scores.count)
        var worst = 0.0
        for (ours, theirs) in zip(scores, c.scores) { worst = max(worst, abs(ours - theirs)) }
        #expect(worst < 1e-5, "\(name): largest difference \(worst)")
    }
}
