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
/// initializers on platforms without Core Graphics; feature names that are not Swift identifiers
/// are turned into ones (`input.1` → `input_1`, `class` → `` `class` ``).
public struct ModelClassGenerator: Sendable {
    /// One feature as the generated code sees it.
    struct Feature {
        let name: String
        let identifier: String
        let type: CoreML_Specification_FeatureType
        let description: String

        var isOptional: Bool { type.isOptional }

        /// The Swift type of the property.
        var swiftType: String {
            switch type.type {
            case .int64Type?: return "Int64"
            case .doubleType?: return "Double"
            case .stringType?: return "String"
            case .multiArrayType?: return "MLMultiArray"
            case .imageType?: return "CVPixelBuffer"
            case .dictionaryType(let dictionary)?:
                if case .int64KeyType? = dictionary.keyType { return "[Int64 : Double]" }
                return "[String : Double]"
            default: return "MLFeatureValue"
            }
        }

        /// An expression turning the property `value` into an `MLFeatureValue`.
        func featureValue(of value: String) -> String {
            switch type.type {
            case .int64Type?: return "MLFeatureValue(int64: \(value))"
            case .doubleType?: return "MLFeatureValue(double: \(value))"
            case .stringType?: return "MLFeatureValue(string: \(value))"
            case .multiArrayType?: return "MLFeatureValue(multiArray: \(value))"
            case .imageType?: return "MLFeatureValue(pixelBuffer: \(value))"
            case .dictionaryType?:
                return "try! MLFeatureValue(dictionary: Dictionary(uniqueKeysWithValues: \(value).map { (AnyHashable($0.key), NSNumber(value: $0.value)) }))"
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
                let key = { if case .int64KeyType? = dictionary.keyType { return "Int64" } else { return "String" } }()
                return "Dictionary(uniqueKeysWithValues: \(value).dictionaryValue.map { ($0.key.base as! \(key), $0.value.doubleValue) })"
            default: return value
            }
        }
    }

    let model: CoreML_Specification_Model
    /// The class name; the types are `<className>`, `<className>Input`, ...
    public let className: String

    /// A generator for `model`'s classes named after `className` (a Swift identifier).
    public init(model: CoreML_Specification_Model, className: String) throws {
        guard Self.isIdentifier(className), !Self.keywords.contains(className) else {
            throw ModelToolsError("class name '\(className)'", "not a Swift type name (letters, digits and _, not starting with a digit)")
        }
        self.model = model
        self.className = className
    }

    /// The class name Xcode would choose for a model file: its base name, with characters that
    /// cannot be in an identifier replaced by `_` (and `Model_` in front of a leading digit).
    public static func className(forModelAt url: URL) -> String {
        let base = url.deletingPathExtension().lastPathComponent
        let name = identifier(for: base)
        return base.first?.isNumber == true || base.isEmpty ? "Model" + name : name
    }

    var inputs: [Feature] { features(model.description_p.input) }
    var outputs: [Feature] { features(model.description_p.output) }
    var trainingInputs: [Feature] { features(model.description_p.trainingInput) }

    private func features(_ descriptions: [CoreML_Specification_FeatureDescription]) -> [Feature] {
        descriptions.map { Feature(name: $0.name, identifier: Self.property(for: $0.name), type: $0.type, description: $0.shortDescription) }
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
        if !metadata.shortDescription.isEmpty { lines.append("//\n// Model: \(oneLine(metadata.shortDescription))") }
        if !metadata.author.isEmpty { lines.append("// Author: \(oneLine(metadata.author))") }
        if !metadata.license.isEmpty { lines.append("// License: \(oneLine(metadata.license))") }
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
        body.append("    var featureNames: Set<String> { [\(features.map { quoted($0.name) }.joined(separator: ", "))] }")
        body.append("")
        body.append("    func featureValue(for featureName: String) -> MLFeatureValue? {")
        for feature in features {
            if feature.isOptional {
                body.append("        if featureName == \(quoted(feature.name)) { return \(feature.identifier).map { \(feature.featureValue(of: "$0")) } }")
            } else {
                body.append("        if featureName == \(quoted(feature.name)) { return \(feature.featureValue(of: feature.identifier)) }")
            }
        }
        body.append("        return nil")
        body.append("    }")
        body.append("")
        let parameters = features.map { "\($0.identifier): \($0.swiftType)\($0.isOptional ? "? = nil" : "")" }.joined(separator: ", ")
        body.append("    init(\(parameters)) {")
        for feature in features { body.append("        self.\(feature.identifier) = \(feature.identifier)") }
        body.append("    }")
        let images = features.filter { if case .imageType? = $0.type.type { return true } else { return false } }
        if !images.isEmpty {
            body.append("")
            body.append("    /// The same, with each image read from a JPEG or PNG file and scaled to the model's size.")
            let urlParameters = features.map { feature -> String in
                if case .imageType? = feature.type.type { return "\(feature.identifier)At \(feature.identifier): URL" }
                return "\(feature.identifier): \(feature.swiftType)\(feature.isOptional ? "? = nil" : "")"
            }.joined(separator: ", ")
            body.append("    convenience init(\(urlParameters)) throws {")
            let arguments = features.map { feature -> String in
                if case .imageType(let image)? = feature.type.type { return "\(feature.identifier): try Self.pixelBuffer(\(feature.identifier), \(pixelArguments(image)))" }
                return "\(feature.identifier): \(feature.identifier)"
            }.joined(separator: ", ")
            body.append("        self.init(\(arguments))")
            body.append("    }")
            for feature in images {
                guard case .imageType(let image)? = feature.type.type else { continue }
                let setter = "set" + feature.identifier.prefix(1).uppercased() + feature.identifier.dropFirst()
                body.append("")
                body.append("    /// Replaces `\(feature.identifier)` with the picture in a JPEG or PNG file, scaled to the model's size.")
                body.append("    func \(setter)(with url: URL) throws {")
                body.append("        \(feature.identifier) = try Self.pixelBuffer(url, \(pixelArguments(image)))")
                body.append("    }")
            }
            body.append("")
            body.append("    private static func pixelBuffer(_ url: URL, width: Int, height: Int, format: OSType) throws -> CVPixelBuffer {")
            body.append("        try MLFeatureValue(imageAt: url, pixelsWide: width, pixelsHigh: height, pixelFormatType: format, options: nil).imageBufferValue!")
            body.append("    }")
        }
        return """
            /// The \(role) of `\(className)`.
            class \(name): MLFeatureProvider {
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
        var body = ["    private let provider: MLFeatureProvider", ""]
        for feature in outputs {
            body.append(documentation(feature, indent: "    "))
            body.append("    var \(feature.identifier): \(feature.swiftType) {")
            body.append("        \(feature.property(from: "provider.featureValue(for: \(quoted(feature.name)))!"))")
            body.append("    }")
            body.append("")
        }
        body.append("    var featureNames: Set<String> { provider.featureNames }")
        body.append("")
        body.append("    func featureValue(for featureName: String) -> MLFeatureValue? { provider.featureValue(for: featureName) }")
        body.append("")
        let parameters = outputs.map { "\($0.identifier): \($0.swiftType)" }.joined(separator: ", ")
        body.append("    init(\(parameters)) {")
        let values = outputs.map { "\(quoted($0.name)): \($0.featureValue(of: $0.identifier))" }.joined(separator: ", ")
        body.append("        provider = MLDictionaryFeatureProvider(featureValues: [\(values.isEmpty ? ":" : values)])")
        body.append("    }")
        body.append("")
        body.append("    init(features: MLFeatureProvider) {")
        body.append("        provider = features")
        body.append("    }")
        return """
            /// The outputs of `\(className)`.
            class \(className)Output: MLFeatureProvider {
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
            /// \(description.isEmpty ? "The `\(name)` model." : oneLine(description))
            class \(name) {
                /// The model itself, for what the typed methods do not cover.
                let model: MLModel

                /// The model in this target's resource bundle: `\(name).mlmodelc`, else `\(name).mlpackage`, else `\(name).mlmodel`.
                class var urlOfModelInThisBundle: URL {
                    Bundle.module.url(forResource: \(quoted(name)), withExtension: "mlmodelc")
                        ?? Bundle.module.url(forResource: \(quoted(name)), withExtension: "mlpackage")
                        ?? Bundle.module.url(forResource: \(quoted(name)), withExtension: "mlmodel")!
                }

                init(model: MLModel) {
                    self.model = model
                }

                @available(*, deprecated, message: "Use init(configuration:) instead and handle errors appropriately.")
                convenience init() {
                    try! self.init(contentsOf: type(of: self).urlOfModelInThisBundle)
                }

                convenience init(configuration: MLModelConfiguration) throws {
                    try self.init(contentsOf: type(of: self).urlOfModelInThisBundle, configuration: configuration)
                }

                convenience init(contentsOf modelURL: URL) throws {
                    try self.init(model: MLModel(contentsOf: modelURL))
                }

                convenience init(contentsOf modelURL: URL, configuration: MLModelConfiguration) throws {
                    try self.init(model: MLModel(contentsOf: modelURL, configuration: configuration))
                }

                class func load(
                    configuration: MLModelConfiguration = MLModelConfiguration(),
                    completionHandler handler: @escaping @Sendable (Swift.Result<\(name), Error>) -> Void
                ) {
                    load(contentsOf: urlOfModelInThisBundle, configuration: configuration, completionHandler: handler)
                }

                class func load(configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> \(name) {
                    try await load(contentsOf: urlOfModelInThisBundle, configuration: configuration)
                }

                class func load(
                    contentsOf modelURL: URL, configuration: MLModelConfiguration = MLModelConfiguration(),
                    completionHandler handler: @escaping @Sendable (Swift.Result<\(name), Error>) -> Void
                ) {
                    MLModel.load(contentsOf: modelURL, configuration: configuration) { result in
                        handler(result.map { \(name)(model: $0) })
                    }
                }

                class func load(contentsOf modelURL: URL, configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> \(name) {
                    \(name)(model: try await MLModel.load(contentsOf: modelURL, configuration: configuration))
                }

                func prediction(input: \(name)Input) throws -> \(name)Output {
                    try prediction(input: input, options: MLPredictionOptions())
                }

                func prediction(input: \(name)Input, options: MLPredictionOptions) throws -> \(name)Output {
                    \(name)Output(features: try model.prediction(from: input, options: options))
                }

                func prediction(\(typedParameters)) throws -> \(name)Output {
                    try prediction(input: \(name)Input(\(typedArguments)))
                }

                func predictions(inputs: [\(name)Input], options: MLPredictionOptions = MLPredictionOptions()) throws -> [\(name)Output] {
                    let outputs = try model.predictions(from: MLArrayBatchProvider(array: inputs), options: options)
                    return (0..<outputs.count).map { \(name)Output(features: outputs.features(at: $0)) }
                }
            }
            """
    }

    private func documentation(_ feature: Feature, indent: String) -> String {
        var text = feature.description.isEmpty ? "`\(feature.name)`" : oneLine(feature.description)
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

    private func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }

    private func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 { result += "\\u{\(String(scalar.value, radix: 16))}" } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }

    // MARK: Identifiers

    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal",
        "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias",
        "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in",
        "repeat", "return", "switch", "where", "while", "as", "Any", "catch", "false", "is", "nil", "super", "self", "Self",
        "throw", "throws", "true", "try", "await", "async", "some", "any",
    ]

    /// A property name for a feature: not a keyword, and different from the members the classes
    /// already have (`model`, `provider`, `featureNames`).
    static func property(for name: String) -> String {
        let identifier = identifier(for: name)
        if keywords.contains(identifier) { return "`\(identifier)`" }
        if ["model", "provider", "featureNames", "featureValue"].contains(identifier) { return identifier + "_" }
        return identifier
    }

    /// `name` with every character that cannot be in a Swift identifier replaced by `_`, and a `_`
    /// in front when it would start with a digit (or be empty).
    static func identifier(for name: String) -> String {
        var result = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        if result.isEmpty || result.first!.isNumber { result = "_" + result }
        return result
    }

    static func isIdentifier(_ name: String) -> Bool {
        !name.isEmpty && identifier(for: name) == name && !(name.first!.isNumber)
    }
}
