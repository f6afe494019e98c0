import Foundation
import OpenCoreML

/// The arrays a model exchanges with a federation: one per weight blob training changes
/// (``MLModel/updatableWeightKeys``: weights and biases of convolutions and inner products, an
/// LSTM's matrices and vectors, a batch norm's gamma and beta, embeddings, …), named
/// `<layer>.<blob>` (`dense1.weights`, `dense1.bias`, `lstm.inputGateWeightMatrix`), in the
/// model's layer order, as float32 `.npy` in their natural shapes. The Flower app in
/// `Federated/flower-app` reads the same table from the `.mlmodel` file.
enum ModelArrays {
    /// The array name of a weight key.
    static func name(of key: MLParameterKey) -> String {
        "\(key.scope ?? "").\(key.name == MLParameterKey.biases.name ? "bias" : key.name)"
    }

    /// The model's exchanged arrays, in order.
    static func arrays(of model: MLModel) throws -> [(String, FlowerArray)] {
        try model.updatableWeightKeys.map { key in
            guard let value = try model.parameterValue(for: key) as? MLMultiArray else {
                throw FlowerClientError.badInstruction("the model's \(name(of: key)) is not an array")
            }
            return (name(of: key), FlowerArray(dtype: "float32", shape: value.shape.map(\.intValue), stype: FlowerArray.numpyStype, data: NumPyArrays.data(of: value)))
        }
    }

    /// `model` with its exchanged arrays replaced by `arrays`: the same names (every one, no
    /// other), the same shapes, float32 / float16 / float64 `.npy` values, all finite.
    static func applying(_ arrays: [(String, FlowerArray)], to model: MLModel) throws -> MLModel {
        let keys = model.updatableWeightKeys
        let byName = Dictionary(keys.map { (name(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
        let given = Set(arrays.map(\.0))
        if let extra = arrays.map(\.0).first(where: { byName[$0] == nil }) {
            throw FlowerClientError.badInstruction("array '\(extra)' names no updatable weight of the model (its arrays: \(keys.map(name(of:)).joined(separator: ", ")))")
        }
        if let missing = keys.map(name(of:)).first(where: { !given.contains($0) }) {
            throw FlowerClientError.badInstruction("the server sent no array '\(missing)' (it sent \(arrays.count) arrays; the model exchanges \(keys.count))")
        }
        var overrides: [MLParameterKey: Any] = [:]
        for (name, array) in arrays {
            let key = byName[name]!
            guard array.stype == FlowerArray.numpyStype else {
                throw FlowerClientError.badInstruction("array '\(name)' is serialized as '\(array.stype)'; expected \(FlowerArray.numpyStype)")
            }
            let value: MLMultiArray
            do {
                value = try NumPyArrays.multiArray(array.data)
            } catch {
                throw FlowerClientError.badInstruction("array '\(name)': \(error)")
            }
            let current = try model.parameterValue(for: key) as? MLMultiArray
            let expected = current?.shape.map(\.intValue) ?? []
            let received = array.shape
            guard received == expected else {
                throw FlowerClientError.badInstruction("array '\(name)' has shape \(received); the model's is \(expected)")
            }
            overrides[key] = value
        }
        let configuration = MLModelConfiguration()
        configuration.parameters = overrides
        return try MLModel(specification: model.specification, configuration: configuration)
    }
}
