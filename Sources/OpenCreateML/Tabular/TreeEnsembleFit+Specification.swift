import CoreMLSpec
import _OpenCoreMLEngine

extension TreeEnsembleFit {
    /// The trees as Core ML tree-ensemble parameters: tree `t`'s node `n` is `(treeId t, nodeId n)`;
    /// `x < t` tests become `BranchOnValueLessThan`, category tests `BranchOnValueEqual` on the
    /// code; a leaf adds its values to the output dimensions from its tree's `outputDimension`.
    var ensembleParameters: CoreML_Specification_TreeEnsembleParameters {
        var parameters = CoreML_Specification_TreeEnsembleParameters()
        parameters.numPredictionDimensions = UInt64(dimensions)
        parameters.basePredictionValue = baseValues
        var nodes: [CoreML_Specification_TreeEnsembleParameters.TreeNode] = []
        nodes.reserveCapacity(trees.reduce(0) { $0 + $1.nodes.count })
        for (treeIndex, tree) in trees.enumerated() {
            for (nodeIndex, trained) in tree.nodes.enumerated() {
                var node = CoreML_Specification_TreeEnsembleParameters.TreeNode()
                node.treeID = UInt64(treeIndex)
                node.nodeID = UInt64(nodeIndex)
                if trained.feature < 0 {
                    node.nodeBehavior = .leafNode
                    node.evaluationInfo = trained.values.enumerated().map { offset, value in
                        var info = CoreML_Specification_TreeEnsembleParameters.TreeNode.EvaluationInfo()
                        info.evaluationIndex = UInt64(tree.outputDimension + offset)
                        info.evaluationValue = value
                        return info
                    }
                } else {
                    node.branchFeatureIndex = UInt64(trained.feature)
                    switch trained.test {
                    case .lessThan(let threshold):
                        node.nodeBehavior = .branchOnValueLessThan
                        node.branchFeatureValue = threshold
                    case .equal(let code):
                        node.nodeBehavior = .branchOnValueEqual
                        node.branchFeatureValue = code
                    }
                    node.trueChildNodeID = UInt64(trained.trueChild)
                    node.falseChildNodeID = UInt64(trained.falseChild)
                    node.missingValueTracksTrueChild = trained.missingGoesToTrueChild
                }
                nodes.append(node)
            }
        }
        parameters.nodes = nodes
        return parameters
    }

    /// Core ML's post-evaluation transform for the fit's.
    var postEvaluationTransform: CoreML_Specification_TreeEnsemblePostEvaluationTransform {
        switch transform {
        case .none: return .noTransform
        case .logistic: return .regressionLogistic
        case .softmax: return .classificationSoftMax
        }
    }
}
