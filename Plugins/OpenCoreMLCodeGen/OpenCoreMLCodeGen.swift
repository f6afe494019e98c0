import Foundation
import PackagePlugin

/// Generates Xcode's typed model classes for every `.mlmodel` in a target: `<Name>`, `<Name>Input`,
/// `<Name>Output` (and `<Name>TrainingInput` for updatable models), by running the
/// `opencoreml-generate` tool (the generator behind `opencoreml generate`) at build time. The model
/// must also be a resource of the target (so that `<Name>()` finds it in `Bundle.module`), and the
/// target must depend on `OpenCoreML`:
///
/// ```swift
/// .target(name: "Snacks", dependencies: [.product(name: "OpenCoreML", package: "OpenCoreML")],
///         resources: [.copy("HealthySnacks.mlmodel")],
///         plugins: [.plugin(name: "OpenCoreMLCodeGen", package: "OpenCoreML")])
/// ```
@main
struct OpenCoreMLCodeGen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "opencoreml-generate")
        let folder = context.pluginWorkDirectoryURL.appendingPathComponent("GeneratedModelClasses", isDirectory: true)
        return target.sourceFiles(withSuffix: "mlmodel").map { file in
            let name = className(for: file.url.deletingPathExtension().lastPathComponent)
            let output = folder.appendingPathComponent("\(name).swift")
            return .buildCommand(
                displayName: "Generating model classes \(name) from \(file.url.lastPathComponent)",
                executable: tool.url,
                arguments: [file.url.path, output.path, name],
                inputFiles: [file.url],
                outputFiles: [output])
        }
    }

    /// The file's base name as a type name (the same rule as `opencoreml generate`'s default:
    /// characters outside identifiers become `_`, and `Model_` goes in front of a leading digit).
    private func className(for base: String) -> String {
        let name = String(base.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        return name.isEmpty || name.first!.isNumber ? "Model_" + name : name
    }
}
