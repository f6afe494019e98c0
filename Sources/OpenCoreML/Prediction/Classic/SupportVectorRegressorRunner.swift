import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a support vector regressor (LIBSVM's ε-SVR and ν-SVR): f(x) = Σᵢ αᵢ·K(x, svᵢ) − ρ,
/// where x is the model's inputs read as one row and a sparse support vector's index i (from 1)
/// is the row's value i − 1.
final class SupportVectorRegressorRunner: ModelRunner, @unchecked Sendable {
    private let loader: SupportVectorMachineLoader
    private let regression: SupportVectorRegression
    private let rows: ClassicInputRows
    private let output: CoreML_Specification_FeatureDescription
    private let memoryLimit: Int
    private static let modelName = "the support vector regressor"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .supportVectorRegressor(let svm)? = specification.type else { preconditionFailure("not a support vector regressor") }
        let description = specification.description_p
        rows = try ClassicInputRows(description.input, modelName: Self.modelName, memoryLimit: memoryLimit)
        loader = try SupportVectorMachineLoader(kernel: svm.kernel, sparse: svm.sparseVectors, dense: svm.denseVectors,
                                                declaredWidth: rows.declaredWidth, memoryLimit: memoryLimit, modelName: Self.modelName)
        guard svm.coefficients.alpha.count == loader.machine.vectors.count else {
            throw MLModelError(.generic, "\(Self.modelName) has \(svm.coefficients.alpha.count) coefficients for \(loader.machine.vectors.count) support vectors")
        }
        regression = SupportVectorRegression(coefficients: svm.coefficients.alpha, rho: svm.rho)
        output = try ClassicOutputs.regressorOutput(of: description, modelName: Self.modelName)
        self.memoryLimit = memoryLimit
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var results: [MLFeatureProvider] = []
        results.reserveCapacity(examples.count)
        let machine = loader.machine
        let vectorCount = machine.vectors.count
        let perExample = (rows.declaredWidth ?? machine.vectors.requiredWidth) &+ vectorCount
        try ClassicBatches.forEachChunk(examples, doublesPerExample: perExample, memoryLimit: memoryLimit, modelName: Self.modelName) { chunk, first in
            let (values, width) = try rows.read(chunk, firstExample: first)
            try loader.checkWidth(width, example: first)
            let kernel = values.withUnsafeBufferPointer { machine.kernelValues($0, count: chunk.count, width: width) }
            try kernel.withUnsafeBufferPointer { kernel in
                for example in 0..<chunk.count {
                    let value = regression.value(kernelRow: UnsafeBufferPointer(rebasing: kernel[(example * vectorCount)..<((example + 1) * vectorCount)]))
                    let feature = try ClassicOutputs.value(value, as: output, modelName: Self.modelName)
                    results.append(MLDictionaryFeatureProvider(featureValues: [output.name: feature]))
                }
            }
        }
        return results
    }
}
