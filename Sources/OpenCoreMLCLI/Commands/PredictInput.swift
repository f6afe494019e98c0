import Foundation
import OpenCoreML
import OpenCreateML

/// The value of one `predict --input NAME=FILE`, read as the model declares the input: a String
/// input from a JSON string (`"dog"`), a dictionary input from a JSON object of numbers
/// (`{"a": 1.5}`; for Int64 keys the names are whole numbers, `{"3": 1}`), and numbers and
/// multi-arrays from array files (`.npy`, `.json` — a number or nested arrays —, `.csv`), and
/// images from JPEG and PNG files.
/// Errors name the input and the file.
enum PredictInput {
    static func value(path: String, for description: MLFeatureDescription) throws -> MLFeatureValue {
        switch description.type {
        case .string, .dictionary:
            guard URL(fileURLWithPath: path).pathExtension.lowercased() == "json" else {
                throw CLIError.file(path, "input '\(description.name)' is \(description.type); give it as a .json file")
            }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CLIError.file(path, "cannot be read (\(error.localizedDescription))")
            }
            if description.type == .string {
                guard let text = try? JSONDecoder().decode(String.self, from: data) else {
                    throw CLIError.file(path, "input '\(description.name)' is a String; the file must hold one JSON string, e.g. \"dog\"")
                }
                return MLFeatureValue(string: text)
            }
            return try dictionary(data, path: path, for: description)
        case .image:
            // A JPEG or PNG, scaled to the input's size as Core ML's MLFeatureValue(imageAt:constraint:) does.
            guard let constraint = description.imageConstraint else {
                throw CLIError.model("input '\(description.name)' is an image without a size")
            }
            guard ["jpg", "jpeg", "png"].contains(URL(fileURLWithPath: path).pathExtension.lowercased()) else {
                throw CLIError.file(path, "input '\(description.name)' is an image; give it as a .jpg or .png file")
            }
            return try CLIError.wrapping { try MLFeatureValue(imageAt: URL(fileURLWithPath: path), constraint: constraint) }
        default:
            return try CLIError.wrapping { try MLFeatureValue(contentsOf: URL(fileURLWithPath: path), for: description) }
        }
    }

    private static func dictionary(_ data: Data, path: String, for description: MLFeatureDescription) throws -> MLFeatureValue {
        let int64Keys = description.dictionaryConstraint?.keyType == .int64
        guard let object = try? JSONDecoder().decode([String: Double].self, from: data) else {
            let example = int64Keys ? "{\"0\": 1.5, \"3\": 2}" : "{\"a\": 1.5, \"b\": 2}"
            throw CLIError.file(path, "input '\(description.name)' is a dictionary; the file must hold one JSON object of numbers, e.g. \(example)")
        }
        var entries: [AnyHashable: NSNumber] = [:]
        for (key, number) in object {
            if int64Keys {
                guard let integer = Int64(key) else {
                    throw CLIError.file(path, "key \"\(key)\" is not a whole number; input '\(description.name)' has Int64 keys")
                }
                entries[AnyHashable(integer)] = NSNumber(value: number)
            } else {
                entries[AnyHashable(key)] = NSNumber(value: number)
            }
        }
        return try CLIError.wrapping { try MLFeatureValue(dictionary: entries) }
    }
}
