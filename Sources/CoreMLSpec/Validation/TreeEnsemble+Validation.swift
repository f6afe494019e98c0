extension CoreML_Specification_TreeEnsembleParameters {
    /// The node structure (``TreeEnsembleStructure``), one base value per dimension (or none), and
    /// branch feature indexes within `inputWidth` when the inputs declare their sizes.
    func validate(inputWidth: Int?, in context: inout ValidationContext) {
        for issue in TreeEnsembleStructure(self).issues { context.fail(issue) }
        if !basePredictionValue.isEmpty && UInt64(basePredictionValue.count) != numPredictionDimensions {
            context.fail("there are \(basePredictionValue.count) base prediction values for \(numPredictionDimensions) dimensions")
        }
        if let inputWidth, let bad = nodes.first(where: { $0.nodeBehavior != .leafNode && $0.branchFeatureIndex >= UInt64(inputWidth) }) {
            context.fail("node (treeId \(bad.treeID), nodeId \(bad.nodeID)) branches on feature \(bad.branchFeatureIndex); the inputs have \(inputWidth) values")
        }
    }
}

extension CoreML_Specification_TreeEnsemblePostEvaluationTransform {
    func validate(in context: inout ValidationContext) {
        if case .UNRECOGNIZED(let value) = self {
            context.fail("unknown post-evaluation transform \(value)")
        }
    }
}

extension CoreML_Specification_TreeEnsembleRegressor {
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        treeEnsemble.validate(inputWidth: model.description_p.classicInputWidth, in: &context)
        postEvaluationTransform.validate(in: &context)
    }
}

extension CoreML_Specification_TreeEnsembleClassifier {
    /// Besides the ensemble: two labels for one dimension (binary: the dimension scores the second
    /// label), one label per dimension otherwise; no labels stand for 0, 1, … (two for one dimension).
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        treeEnsemble.validate(inputWidth: model.description_p.classicInputWidth, in: &context)
        postEvaluationTransform.validate(in: &context)
        let classes = classLabelSet.count
        let dimensions = treeEnsemble.numPredictionDimensions
        if classes != 0 && !(dimensions == 1 && classes == 2) && !(dimensions >= 2 && UInt64(classes) == dimensions) {
            context.fail("there are \(classes) class labels for \(dimensions) prediction dimensions (one dimension takes two labels, more take one each)")
        }
        model.validateClassifierOutputs(classLabels: classLabelSet, in: &context)
    }
}

extension CoreML_Specification_ModelDescription {
    /// The number of values a classic model's inputs make together (numbers one each, multi-arrays
    /// their element count); nil when a multi-array declares no shape or an input is of another type.
    var classicInputWidth: Int? {
        var width = 0
        for feature in input {
            switch feature.type.type {
            case .doubleType?, .int64Type?:
                width += 1
            case .multiArrayType(let array)?:
                guard !array.shape.isEmpty, let count = checkedProduct(array.shape) else { return nil }
                let (sum, overflow) = width.addingReportingOverflow(count)
                if overflow { return nil }
                width = sum
            default:
                return nil
            }
        }
        return width
    }
}
