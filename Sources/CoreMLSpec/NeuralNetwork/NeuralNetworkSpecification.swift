/// What the three neural-network model types (`NeuralNetwork`, `NeuralNetworkClassifier`,
/// `NeuralNetworkRegressor`) have in common, so code can treat them alike.
public protocol NeuralNetworkSpecification: Sendable {
    var layers: [CoreML_Specification_NeuralNetworkLayer] { get set }
    var preprocessing: [CoreML_Specification_NeuralNetworkPreprocessing] { get set }
    var arrayInputShapeMapping: CoreML_Specification_NeuralNetworkMultiArrayShapeMapping { get set }
    var imageInputShapeMapping: CoreML_Specification_NeuralNetworkImageShapeMapping { get set }
    var updateParams: CoreML_Specification_NetworkUpdateParameters { get set }
    var hasUpdateParams: Bool { get }
}

extension CoreML_Specification_NeuralNetwork: NeuralNetworkSpecification {}
extension CoreML_Specification_NeuralNetworkClassifier: NeuralNetworkSpecification {}
extension CoreML_Specification_NeuralNetworkRegressor: NeuralNetworkSpecification {}

extension NeuralNetworkSpecification {
    /// The total number of weights and biases in all layers.
    public var parameterCount: Int {
        layers.reduce(0) { $0 + $1.parameterCount }
    }
}

extension CoreML_Specification_Model {
    /// The neural network inside the model, whichever of the three kinds it is; nil for other models.
    public var neuralNetworkSpecification: (any NeuralNetworkSpecification)? {
        switch type {
        case .neuralNetwork(let network)?: return network
        case .neuralNetworkClassifier(let classifier)?: return classifier
        case .neuralNetworkRegressor(let regressor)?: return regressor
        default: return nil
        }
    }
}

extension CoreML_Specification_NeuralNetworkClassifier {
    /// The class labels, whichever type they have.
    public var classLabelSet: ClassLabelSet {
        switch classLabels {
        case .stringClassLabels(let labels)?: return .strings(labels.vector)
        case .int64ClassLabels(let labels)?: return .int64s(labels.vector)
        case nil: return .none
        }
    }
}

extension CoreML_Specification_Model {
    /// The blob a neural-network classifier reads its class probabilities from: the one
    /// `labelProbabilityLayerName` names (a blob, or a layer whose first output it is), else the
    /// first output of the layer that runs last. Nil for other models, and when no layer can run
    /// last (an input nothing produces, a cycle).
    public var classifierProbabilityBlob: String? {
        guard case .neuralNetworkClassifier(let classifier)? = type else { return nil }
        let layers = classifier.layers
        let named = classifier.labelProbabilityLayerName
        if !named.isEmpty {
            if layers.contains(where: { $0.output.contains(named) }) { return named }
            if let layer = layers.first(where: { $0.name == named }) { return layer.output.first }
        }
        let inputs = Set(description_p.input.map(\.name))
        guard let order = try? CoreML_Specification_NeuralNetworkLayer.dependencyOrder(layers, available: inputs) else { return nil }
        return order.last.flatMap { layers[$0].output.first }
    }
}
