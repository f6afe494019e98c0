/// Names a model parameter: a training hyperparameter, k of a nearest-neighbours classifier, or a
/// layer's weights. `scoped(to:)` narrows a key to one layer or pipeline model.
public final class MLParameterKey: Hashable, Sendable, CustomStringConvertible {
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

    public var description: String { scope.map { "\(name) (\($0))" } ?? name }

    public static let learningRate = MLParameterKey("learningRate")
    public static let momentum = MLParameterKey("momentum")
    public static let miniBatchSize = MLParameterKey("miniBatchSize")
    public static let beta1 = MLParameterKey("beta1")
    public static let beta2 = MLParameterKey("beta2")
    public static let eps = MLParameterKey("eps")
    public static let epochs = MLParameterKey("epochs")
    public static let shuffle = MLParameterKey("shuffle")
    public static let seed = MLParameterKey("seed")
    public static let numberOfNeighbors = MLParameterKey("numberOfNeighbors")
    public static let weights = MLParameterKey("weights")
    public static let biases = MLParameterKey("biases")
    public static let linkedModelFileName = MLParameterKey("linkedModelFileName")
    public static let linkedModelSearchPath = MLParameterKey("linkedModelSearchPath")
}
