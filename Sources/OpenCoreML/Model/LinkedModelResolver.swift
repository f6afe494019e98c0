import CoreMLSpec
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the files that linked models name and puts the models they hold in their place, so that a
/// linked model predicts as the model it names.
///
/// Where OpenCoreML looks, a deliberate subset of Core ML's search:
/// - Only inside the loaded model's own folder: the folder holding an `.mlmodel` file, or the
///   `.mlpackage` / `.mlmodelc` folder itself (Core ML also looks beside a compiled model and in
///   absolute folders). Nested links look in the same folder.
/// - The search path is folders separated by `:`, each relative to the folder of the model that
///   holds the link (the empty path and `.` are that folder). The file may be an `.mlmodel`, an
///   `.mlpackage` or an OpenCoreML `.mlmodelc`. Entries naming a bundle (`$BUNDLE_MAIN`,
///   `$BUNDLE_IDENTIFIER(…)`) are skipped: there are no bundles here.
/// - An absolute folder or file name, a `..`, a symbolic link that leads out of the folder, a file
///   found nowhere, or a link that leads back to a model on its own chain (a cycle) is an error that
///   names the path.
enum LinkedModelResolver {
    /// How deep links may nest.
    static let depthLimit = 16
    /// How many linked files one model may load in all (pipelines of links to pipelines of links
    /// would otherwise load a number exponential in the depth).
    static let linkLimit = 256

    /// The links loaded so far while resolving one model.
    private final class LinkCount {
        var loaded = 0
    }

    /// `specification` with every linked model (also inside pipelines) replaced by the model its
    /// file holds, checked; nil when it has no linked model.
    ///
    /// - Parameter url: Where `specification` was read from: an `.mlmodel` file or a model folder.
    static func resolving(_ specification: CoreML_Specification_Model, loadedFrom url: URL) throws -> CoreML_Specification_Model? {
        guard containsLinks(specification) else { return nil }
        let root = isDirectory(url) ? url : url.deletingLastPathComponent()
        return try resolve(specification, base: "", root: root, chain: [realPath(url.path) ?? url.path], count: LinkCount())
    }

    private static func containsLinks(_ model: CoreML_Specification_Model) -> Bool {
        if case .linkedModel? = model.type { return true }
        return model.pipelineModels.contains(where: containsLinks)
    }

    /// `model` with its links resolved; `base` is the folder (relative to `root`) its relative
    /// search paths start from; `chain` the real paths of the models that led here.
    private static func resolve(_ model: CoreML_Specification_Model, base: String, root: URL, chain: [String], count: LinkCount) throws
        -> CoreML_Specification_Model
    {
        if case .linkedModel(let link)? = model.type {
            return try load(link, declaredBy: model, base: base, root: root, chain: chain, count: count)
        }
        var model = model
        model.pipelineModels = try model.pipelineModels.map { try resolve($0, base: base, root: root, chain: chain, count: count) }
        return model
    }

    private static func load(_ link: CoreML_Specification_LinkedModel, declaredBy linking: CoreML_Specification_Model, base: String, root: URL,
                             chain: [String], count: LinkCount) throws -> CoreML_Specification_Model {
        let file = link.linkedModelFile
        let name = file.linkedModelFileName.defaultValue
        let (url, relative) = try find(name, searchPath: file.linkedModelSearchPath.defaultValue, base: base, root: root)
        let real = realPath(url.path) ?? url.path
        if chain.contains(real) {
            throw ModelFileError(.corrupt, path: url.path, reason: "the linked model '\(name)' leads back to a model that links to it (a cycle)")
        }
        guard chain.count < depthLimit else {
            throw ModelFileError(.corrupt, path: url.path, reason: "linked models nest more than \(depthLimit) deep")
        }
        count.loaded += 1
        guard count.loaded <= linkLimit else {
            throw ModelFileError(.corrupt, path: url.path, reason: "the model links to more than \(linkLimit) model files in all")
        }
        var linked = try CoreML_Specification_Model(selfContainedContentsOf: url)
        do {
            try linked.validate()
        } catch {
            throw ModelFileError(.corrupt, path: url.path, reason: "the linked model is not valid: \(error)")
        }
        try checkInterface(of: linked, at: url, against: linking)
        let linkedBase = isDirectory(url) ? relative : (relative as NSString).deletingLastPathComponent
        linked = try resolve(linked, base: linkedBase, root: root, chain: chain + [real], count: count)
        return linked
    }

    /// The linked file's URL and its path relative to `root`: the first search-path folder that holds it.
    private static func find(_ name: String, searchPath: String, base: String, root: URL) throws -> (URL, String) {
        guard !name.hasPrefix("/") else {
            throw ModelFileError(.corrupt, path: name, reason: "the linked model's file name is an absolute path; OpenCoreML looks only inside the model's folder (\(root.path))")
        }
        var looked: [String] = []
        var skipped: [String] = []
        let entries = searchPath.isEmpty ? ["."] : searchPath.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        for entry in entries {
            if entry.hasPrefix("$") {
                skipped.append(entry)
                continue
            }
            guard !entry.hasPrefix("/") else {
                throw ModelFileError(.corrupt, path: entry, reason: "the linked model's search path names an absolute folder; OpenCoreML looks only inside the model's folder (\(root.path))")
            }
            let relative = [base, entry, name].filter { !$0.isEmpty && $0 != "." }.joined(separator: "/")
            let url = try ContainedPath.url(relative, in: root, kind: "model's folder")
            looked.append(url.path)
            if FileManager.default.fileExists(atPath: url.path) { return (url, relative) }
        }
        let skippedNote = skipped.isEmpty ? "" : "; bundle entries (\(skipped.joined(separator: ", "))) are not searched here"
        throw ModelFileError(.notFound, path: looked.first ?? root.appendingPathComponent(name).path,
                             reason: "the linked model '\(name)' was not found (looked at \(looked.isEmpty ? "nothing" : looked.joined(separator: ", "))\(skippedNote))")
    }

    /// The linked model must give every output the link declares and need no input the link does not.
    private static func checkInterface(of linked: CoreML_Specification_Model, at url: URL, against linking: CoreML_Specification_Model) throws {
        let outputs = Set(linked.description_p.output.map(\.name))
        if let missing = linking.description_p.output.first(where: { !outputs.contains($0.name) }) {
            throw ModelFileError(.corrupt, path: url.path, reason: "the linked model has no output '\(missing.name)', which the link declares")
        }
        let inputs = Set(linking.description_p.input.map(\.name))
        if let missing = linked.description_p.input.first(where: { !$0.type.isOptional && !inputs.contains($0.name) }) {
            throw ModelFileError(.corrupt, path: url.path, reason: "the linked model takes input '\(missing.name)', which the link does not declare")
        }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
