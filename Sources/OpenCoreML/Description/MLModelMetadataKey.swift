/// Keys of `MLModelDescription.metadata`.
public struct MLModelMetadataKey: Hashable, Sendable, RawRepresentable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The model's author, a `String`.
    public static let author = MLModelMetadataKey(rawValue: "MLModelAuthorKey")
    /// A short description of what the model does, a `String`.
    public static let description = MLModelMetadataKey(rawValue: "MLModelDescriptionKey")
    /// The model's version, a `String`.
    public static let versionString = MLModelMetadataKey(rawValue: "MLModelVersionStringKey")
    /// The terms under which the model may be used, a `String`.
    public static let license = MLModelMetadataKey(rawValue: "MLModelLicenseKey")
    /// The model's user-defined `[String: String]` entries.
    public static let creatorDefinedKey = MLModelMetadataKey(rawValue: "MLModelCreatorDefinedKey")
}
