import CoreMLSpec
import Foundation
import OpenCoreMLTools

/// What the model-editing commands (`make-updatable`, `strip-classifier`, `pipeline`) share.
enum ModelEditing {
    /// Reads and validates a model; errors name the file.
    static func read(_ path: String) throws -> CoreML_Specification_Model {
        do {
            let model = try CoreML_Specification_Model(contentsOf: URL(fileURLWithPath: path))
            try model.validate()
            return model
        } catch let error as ModelValidationError {
            throw CLIError.model("\(path): \(error)")
        } catch {
            throw CLIError.wrap(error)
        }
    }

    /// Runs an edit, turning its errors into one-line messages that name the file (when given).
    static func edit<T>(_ path: String?, _ body: () throws -> T) throws -> T {
        let prefix = path.map { "\($0): " } ?? ""
        do {
            return try body()
        } catch let error as ModelToolsError {
            throw CLIError.model("\(prefix)\(error)")
        } catch let error as ModelValidationError {
            throw CLIError.model("\(prefix)the edited model is not valid: \(error)")
        }
    }

    /// Validates and writes the result atomically; nothing is written when it is invalid.
    static func write(_ model: CoreML_Specification_Model, to path: String) throws {
        guard path.hasSuffix(".mlmodel") || path.hasSuffix(".mlmodelc") else { throw CLIError.unsupportedExtension(path: path) }
        do {
            try model.validate()
            try model.write(to: URL(fileURLWithPath: path))
        } catch let error as ModelValidationError {
            throw CLIError.model("\(path): the edited model is not valid: \(error)")
        } catch {
            throw CLIError.wrap(error)
        }
    }

    /// `a,b , c` → `["a", "b", "c"]`.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
