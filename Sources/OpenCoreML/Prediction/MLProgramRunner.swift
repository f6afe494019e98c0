import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Runs an ML Program's `main` function (compiled once by the engine's `ProgramPlan`): multi-array
/// and image inputs in, multi-arrays and images out (MLProgramRunner+Images.swift).
final class MLProgramRunner: ModelRunner, @unchecked Sendable {
    let plan: ProgramPlan
    private let outputs: [CoreML_Specification_FeatureDescription]
    /// The shapes each multi-array input accepts, by name.
    private let inputShapes: [String: MLMultiArrayConstraint]
    /// The image inputs, by name (MLProgramRunner+Images.swift).
    private let imageInputs: [String: CoreML_Specification_ImageFeatureType]
    /// The label and probabilities of a program ending in `classify`.
    private let classifier: MLProgramClassifier?
    /// Whether a multi-array output takes its declared shape when that holds as many values as the
    /// program's tensor (a classic network lowered to a program: its blobs have the network's view,
    /// `[C, 1, 1]` for a declared `[C]`, as ``NeuralNetworkRunner`` returns them).
    private let outputsTakeDeclaredShapes: Bool

    /// Compiles the program, its steps and constants reserved from `budget`, which its
    /// predictions draw from too; `customOperations` compute a lowered network's custom layers.
    init(specification: CoreML_Specification_Model, budget: MemoryBudget, loopWorkLimit: Int,
         functionName: String = CoreML_Specification_MILSpec_Program.mainFunctionName, outputsTakeDeclaredShapes: Bool = false,
         customOperations: [String: any CustomOperation] = [:]) throws {
        self.outputsTakeDeclaredShapes = outputsTakeDeclaredShapes
        guard case .mlProgram(let program)? = specification.type else { preconditionFailure("not an ML Program") }
        let (runnable, classifier) = try MLProgramClassifier.split(program, functionName: functionName, description: specification.description_p)
        self.classifier = classifier
        plan = try Self.engine {
            try ProgramPlan(program: runnable, budget: budget, functionName: functionName, loopWorkLimit: loopWorkLimit, customOperations: customOperations)
        }
        outputs = specification.description_p.output
        var shapes: [String: MLMultiArrayConstraint] = [:]
        for input in specification.description_p.input {
            if case .multiArrayType(let array)? = input.type.type { shapes[input.name] = MLMultiArrayConstraint(array) }
        }
        inputShapes = shapes
        imageInputs = Dictionary(specification.description_p.input.compactMap { input in
            FeatureEncoding.imageType(of: input).map { (input.name, $0) }
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The program's inputs from `example`'s multi-arrays.
    private func inputs(_ example: MLFeatureProvider) throws -> [String: MILTensor] {
        var inputs: [String: MILTensor] = [:]
        for name in plan.inputNames {
            if let image = imageInputs[name] {
                inputs[name] = try Self.imageTensor(example.featureValue(for: name), name: name, type: image)
                continue
            }
            guard let array = example.featureValue(for: name)?.multiArrayValue else {
                throw MLModelError(.featureType, "input '\(name)' is missing or not a multi-array")
            }
            try inputShapes[name]?.checkShape(array.shape.map(\.intValue), of: name)
            var values = [Float](repeating: 0, count: array.count)
            values.withUnsafeMutableBufferPointer { array.copyFloats(to: $0.baseAddress!) }
            inputs[name] = MILTensor(shape: array.shape.map(\.intValue), values: values)
        }
        return inputs
    }

    /// `body`, with the engine's errors as Core ML's.
    static func engine<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as EngineError {
            throw MLModelError(.generic, "ML Program: \(error.description)")
        }
    }

    /// Every step's time over `calls` runs of each example (their sum per call), and the most
    /// values the intermediate tensors of the last run held at once.
    func profile(_ examples: [MLFeatureProvider], calls: Int, clock: LayerTimings.Clock) throws -> (steps: [ProgramPlan.StepTiming], peakValues: Int) {
        var steps: [ProgramPlan.StepTiming] = []
        var peak = 0
        for example in examples {
            let inputs = try inputs(example)
            let result = try Self.engine { try plan.profile(inputs, runs: calls, clock: clock) }
            steps = steps.isEmpty ? result.steps : zip(steps, result.steps).map { sum, more in
                var sum = sum
                sum.seconds += more.seconds
                return sum
            }
            peak = max(peak, result.statistics.peakLiveValues)
        }
        return (steps, peak)
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try predictions(examples, state: nil)
    }

    /// The predictions for `examples`, reading and updating `state`'s buffers (see ``run(_:state:)``).
    func predictions(_ examples: [MLFeatureProvider], state: MLState?) throws -> [MLFeatureProvider] {
        try examples.map { example in
            let inputs = try inputs(example)
            let results = try run(inputs, state: state)
            var features: [String: MLFeatureValue] = [:]
            for output in outputs where features[output.name] == nil {  // classify fills both its outputs at once
                if let classified = try classifier?.features(for: output.name, results, modelName: "ML Program") {
                    features.merge(classified) { _, new in new }
                    continue
                }
                guard let tensor = results[output.name] else { continue }
                if case .imageType(let image)? = output.type.type {
                    features[output.name] = try Self.imageOutput(tensor, name: output.name, type: image)
                    continue
                }
                // The declared type, as Core ML returns it (the program computes in float32).
                var dataType = MLMultiArrayDataType.float32
                var shape = tensor.shape.isEmpty ? [1] : tensor.shape
                if case .multiArrayType(let declared)? = output.type.type {
                    if outputsTakeDeclaredShapes, !declared.shape.isEmpty, checkedProduct(declared.shape) == tensor.count {
                        shape = declared.shape.map(Int.init)
                    }
                    switch declared.dataType {
                    case .double: dataType = .double
                    case .float16: dataType = .float16
                    case .int32: dataType = .int32
                    default: break
                    }
                }
                guard !tensor.shape.contains(0) else { throw MLModelError(.generic, "ML Program: output '\(output.name)' is empty (shape \(tensor.shape))") }
                let array = try tensor.values.withUnsafeBufferPointer {
                    try MLMultiArray.make(shape: shape, dataType: dataType, values: $0.baseAddress!)
                }
                features[output.name] = MLFeatureValue(multiArray: array)
            }
            return try MLDictionaryFeatureProvider(dictionary: features)
        }
    }
}
