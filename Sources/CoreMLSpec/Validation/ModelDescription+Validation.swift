extension CoreML_Specification_ModelDescription {
    /// Names present, unique and typed; array shapes, image sizes and data types well-formed.
    func validateFeatures(specificationVersion: Int32, in context: inout ValidationContext) {
        guard functions.isEmpty else {
            validateFunctions(specificationVersion: specificationVersion, in: &context)
            return
        }
        validateStates(specificationVersion: specificationVersion, in: &context)
        if input.isEmpty && state.isEmpty {  // a stateful model may read only its states
            context.fail("the model has no inputs")
        }
        if output.isEmpty {
            context.fail("the model has no outputs")
        }
        for (kind, features) in [("input", input), ("output", output), ("training input", trainingInput)] {
            var seen = Set<String>()
            for (index, feature) in features.enumerated() {
                let part = context.checkName(feature.name, of: kind, index: index, seen: &seen,
                                             missing: "a feature needs a name", twice: "the name is used by two \(kind)s")
                context.within(part) { context in
                    feature.type.validate(specificationVersion: specificationVersion, needsShape: kind != "output", in: &context)
                }
            }
        }
        // A training input that shares its name with a model input is that input: the same type.
        for feature in trainingInput {
            if let modelInput = input.first(where: { $0.name == feature.name }), !feature.type.isCompatible(with: modelInput.type) {
                context.fail("the model input of this name is \(modelInput.type.summary), but the training input is \(feature.type.summary)",
                             at: "training input '\(feature.name)'")
            }
        }
    }
}

extension CoreML_Specification_FeatureType {
    /// `needsShape`: whether an array must declare a shape (inputs must; Core ML lets an output leave
    /// it out, as ML Programs do for outputs whose shape depends on the data).
    func validate(specificationVersion: Int32, needsShape: Bool = true, in context: inout ValidationContext) {
        switch type {
        case nil:
            context.fail("the feature has no type")
        case .multiArrayType(let array)?:
            array.validate(specificationVersion: specificationVersion, needsShape: needsShape, in: &context)
        case .imageType(let image)?:
            image.validate(specificationVersion: specificationVersion, in: &context)
        case .dictionaryType(let dictionary)?:
            if dictionary.keyType == nil {
                context.fail("a dictionary needs Int64 or String keys")
            }
        default:
            break
        }
    }
}

extension CoreML_Specification_ArrayFeatureType {
    func validate(specificationVersion: Int32, needsShape: Bool = true, in context: inout ValidationContext) {
        switch dataType {
        case .float32, .double, .int32:
            break
        case .float16:
            if specificationVersion < 7 {
                context.fail("FLOAT16 arrays need specification version 7 or later")
            }
        default:
            context.fail("the array's data type is missing or unknown; it must be FLOAT32, DOUBLE, FLOAT16 or INT32")
        }
        if let bad = shape.firstIndex(where: { $0 <= 0 }) {
            context.fail("dimension \(bad) of the shape \(shape) is not positive")
        } else if checkedProduct(shape) == nil {
            context.fail(SizeCheckFailure.product(shape, what: "the shape"))
        }
        if case .enumeratedShapes(let shapes)? = shapeFlexibility,
           let bad = shapes.shapes.first(where: { $0.shape.contains { $0 <= 0 } || checkedProduct($0.shape) == nil })
        {
            context.fail("the enumerated shape \(bad.shape) has a size that is not positive, or more elements than a 64-bit count can hold")
        }
        switch shapeFlexibility {
        case .enumeratedShapes(let shapes)?:
            if shapes.shapes.isEmpty {
                context.fail("the enumerated shapes list is empty")
            } else if !shape.isEmpty && !shapes.shapes.contains(where: { $0.shape == shape }) {
                context.fail("the default shape \(shape) is not among the enumerated shapes")
            }
        case .shapeRange(let ranges)?:
            let bounds = ranges.sizeRanges
            if !shape.isEmpty && bounds.count != shape.count {
                context.fail("the default shape has \(shape.count) dimensions but the shape range has \(bounds.count)")
            }
            for (axis, range) in bounds.enumerated() {
                let lower = Int64(clamping: range.lowerBound)
                if range.upperBound >= 0 && range.upperBound < lower {
                    context.fail("the range of dimension \(axis) (\(lower)...\(range.upperBound)) is empty")
                } else if axis < shape.count
                    && (shape[axis] < lower || (range.upperBound >= 0 && shape[axis] > range.upperBound))
                {
                    context.fail("the default size \(shape[axis]) of dimension \(axis) is outside its range")
                }
            }
        case nil:
            if needsShape && shape.isEmpty && specificationVersion >= 4 {
                context.fail("the array has no shape")
            }
        }
    }
}

extension CoreML_Specification_ImageFeatureType {
    func validate(specificationVersion: Int32, in context: inout ValidationContext) {
        switch colorSpace {
        case .grayscale, .rgb, .bgr:
            break
        case .grayscaleFloat16:
            if specificationVersion < 7 {
                context.fail("GRAYSCALE_FLOAT16 images need specification version 7 or later")
            }
        default:
            context.fail("the image's colour space is missing or unknown")
        }
        if sizeFlexibility == nil && (width <= 0 || height <= 0) {
            context.fail("the image size \(width)×\(height) must be positive")
        } else if checkedProduct([width, height, 4]) == nil {
            context.fail(SizeCheckFailure.product([width, height], what: "the image size"))
        }
    }
}
