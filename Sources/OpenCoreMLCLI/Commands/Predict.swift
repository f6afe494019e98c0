import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml predict MODEL --input NAME=FILE …`: one prediction from array files.
struct Predict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one prediction; inputs come from .npy, .json or .csv files.",
        discussion: """
        --function NAME runs that function of a multifunction model (`inspect` lists them); a stateful model predicts \
        from new, zero-filled states. Each --input NAME=FILE fills the model input NAME: a number or multi-array from an array file (.npy, .json, .csv), \
        reshaped to the input's shape when the counts agree; a String from a JSON string ("dog"); a dictionary from a JSON \
        object of numbers ({"a": 1.5}, or {"3": 1} for Int64 keys). With --json, dictionaries print as objects {label: value} \
        (JSON keys are text), Int64 values as integers, multi-arrays as {"shape": …, "values": …}, and NaN and infinities \
        as the strings "NaN", "Infinity" and "-Infinity".
        """
    )

    @Argument(help: "The .mlmodel file or .mlmodelc folder.")
    var model: String

    @Option(name: .customLong("input"), help: "NAME=FILE (.npy, .json or .csv); repeat for several inputs.")
    var inputs: [String] = []

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
        if json {
            var object: [String: Any] = [:]
            for name in names { object[name] = output.featureValue(for: name).map(Self.jsonValue) }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        for name in names {
            guard let value = output.featureValue(for: name) else { continue }
            print("\(name): \(Self.text(value))".terminalEscaped())  // names, labels and strings come from the model
        }
    }

    static func jsonValue(_ value: MLFeatureValue) -> Any {
        switch value.type {
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
