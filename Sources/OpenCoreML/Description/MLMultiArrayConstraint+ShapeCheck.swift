extension MLMultiArrayConstraint {
    /// Throws a feature-type error naming input `name` when `shape` is not one the input accepts,
    /// as Core ML checks before predicting: exactly the declared shape, or, for a flexible input,
    /// one of its enumerated shapes or a shape of the same rank with every size within its range.
    func checkShape(_ shape: [Int], of name: String) throws {
        let fixed = self.shape.map(\.intValue)
        switch shapeConstraint.type {
        case .enumerated:
            let accepted = shapeConstraint.enumeratedShapes.map { $0.map(\.intValue) }
            guard accepted.contains(shape) || (accepted.isEmpty && shape == fixed) else {
                throw MLModelError(.featureType, "input '\(name)' has shape \(shape); the model accepts \(accepted.map(\.description).joined(separator: ", "))")
            }
        case .range:
            let bounds = shapeConstraint.sizeRangeForDimension
            guard shape.count == bounds.count, zip(shape, bounds).allSatisfy({ $1.contains($0) }) else {
                let text = bounds.map { "\($0.lowerBound)...\($0.upperBound == Int.max ? "" : String($0.upperBound))" }.joined(separator: ", ")
                throw MLModelError(.featureType, "input '\(name)' has shape \(shape); the model accepts sizes [\(text)]")
            }
        case .unspecified:
            guard fixed.isEmpty || shape == fixed else {
                throw MLModelError(.featureType, "input '\(name)' has shape \(shape); the model expects \(fixed)")
            }
        }
    }
}
