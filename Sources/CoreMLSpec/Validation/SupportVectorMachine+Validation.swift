extension CoreML_Specification_Kernel {
    /// A kernel must be chosen, with a finite, non-negative γ, a finite c and a non-negative degree.
    func validate(in context: inout ValidationContext) {
        func check(gamma: Double) {
            if !(gamma >= 0) || !gamma.isFinite { context.fail("the kernel's gamma \(gamma) must be finite and non-negative") }
        }
        func check(c: Double) {
            if !c.isFinite { context.fail("the kernel's c \(c) must be finite") }
        }
        switch kernel {
        case .linearKernel?:
            break
        case .rbfKernel(let rbf)?:
            check(gamma: rbf.gamma)
        case .polyKernel(let poly)?:
            check(gamma: poly.gamma)
            check(c: poly.c)
            if poly.degree < 0 { context.fail("the polynomial kernel's degree \(poly.degree) must be non-negative") }
        case .sigmoidKernel(let sigmoid)?:
            check(gamma: sigmoid.gamma)
            check(c: sigmoid.c)
        case nil:
            context.fail("no kernel is set (linear, RBF, polynomial or sigmoid)")
        }
    }
}

/// The support vectors of either kind of support vector machine, for validation.
enum SupportVectorsForValidation {
    case sparse(CoreML_Specification_SparseSupportVectors)
    case dense(CoreML_Specification_DenseSupportVectors)

    var count: Int {
        switch self {
        case .sparse(let vectors): return vectors.vectors.count
        case .dense(let vectors): return vectors.vectors.count
        }
    }

    /// Dense vectors of equal length, as long as the inputs are wide; sparse indices from 1 to the
    /// inputs' width.
    func validate(inputWidth: Int?, in context: inout ValidationContext) {
        switch self {
        case .dense(let dense):
            guard let first = dense.vectors.first else { return }
            let length = first.values.count
            if let bad = dense.vectors.firstIndex(where: { $0.values.count != length }) {
                context.fail("support vector \(bad) has \(dense.vectors[bad].values.count) values; support vector 0 has \(length)")
            } else if let inputWidth, inputWidth != length {
                context.fail("the support vectors have \(length) values, but the inputs hold \(inputWidth)")
            }
        case .sparse(let sparse):
            for (number, vector) in sparse.vectors.enumerated() {
                if let bad = vector.nodes.first(where: { $0.index < 1 }) {
                    context.fail("support vector \(number) has index \(bad.index); sparse indices count from 1")
                    return
                }
                if let inputWidth, let bad = vector.nodes.first(where: { Int($0.index) > inputWidth }) {
                    context.fail("support vector \(number) has index \(bad.index), past the \(inputWidth) values of the inputs")
                    return
                }
            }
        }
    }
}

extension CoreML_Specification_SupportVectorRegressor {
    /// Core ML's rules: number or multi-array inputs, a regressor interface, a valid kernel,
    /// support vectors and one coefficient per support vector; and (OpenCoreML) support vectors
    /// that fit the inputs' width.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let width = model.validateVectorizableInputs(in: &context)
        model.validateRegressorOutput(in: &context)
        kernel.validate(in: &context)
        let vectors: SupportVectorsForValidation
        switch supportVectors {
        case .sparseSupportVectors(let sparse)?: vectors = .sparse(sparse)
        case .denseSupportVectors(let dense)?: vectors = .dense(dense)
        case nil:
            context.fail("no support vectors are set (sparse or dense)")
            return
        }
        vectors.validate(inputWidth: width, in: &context)
        if coefficients.alpha.count != vectors.count {
            context.fail("there are \(coefficients.alpha.count) coefficients for \(vectors.count) support vectors")
        }
    }
}

extension CoreML_Specification_SupportVectorClassifier {
    /// Core ML's rules: number or multi-array inputs, a classifier interface with class labels, a
    /// valid kernel, support vectors, a support vector count per class summing to the support
    /// vectors, (classes − 1) coefficient rows of one value per support vector, and probA/probB
    /// either empty or one per class pair each; and (OpenCoreML) one rho per class pair and
    /// support vectors that fit the inputs' width.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let width = model.validateVectorizableInputs(in: &context)
        kernel.validate(in: &context)
        let classes = classLabelSet.count
        if classes < 2 {
            context.fail("a support vector classifier needs at least two class labels; it has \(classes)")
            return
        }
        let vectors: SupportVectorsForValidation
        switch supportVectors {
        case .sparseSupportVectors(let sparse)?: vectors = .sparse(sparse)
        case .denseSupportVectors(let dense)?: vectors = .dense(dense)
        case nil:
            context.fail("no support vectors are set (sparse or dense)")
            return
        }
        vectors.validate(inputWidth: width, in: &context)
        if numberOfSupportVectorsPerClass.count != classes {
            context.fail("there are \(numberOfSupportVectorsPerClass.count) support vector counts (numberOfSupportVectorsPerClass) for \(classes) classes")
        } else if let bad = numberOfSupportVectorsPerClass.firstIndex(where: { $0 < 0 }) {
            context.fail("class \(bad) has a negative support vector count (\(numberOfSupportVectorsPerClass[bad]))")
        } else {
            let sum = numberOfSupportVectorsPerClass.reduce(0) { $0 + Int($1) }
            if sum != vectors.count {
                context.fail("the support vector counts per class sum to \(sum), but there are \(vectors.count) support vectors")
            }
        }
        if coefficients.count != classes - 1 {
            context.fail("there are \(coefficients.count) coefficient rows for \(classes) classes; there must be \(classes - 1)")
        }
        if let bad = coefficients.firstIndex(where: { $0.alpha.count != vectors.count }) {
            context.fail("coefficient row \(bad) has \(coefficients[bad].alpha.count) values for \(vectors.count) support vectors")
        }
        let pairs = classes * (classes - 1) / 2
        if rho.count != pairs {
            context.fail("there are \(rho.count) rho values for \(pairs) class pairs")
        }
        if probA.count != probB.count {
            context.fail("probA has \(probA.count) values but probB \(probB.count)")
        } else if !probA.isEmpty && probA.count != pairs {
            context.fail("probA and probB have \(probA.count) values; they need one per class pair (\(pairs))")
        }
        model.validateClassifierOutputs(classLabels: classLabelSet, in: &context)
    }
}
