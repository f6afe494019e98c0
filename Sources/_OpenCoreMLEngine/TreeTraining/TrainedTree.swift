/// One trained tree, in a neutral form OpenCreateML turns into Core ML tree-ensemble nodes
/// (`BranchOnValueLessThan` / `BranchOnValueEqual`, a leaf's values as evaluation entries).
package struct TrainedTree: Sendable, Equatable {
    package enum Test: Sendable, Equatable {
        /// `x < t` takes the true child. `t` is one of the feature's cut values, or ±infinity when
        /// the split only parts missing values from present ones.
        case lessThan(Double)
        /// `x == code` takes the true child (a categorical feature).
        case equal(Double)
    }

    package struct Node: Sendable, Equatable {
        /// The feature tested; -1 for a leaf.
        package var feature: Int
        package var test: Test
        package var trueChild: Int
        package var falseChild: Int
        /// Where a missing value (NaN) goes.
        package var missingGoesToTrueChild: Bool
        /// A leaf's values, one per output dimension the tree writes, from `outputDimension` on.
        package var values: [Double]

        package var isLeaf: Bool { feature < 0 }

        package static func leaf(_ values: [Double]) -> Node {
            Node(feature: -1, test: .lessThan(0), trueChild: -1, falseChild: -1, missingGoesToTrueChild: false,
                 values: values)
        }
    }

    /// `nodes[0]` is the root; a split node's children come after it.
    package var nodes: [Node]
    /// The first output dimension its leaf values add to.
    package var outputDimension: Int

    /// The leaf a row of raw values reaches (`value(f)` is feature f's value, NaN = missing), each
    /// value compared as the written model compares it (rounded to float32).
    package func leaf(_ value: (Int) -> Double) -> Node {
        var index = 0
        while true {
            let node = nodes[index]
            if node.isLeaf { return node }
            let x = TreeEnsembleLayout.comparedValue(value(node.feature))
            let goesTrue: Bool
            if x.isNaN {
                goesTrue = node.missingGoesToTrueChild
            } else {
                switch node.test {
                case .lessThan(let t): goesTrue = x < t
                case .equal(let code): goesTrue = x == code
                }
            }
            index = goesTrue ? node.trueChild : node.falseChild
        }
    }

    /// The deepest leaf's depth (a lone leaf: 0).
    package var depth: Int {
        func depth(_ i: Int) -> Int {
            nodes[i].isLeaf ? 0 : 1 + max(depth(nodes[i].trueChild), depth(nodes[i].falseChild))
        }
        return depth(0)
    }
}
