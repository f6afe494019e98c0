import CoreMLSpec

/// A tree ensemble compiled into flat arrays for fast evaluation.
///
/// Every branch becomes one test, `x < threshold` (or `x == threshold`, for the equality
/// behaviours), whose outcome picks one of two adjacent slots: `firstChild` when the test holds,
/// `firstChild + 1` when it does not. The six Core ML behaviours map onto it by choosing the
/// threshold and the order of the children: `x <= t` is `x < t.nextUp`, `x >= t` is not `x < t`,
/// `x > t` is not `x < t.nextUp`, `x != t` is not `x == t`; a NaN threshold (every comparison
/// false, `!=` true) becomes a test that always fails. A missing (NaN) input value goes to
/// `missingSlot` instead (0 or 1), the slot of the child `missingValueTracksTrueChild` names.
///
/// A leaf tests feature 0 against a NaN threshold, which always fails, with `firstChild = self - 1`
/// and `missingSlot = 1`: a walk that reaches a leaf stays there, so a tree is evaluated by taking
/// exactly `depth` steps, without a branch. What a leaf adds is `leafValues[leafStart[n]..<leafStart[n+1]]`
/// to the dimensions `leafDimensions[…]`. Each tree's nodes are stored breadth first, the two
/// children of a branch side by side.
package struct TreeEnsembleLayout: Sendable {
    /// One branch test (or leaf) in 16 bytes: the threshold, and the feature and first child
    /// packed in one word (one load for both in the inner loop).
    package struct Node: Sendable, Equatable {
        package var threshold: Double
        private var link: UInt64

        package init(threshold: Double, feature: Int32, firstChild: Int32) {
            self.threshold = threshold
            link = UInt64(UInt32(bitPattern: feature)) | UInt64(UInt32(bitPattern: firstChild)) << 32
        }

        package var feature: Int32 { Int32(truncatingIfNeeded: link) }
        package var firstChild: Int32 { Int32(truncatingIfNeeded: link >> 32) }
    }

    package private(set) var nodes: [Node] = []
    /// Per node: the slot (0 or 1) a NaN input goes to.
    package private(set) var missingSlot: [UInt8] = []
    /// Per node: 1 when the test is `x == threshold` instead of `x < threshold`.
    package private(set) var isEquality: [UInt8] = []
    /// Per node, and one past the last: where its leaf values start (empty for branches).
    package private(set) var leafStart: [Int32] = []
    package private(set) var leafDimensions: [Int32] = []
    package private(set) var leafValues: [Double] = []
    /// When there is one dimension and every leaf adds one value: per node, that value (0 for
    /// branches), so a walk's end is one load away from its value. Empty otherwise.
    package private(set) var scalarLeafValues: [Double] = []
    /// Each tree's root (an index into `nodes`) and its depth (the most branches on a path).
    package private(set) var roots: [Int32] = []
    package private(set) var depths: [Int32] = []
    /// The values the tree outputs are added to, one per dimension.
    package let baseValues: [Double]
    package let dimensions: Int
    /// The highest feature a branch reads, plus one (0 for an ensemble of leaves).
    package private(set) var featureCount = 0
    /// Whether any branch tests equality (evaluation takes the general path then).
    package private(set) var hasEquality = false

    /// The bytes a compiled ensemble of `nodeCount` nodes and `leafValueCount` leaf values takes.
    package static func byteCount(nodeCount: Int, leafValueCount: Int, dimensions: Int) -> Int? {
        let perNode = MemoryLayout<Node>.stride + 2 + MemoryLayout<Int32>.stride
        guard let nodes = checkedProduct([nodeCount, perNode]), let leaves = checkedProduct([leafValueCount, 12]),
              let base = checkedProduct([dimensions, 8]) else { return nil }
        let (sum, overflow) = nodes.addingReportingOverflow(leaves)
        let (total, overflow2) = sum.addingReportingOverflow(base)
        return overflow || overflow2 ? nil : total
    }

    /// Compiles `parameters`, refusing (``EngineError``) anything Core ML's rules refuse (see
    /// ``TreeEnsembleStructure``), base values that do not match the dimensions, feature indexes
    /// at or past `inputWidth` (when known), and a layout larger than `memoryLimit` bytes.
    package init(_ parameters: CoreML_Specification_TreeEnsembleParameters, inputWidth: Int?, memoryLimit: Int) throws {
        let specNodes = parameters.nodes
        let structure = TreeEnsembleStructure(parameters)
        if let issue = structure.issues.first {
            throw EngineError("tree ensemble", issue)
        }
        guard let dimensions = checkedSize(parameters.numPredictionDimensions, limit: Int(Int32.max)) else {
            throw EngineError("tree ensemble", "numPredictionDimensions \(parameters.numPredictionDimensions) is too large")
        }
        self.dimensions = dimensions
        let leafValueCount = specNodes.reduce(0) { $0 + ($1.nodeBehavior == .leafNode ? $1.evaluationInfo.count : 0) }
        guard leafValueCount < Int(Int32.max) else {
            throw EngineError("tree ensemble", "\(leafValueCount) leaf values are more than OpenCoreML handles")
        }
        guard let bytes = Self.byteCount(nodeCount: specNodes.count, leafValueCount: leafValueCount, dimensions: dimensions),
              bytes <= memoryLimit else {
            throw EngineError("tree ensemble", "\(specNodes.count) nodes and \(dimensions) dimensions need more memory than the limit of \(memoryLimit) bytes")
        }
        switch parameters.basePredictionValue.count {
        case 0: baseValues = [Double](repeating: 0, count: dimensions)
        case dimensions: baseValues = parameters.basePredictionValue
        default:
            throw EngineError("tree ensemble", "there are \(parameters.basePredictionValue.count) base prediction values for \(dimensions) dimensions")
        }

        nodes.reserveCapacity(specNodes.count)
        missingSlot.reserveCapacity(specNodes.count)
        isEquality.reserveCapacity(specNodes.count)
        leafStart.reserveCapacity(specNodes.count + 1)
        leafDimensions.reserveCapacity(leafValueCount)
        leafValues.reserveCapacity(leafValueCount)
        roots.reserveCapacity(structure.roots.count)
        depths.reserveCapacity(structure.roots.count)

        // Breadth first per tree: `order` holds spec positions, `depth` their distance from the root.
        var order: [Int32] = []
        var levels: [Int32] = []
        for root in structure.roots {
            order.removeAll(keepingCapacity: true)
            levels.removeAll(keepingCapacity: true)
            order.append(root)
            levels.append(0)
            let base = Int32(nodes.count)
            var next = 0
            var depth: Int32 = 0
            while next < order.count {
                let position = Int(order[next])
                let level = levels[next]
                let index = base + Int32(next)
                next += 1
                let node = specNodes[position]
                if node.nodeBehavior == .leafNode {
                    append(leaf: node, at: index)
                    continue
                }
                depth = max(depth, level + 1)
                let test = Self.test(for: node)
                let (first, second) = test.trueFirst
                    ? (structure.trueChild[position], structure.falseChild[position])
                    : (structure.falseChild[position], structure.trueChild[position])
                guard let feature = checkedSize(node.branchFeatureIndex, limit: Int(Int32.max) - 1),
                      inputWidth.map({ feature < $0 }) ?? true else {
                    throw EngineError("tree ensemble", "node (treeId \(node.treeID), nodeId \(node.nodeID)) branches on feature \(node.branchFeatureIndex); the inputs have \(inputWidth.map(String.init) ?? "fewer") values")
                }
                featureCount = max(featureCount, feature + 1)
                let firstChild = base + Int32(order.count)
                order.append(first)
                levels.append(level + 1)
                order.append(second)
                levels.append(level + 1)
                nodes.append(Node(threshold: test.threshold, feature: Int32(feature), firstChild: firstChild))
                let missingGoesTrue = node.missingValueTracksTrueChild
                missingSlot.append(missingGoesTrue == test.trueFirst ? 0 : 1)
                isEquality.append(test.equality ? 1 : 0)
                hasEquality = hasEquality || test.equality
                leafStart.append(Int32(leafValues.count))
            }
            roots.append(base)
            depths.append(depth)
        }
        leafStart.append(Int32(leafValues.count))
        if dimensions == 1 && leafValues.count == roots.count + (nodes.count - roots.count) / 2 {
            // One value per leaf (a binary tree of n nodes has (n + 1) / 2 leaves).
            scalarLeafValues = (0..<nodes.count).map { node in
                leafStart[node] < leafStart[node + 1] ? leafValues[Int(leafStart[node])] : 0
            }
        }
    }

    private mutating func append(leaf node: CoreML_Specification_TreeEnsembleParameters.TreeNode, at index: Int32) {
        nodes.append(Node(threshold: .nan, feature: 0, firstChild: index - 1))
        missingSlot.append(1)
        isEquality.append(0)
        leafStart.append(Int32(leafValues.count))
        for info in node.evaluationInfo {
            leafDimensions.append(Int32(info.evaluationIndex))  // below numPredictionDimensions, checked
            leafValues.append(info.evaluationValue)
        }
    }

    /// The test a branch becomes: threshold, `==` or `<`, and whether the true child takes slot 0.
    static func test(for node: CoreML_Specification_TreeEnsembleParameters.TreeNode) -> (threshold: Double, equality: Bool, trueFirst: Bool) {
        let t = node.branchFeatureValue
        if t.isNaN {
            // Every comparison with NaN is false, and `!=` true: a test that always fails, the
            // outcome in slot 1.
            return (.nan, false, node.nodeBehavior == .branchOnValueNotEqual ? false : true)
        }
        switch node.nodeBehavior {
        case .branchOnValueLessThan: return (t, false, true)
        case .branchOnValueGreaterThanEqual: return (t, false, false)
        case .branchOnValueLessThanEqual:
            // x <= +inf holds for every number: fail always, true child in slot 1.
            return t == .infinity ? (.nan, false, false) : (t.nextUp, false, true)
        case .branchOnValueGreaterThan:
            // x > +inf never holds: fail always, false child in slot 1.
            return t == .infinity ? (.nan, false, true) : (t.nextUp, false, false)
        case .branchOnValueEqual: return (t, true, true)
        default: return (t, true, false)  // .branchOnValueNotEqual
        }
    }
}
