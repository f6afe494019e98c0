import CoreMLSpec

/// A loss layer of an updatable network.
public protocol Loss {
    /// The loss as the format stores it.
    var lossSpecification: CoreML_Specification_LossLayer { get }
}

/// Mean squared error between the blob `input` and the training input `target`.
public struct MSE: Loss, Equatable, Sendable {
    /// The loss layer's name.
    public let name: String
    /// The blob the loss reads: the network's prediction.
    public let input: String
    /// The training input that holds the true values, of the input's shape.
    public let target: String

    /// A mean-squared-error loss between `input` and `target`.
    public init(name: String, input: String, target: String) {
        self.name = name
        self.input = input
        self.target = target
    }

    /// The loss layer, with its `meanSquaredErrorLossLayer` set.
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
    /// The loss layer's name.
    public let name: String
    /// The blob the loss reads: the softmax output's class probabilities.
    public let input: String
    /// The training input that holds the true class: an int32 class index (or a classifier's label).
    public let target: String

    /// A categorical cross-entropy loss between the probabilities `input` and the class in `target`.
    public init(name: String, input: String, target: String) {
        self.name = name
        self.input = input
        self.target = target
    }

    /// The loss layer, with its `categoricalCrossEntropyLossLayer` set.
    public var lossSpecification: CoreML_Specification_LossLayer {
        var loss = CoreML_Specification_LossLayer()
        loss.name = name
        loss.categoricalCrossEntropyLossLayer.input = input
        loss.categoricalCrossEntropyLossLayer.target = target
        return loss
    }
}
