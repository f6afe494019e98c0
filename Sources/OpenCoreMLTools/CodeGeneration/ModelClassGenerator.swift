import CoreMLSpec
import Foundation

/// Swift source for a model's typed classes, in the shape Xcode generates for an `.mlmodel`:
/// `<Name>` (loading and typed predictions), `<Name>Input` and `<Name>Output` (feature providers with
/// one property per feature) and, for updatable models, `<Name>TrainingInput`.
///
/// ```swift
/// let source = try ModelClassGenerator(model: specification, className: "HealthySnacks").source()
/// ```
///
/// What `opencoreml generate` writes and the `OpenCoreMLCodeGen` build-tool plugin compiles into a
/// target. The code imports `OpenCoreML` (which re-exports Foundation). Differences from Xcode's:
/// `urlOfModelInThisBundle` looks in the target's SwiftPM resource bundle (`Bundle.module`) for
/// `<Name>.mlmodelc`, then `<Name>.mlpackage` (an ML Program; Xcode would have compiled it), then
/// `<Name>.mlmodel` (OpenCoreML loads each); there are no `CGImage`
/// initializers on platforms without Core Graphics.
///
/// Every string in the model is data, never code. The generator guarantees, for any model:
/// - Each feature's property and parameters have a valid Swift identifier of their own
///   (`FeatureIdentifiers`): names that are not identifiers are sanitized (`input.1` → `input_1`),
///   keywords go in backticks (`class` → `` `class` ``), and a name that would clash with another
///   feature, a member of the classes or a name the code uses gets `_` appended (`model` →
///   `model_`, `a.b` → `a_b_` next to `a_b`). The Swift name of a feature never depends on
///   anything but the model, so the same model gives the same file.
/// - Feature names, descriptions and metadata reach the source only as escaped string literals or
///   as comment text that cannot leave its line (`SwiftSourceText`): no line break, control
///   character, bidirectional control or other invisible character is written as is.
/// - Types the code uses are qualified by their module (`OpenCoreML.MLModel`, `Swift.String`,
///   `Foundation.URL`), so a model may be called `MLModel`, `String` or `URL`. Class names that
///   are not identifiers, keywords, and the few names the code cannot qualify (`Swift`,
///   `Foundation`, `OpenCoreML`, `CVPixelBuffer`, ...) are refused with a `ModelToolsError`, as is a
///   feature without a name; nothing else about a valid model makes the generator fail.
public struct ModelClassGenerator: Sendable {
    /// One feature as the generated code sees it.
    struct Feature {
        let name: String
        /// The property's (and parameters') names.
        let names: FeatureIdentifiers.Names
        let type: CoreML_Specification_FeatureType
        let description: String

        var isOptional: Bool { type.isOptional }
        var isImage: Bool { if case .imageType? = type.type { return true } else { return false } }
        /// The property or parameter, as written in a declaration or a call.
        var identifier: String { names.spelling }
        /// The property read from inside its class.
        var member: String { "self.\(names.spelling)" }

        /// The Swift type of the property.
        var swiftType: String {
            switch type.type {
            case .int64Type?: return "Swift.Int64"
            case .doubleType?: return "Swift.Double"
            case .stringType?: return "Swift.String"
            case .multiArrayType?: return "OpenCoreML.MLMultiArray"
            case .imageType?: return "CVPixelBuffer"
            case .dictionaryType(let dictionary)?:
                if case .int64KeyType? = dictionary.keyType { return "[Swift.Int64 : Swift.Double]" }
                return "[Swift.String : Swift.Double]"
            default: return "OpenCoreML.MLFeatureValue"
            }
        }

        /// An expression turning the property `value` into an `MLFeatureValue`.
        func featureValue(of value: String) -> String {
            switch type.type {
            case .int64Type?: return "OpenCoreML.MLFeatureValue(int64: \(value))"
            case .doubleType?: return "OpenCoreML.MLFeatureValue(double: \(value))"
            case .stringType?: return "OpenCoreML.MLFeatureValue(string: \(value))"
            case .multiArrayType?: return "OpenCoreML.MLFeatureValue(multiArray: \(value))"
            case .imageType?: return "OpenCoreML.MLFeatureValue(pixelBuffer: \(value))"
            case .dictionaryType?:
                return "try! OpenCoreML.MLFeatureValue(dictionary: Swift.Dictionary(uniqueKeysWithValues: \(value).map { (Swift.AnyHashable($0.key), Foundation.NSNumber(value: $0.value)) }))"
            default: return value
            }
        }

        /// An expression reading this feature's value out of the `MLFeatureValue` `value`.
        func property(from value: String) -> String {
            switch type.type {
            case .int64Type?: return "\(value).int64Value"
            case .doubleType?: return "\(value).doubleValue"
            case .stringType?: return "\(value).stringValue"
            case .multiArrayType?: return "\(value).multiArrayValue!"
            case .imageType?: return "\(value).imageBufferValue!"
            case .dictionaryType(let dictionary)?:
                let key = { if case .int64KeyType? = dictionary.keyType { return "Swift.Int64" } else { return "Swift.String" } }()
                return "Swift.Dictionary(uniqueKeysWithValues: \(value).dictionaryValue.map { ($0.key.base as! \(key), $0.value.doubleValue) })"
            default: return value
            }
        }
    }

    let model: CoreML_Specification_Model
    /// The class name; the types are `<className>`, `<className>Input`, ...
    public let className: String
    /// The Swift names of the features.
    let identifiers: FeatureIdentifiers

    /// Members of the generated classes; a feature never takes one of these names.
    static let memberNames: Set<String> = [
        "model", "provider", "featureNames", "featureValue", "urlOfModelInThisBundle", "prediction", "predictions", "load",
        "pixelBuffer",
    ]

    /// Names the generated code uses unqualified: the modules that qualify everything else, the
    /// Core Video names that live in different modules on different platforms, and `Bundle`
    /// (SwiftPM's `Bundle.module` accessor uses it unqualified). A class may not be called so, and a
    /// feature's identifier never is.
    static let unqualifiedNames: Set<String> = [
        "Swift", "Foundation", "OpenCoreML", "CVPixelBuffer", "kCVPixelFormatType_32BGRA", "kCVPixelFormatType_OneComponent8",
        "Bundle",
    ]

    /// A generator for `model`'s classes named after `className` (a Swift identifier).
    ///
    /// - Throws: `ModelToolsError` when `className` is not an identifier, is a keyword or a name the
    ///   generated code needs (`Swift`, `Foundation`, `OpenCoreML`, `Bundle`, `CVPixelBuffer`, ...),
    ///   or when a feature has no name or two features of one kind have the same name.
    public init(model: CoreML_Specification_Model, className: String) throws {
        let shown = "class name \(SwiftSourceText.stringLiteral(className))"
        guard SwiftIdentifier.isIdentifier(className), !SwiftIdentifier.keywords.contains(className) else {
            throw ModelToolsError(shown, "not a Swift type name (a letter or _, then letters, digits and _; not a keyword)")
        }
        guard !Self.unqualifiedNames.contains(className) else {
            throw ModelToolsError(shown, "the generated code needs '\(className)' for what Swift or SwiftPM call so; choose another class name")
        }
        self.model = model
        self.className = className
        var features: [(name: String, kind: String, isImage: Bool)] = []
        let description = model.description_p
        for (kind, list) in [("input", description.input), ("output", description.output), ("training input", description.trainingInput)] {
            var seen: Set<String> = []
            for (index, feature) in list.enumerated() {
                if !feature.name.isEmpty, !seen.insert(feature.name).inserted {
                    throw ModelToolsError("\(kind) \(SwiftSourceText.stringLiteral(feature.name))", "two \(kind)s have this name")
                }
                let isImage = { if case .imageType? = feature.type.type { return true } else { return false } }()
                features.append((feature.name, "\(kind) #\(index + 1)", isImage))
            }
        }
        let classes = ["", "Input", "Output", "TrainingInput"].map { className + $0 }
        identifiers = try FeatureIdentifiers(features: features, reserved: Self.memberNames.union(Self.unqualifiedNames).union(classes))
    }

    /// The class name Xcode would choose for a model file: its base name, with characters that
    /// cannot be in an identifier replaced by `_` (and `Model_` in front of a leading digit).
    public static func className(forModelAt url: URL) -> String {
        let base = url.deletingPathExtension().lastPathComponent
        let name = SwiftIdentifier.sanitized(base)
        return base.first?.isNumber == true || base.isEmpty ? "Model_" + name.drop { $0 == "_" } : name
    }

    var inputs: [Feature] { features(model.description_p.input) }
    var outputs: [Feature] { features(model.description_p.output) }
    var trainingInputs: [Feature] { features(model.description_p.trainingInput) }

    private func features(_ descriptions: [CoreML_Specification_FeatureDescription]) -> [Feature] {
        descriptions.map { Feature(name: $0.name, names: identifiers[$0.name], type: $0.type, description: $0.shortDescription) }
    }

    /// The whole file.
    public func source() -> String {
        var parts = [header()]
        parts.append(providerClass(name: "\(className)Input", role: "inputs", features: inputs))
        parts.append(outputClass())
        if model.isUpdatable, !trainingInputs.isEmpty {
            parts.append(providerClass(name: "\(className)TrainingInput", role: "training inputs", features: trainingInputs))
        }
        parts.append(modelClass())
        return parts.joined(separator: "\n\n") + "\n"
    }

    private func header() -> String {
        let metadata = model.description_p.metadata
        var lines = [
            "// \(className).swift",
            "//",
            "// Generated by OpenCoreML's code generator (`opencoreml generate` or the OpenCoreMLCodeGen plugin).",
            "// Do not edit: it is written anew from the model whenever the model changes.",
        ]
        if !metadata.shortDescription.isEmpty { lines.append("//\n// Model: \(SwiftSourceText.lineComment(metadata.shortDescription))") }
        if !metadata.author.isEmpty { lines.append("// Author: \(SwiftSourceText.lineComment(metadata.author))") }
        if !metadata.license.isEmpty { lines.append("// License: \(SwiftSourceText.lineComment(metadata.license))") }
        lines.append("\nimport OpenCoreML")
        return lines.joined(separator: "\n")
    }

    /// An input (or training-input) class: stored properties, the provider methods, initializers.
    private func providerClass(name: String, role: String, features: [Feature]) -> String {
        var body: [String] = []
        for feature in features {
            body.append(documentation(feature, indent: "    "))
            body.append("    var \(feature.identifier): \(feature.swiftType)\(feature.isOptional ? "?" : "")")
            body.append("")
        }
        body.append("    var featureNames: Swift.Set<Swift.String> { [\(features.map { quoted($0.name) }.joined(separator: ", "))] }")
        body.append("")
        body.append("    func featureValue(for featureName: Swift.String) -> OpenCoreML.MLFeatureValue? {")
        for feature in features {
            if feature.isOptional {
                body.append("        if featureName == \(quoted(feature.name)) { return \(feature.member).map { \(feature.featureValue(of: "$0")) } }")
            } else {
                body.append("        if featureName == \(quoted(feature.name)) { return \(feature.featureValue(of: feature.member)) }")
            }
        }
        body.append("        return nil")
        body.append("    }")
        body.append("")
        let parameters = features.map { "\($0.identifier): \($0.swiftType)\($0.isOptional ? "? = nil" : "")" }.joined(separator: ", ")
        body.append("    init(\(parameters)) {")
        for feature in features { body.append("        \(feature.member) = \(feature.identifier)") }
        body.append("    }")
        let images = features.filter(\.isImage)
        if !images.isEmpty {
            body.append("")
            body.append("    /// The same, with each image read from a JPEG or PNG file and scaled to the model's size.")
            let urlParameters = features.map { feature -> String in
                if feature.isImage { return "\(feature.names.urlLabel) \(feature.identifier): Foundation.URL" }
                return "\(feature.identifier): \(feature.swiftType)\(feature.isOptional ? "? = nil" : "")"
            }.joined(separator: ", ")
            body.append("    convenience init(\(urlParameters)) throws {")
            let arguments = features.map { feature -> String in
                if case .imageType(let image)? = feature.type.type { return "\(feature.identifier): try \(name).pixelBuffer(\(feature.identifier), \(pixelArguments(image)))" }
                return "\(feature.identifier): \(feature.identifier)"
            }.joined(separator: ", ")
            body.append("        self.init(\(arguments))")
            body.append("    }")
            for feature in images {
                guard case .imageType(let image)? = feature.type.type else { continue }
                body.append("")
                body.append("    /// Replaces \(SwiftSourceText.docCode(feature.names.identifier)) with the picture in a JPEG or PNG file, scaled to the model's size.")
                body.append("    func \(feature.names.setter)(with url: Foundation.URL) throws {")
                body.append("        \(feature.member) = try \(name).pixelBuffer(url, \(pixelArguments(image)))")
                body.append("    }")
            }
            body.append("")
            body.append("    private static func pixelBuffer(_ url: Foundation.URL, width: Swift.Int, height: Swift.Int, format: Swift.UInt32) throws -> CVPixelBuffer {")
            body.append("        try OpenCoreML.MLFeatureValue(imageAt: url, pixelsWide: width, pixelsHigh: height, pixelFormatType: format, options: nil).imageBufferValue!")
            body.append("    }")
        }
        return """
            /// The \(role) of `\(className)`.
            class \(name): OpenCoreML.MLFeatureProvider {
            \(body.joined(separator: "\n"))
            }
            """
    }

    private func pixelArguments(_ image: CoreML_Specification_ImageFeatureType) -> String {
        let format = image.colorSpace == .grayscale || image.colorSpace == .grayscaleFloat16
            ? "kCVPixelFormatType_OneComponent8" : "kCVPixelFormatType_32BGRA"
        return "width: \(image.width), height: \(image.height), format: \(format)"
    }

    private func outputClass() -> String {
        var body = ["    private let provider: OpenCoreML.MLFeatureProvider", ""]
        for feature in outputs {
            body.append(documentation(feature, indent: "    "))
            body.append("    var \(feature.identifier): \(feature.swiftType) {")
            body.append("        \(feature.property(from: "self.provider.featureValue(for: \(quoted(feature.name)))!"))")
            body.append("    }")
            body.append("")
        }
        body.append("    var featureNames: Swift.Set<Swift.String> { self.provider.featureNames }")
        body.append("")
        body.append("    func featureValue(for featureName: Swift.String) -> OpenCoreML.MLFeatureValue? { self.provider.featureValue(for: featureName) }")
        body.append("")
        let parameters = outputs.map { "\($0.identifier): \($0.swiftType)" }.joined(separator: ", ")
        body.append("    init(\(parameters)) {")
        let values = outputs.map { "\(quoted($0.name)): \($0.featureValue(of: $0.identifier))" }.joined(separator: ", ")
        body.append("        self.provider = OpenCoreML.MLDictionaryFeatureProvider(featureValues: [\(values.isEmpty ? ":" : values)])")
        body.append("    }")
        body.append("")
        body.append("    init(features: OpenCoreML.MLFeatureProvider) {")
        body.append("        self.provider = features")
        body.append("    }")
        return """
            /// The outputs of `\(className)`.
            class \(className)Output: OpenCoreML.MLFeatureProvider {
            \(body.joined(separator: "\n"))
            }
            """
    }

    private func modelClass() -> String {
        let name = className
        let typedParameters = inputs.map { "\($0.identifier): \($0.swiftType)\($0.isOptional ? "? = nil" : "")" }.joined(separator: ", ")
        let typedArguments = inputs.map { "\($0.identifier): \($0.identifier)" }.joined(separator: ", ")
        let description = model.description_p.metadata.shortDescription
        return """
            /// \(description.isEmpty ? "The `\(name)` model." : SwiftSourceText.docComment(description))
            class \(name) {
                /// The model itself, for what the typed methods do not cover.
                let model: OpenCoreML.MLModel

                /// The model in this target's resource bundle: `\(name).mlmodelc`, else `\(name).mlpackage`, else `\(name).mlmodel`.
                class var urlOfModelInThisBundle: Foundation.URL {
                    Foundation.Bundle.module.url(forResource: \(quoted(name)), withExtension: "mlmodelc")
                        ?? Foundation.Bundle.module.url(forResource: \(quoted(name)), withExtension: "mlpackage")
                        ?? Foundation.Bundle.module.url(forResource: \(quoted(name)), withExtension: "mlmodel")!
                }

                init(model: OpenCoreML.MLModel) {
                    self.model = model
                }

                @available(*, deprecated, message: "Use init(configuration:) instead and handle errors appropriately.")
                convenience init() {
                    try! self.init(contentsOf: Self.urlOfModelInThisBundle)
                }

                convenience init(configuration: OpenCoreML.MLModelConfiguration) throws {
                    try self.init(contentsOf: Self.urlOfModelInThisBundle, configuration: configuration)
                }

                convenience init(contentsOf modelURL: Foundation.URL) throws {
                    try self.init(model: OpenCoreML.MLModel(contentsOf: modelURL))
                }

                convenience init(contentsOf modelURL: Foundation.URL, configuration: OpenCoreML.MLModelConfiguration) throws {
                    try self.init(model: OpenCoreML.MLModel(contentsOf: modelURL, configuration: configuration))
                }

                class func load(
                    configuration: OpenCoreML.MLModelConfiguration = OpenCoreML.MLModelConfiguration(),
                    completionHandler handler: @escaping @Sendable (Swift.Result<\(name), Swift.Error>) -> Swift.Void
                ) {
                    Self.load(contentsOf: Self.urlOfModelInThisBundle, configuration: configuration, completionHandler: handler)
                }

                class func load(configuration: OpenCoreML.MLModelConfiguration = OpenCoreML.MLModelConfiguration()) async throws -> \(name) {
                    try await Self.load(contentsOf: Self.urlOfModelInThisBundle, configuration: configuration)
                }

                class func load(
                    contentsOf modelURL: Foundation.URL, configuration: OpenCoreML.MLModelConfiguration = OpenCoreML.MLModelConfiguration(),
                    completionHandler handler: @escaping @Sendable (Swift.Result<\(name), Swift.Error>) -> Swift.Void
                ) {
                    OpenCoreML.MLModel.load(contentsOf: modelURL, configuration: configuration) { result in
                        handler(result.map { \(name)(model: $0) })
                    }
                }

                class func load(contentsOf modelURL: Foundation.URL, configuration: OpenCoreML.MLModelConfiguration = OpenCoreML.MLModelConfiguration()) async throws -> \(name) {
                    \(name)(model: try await OpenCoreML.MLModel.load(contentsOf: modelURL, configuration: configuration))
                }

                func prediction(input: \(name)Input) throws -> \(name)Output {
                    try self.prediction(input: input, options: OpenCoreML.MLPredictionOptions())
                }

                func prediction(input: \(name)Input, options: OpenCoreML.MLPredictionOptions) throws -> \(name)Output {
                    \(name)Output(features: try self.model.prediction(from: input, options: options))
                }

                func prediction(\(typedParameters)) throws -> \(name)Output {
                    try self.prediction(input: \(name)Input(\(typedArguments)))
                }

                func predictions(inputs: [\(name)Input], options: OpenCoreML.MLPredictionOptions = OpenCoreML.MLPredictionOptions()) throws -> [\(name)Output] {
                    let outputs = try self.model.predictions(from: OpenCoreML.MLArrayBatchProvider(array: inputs), options: options)
                    return (0..<outputs.count).map { \(name)Output(features: outputs.features(at: $0)) }
                }
            }
            """
    }

    private func documentation(_ feature: Feature, indent: String) -> String {
        var text = feature.description.isEmpty ? SwiftSourceText.docCode(feature.name) : SwiftSourceText.docComment(feature.description)
        text += " (\(summary(feature.type)))"
        return "\(indent)/// \(text)"
    }

    /// A short description of a feature type, as Xcode's model page shows it.
    private func summary(_ type: CoreML_Specification_FeatureType) -> String {
        switch type.type {
        case .multiArrayType(let array)?:
            let shape = array.shape.map(String.init).joined(separator: " × ")
            return "\(array.dataType) multi-array\(shape.isEmpty ? "" : " of shape \(shape)")"
        case .imageType(let image)?: return "\(image.colorSpace) image, \(image.width) × \(image.height)"
        case .dictionaryType?: return "dictionary of probabilities"
        case .int64Type?: return "integer"
        case .doubleType?: return "double"
        case .stringType?: return "string"
        default: return "feature value"
        }
    }

    private func quoted(_ text: String) -> String {
        SwiftSourceText.stringLiteral(text)
    }
}
