import CoreMLSpec

/// A loss layer of an updatable network.
public protocol Loss {
    /// The loss as the format stores it.
    var lossSpecification: CoreML_Specification_LossLayer { get }
}

/// Mean squared error between the blob `input` and the training input `target`.
public struct MSE: Loss, Equatable, Sendable {
    public let name: String
    public let input: String
    public let target: String

    public init(name: String, input: String, target: String) {
        self.name = name
        self.input = input
        self.target = target
    }

    public var lossSpecification: CoreML_Specification_LossLayer {
        var loss = CoreML_Specification_LossLayer()
        loss.name = name
        loss.meanSquaredErrorLossLayer.input = input
        loss.meanSquaredErrorLossLayer.target = target
        return loss
    }
}

/// Categorical cross-entropy between the probabilities `input` (a softmax output) and the class
/// index in the training input `target`.
public struct CategoricalCrossEntropy: Loss, Equatable, Sendable {
    public let name: String
    public let input: String
    public let target: String

    public init(name: String, input: String, target: String) {
        self.name = name
        self.input = input
        self.target = target
    }

    public var lossSpecification: CoreML_Specification_LossLayer {
        var loss = CoreML_Specification_LossLayer()
        loss.name = name
        loss.categoricalCrossEntropyLossLayer.input = input
        loss.categoricalCrossEntropyLossLayer.target = target
        return loss
    }
}
