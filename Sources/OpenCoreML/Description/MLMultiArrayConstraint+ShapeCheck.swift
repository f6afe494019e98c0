extension MLMultiArrayConstraint {
    /// Whether the feature accepts a multi-array of `shape` (Core ML checks
    /// the same before predicting): exactly the declared shape, or, for a flexible input, one of its
    /// enumerated shapes or a shape of the same rank with every size within its range.
    package func accepts(shape: [Int]) -> Bool {
        switch shapeConstraint.type {
        case .enumerated:
            let accepted = shapeConstraint.enumeratedShapes.map { $0.map(\.intValue) }
            return accepted.contains(shape) || (accepted.isEmpty && shape == self.shape.map(\.intValue))
        case .range:
            let bounds = shapeConstraint.sizeRangeForDimension
            return shape.count == bounds.count && zip(shape, bounds).allSatisfy { $1.contains($0) }
        case .unspecified:
            let fixed = self.shape.map(\.intValue)
            return fixed.isEmpty || shape == fixed
        }
    }

    /// The shapes the feature accepts, as an error message shows them:
    /// `[1, 1...128]` for ranges (`1...` when unbounded), `[1, 8] or [1, 16]` for enumerated shapes,
    /// the declared shape otherwise.
    package var acceptedShapesText: String {
        switch shapeConstraint.type {
        case .enumerated where !shapeConstraint.enumeratedShapes.isEmpty:
            return shapeConstraint.enumeratedShapes.map { $0.map(\.intValue).description }.joined(separator: " or ")
        case .range:
            return "[" + shapeConstraint.sizeRangeForDimension.map { range in
                range.lowerBound == range.upperBound ? "\(range.lowerBound)"
                    : "\(range.lowerBound)...\(range.upperBound == Int.max ? "" : String(range.upperBound))"
            }.joined(separator: ", ") + "]"
        default:
            return shape.map(\.intValue).description
        }
    }

    /// Throws a feature-type error naming input `name`, its shape and the shapes it accepts when
    /// `shape` is not one of them (see ``accepts(shape:)``).
    func checkShape(_ shape: [Int], of name: String) throws {
        guard !accepts(shape: shape) else { return }
        let accepted = shapeConstraint.type == .unspecified ? "expects \(acceptedShapesText)" : "accepts \(acceptedShapesText)"
        throw MLModelError(.featureType, "input '\(name)' has shape \(shape); the model \(accepted)")
    }
}
