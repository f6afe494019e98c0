import CoreMLSpec

/// The shapes a multi-array input accepts, as Core ML checks them before predicting: exactly the
/// declared shape, or, for a flexible input, one of its enumerated shapes or a shape of the same
/// rank with every size within its range.
struct ArrayShapeRule {
    let name: String
    let declared: CoreML_Specification_ArrayFeatureType

    /// Throws a feature-type error naming the input when `shape` is not one it accepts.
    func check(_ shape: [Int]) throws {
        let fixed = declared.shape.map(Int.init)
        switch declared.shapeFlexibility {
        case .enumeratedShapes(let shapes)?:
            let accepted = shapes.shapes.map { $0.shape.map(Int.init) }
            guard accepted.contains(shape) || (accepted.isEmpty && shape == fixed) else {
                throw MLModelError(.featureType, "input '\(name)' has shape \(shape); the model accepts \(accepted.map(\.description).joined(separator: ", "))")
            }
        case .shapeRange(let ranges)?:
            let bounds = ranges.sizeRanges.map { (Int(clamping: $0.lowerBound), $0.upperBound < 0 ? Int.max : Int(clamping: $0.upperBound)) }
            let fits = shape.count == bounds.count && zip(shape, bounds).allSatisfy { $1.0 <= $0 && $0 <= $1.1 }
            guard fits else {
                let text = bounds.map { "\($0.0)...\($0.1 == Int.max ? "" : String($0.1))" }.joined(separator: ", ")
                throw MLModelError(.featureType, "input '\(name)' has shape \(shape); the model accepts sizes [\(text)]")
            }
        case nil:
            guard fixed.isEmpty || shape == fixed else {
                throw MLModelError(.featureType, "input '\(name)' has shape \(shape); the model expects \(fixed)")
            }
        }
    }
}
