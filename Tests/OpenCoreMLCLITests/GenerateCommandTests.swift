import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml generate`: Xcode's typed classes for a model, written to a folder.
struct GenerateCommandTests {
    @Test func writesTheClassesAndLeavesAnUpToDateFileAlone() throws {
        try withTemporaryDirectory { folder in
            let model = Fixtures.url("classifier_sgd.mlmodel").path
            let first = try CommandRunner.run(["generate", model, "--output", folder.path])
            #expect(first.status == 0, "\(first.stderr)")
            let file = folder.appendingPathComponent("classifier_sgd.swift")
            let source = try String(contentsOf: file, encoding: .utf8)
            // Types are qualified by their module, so that a class may be named after one of them.
            for declaration in ["class classifier_sgd {", "class classifier_sgdInput: OpenCoreML.MLFeatureProvider", "class classifier_sgdOutput: OpenCoreML.MLFeatureProvider",
                                "class classifier_sgdTrainingInput: OpenCoreML.MLFeatureProvider", "func prediction(features: OpenCoreML.MLMultiArray) throws -> classifier_sgdOutput",
                                "var classProbability: [Swift.String : Swift.Double]", "var classLabel: Swift.String", "import OpenCoreML"] {
                #expect(source.contains(declaration), "missing: \(declaration)")
            }
            let again = try CommandRunner.run(["generate", model, "--output", folder.path])
            #expect(again.status == 0 && again.stdout.contains("up to date"))

            let named = try CommandRunner.run(["generate", model, "--output", folder.path, "--class-name", "Iris"])
            #expect(named.status == 0)
            #expect(try String(contentsOf: folder.appendingPathComponent("Iris.swift"), encoding: .utf8).contains("class IrisOutput"))
            // A k-NN model without training inputs for its description gets no training class only when not updatable.
            let knn = try CommandRunner.run(["generate", Fixtures.url("knn_linear_string.mlmodel").path, "--output", folder.path, "--class-name", "Neighbours"])
            #expect(knn.status == 0, "\(knn.stderr)")
        }
    }

    /// An ML Program package: the classes come from its description, and the model is looked up as a
    /// compiled model, then as the package itself.
    @Test func writesTheClassesOfAnMLProgramPackage() throws {
        try withTemporaryDirectory { folder in
            let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/mlprogram/Conv.mlpackage").path
            let result = try CommandRunner.run(["generate", package, "--output", folder.path, "--class-name", "ConvModel"])
            #expect(result.status == 0, "\(result.stderr)")
            let source = try String(contentsOf: folder.appendingPathComponent("ConvModel.swift"), encoding: .utf8)
            for declaration in ["class ConvModel {", "class ConvModelInput: OpenCoreML.MLFeatureProvider", "class ConvModelOutput: OpenCoreML.MLFeatureProvider",
                                "withExtension: \"mlpackage\")"] {
                #expect(source.contains(declaration), "missing: \(declaration)")
            }
            #expect(!source.contains("ConvModelTrainingInput"), "ML Programs are never updatable")
        }
    }

    @Test func badNamesAndPathsFailWithOneLine() throws {
        try withTemporaryDirectory { folder in
            let model = Fixtures.url("classifier_sgd.mlmodel").path
            for (arguments, text) in [
                (["generate", model, "--output", folder.path, "--class-name", "9lives"], "not a Swift type name"),
                (["generate", model, "--output", folder.path, "--class-name", "class"], "not a Swift type name"),
                (["generate", model, "--output", folder.path, "--class-name", "Swift"], "the generated code needs 'Swift'"),
                (["generate", model, "--output", folder.path, "--class-name", "x\ny"], "not a Swift type name"),
                (["generate", model, "--output", folder.appendingPathComponent("missing").path], "does not exist"),
                (["generate", folder.appendingPathComponent("none.mlmodel").path, "--output", folder.path], "no such file"),
            ] {
                let result = try CommandRunner.run(arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(text), "\(result.stderr)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    /// A class name that shadows a type the generated code uses is fine: the code qualifies its types.
    @Test func aClassMayBeNamedAfterATypeTheCodeUses() throws {
        try withTemporaryDirectory { folder in
            let result = try CommandRunner.run(["generate", Fixtures.url("classifier_sgd.mlmodel").path, "--output", folder.path, "--class-name", "MLModel"])
            #expect(result.status == 0, "\(result.stderr)")
            let source = try String(contentsOf: folder.appendingPathComponent("MLModel.swift"), encoding: .utf8)
            #expect(source.contains("class MLModel {") && source.contains("let model: OpenCoreML.MLModel"))
        }
    }
}
