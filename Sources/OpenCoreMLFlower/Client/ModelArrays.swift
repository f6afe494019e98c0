import Foundation
import OpenCoreML

/// The arrays a model exchanges with a federation: one per weight blob training changes
/// (``MLModel/updatableWeightKeys``: weights and biases of convolutions and inner products, an
/// LSTM's matrices and vectors, a batch norm's gamma and beta, embeddings, …), named
/// `<layer>.<blob>` (`dense1.weights`, `dense1.bias`, `lstm.inputGateWeightMatrix`), in the
/// model's layer order, as float32 `.npy` in their natural shapes. The Flower app in
/// `Federated/flower-app` reads the same table from the `.mlmodel` file.
///
/// The packed form: one 1-D float32 array named ``packedName`` holding every exchanged array's
/// values (row-major) one after another, in the same order. A record of that form travels as 2
/// objects (the array and one chunk up to 5 MiB) instead of 2 per array, and is read straight into
/// the model's arrays; FedAvg's weighted mean is the same element by element. The client answers
/// in the form it was sent.
enum ModelArrays {
    /// The name of the packed form's one array. No array of the named form has it: those names
    /// always hold a dot.
    static let packedName = "packed"

    /// Whether `arrays` are in the packed form.
    static func isPacked(_ arrays: [(String, FlowerArray)]) -> Bool {
        arrays.count == 1 && arrays[0].0 == packedName
    }

    /// The model's exchanged arrays as one packed array: the `.npy` header, then each array's
    /// float32 values copied straight from the model.
    static func packed(of model: MLModel) throws -> FlowerArray {
        let values = try model.updatableWeightKeys.map { key in
            guard let value = try model.parameterValue(for: key) as? MLMultiArray else {
                throw FlowerClientError.badInstruction("the model's \(name(of: key)) is not an array")
            }
            return value
        }
        let count = values.reduce(0) { $0 + $1.count }
        var data = NumPyArrays.float32Header(shape: [count])
        data.reserveCapacity(data.count + 4 * count)
        for value in values {
            if value.dataType == .float32, value.strides.map(\.intValue) == contiguousStrides(value.shape.map(\.intValue)) {
                value.withUnsafeBufferPointer(ofType: Float.self) { buffer, _ in
                    data.append(UnsafeBufferPointer(rebasing: buffer[0..<value.count]))
                }
            } else {
                value.floatValues().withUnsafeBufferPointer { data.append($0) }
            }
        }
        return FlowerArray(dtype: "float32", shape: [count], stype: FlowerArray.numpyStype, data: data)
    }

    /// The config key under which the app sends ``layoutDigest(of:shapes:)`` of its table with a
    /// packed instruction.
    static let layoutKey = "packed-layout"

    /// The packed form's layout: `name:d0xd1…` of each exchanged array, in order, joined by `;`
    /// (`dense1.weights:24x784;dense1.bias:24`). The packed vector carries no names, so the app and
    /// the client must agree on this: equal-size arrays in another order would be swapped silently.
    static func layout(of model: MLModel, shapes: [[Int]]) -> String {
        zip(model.updatableWeightKeys, shapes).map { key, shape in
            name(of: key) + ":" + shape.map(String.init).joined(separator: "x")
        }.joined(separator: ";")
    }

    /// SHA-256 (lowercase hex) of ``layout(of:shapes:)``, as the app's `weights.layout_digest`.
    static func layoutDigest(of model: MLModel, shapes: [[Int]]) -> String {
        FlowerObject.id(of: Data(layout(of: model, shapes: shapes).utf8))
    }

    /// Refuses a packed layout digest from the app (``layoutKey``) that is not this model's, naming
    /// this model's arrays.
    static func checkLayout(_ layout: String, of model: MLModel, shapes: [[Int]]) throws {
        let ours = layoutDigest(of: model, shapes: shapes)
        guard layout == ours else {
            throw FlowerClientError.badInstruction("array '\(packedName)': the app's layout (config '\(layoutKey)' \(layout.prefix(16))…) is not this model's (\(ours.prefix(16))…): its table and this client's arrays differ in names, shapes or order; this model's arrays: \(self.layout(of: model, shapes: shapes).replacingOccurrences(of: ";", with: ", ")) (the app's run config `packed = false` sends them named, so a mismatch names the array)")
        }
    }

    /// `model` with its exchanged arrays replaced by the values of `packed` (the packed form):
    /// exactly as many float32 (or float16 / float64) values as the model's arrays hold together,
    /// all finite.
    /// `shapes`: the model's ``shapes(of:)`` when the caller holds them (they never change).
    /// `layout`: the app's ``layoutKey`` value, when it sent one; it must be this model's
    /// ``layoutDigest(of:shapes:)``.
    static func applying(packed: FlowerArray, to model: MLModel, shapes known: [[Int]]? = nil, layout: String? = nil) throws -> MLModel {
        guard packed.stype == FlowerArray.numpyStype else {
            throw FlowerClientError.badInstruction("array '\(packedName)' is serialized as '\(packed.stype)'; expected \(FlowerArray.numpyStype)")
        }
        let keys = model.updatableWeightKeys
        let shapes = try known ?? self.shapes(of: model)
        guard shapes.count == keys.count else {
            throw FlowerClientError.badInstruction("array '\(packedName)': \(shapes.count) shapes given for the model's \(keys.count) arrays")
        }
        if let layout { try checkLayout(layout, of: model, shapes: shapes) }
        let counts = shapes.map { $0.reduce(1, *) }
        let total = counts.reduce(0, +)
        guard packed.shape == [total] else {
            throw FlowerClientError.badInstruction("array '\(packedName)' has shape \(packed.shape); the model's \(keys.count) arrays hold \(total) values together (the app's run config `packed = false` sends the arrays named, so a mismatch names the array)")
        }
        try NumPyArrays.check(packed, name: packedName)
        var overrides: [MLParameterKey: Any] = [:]
        do {
            try NumPyArrays.withFloat32Values(packed.data, count: total) { values in
                // [Float] per array: MLModel copies those into the layers as they are (an MLMultiArray
                // would be read back element by element).
                var start = 0
                for (index, key) in keys.enumerated() {
                    overrides[key] = Array(values[start..<(start + counts[index])])
                    start += counts[index]
                }
            }
        } catch let error as FlowerClientError {
            throw error
        } catch {
            throw FlowerClientError.badInstruction("array '\(packedName)': \(error)")
        }
        let configuration = MLModelConfiguration()
        configuration.parameters = overrides
        return try MLModel(specification: model.specification, configuration: configuration)
    }

    /// The shapes of the model's exchanged arrays, in order.
    static func shapes(of model: MLModel) throws -> [[Int]] {
        try model.updatableWeightKeys.map { key -> [Int] in
            guard let current = try model.parameterValue(for: key) as? MLMultiArray else {
                throw FlowerClientError.badInstruction("the model's \(name(of: key)) is not an array")
            }
            return current.shape.map(\.intValue)
        }
    }

    /// Row-major strides of `shape`.
    private static func contiguousStrides(_ shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        for index in shape.indices.dropLast().reversed() { strides[index] = strides[index + 1] * shape[index + 1] }
        return strides
    }

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
    /// other), the same shapes (in each Array and its `.npy` header), float32 / float16 / float64
    /// `.npy` values as each Array's dtype says, all finite (``NumPyArrays/check(_:name:)``).
    static func applying(_ arrays: [(String, FlowerArray)], to model: MLModel) throws -> MLModel {
        let keys = model.updatableWeightKeys
        let byName = Dictionary(keys.map { (name(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
        let given = Set(arrays.map(\.0))
        if let extra = arrays.map(\.0).first(where: { byName[$0] == nil }) {
            if extra == packedName {
                throw FlowerClientError.badInstruction("array '\(packedName)' (the packed form, the app's run config `packed`) came with \(arrays.count - 1) other arrays; the packed form is one array alone, the named form (`packed = false`) the model's \(keys.count) arrays")
            }
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
            let current = try model.parameterValue(for: key) as? MLMultiArray
            let expected = current?.shape.map(\.intValue) ?? []
            let received = array.shape
            guard received == expected else {
                throw FlowerClientError.badInstruction("array '\(name)' has shape \(received); the model's is \(expected)")
            }
            try NumPyArrays.check(array, name: name)
            do {
                overrides[key] = try NumPyArrays.multiArray(array.data)
            } catch {
                throw FlowerClientError.badInstruction("array '\(name)': \(error)")
            }
        }
        let configuration = MLModelConfiguration()
        configuration.parameters = overrides
        return try MLModel(specification: model.specification, configuration: configuration)
    }
}
