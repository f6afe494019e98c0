extension CoreML_Specification_NonMaximumSuppression {
    /// The first specification version whose suppression takes float32 arrays (iOS 14, Core ML 4);
    /// earlier ones take doubles only.
    static let firstFloat32SpecificationVersion: Int32 = 5

    /// How many rows (kept boxes) the outputs may have, from the output shapes: a fixed count, a
    /// range (`upper` nil when unbounded), or anything (`0...nil`) when no shape is declared.
    public struct OutputRows: Equatable, Sendable {
        public let lower: Int
        public let upper: Int?
    }

    /// The declared shape of a suppression output, reduced to its rows and columns.
    enum OutputShape: Equatable {
        case unspecified
        case fixed(rows: Int64, columns: Int64)
        case range(rows: CoreML_Specification_SizeRange, columns: CoreML_Specification_SizeRange)
        case enumerated
        /// A shape that does not have two dimensions: the rank it has.
        case wrongRank(Int)

        init(_ array: CoreML_Specification_ArrayFeatureType) {
            switch array.shapeFlexibility {
            case .shapeRange(let range)?:
                let sizes = range.sizeRanges
                self = !array.shape.isEmpty ? .wrongRank(-1) : sizes.count == 2 ? .range(rows: sizes[0], columns: sizes[1]) : .wrongRank(sizes.count)
            case .enumeratedShapes(let shapes)?:
                let rank = shapes.shapes.first?.shape.count ?? 0
                self = !array.shape.isEmpty ? .wrongRank(-1) : rank == 2 ? .enumerated : .wrongRank(rank)
            case nil:
                switch array.shape.count {
                case 0: self = .unspecified
                case 2: self = .fixed(rows: array.shape[0], columns: array.shape[1])
                default: self = .wrongRank(array.shape.count)
                }
            }
        }
    }

    /// The rows the outputs allow, read from whichever output declares a shape (validation makes
    /// them agree); nil when a declared size does not fit in `Int`.
    public func outputRows(confidence: CoreML_Specification_ArrayFeatureType, coordinates: CoreML_Specification_ArrayFeatureType) -> OutputRows? {
        for array in [confidence, coordinates] {
            switch OutputShape(array) {
            case .fixed(let rows, _):
                guard let rows = checkedSize(rows) else { return nil }
                return OutputRows(lower: rows, upper: rows)
            case .range(let rows, _):
                guard let lower = checkedSize(rows.lowerBound) else { return nil }
                if rows.upperBound < 0 { return OutputRows(lower: lower, upper: nil) }
                guard let upper = checkedSize(rows.upperBound) else { return nil }
                return OutputRows(lower: lower, upper: upper)
            default:
                continue
            }
        }
        return OutputRows(lower: 0, upper: nil)
    }

    /// Core ML's rules: every input and output is one the model names; confidence and coordinates
    /// are multi-arrays of one element type (double, or float32 from specification version 5); the
    /// threshold inputs are doubles; the thresholds are in range; declared output shapes have two
    /// dimensions, agree on the rows, and have as many columns as there are class labels.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        let inputNames = [confidenceInputFeatureName, coordinatesInputFeatureName, iouThresholdInputFeatureName, confidenceThresholdInputFeatureName]
        for input in description.input where !inputNames.contains(input.name) {
            context.fail("is not one of the inputs the suppression names (confidence, coordinates, iouThreshold, confidenceThreshold)", at: "input '\(input.name)'")
        }
        let outputNames = [confidenceOutputFeatureName, coordinatesOutputFeatureName]
        for output in description.output where !outputNames.contains(output.name) {
            context.fail("is not one of the outputs the suppression names (confidence, coordinates)", at: "output '\(output.name)'")
        }
        func feature(_ name: String, in features: [CoreML_Specification_FeatureDescription], field: String) -> CoreML_Specification_FeatureDescription? {
            guard let feature = features.first(where: { $0.name == name }) else {
                let kind = field.hasSuffix("OutputFeatureName") ? "outputs" : "inputs"
                context.fail("the feature '\(name)' named by \(field) is not among the model's \(kind)")
                return nil
            }
            return feature
        }
        func array(_ feature: CoreML_Specification_FeatureDescription?, kind: String) -> CoreML_Specification_ArrayFeatureType? {
            guard let feature else { return nil }
            guard case .multiArrayType(let array)? = feature.type.type else {
                context.fail("must be a multi-array", at: "\(kind) '\(feature.name)'")
                return nil
            }
            return array
        }
        let confidenceIn = array(feature(confidenceInputFeatureName, in: description.input, field: "confidenceInputFeatureName"), kind: "input")
        let coordinatesIn = array(feature(coordinatesInputFeatureName, in: description.input, field: "coordinatesInputFeatureName"), kind: "input")
        let confidenceOut = array(feature(confidenceOutputFeatureName, in: description.output, field: "confidenceOutputFeatureName"), kind: "output")
        let coordinatesOut = array(feature(coordinatesOutputFeatureName, in: description.output, field: "coordinatesOutputFeatureName"), kind: "output")
        for (name, field) in [(iouThresholdInputFeatureName, "iouThresholdInputFeatureName"), (confidenceThresholdInputFeatureName, "confidenceThresholdInputFeatureName")]
        where !name.isEmpty {
            guard let input = feature(name, in: description.input, field: field) else { continue }
            if case .doubleType? = input.type.type {} else {
                context.fail("must be a double", at: "input '\(name)'")
            }
        }
        if !(iouThreshold >= 0 && iouThreshold <= 1) {
            context.fail("iouThreshold \(iouThreshold) must be between 0 and 1")
        }
        if !(confidenceThreshold >= 0) {
            context.fail("confidenceThreshold \(confidenceThreshold) must not be negative (0 keeps every box)")
        }
        guard let confidenceIn, let coordinatesIn, let confidenceOut, let coordinatesOut else { return }

        let types = [confidenceIn, confidenceOut, coordinatesIn, coordinatesOut].map(\.dataType)
        if Set(types).count != 1 {
            context.fail("the confidence and coordinates inputs and outputs must have one element type; they have \(types)")
        } else if model.specificationVersion >= Self.firstFloat32SpecificationVersion {
            if types[0] != .double && types[0] != .float32 {
                context.fail("confidence and coordinates must be double or float32 multi-arrays, not \(types[0])")
            }
        } else if types[0] != .double {
            context.fail("confidence and coordinates must be double multi-arrays before specification version \(Self.firstFloat32SpecificationVersion) (this model has \(model.specificationVersion))")
        }

        let shapes = [(confidenceOutputFeatureName, OutputShape(confidenceOut)), (coordinatesOutputFeatureName, OutputShape(coordinatesOut))]
        for (name, shape) in shapes {
            if case .wrongRank = shape {
                context.fail("a declared shape must have two dimensions (boxes, values), as shape or as allowed shapes", at: "output '\(name)'")
            }
        }
        switch (shapes[0].1, shapes[1].1) {
        case (.fixed(let a, _), .fixed(let b, _)) where a != b:
            context.fail("the confidence and coordinates outputs must have the same number of rows (\(a) and \(b))")
        case (.range(let a, _), .range(let b, _)) where a.lowerBound != b.lowerBound || a.upperBound != b.upperBound:
            context.fail("the confidence and coordinates outputs must allow the same range of rows")
        case (.fixed, .range), (.range, .fixed):
            context.fail("the confidence and coordinates outputs cannot mix a fixed shape and allowed shapes")
        default:
            break
        }
        for (name, shape) in shapes where shape == .enumerated {
            context.fail("the suppression's output shapes may be flexible only as ranges, not enumerated shapes", at: "output '\(name)'")
        }
        for (_, shape) in shapes {
            if case .range(let rows, _) = shape, rows.upperBound >= 0, Int64(clamping: rows.lowerBound) > rows.upperBound {
                context.fail("the rows' range \(rows.lowerBound)...\(rows.upperBound) is empty")
            }
        }
        let labels = classLabelSet.count
        if labels > 0 {
            switch shapes[0].1 {
            case .fixed(_, let columns) where columns != labels:
                context.fail("has \(columns) columns, but there are \(labels) class labels", at: "output '\(confidenceOutputFeatureName)'")
            case .range(_, let columns) where UInt64(labels) < columns.lowerBound || (columns.upperBound >= 0 && labels > columns.upperBound):
                context.fail("allows \(columns.lowerBound)...\(columns.upperBound) columns, but there are \(labels) class labels",
                             at: "output '\(confidenceOutputFeatureName)'")
            default:
                break
            }
        }
    }
}
