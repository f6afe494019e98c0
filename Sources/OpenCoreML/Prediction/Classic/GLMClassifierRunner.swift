import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a GLM classifier: a linear score per weight row through the logit or probit
/// link, made into class probabilities by the class encoding
/// (``LinearClassifierProbabilities/probabilities(scores:classCount:encoding:link:)``); the
/// predicted label is the most probable class (the first on ties).
final class GLMClassifierRunner: ModelRunner, @unchecked Sendable {
    private let model: LinearModel
    private let link: LinkFunction
    private let encoding: LinearClassEncoding
    private let rows: ClassicInputRows
    private let outputs: ClassifierOutputs
    private let memoryLimit: Int
    private static let modelName = "the GLM classifier"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .glmClassifier(let glm)? = specification.type else { preconditionFailure("not a GLM classifier") }
        let description = specification.description_p
        try ClassicBatches.checkModelSize(doubles: glm.weights.reduce(0) { $0 &+ $1.value.count }, memoryLimit: memoryLimit, modelName: Self.modelName)
        do { model = try LinearModel(rows: glm.weights.map(\.value), offsets: glm.offset) } catch { throw MLModelError(.generic, "\(Self.modelName): \(error.message)") }
        let classes = glm.classLabelSet
        let expectedRows = classes.count == 2 ? 1 : (glm.classEncoding == .referenceClass ? classes.count - 1 : classes.count)
        guard classes.count >= 2, model.outputCount == expectedRows else {
            throw MLModelError(.generic, "\(Self.modelName) has \(model.outputCount) weight rows for \(classes.count) classes")
        }
        switch glm.postEvaluationTransform {
        case .logit: link = .logistic
        case .probit: link = .probit
        case .UNRECOGNIZED(let value): throw MLModelError(.generic, "\(Self.modelName) has an unknown post-evaluation transform \(value)")
        }
        switch glm.classEncoding {
        case .referenceClass: encoding = .referenceClass
        case .oneVsRest: encoding = .oneVsRest
        case .UNRECOGNIZED(let value): throw MLModelError(.generic, "\(Self.modelName) has an unknown class encoding \(value)")
        }
        rows = try ClassicInputRows(description.input, modelName: Self.modelName, memoryLimit: memoryLimit)
        if let width = rows.declaredWidth, width != model.width {
            throw MLModelError(.featureType, "the inputs of \(Self.modelName) hold \(width) values, but its weight rows have \(model.width)")
        }
        outputs = ClassifierOutputs(description: description, classes: classes)
        self.memoryLimit = memoryLimit
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var results: [MLFeatureProvider] = []
        results.reserveCapacity(examples.count)
        let rowCount = model.outputCount
        let classCount = outputs.classes.count
        try ClassicBatches.forEachChunk(examples, doublesPerExample: model.width + rowCount, memoryLimit: memoryLimit,
                                        modelName: Self.modelName) { chunk, first in
            let (values, width) = try rows.read(chunk, firstExample: first)
            guard width == model.width else {
                throw MLModelError(.featureType, "example \(first): the inputs of \(Self.modelName) hold \(width) values, but its weight rows have \(model.width)")
            }
            let scores = values.withUnsafeBufferPointer { model.scores($0, count: chunk.count) }
            try scores.withUnsafeBufferPointer { scores in
                for example in 0..<chunk.count {
                    let row = UnsafeBufferPointer(rebasing: scores[(example * rowCount)..<((example + 1) * rowCount)])
                    let probabilities = LinearClassifierProbabilities.probabilities(scores: row, classCount: classCount, encoding: encoding, link: link)
                    let features = try probabilities.withUnsafeBufferPointer { try outputs.features(scores: $0, modelName: Self.modelName) }
                    results.append(MLDictionaryFeatureProvider(featureValues: features))
                }
            }
        }
        return results
    }
}
