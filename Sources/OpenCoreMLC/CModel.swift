import COpenCoreML
import CoreMLSpec
import Foundation
import OpenCoreML

/// An `ocm_model`: a loaded model (one function of a multifunction model), compiled for prediction.
final class CModel {
    let model: MLModel

    /// Loads, validates and compiles the model at `path` (its function `functionName`; empty for
    /// the default function).
    init(path: String, functionName: String, memoryLimit: Int64) throws {
        guard memoryLimit >= 0 else { throw CInterfaceError.argument("memory_limit \(memoryLimit) is negative") }
        let configuration = MLModelConfiguration()
        if memoryLimit > 0 { configuration.memoryLimit = Int(clamping: memoryLimit) }
        // The default function first: the file is read once, and an unknown name is told apart.
        var model = try MLModel(contentsOf: URL(fileURLWithPath: path), configuration: configuration)
        let description = model.specification.description_p
        let functions = description.functions.isEmpty ? [CoreML_Specification_MILSpec_Program.mainFunctionName] : description.functions.map(\.name)
        let loaded = description.functions.isEmpty ? CoreML_Specification_MILSpec_Program.mainFunctionName : description.defaultFunctionName
        if !functionName.isEmpty && functionName != loaded {
            guard functions.contains(functionName) else {
                throw CInterfaceError(OCM_ERROR_NOT_FOUND, "\(path): the model has no function '\(functionName)'"
                    + (description.functions.isEmpty ? " (it is not a multifunction model; its function is 'main')" : " (it has \(functions.joined(separator: ", ")))"))
            }
            configuration.functionName = functionName
            // Loaded again from the file, as the Swift path loads it (anything it links stays found).
            model = try MLModel(contentsOf: URL(fileURLWithPath: path), configuration: configuration)
        }
        self.model = model
        try model.prepareForPrediction()
    }

    /// Predicts `examples` together, with `state` for a stateful model (one example only).
    func predict(_ examples: [CFeatures], state: CState?) throws -> [CFeatures] {
        if let state, state.model !== self {
            throw CInterfaceError.argument("the state was made by another model")
        }
        let outputs: [MLFeatureProvider]
        if let state {
            guard examples.count == 1 else { throw CInterfaceError.argument("a state serves one prediction at a time, not a batch") }
            outputs = [try model.prediction(from: examples[0].provider, using: state.state)]
        } else if examples.count == 1 {
            outputs = [try model.prediction(from: examples[0].provider)]
        } else {
            let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: examples.map(\.provider)))
            outputs = (0..<batch.count).map(batch.features(at:))
        }
        return outputs.map { output in
            if let dictionary = output as? MLDictionaryFeatureProvider { return CFeatures(dictionary.dictionary) }
            return CFeatures(Dictionary(uniqueKeysWithValues: output.featureNames.compactMap { name in
                output.featureValue(for: name).map { (name, $0) }
            }))
        }
    }
}

@_cdecl("ocm_model_load")
public func ocmModelLoad(_ path: UnsafePointer<CChar>?, _ functionName: UnsafePointer<CChar>?, _ memoryLimit: Int64,
                         _ error: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    catching(error, failure: nil) {
        let model = try CModel(path: try string(path, "path"), functionName: functionName.map { String(cString: $0) } ?? "",
                               memoryLimit: memoryLimit)
        return Handle<CModel>.retain(model)
    }
}

@_cdecl("ocm_model_free")
public func ocmModelFree(_ model: OpaquePointer?) {
    Handle<CModel>.release(model)
}

@_cdecl("ocm_model_description_json")
public func ocmModelDescriptionJSON(_ model: OpaquePointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> UnsafeMutablePointer<CChar>? {
    catching(error, failure: nil) {
        guard let model else { throw CInterfaceError.argument("model is NULL") }
        // A multifunction model's description is its loaded function's.
        let loaded = Handle<CModel>.borrow(model).model
        return strdup(try DescriptionJSON.text(of: loaded.specification.selectingFunction(loaded.configuration.functionName).model))
    }
}

@_cdecl("ocm_model_predict")
public func ocmModelPredict(_ model: OpaquePointer?, _ inputs: OpaquePointer?, _ state: OpaquePointer?,
                            _ error: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    catching(error, failure: nil) {
        guard let model else { throw CInterfaceError.argument("model is NULL") }
        guard let inputs else { throw CInterfaceError.argument("inputs is NULL") }
        let outputs = try Handle<CModel>.borrow(model).predict([Handle<CFeatures>.borrow(inputs)],
                                                               state: state.map(Handle<CState>.borrow))
        return Handle<CFeatures>.retain(outputs[0])
    }
}

@_cdecl("ocm_model_predict_batch")
public func ocmModelPredictBatch(_ model: OpaquePointer?, _ inputs: UnsafePointer<OpaquePointer?>?, _ count: Int,
                                 _ outputs: UnsafeMutablePointer<OpaquePointer?>?,
                                 _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    status(error) {
        guard let model else { throw CInterfaceError.argument("model is NULL") }
        guard count >= 0 else { throw CInterfaceError.argument("count \(count) is negative") }
        guard count == 0 || (inputs != nil && outputs != nil) else { throw CInterfaceError.argument("inputs or outputs is NULL") }
        let examples = try (0..<count).map { index in
            guard let example = inputs![index] else { throw CInterfaceError.argument("inputs[\(index)] is NULL") }
            return Handle<CFeatures>.borrow(example)
        }
        guard !examples.isEmpty else { return }
        for (index, result) in try Handle<CModel>.borrow(model).predict(examples, state: nil).enumerated() {
            outputs![index] = Handle<CFeatures>.retain(result)
        }
    }
}
