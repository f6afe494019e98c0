import COpenCoreML
import CoreMLSpec
import Foundation
import OpenCoreML

/// An `ocm_model`: a loaded model, compiled for prediction, and the state features it declares.
final class CModel {
    let model: MLModel
    let states: [CoreML_Specification_FeatureDescription]

    /// Loads, validates and compiles the model at `path`.
    init(path: String, functionName: String, memoryLimit: Int64) throws {
        guard memoryLimit >= 0 else { throw CInterfaceError.argument("memory_limit \(memoryLimit) is negative") }
        let configuration = MLModelConfiguration()
        if memoryLimit > 0 { configuration.memoryLimit = Int(clamping: memoryLimit) }
        model = try MLModel(contentsOf: URL(fileURLWithPath: path), configuration: configuration)
        let description = model.specification.description_p
        let isDefault = functionName.isEmpty || functionName == description.defaultFunctionName
            || (description.functions.isEmpty && functionName == CoreML_Specification_MILSpec_Program.mainFunctionName)
        if !isDefault {
            guard description.functions.contains(where: { $0.name == functionName }) else {
                throw CInterfaceError(OCM_ERROR_NOT_FOUND, "\(path): the model has no function '\(functionName)'"
                    + (description.functions.isEmpty ? " (it is not a multifunction model; its function is 'main')" : ""))
            }
            throw CInterfaceError(OCM_ERROR_UNSUPPORTED, "\(path): function '\(functionName)': OpenCoreML runs only the default function of a multifunction model")
        }
        states = description.state
        try model.prepareForPrediction()
    }

    /// Predicts `examples` together, with `state` for a stateful model.
    func predict(_ examples: [CFeatures], state: CState?) throws -> [CFeatures] {
        if let state, state.model !== self {
            throw CInterfaceError.argument("the state was made by another model")
        }
        if !states.isEmpty {
            let names = states.map { "'\($0.name)'" }.joined(separator: ", ")
            throw CInterfaceError(OCM_ERROR_UNSUPPORTED, "the model reads and writes states (\(names)); OpenCoreML does not run stateful models yet")
        }
        let outputs: [MLFeatureProvider]
        if examples.count == 1 {
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
        return strdup(try DescriptionJSON.text(of: Handle<CModel>.borrow(model).model.specification))
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
