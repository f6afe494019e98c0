import CoreMLSpec
import _OpenCoreMLEngine

/// The engine's support vector machine from a model's kernel and support vectors, checked
/// against the width of the model's input rows.
struct SupportVectorMachineLoader {
    let machine: SupportVectorMachine
    let modelName: String

    /// `sparse` or `dense` is the model's choice of support vectors (nil, nil when it set none).
    init(kernel: CoreML_Specification_Kernel, sparse: CoreML_Specification_SparseSupportVectors?,
         dense: CoreML_Specification_DenseSupportVectors?, declaredWidth: Int?, memoryLimit: Int, modelName: String) throws {
        self.modelName = modelName
        let engineKernel: SupportVectorKernel
        switch kernel.kernel {
        case .linearKernel?: engineKernel = .linear
        case .rbfKernel(let rbf)?: engineKernel = .rbf(gamma: rbf.gamma)
        case .polyKernel(let poly)?: engineKernel = .polynomial(gamma: poly.gamma, c: poly.c, degree: Int(poly.degree))
        case .sigmoidKernel(let sigmoid)?: engineKernel = .sigmoid(gamma: sigmoid.gamma, c: sigmoid.c)
        case nil: throw MLModelError(.generic, "\(modelName) has no kernel")
        }
        let vectors: SupportVectors
        if let dense, let first = dense.vectors.first {
            let width = first.values.count
            try ClassicBatches.checkModelSize(doubles: checkedProduct([dense.vectors.count, width]) ?? .max, memoryLimit: memoryLimit, modelName: modelName)
            var values: [Double] = []
            values.reserveCapacity(dense.vectors.count * width)
            for (number, vector) in dense.vectors.enumerated() {
                guard vector.values.count == width else {
                    throw MLModelError(.generic, "support vector \(number) of \(modelName) has \(vector.values.count) values; support vector 0 has \(width)")
                }
                values.append(contentsOf: vector.values)
            }
            vectors = .dense(values: values, width: width, count: dense.vectors.count)
        } else if let sparse {
            let nodes = sparse.vectors.reduce(0) { $0 &+ $1.nodes.count }
            try ClassicBatches.checkModelSize(doubles: nodes &* 2, memoryLimit: memoryLimit, modelName: modelName)
            var starts = [0]
            var columns: [Int] = []
            var values: [Double] = []
            columns.reserveCapacity(nodes)
            values.reserveCapacity(nodes)
            for (number, vector) in sparse.vectors.enumerated() {
                for node in vector.nodes {
                    guard node.index >= 1 else {
                        throw MLModelError(.generic, "support vector \(number) of \(modelName) has index \(node.index); sparse indices count from 1")
                    }
                    columns.append(Int(node.index) - 1)
                    values.append(node.value)
                }
                starts.append(columns.count)
            }
            vectors = .sparse(starts: starts, columns: columns, values: values)
        } else if dense != nil {
            vectors = .sparse(starts: [0], columns: [], values: [])  // no support vectors at all
        } else {
            throw MLModelError(.generic, "\(modelName) has no support vectors (neither sparse nor dense)")
        }
        machine = SupportVectorMachine(kernel: engineKernel, vectors: vectors)
        if let declaredWidth { try checkWidth(declaredWidth, example: nil) }
    }

    /// Refuses input rows of `width` values that the support vectors do not fit.
    func checkWidth(_ width: Int, example: Int?) throws {
        let place = example.map { "example \($0): " } ?? ""
        switch machine.vectors {
        case .dense(_, let vectorWidth, _) where vectorWidth != width:
            throw MLModelError(.featureType, "\(place)the inputs of \(modelName) hold \(width) values, but its support vectors have \(vectorWidth)")
        case .sparse where machine.vectors.requiredWidth > width:
            throw MLModelError(.featureType, "\(place)the inputs of \(modelName) hold \(width) values, but its support vectors use index \(machine.vectors.requiredWidth)")
        default:
            break
        }
    }
}

extension CoreML_Specification_SupportVectorRegressor {
    var sparseVectors: CoreML_Specification_SparseSupportVectors? {
        if case .sparseSupportVectors(let vectors)? = supportVectors { return vectors }
        return nil
    }

    var denseVectors: CoreML_Specification_DenseSupportVectors? {
        if case .denseSupportVectors(let vectors)? = supportVectors { return vectors }
        return nil
    }
}

extension CoreML_Specification_SupportVectorClassifier {
    var sparseVectors: CoreML_Specification_SparseSupportVectors? {
        if case .sparseSupportVectors(let vectors)? = supportVectors { return vectors }
        return nil
    }

    var denseVectors: CoreML_Specification_DenseSupportVectors? {
        if case .denseSupportVectors(let vectors)? = supportVectors { return vectors }
        return nil
    }
}
