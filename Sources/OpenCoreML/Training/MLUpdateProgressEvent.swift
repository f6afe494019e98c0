/// The moments of an update at which progress handlers are called.
public struct MLUpdateProgressEvent: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let trainingBegin = MLUpdateProgressEvent(rawValue: 1 << 0)
    public static let epochEnd = MLUpdateProgressEvent(rawValue: 1 << 1)
    public static let miniBatchEnd = MLUpdateProgressEvent(rawValue: 1 << 2)
}
