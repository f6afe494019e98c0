/// Names a model parameter: a training hyperparameter, k of a nearest-neighbours classifier, or a
/// layer's weights. `scoped(to:)` narrows a key to one layer or pipeline model.
public final class MLParameterKey: Hashable, Sendable, CustomStringConvertible {
    /// The parameter's name in the model file, such as `learningRate`.
    public let name: String
    /// The layer or model the key applies to; nil for the whole model.
    public let scope: String?

    init(_ name: String, scope: String? = nil) {
        self.name = name
        self.scope = scope
    }

    /// The same key, applied only to the layer or sub-model named `scope`.
    public func scoped(to scope: String) -> MLParameterKey {
        MLParameterKey(name, scope: scope)
    }

    public static func == (lhs: MLParameterKey, rhs: MLParameterKey) -> Bool {
        lhs.name == rhs.name && lhs.scope == rhs.scope
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(scope)
    }

    /// The name, followed by the scope in parentheses when there is one.
    public var description: String { scope.map { "\(name) (\($0))" } ?? name }

    /// The optimizer's learning rate (`Double`).
    public static let learningRate = MLParameterKey("learningRate")
    /// The momentum of stochastic gradient descent (`Double`).
    public static let momentum = MLParameterKey("momentum")
    /// The number of examples per optimizer step (`Int`).
    public static let miniBatchSize = MLParameterKey("miniBatchSize")
    /// Adam's decay rate of the gradients' moving average (`Double`).
    public static let beta1 = MLParameterKey("beta1")
    /// Adam's decay rate of the squared gradients' moving average (`Double`).
    public static let beta2 = MLParameterKey("beta2")
    /// Adam's epsilon, added to the root of the squared-gradient average (`Double`).
    public static let eps = MLParameterKey("eps")
    /// The number of passes over the training data (`Int`).
    public static let epochs = MLParameterKey("epochs")
    /// Whether the examples are put in a new random order every epoch (`Bool`).
    public static let shuffle = MLParameterKey("shuffle")
    /// The seed of the shuffling order, so that a run repeats exactly (`Int`).
    public static let seed = MLParameterKey("seed")
    /// k, the number of neighbours a k-nearest-neighbours classifier consults (`Int`); OpenCoreML applies
    /// it at prediction time.
    public static let numberOfNeighbors = MLParameterKey("numberOfNeighbors")
    /// A layer's weights; scope it to a layer with ``scoped(to:)``.
    public static let weights = MLParameterKey("weights")
    /// A layer's biases; scope it to a layer with ``scoped(to:)``.
    public static let biases = MLParameterKey("biases")
    /// The file name of a linked model (Core ML's key; OpenCoreML has no linked models).
    public static let linkedModelFileName = MLParameterKey("linkedModelFileName")
    /// Where linked models are searched for (Core ML's key; OpenCoreML has no linked models).
    public static let linkedModelSearchPath = MLParameterKey("linkedModelSearchPath")
}
