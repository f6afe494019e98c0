/// Keys of `MLModelDescription.metadata`.
public struct MLModelMetadataKey: Hashable, Sendable, RawRepresentable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let author = MLModelMetadataKey(rawValue: "MLModelAuthorKey")
    public static let description = MLModelMetadataKey(rawValue: "MLModelDescriptionKey")
    public static let versionString = MLModelMetadataKey(rawValue: "MLModelVersionStringKey")
    public static let license = MLModelMetadataKey(rawValue: "MLModelLicenseKey")
    /// The model's user-defined `[String: String]` entries.
    public static let creatorDefinedKey = MLModelMetadataKey(rawValue: "MLModelCreatorDefinedKey")
}
