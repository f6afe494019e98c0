/// Training-only parts of a network that the Core ML format cannot express, given to
/// `Network(model:fusingLayers:extras:)` next to the specification:
///
/// - dropout on chosen blobs: a ``DropoutNode`` reads the blob and every later layer reads its
///   output instead. It zeroes each value with probability `rate` in training passes and scales the
///   others by `1 / (1 − rate)`; outside training it copies, so the exported model (which has no
///   such layer) computes what inference computes here.
/// - cross-entropy losses weighted per sequence step: the loss layer's input holds one probability
///   vector per step, its target one class index per step, and the weight blob (a training input
///   the caller fills) one weight per step; see ``WeightedCrossEntropyLossNode``.
package struct TrainingGraphExtras: Sendable {
    /// Dropout rate by the name of the blob it follows (a layer output or a model input).
    package var dropout: [String: Float]
    /// The weight blob by cross-entropy loss layer name.
    package var lossWeights: [String: String]
    /// Seeds the dropout masks (each dropout node draws from its own stream).
    package var seed: UInt64

    package init(dropout: [String: Float] = [:], lossWeights: [String: String] = [:], seed: UInt64 = 0) {
        self.dropout = dropout
        self.lossWeights = lossWeights
        self.seed = seed
    }

    /// The name of the blob that dropout on `blob` writes.
    package static func dropoutOutput(of blob: String) -> String { "\(blob)#dropout" }
}
