/// How the nodes of a tree ensemble connect: every node's children resolved from their
/// (treeId, nodeId) names to positions in `nodes`, and each tree's root, checked as Core ML checks
/// them.
///
/// The rules: a (treeId, nodeId) pair names one node; a branch's children are declared nodes of
/// its tree, other than itself, and no node is the child of two branches (or twice the child of
/// one); each tree has one root (a node that is nobody's child); every node is reachable from a
/// root (with one parent per node, an unreachable node means a cycle); a leaf adds at least one
/// value, each to a distinct dimension below `numPredictionDimensions`; node behaviours are known.
///
/// The analysis itself cannot loop or trap on a hostile file: it visits each node a bounded number
/// of times, and the structure is meant for use only when ``issues`` is empty.
package struct TreeEnsembleStructure: Sendable {
    /// For every node of `nodes`, the position of its true child; -1 for leaves.
    package private(set) var trueChild: [Int32]
    /// For every node of `nodes`, the position of its false child; -1 for leaves.
    package private(set) var falseChild: [Int32]
    /// The position of each tree's root, by ascending tree id.
    package private(set) var roots: [Int32] = []
    /// What is wrong, at most ``issueLimit`` messages; empty for a sound ensemble.
    package private(set) var issues: [String] = []

    /// Stops collecting after this many problems (as Core ML's validator does).
    package static let issueLimit = 50

    private struct NodeName: Hashable {
        let tree: UInt64
        let node: UInt64
    }

    package init(_ parameters: CoreML_Specification_TreeEnsembleParameters) {
        let nodes = parameters.nodes
        trueChild = []
        falseChild = []
        guard nodes.count < Int(Int32.max) else {
            issues.append("\(nodes.count) nodes are more than OpenCoreML handles (\(Int32.max - 1))")
            return
        }
        trueChild = [Int32](repeating: -1, count: nodes.count)
        falseChild = [Int32](repeating: -1, count: nodes.count)
        let dimensions = parameters.numPredictionDimensions
        if dimensions == 0 { fail("numPredictionDimensions is 0") }

        var positions: [NodeName: Int32] = [:]
        positions.reserveCapacity(nodes.count)
        var duplicated = [Bool](repeating: false, count: nodes.count)
        for (position, node) in nodes.enumerated() {
            let name = NodeName(tree: node.treeID, node: node.nodeID)
            if positions[name] != nil {
                fail("node (treeId \(node.treeID), nodeId \(node.nodeID)) is declared more than once")
                duplicated[position] = true
            } else {
                positions[name] = Int32(position)
            }
        }

        var parent = [Int32](repeating: -1, count: nodes.count)
        for (position, node) in nodes.enumerated() where !duplicated[position] {
            let name = "node (treeId \(node.treeID), nodeId \(node.nodeID))"
            switch node.nodeBehavior {
            case .leafNode:
                checkLeaf(node, name: name, dimensions: dimensions)
            case .UNRECOGNIZED(let value):
                fail("\(name) has an unknown node behavior \(value)")
            default:
                func child(_ id: UInt64, _ which: String) -> Int32 {
                    guard let child = positions[NodeName(tree: node.treeID, node: id)] else {
                        fail("\(name): its \(which) child nodeId \(id) is not declared in tree \(node.treeID)")
                        return -1
                    }
                    if Int(child) == position {
                        fail("\(name) is its own \(which) child")
                        return -1
                    }
                    if parent[Int(child)] >= 0 {
                        fail("\(name): its \(which) child nodeId \(id) is already the child of nodeId \(nodes[Int(parent[Int(child)])].nodeID)")
                        return -1
                    }
                    parent[Int(child)] = Int32(position)
                    return child
                }
                trueChild[position] = child(node.trueChildNodeID, "true")
                falseChild[position] = child(node.falseChildNodeID, "false")
            }
        }

        // Roots: nodes nobody points to, one per tree.
        var rootList: [Int32] = []
        for position in nodes.indices where parent[position] < 0 && !duplicated[position] {
            rootList.append(Int32(position))
        }
        rootList.sort { (nodes[Int($0)].treeID, nodes[Int($0)].nodeID) < (nodes[Int($1)].treeID, nodes[Int($1)].nodeID) }
        var index = 0
        while index < rootList.count {
            let tree = nodes[Int(rootList[index])].treeID
            var end = index + 1
            while end < rootList.count && nodes[Int(rootList[end])].treeID == tree { end += 1 }
            if end - index > 1 {
                let names = rootList[index..<end].prefix(5).map { "\(nodes[Int($0)].nodeID)" }.joined(separator: ", ")
                fail("tree \(tree) has \(end - index) root nodes (nodeId \(names)\(end - index > 5 ? ", …" : ""))")
            }
            index = end
        }
        roots = rootList

        // Every node reachable from a root; each node has at most one parent, so this visits each once.
        var reached = [Bool](repeating: false, count: nodes.count)
        var reachedCount = 0
        var stack: [Int32] = []
        for root in rootList {
            stack.append(root)
            while let position = stack.popLast() {
                guard !reached[Int(position)] else { continue }
                reached[Int(position)] = true
                reachedCount += 1
                if trueChild[Int(position)] >= 0 { stack.append(trueChild[Int(position)]) }
                if falseChild[Int(position)] >= 0 { stack.append(falseChild[Int(position)]) }
            }
        }
        let declared = duplicated.lazy.filter { !$0 }.count
        if reachedCount != declared {
            let unreached = nodes.indices.lazy.filter { !reached[$0] && !duplicated[$0] }.prefix(5)
                .map { "(treeId \(nodes[$0].treeID), nodeId \(nodes[$0].nodeID))" }.joined(separator: ", ")
            fail("\(declared - reachedCount) node(s) are not reachable from their tree's root, e.g. \(unreached) (a cycle, or a tree without a root)")
        }
    }

    private mutating func checkLeaf(_ node: CoreML_Specification_TreeEnsembleParameters.TreeNode, name: String, dimensions: UInt64) {
        if node.evaluationInfo.isEmpty {
            fail("leaf \(name) has no evaluation values")
            return
        }
        var seen = Set<UInt64>()
        for info in node.evaluationInfo {
            if info.evaluationIndex >= dimensions {
                fail("leaf \(name) adds to dimension \(info.evaluationIndex); there are \(dimensions) (numPredictionDimensions)")
            } else if !seen.insert(info.evaluationIndex).inserted {
                fail("leaf \(name) adds to dimension \(info.evaluationIndex) more than once")
            }
        }
    }

    private mutating func fail(_ message: String) {
        if issues.count < Self.issueLimit { issues.append(message) }
    }
}
