import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a GLM regressor: yⱼ = link(wⱼ · x + bⱼ) for each weight row, where x is the
/// model's inputs read as one row (``ClassicInputRows``). One row gives a number, several a
/// multi-array (as the predicted output declares it).
final class GLMRegressorRunner: ModelRunner, @unchecked Sendable {
    private let model: LinearModel
    private let link: LinkFunction
    private let rows: ClassicInputRows
    private let output: CoreML_Specification_FeatureDescription
    private let memoryLimit: Int
    private static let modelName = "the GLM regressor"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .glmRegressor(let glm)? = specification.type else { preconditionFailure("not a GLM regressor") }
        let description = specification.description_p
        try ClassicBatches.checkModelSize(doubles: glm.weights.reduce(0) { $0 &+ $1.value.count }, memoryLimit: memoryLimit, modelName: Self.modelName)
        do { model = try LinearModel(rows: glm.weights.map(\.value), offsets: glm.offset) } catch { throw MLModelError(.generic, "\(Self.modelName): \(error.message)") }
        guard model.outputCount > 0 else { throw MLModelError(.generic, "\(Self.modelName) has no weight rows") }
        switch glm.postEvaluationTransform {
        case .noTransform: link = .identity
        case .logit: link = .logistic
        case .probit: link = .probit
        case .UNRECOGNIZED(let value): throw MLModelError(.generic, "\(Self.modelName) has an unknown post-evaluation transform \(value)")
        }
        rows = try ClassicInputRows(description.input, modelName: Self.modelName, memoryLimit: memoryLimit)
        if let width = rows.declaredWidth, width != model.width {
            throw MLModelError(.featureType, "the inputs of \(Self.modelName) hold \(width) values, but its weight rows have \(model.width)")
        }
        output = try ClassicOutputs.regressorOutput(of: description, modelName: Self.modelName)
        self.memoryLimit = memoryLimit
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var results: [MLFeatureProvider] = []
        results.reserveCapacity(examples.count)
        let outputs = model.outputCount
        try ClassicBatches.forEachChunk(examples, doublesPerExample: model.width + outputs, memoryLimit: memoryLimit,
                                        modelName: Self.modelName) { chunk, first in
            let (values, width) = try rows.read(chunk, firstExample: first)
            guard width == model.width else {
                throw MLModelError(.featureType, "example \(first): the inputs of \(Self.modelName) hold \(width) values, but its weight rows have \(model.width)")
            }
            var scores = values.withUnsafeBufferPointer { model.scores($0, count: chunk.count) }
            for index in scores.indices { scores[index] = link(scores[index]) }
            try scores.withUnsafeBufferPointer { scores in
                for example in 0..<chunk.count {
                    let row = UnsafeBufferPointer(rebasing: scores[(example * outputs)..<((example + 1) * outputs)])
                    let value = try ClassicOutputs.value(row, as: output, modelName: Self.modelName)
                    results.append(MLDictionaryFeatureProvider(featureValues: [output.name: value]))
                }
            }
        }
        return results
    }
}
