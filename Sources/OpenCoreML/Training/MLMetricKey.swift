/// Keys of the metrics an update context reports.
///
/// OpenCoreML adds ``trainingAccuracy``. At `.epochEnd`, ``lossValue`` is the mean over the
/// epoch's mini-batches (Core ML reports the last mini-batch's loss); at `.miniBatchEnd` it is the
/// mini-batch's loss.
public final class MLMetricKey: Hashable, Sendable, CustomStringConvertible {
    /// The metric's name, such as `lossValue`.
    public let name: String

    init(_ name: String) { self.name = name }

    /// `Double`: the loss (see the type's notes).
    public static let lossValue = MLMetricKey("lossValue")
    /// `Int`: the epoch, from 0.
    public static let epochIndex = MLMetricKey("epochIndex")
    /// `Int`: the mini-batch within the epoch, from 0.
    public static let miniBatchIndex = MLMetricKey("miniBatchIndex")
    /// `Double` in 0...1, classifiers only (an OpenCoreML addition): the fraction of training
    /// examples classified correctly, over the mini-batch or, at `.epochEnd`, over the epoch.
    public static let trainingAccuracy = MLMetricKey("trainingAccuracy")

    public static func == (lhs: MLMetricKey, rhs: MLMetricKey) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    /// The metric's name.
    public var description: String { name }
}
