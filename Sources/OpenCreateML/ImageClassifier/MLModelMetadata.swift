import CoreMLSpec
import Foundation

/// Information about a model stored in its Core ML file (Create ML's `MLModelMetadata`): what
/// `write(to:metadata:)` puts in the model's metadata, where `MLModel.modelDescription.metadata`
/// reads it back.
public struct MLModelMetadata: Sendable, Equatable {
    /// The author of the model (`MLModelMetadataKey.author`).
    public var author: String
    /// A short description of the model (`MLModelMetadataKey.description`).
    public var shortDescription: String
    /// The license governing the use of the model (`MLModelMetadataKey.license`).
    public var license: String?
    /// The model's version (`MLModelMetadataKey.versionString`).
    public var version: String
    /// Other entries (`MLModelMetadataKey.creatorDefinedKey`).
    public var additional: [String: String]?

    /// Metadata with Create ML's defaults: the user's full name as author, version "1".
    public init(author: String = NSFullUserName(), shortDescription: String = "A model trained using CreateML for use with CoreML.",
                license: String? = nil, version: String = "1", additional: [String: String]? = nil) {
        self.author = author
        self.shortDescription = shortDescription
        self.license = license
        self.version = version
        self.additional = additional
    }

    /// The Core ML format's metadata message.
    var specification: CoreML_Specification_Metadata {
        var metadata = CoreML_Specification_Metadata()
        metadata.author = author
        metadata.shortDescription = shortDescription
        metadata.license = license ?? ""
        metadata.versionString = version
        metadata.userDefined = additional ?? [:]
        return metadata
    }
}
