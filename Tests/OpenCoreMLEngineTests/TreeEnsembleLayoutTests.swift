import CoreMLSpec
import Testing
@testable import _OpenCoreMLEngine

/// The compiled layout of tree ensembles: breadth-first nodes, canonical `<` tests, self-looping leaves.
@Suite("Tree ensemble layout")
struct TreeEnsembleLayoutTests {
    typealias SpecNode = CoreML_Specification_TreeEnsembleParameters.TreeNode

    static func node(_ tree: UInt64, _ id: UInt64, _ behavior: SpecNode.TreeNodeBehavior, feature: UInt64 = 0, value: Double = 0,
                     true trueChild: UInt64 = 0, false falseChild: UInt64 = 0, missingTrue: Bool = false, leaf: [(UInt64, Double)] = []) -> SpecNode {
        var node = SpecNode()
        node.treeID = tree
        node.nodeID = id
        node.nodeBehavior = behavior
        node.branchFeatureIndex = feature
        node.branchFeatureValue = value
        node.trueChildNodeID = trueChild
        node.falseChildNodeID = falseChild
        node.missingValueTracksTrueChild = missingTrue
        node.evaluationInfo = leaf.map { index, value in
            var info = SpecNode.EvaluationInfo()
            info.evaluationIndex = index
            info.evaluationValue = value
            return info
        }
        return node
    }

    /// Tree 5: 10: x₁ >= 2 (missing → true) ? 20 : 30; 20: x₀ <= 1 ? leaf 40 (+1) : leaf 50 (+2);
    /// 30: leaf (+3). Tree 3: one leaf adding 7 to dimension 1. Declared in no particular order.
    static var parameters: CoreML_Specification_TreeEnsembleParameters {
        var parameters = CoreML_Specification_TreeEnsembleParameters()
        parameters.nodes = [
            node(5, 50, .leafNode, leaf: [(0, 2)]),
            node(5, 20, .branchOnValueLessThanEqual, feature: 0, value: 1, true: 40, false: 50),
            node(3, 0, .leafNode, leaf: [(1, 7)]),
            node(5, 10, .branchOnValueGreaterThanEqual, feature: 1, value: 2, true: 20, false: 30, missingTrue: true),
            node(5, 40, .leafNode, leaf: [(0, 1)]),
            node(5, 30, .leafNode, leaf: [(0, 3)]),
        ]
        parameters.numPredictionDimensions = 2
        parameters.basePredictionValue = [0.5, 0]
        return parameters
    }

    @Test func nodesAreBreadthFirstWithCanonicalTests() throws {
        let layout = try TreeEnsembleLayout(Self.parameters, inputWidth: 2, memoryLimit: 1 << 20)
        // Tree 3 first (ascending ids): node 0 its leaf. Tree 5 from 1: root 1, children 2 (false: 30) and 3 (true: 20),
        // then 20's children 4 (true: 40) and 5 (false: 50).
        #expect(layout.roots == [0, 1])
        #expect(layout.depths == [0, 2])
        #expect(layout.nodes[0].firstChild == -1 && layout.nodes[0].threshold.isNaN)
        // x₁ >= 2 is "not x₁ < 2": the false child first; missing goes to the true child, slot 1.
        #expect(layout.nodes[1] == TreeEnsembleLayout.Node(threshold: 2, feature: 1, firstChild: 2))
        #expect(layout.missingSlot[1] == 1)
        // x₀ <= 1 is x₀ < 1.nextUp, the true child first; missing to the false child, slot 1.
        #expect(layout.nodes[3] == TreeEnsembleLayout.Node(threshold: (1.0).nextUp, feature: 0, firstChild: 4))
        #expect(layout.missingSlot[3] == 1)
        // Leaves loop on themselves.
        for leaf in [2, 4, 5] { #expect(layout.nodes[leaf].firstChild == Int32(leaf - 1) && layout.missingSlot[leaf] == 1) }
        #expect(layout.leafStart == [0, 1, 1, 2, 2, 3, 4])
        #expect(layout.leafValues == [7, 3, 1, 2])
        #expect(layout.leafDimensions == [1, 0, 0, 0])
        #expect(layout.featureCount == 2 && !layout.hasEquality)
        #expect(layout.scalarLeafValues.isEmpty)  // two dimensions
    }

    @Test func evaluationSumsTheLeavesOverTheBase() throws {
        let layout = try TreeEnsembleLayout(Self.parameters, inputWidth: 2, memoryLimit: 1 << 20)
        // (x₀, x₁) → tree 5's leaf: (0, 3) → 40 (+1); (2, 3) → 50 (+2); (0, 1) → 30 (+3); (5, NaN) → true → 20 → 50 (+2);
        // (NaN, 5) → 20, x₀ missing → false → 50 (+2). Tree 3 adds 7 to dimension 1 every time.
        let rows: [Double] = [0, 3, 2, 3, 0, 1, 5, .nan, .nan, 5]
        var outputs = [Double](repeating: -1, count: 10)
        try layout.evaluate(rows: rows, count: 5, width: 2, into: &outputs)
        #expect(outputs == [1.5, 7, 2.5, 7, 3.5, 7, 2.5, 7, 2.5, 7])
    }

    @Test func rowsNarrowerThanTheFeaturesAreAnError() throws {
        let layout = try TreeEnsembleLayout(Self.parameters, inputWidth: nil, memoryLimit: 1 << 20)
        var outputs = [Double](repeating: 0, count: 2)
        #expect(throws: EngineError.self) { try layout.evaluate(rows: [1], count: 1, width: 1, into: &outputs) }
    }

    @Test func hostileStructuresAndSizesAreRefused() {
        var cycle = Self.parameters
        cycle.nodes[1].trueChildNodeID = 10  // 10 → 20 → 10: tree 5 loses its root
        #expect(throws: EngineError.self) { _ = try TreeEnsembleLayout(cycle, inputWidth: 2, memoryLimit: 1 << 20) }
        #expect(throws: EngineError.self) { _ = try TreeEnsembleLayout(Self.parameters, inputWidth: 1, memoryLimit: 1 << 20) }
        #expect(throws: EngineError.self) { _ = try TreeEnsembleLayout(Self.parameters, inputWidth: 2, memoryLimit: 100) }
        var dimensions = Self.parameters
        dimensions.numPredictionDimensions = UInt64.max
        dimensions.basePredictionValue = []
        #expect(throws: EngineError.self) { _ = try TreeEnsembleLayout(dimensions, inputWidth: 2, memoryLimit: .max) }
    }

    /// Many rows (several blocks, several threads) give what one row at a time gives.
    @Test func blocksAndThreadsDoNotChangeResults() throws {
        let layout = try TreeEnsembleLayout(Self.parameters, inputWidth: 2, memoryLimit: 1 << 20)
        let count = 10 * TreeEnsembleLayout.blockRows(width: 2) + 3
        let rows: [Double] = (0..<(count * 2)).map { (index: Int) -> Double in
            index % 13 == 0 ? .nan : Double((index * 7) % 5)
        }
        var batch = [Double](repeating: 0, count: count * 2)
        try layout.evaluate(rows: rows, count: count, width: 2, into: &batch)
        for row in 0..<count {
            var single = [0.0, 0.0]
            try layout.evaluate(rows: Array(rows[(row * 2)..<(row * 2 + 2)]), count: 1, width: 2, into: &single)
            #expect(single == Array(batch[(row * 2)..<(row * 2 + 2)]), "row \(row)")
        }
    }
}
