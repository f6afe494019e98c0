import CoreMLSpec

extension CoreML_Specification_Model {
    /// Runs `body` on the model's neural network (of whichever kind) and stores the result back.
    mutating func editNetwork<T>(_ body: (inout any NeuralNetworkSpecification) throws -> T) throws -> T {
        guard var network = neuralNetworkSpecification else {
            throw ModelToolsError("model", "a \(modelTypeName) model has no neural network to edit")
        }
        let result = try body(&network)
        switch network {
        case let plain as CoreML_Specification_NeuralNetwork: neuralNetwork = plain
        case let classifier as CoreML_Specification_NeuralNetworkClassifier: neuralNetworkClassifier = classifier
        case let regressor as CoreML_Specification_NeuralNetworkRegressor: neuralNetworkRegressor = regressor
        default: break
        }
        return result
    }

    /// Removes the network's update parameters (loss, optimizer, epochs).
    static func clearUpdateParameters(_ network: inout any NeuralNetworkSpecification) {
        switch network {
        case var plain as CoreML_Specification_NeuralNetwork:
            plain.clearUpdateParams()
            network = plain
        case var classifier as CoreML_Specification_NeuralNetworkClassifier:
            classifier.clearUpdateParams()
            network = classifier
        case var regressor as CoreML_Specification_NeuralNetworkRegressor:
            regressor.clearUpdateParams()
            network = regressor
        default:
            break
        }
    }

    /// The network's layers, or an error for models that are not networks.
    func networkLayers() throws -> [CoreML_Specification_NeuralNetworkLayer] {
        guard let network = neuralNetworkSpecification else {
            throw ModelToolsError("model", "a \(modelTypeName) model has no neural network")
        }
        return network.layers
    }

}

extension Array where Element == CoreML_Specification_NeuralNetworkLayer {
    /// The index of the layer named `name`, or an error listing the layers there are.
    func index(ofLayer name: String) throws -> Int {
        guard let index = firstIndex(where: { $0.name == name }) else {
            let names = map(\.name)
            let list = names.count > 12 ? names.prefix(12).joined(separator: ", ") + ", …" : names.joined(separator: ", ")
            throw ModelToolsError("layer '\(name)'", "no layer has this name; the layers are \(list)")
        }
        return index
    }

    /// The index of the layer that writes `blob`, or nil for model inputs.
    func index(producing blob: String) -> Int? {
        lastIndex { $0.output.contains(blob) }
    }
}
