/// The moments of an update at which progress handlers are called.
public struct MLUpdateProgressEvent: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Once, before the first mini-batch.
    public static let trainingBegin = MLUpdateProgressEvent(rawValue: 1 << 0)
    /// After the last mini-batch of every epoch.
    public static let epochEnd = MLUpdateProgressEvent(rawValue: 1 << 1)
    /// After every mini-batch and its optimizer step.
    public static let miniBatchEnd = MLUpdateProgressEvent(rawValue: 1 << 2)
}
