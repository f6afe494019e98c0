import Foundation
import OpenCoreML
import OpenCreateML

/// The value of one `predict --input NAME=FILE`, read as the model declares the input: a String
/// input from a JSON string (`"dog"`), a dictionary, numbers and multi-arrays as
/// `MLFeatureValue(contentsOf:for:)` reads them (a JSON object of numbers; `.npy`, `.json` — a
/// number or nested arrays —, `.csv`), and images from JPEG and PNG files.
/// Errors name the input and the file.
enum PredictInput {
    static func value(path: String, for description: MLFeatureDescription) throws -> MLFeatureValue {
        switch description.type {
        case .string:
            guard URL(fileURLWithPath: path).pathExtension.lowercased() == "json" else {
                throw CLIError.file(path, "input '\(description.name)' is \(description.type); give it as a .json file")
            }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CLIError.file(path, "cannot be read (\(error.localizedDescription))")
            }
            guard let text = try? JSONDecoder().decode(String.self, from: data) else {
                throw CLIError.file(path, "input '\(description.name)' is a String; the file must hold one JSON string, e.g. \"dog\"")
            }
            return MLFeatureValue(string: text)
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
}
