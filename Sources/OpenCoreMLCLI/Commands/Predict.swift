import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml predict MODEL --input NAME=FILE … [--output-dir DIR]`: one prediction from array
/// and image files; image outputs written as PNG files to DIR.
struct Predict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one prediction; inputs come from .npy, .json, .csv, .jpg or .png files.",
        discussion: """
        --function NAME runs that function of a multifunction model (`inspect` lists them); a stateful model predicts \
        from new, zero-filled states. Each --input NAME=FILE fills the model input NAME: a number or multi-array from an array file (.npy, .json, .csv), \
        reshaped to the input's shape when the counts agree; a String from a JSON string ("dog"); a dictionary from a JSON \
        object of numbers ({"a": 1.5}, or {"3": 1} for Int64 keys); an image from a JPEG or PNG file (image=photo.jpg), \
        scaled to the input's size as MLFeatureValue(imageAt:constraint:) does. With --output-dir DIR, image outputs are \
        written to DIR/NAME.png (each through a temporary file and a rename); other outputs print as before. With --json, dictionaries print as objects {label: value} \
        (JSON keys are text), Int64 values as integers, multi-arrays as {"shape": …, "values": …}, and NaN and infinities \
        as the strings "NaN", "Infinity" and "-Infinity".
        """
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @Option(name: .customLong("input"), help: "NAME=FILE (.npy, .json, .csv, or .jpg/.png for image inputs); repeat for several inputs.")
    var inputs: [String] = []

    @Option(name: .customLong("output-dir"), help: "Write image outputs to this folder as NAME.png (created if missing).")
    var outputDirectory: String?

    @Option(name: .customLong("function"), help: ArgumentHelp("The function of a multifunction model to run (default: its default function).", valueName: "NAME"))
    var function: String?

    @OptionGroup var memory: MemoryLimitOption

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        memory.apply()
        let configuration = MLModelConfiguration()
        configuration.functionName = function
        let loaded = try loadModel(model, configuration: configuration)
        let descriptions = loaded.modelDescription.inputDescriptionsByName
        var values: [String: MLFeatureValue] = [:]
        for assignment in inputs {
            let (name, path) = try parseInputAssignment(assignment)
            guard let description = descriptions[name] else {
                throw CLIError.model("the model has no input '\(name)' (it has: \(descriptions.keys.sorted().joined(separator: ", ")))")
            }
            values[name] = try PredictInput.value(path: path, for: description)
        }
        for name in descriptions.keys where values[name] == nil && descriptions[name]?.isOptional == false {
            throw CLIError.model("input '\(name)' is missing; give it with --input \(name)=FILE")
        }
        let output: MLFeatureProvider
        do {
            let input = MLDictionaryFeatureProvider(featureValues: values)
            // A stateful model predicts from new (zero) states.
            output = loaded.modelDescription.stateDescriptions.isEmpty
                ? try loaded.prediction(from: input) : try loaded.prediction(from: input, using: loaded.makeState())
        } catch {
            throw CLIError.wrap(error)
        }
        let names = loaded.modelDescription.outputDescriptions.map(\.name)
        let files = try outputDirectory.map { try Self.writeImages(output, names: names, to: $0) } ?? [:]
        if json {
            var object: [String: Any] = [:]
            for name in names { object[name] = output.featureValue(for: name).map { Self.jsonValue($0, file: files[name]) } }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        for name in names {
            guard let value = output.featureValue(for: name) else { continue }
            let file = files[name].map { " → \($0)" } ?? ""
            print("\(name): \(Self.text(value))\(file)".terminalEscaped())  // names, labels and strings come from the model
        }
    }

    /// `value` as JSON; an image as its size and the PNG `file` it was written to.
    static func jsonValue(_ value: MLFeatureValue, file: String? = nil) -> Any {
        switch value.type {
        case .image:
            guard let image = value.imageBufferValue else { return NSNull() }
            var object: [String: Any] = ["width": image.width, "height": image.height]
            if let file { object["file"] = file }
            return object
        case .int64: return value.int64Value
        case .double: return jsonNumber(value.doubleValue)
        case .string: return value.stringValue
        case .multiArray:
            let array = value.multiArrayValue!
            let values: [Any]
            switch array.dataType {
            case .int32, .int8: values = (0..<array.count).map { array[$0].int64Value }
            case .double: values = (0..<array.count).map { jsonNumber(array[$0].doubleValue) }
            default: values = array.floatValues().map { jsonNumber(Double($0)) }
            }
            return ["shape": array.shape.map(\.intValue), "values": values] as [String: Any]
        case .dictionary:
            // coremltools' predict gives {label: probability}; JSON object keys are text, so Int64 keys print as "3".
            var result: [String: Any] = [:]
            for (key, number) in value.dictionaryValue { result["\(key.base)"] = jsonNumber(number.doubleValue) }
            return result
        default: return NSNull()
        }
    }

    /// A number JSON can hold; NaN and the infinities, which it cannot, as the strings Python's
    /// `json` module spells them with.
    static func jsonNumber(_ number: Double) -> Any {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        return number
    }

    static func text(_ value: MLFeatureValue) -> String {
        switch value.type {
        case .multiArray:
            let array = value.multiArrayValue!
            let values = array.floatValues()
            let shown = values.prefix(20).map { String(format: "%.6g", $0) }.joined(separator: ", ")
            return "shape \(array.shape.map(\.intValue)) [\(shown)\(values.count > 20 ? ", …" : "")]"
        case .dictionary:
            let sorted = value.dictionaryValue.sorted { $0.value.doubleValue > $1.value.doubleValue }
            return sorted.prefix(10).map { "\($0.key.base): \(String(format: "%.4f", $0.value.doubleValue))" }.joined(separator: ", ")
        default:
            return value.description
        }
    }
}

extension Predict {
    /// Writes the image outputs among `names` to `folder` as NAME.png (a name's characters other
    /// than letters, digits, `-`, `_` and `.` as `_`: names come from the model file), each
    /// through a temporary file and a rename. Returns the paths written, by output name.
    static func writeImages(_ output: MLFeatureProvider, names: [String], to folder: String) throws -> [String: String] {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CLIError.file(folder, "could not create the folder: \(error.localizedDescription)")
        }
        var written: [String: String] = [:]
        for name in names {
            guard let image = output.featureValue(for: name)?.imageBufferValue else { continue }
            let path = URL(fileURLWithPath: folder).appendingPathComponent(fileName(name) + ".png").path
            guard !written.values.contains(path) else {
                throw CLIError.model("outputs '\(name)' and '\(written.first { $0.value == path }!.key)' would both be written to \(path)")
            }
            try writeFile(try CLIError.wrapping { try image.pngData() }, to: path)
            written[name] = path
        }
        return written
    }

    /// `name` as a file name: letters, digits, `-`, `_` and `.` kept, anything else (a `/`, a
    /// control character) as `_`, and never a hidden, empty, `.` or `..` name.
    static func fileName(_ name: String) -> String {
        let safe = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        })
        return safe.isEmpty || safe.hasPrefix(".") ? "_" + safe : safe
    }
}

/// `NAME=PATH` from an `--input` option: the model input's name and the file holding its value.
/// The name ends at the first `=`, so paths may contain `=`. Throws a usage error (exit code 2).
func parseInputAssignment(_ text: String) throws -> (name: String, path: String) {
    guard let equals = text.firstIndex(of: "=") else {
        throw ValidationError("--input '\(text)': expected NAME=PATH, e.g. image=digit.npy")
    }
    let name = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
    let path = String(text[text.index(after: equals)...])
    guard !name.isEmpty else { throw ValidationError("--input '\(text)': the input name before '=' is empty") }
    guard !path.isEmpty else { throw ValidationError("--input '\(text)': the file path after '=' is empty") }
    return (name, path)
}
