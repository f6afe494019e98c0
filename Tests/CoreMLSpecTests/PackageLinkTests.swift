import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Packages and compiled folders never reach outside themselves through symbolic links: an item
/// (or a folder on its way) replaced by a link to a copy outside is one error naming it, whether
/// the package is read, its weights inlined or listed, or it is written into a new package; links
/// that stay inside are followed.
@Suite("Model folders: symbolic links")
struct PackageLinkTests {
    static let source = MLProgramTests.folder.appendingPathComponent("Dense.mlpackage")
    static let items = [
        "Manifest.json", "Data", "Data/com.apple.CoreML", "Data/com.apple.CoreML/model.mlmodel",
        "Data/com.apple.CoreML/weights", "Data/com.apple.CoreML/weights/weight.bin",
    ]

    /// A copy of Dense.mlpackage in `folder` whose `item` is a link to a copy of it outside the package.
    static func packageLinkingOut(_ item: String, in folder: URL) throws -> URL {
        let package = folder.appendingPathComponent("Dense.mlpackage")
        try FileManager.default.copyItem(at: source, to: package)
        let outside = folder.appendingPathComponent("outside").appendingPathComponent(item)
        try FileManager.default.createDirectory(at: outside.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: package.appendingPathComponent(item), to: outside)
        try FileManager.default.createSymbolicLink(atPath: package.appendingPathComponent(item).path, withDestinationPath: outside.path)
        return package
    }

    static func expectLeaves(_ item: String, in package: URL, kind: String = "package", _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(item): a link out of the \(kind) was followed")
        } catch let error as ModelFileError {
            #expect(error.path == package.appendingPathComponent(item).path, "\(error)")
            #expect(error.reason.contains("symbolic link that leaves the \(kind)"), "\(error)")
        } catch {
            Issue.record("\(item): \(error)")
        }
    }

    @Test(arguments: items)
    func aLinkOutOfThePackageIsAnErrorNamingIt(item: String) throws {
        try withTemporaryDirectory { folder in
            let package = try Self.packageLinkingOut(item, in: folder)
            if !item.hasSuffix("weight.bin") {
                // Reading the manifest and the root model reaches every item but the weight file.
                Self.expectLeaves(item, in: package) { _ = try ModelPackage(contentsOf: package) }
                Self.expectLeaves(item, in: package) { _ = try CoreML_Specification_Model(contentsOf: package) }
            }
            Self.expectLeaves(item, in: package) { _ = try CoreML_Specification_Model(selfContainedContentsOf: package) }
        }
    }

    @Test func aWeightFileLinkingOutIsAnErrorWhenItsBlobsAreReadOrCopied() throws {
        try withTemporaryDirectory { folder in
            let item = "Data/com.apple.CoreML/weights/weight.bin"
            let package = folder.appendingPathComponent("Dense.mlpackage")
            try FileManager.default.copyItem(at: Self.source, to: package)
            // Read while the package is whole; the weight file becomes a link afterwards.
            let opened = try ModelPackage(contentsOf: package)
            let model = try CoreML_Specification_Model(contentsOf: package)
            let outside = folder.appendingPathComponent("weight.bin")
            try FileManager.default.moveItem(at: package.appendingPathComponent(item), to: outside)
            try FileManager.default.createSymbolicLink(at: package.appendingPathComponent(item), withDestinationURL: outside)
            Self.expectLeaves(item, in: package) { _ = try opened.blobFileURL("@model_path/weights/weight.bin") }
            Self.expectLeaves(item, in: package) { _ = try MLProgramWeights(program: MLProgramTests.program(model), package: opened) }
            Self.expectLeaves(item, in: package) { _ = try model.inliningMLProgramWeights(from: opened) }
            let destination = folder.appendingPathComponent("Copy.mlpackage")
            Self.expectLeaves(item, in: package) { try ModelPackage.write(model, weightsFrom: opened, to: destination) }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    @Test func linksThatStayInsideAreFollowed() throws {
        try withTemporaryDirectory { folder in
            let original = try CoreML_Specification_Model(selfContainedContentsOf: Self.source)
            let package = folder.appendingPathComponent("Dense.mlpackage")
            try FileManager.default.copyItem(at: Self.source, to: package)
            let fileManager = FileManager.default
            let core = package.appendingPathComponent("Data/com.apple.CoreML")
            // The weights folder under another name, linked by a relative target that climbs and comes back.
            try fileManager.moveItem(at: core.appendingPathComponent("weights"), to: package.appendingPathComponent("Data/stored-weights"))
            try fileManager.createSymbolicLink(atPath: core.appendingPathComponent("weights").path,
                                               withDestinationPath: "../../Data/./stored-weights")
            // The model file through an absolute link inside the package.
            try fileManager.moveItem(at: core.appendingPathComponent("model.mlmodel"), to: package.appendingPathComponent("model.bin"))
            try fileManager.createSymbolicLink(atPath: core.appendingPathComponent("model.mlmodel").path,
                                               withDestinationPath: package.appendingPathComponent("model.bin").path)
            // The package itself reached through a link: its real folder is the boundary.
            let alias = folder.appendingPathComponent("Alias.mlpackage")
            try fileManager.createSymbolicLink(at: alias, withDestinationURL: package)
            for url in [package, alias] {
                #expect(try CoreML_Specification_Model(selfContainedContentsOf: url) == original)
                let copy = folder.appendingPathComponent("Copy-\(url.lastPathComponent)")
                try ModelPackage.write(CoreML_Specification_Model(contentsOf: url), weightsFrom: ModelPackage(contentsOf: url), to: copy)
                #expect(try CoreML_Specification_Model(selfContainedContentsOf: copy) == original)
            }
        }
    }

    @Test func aLinkThatLeavesAndComesBackIsStillAnError() throws {
        try withTemporaryDirectory { folder in
            // Data → outside/Data, whose com.apple.CoreML links back into the package: the way leaves it.
            let package = try Self.packageLinkingOut("Data", in: folder)
            let outside = folder.appendingPathComponent("outside/Data/com.apple.CoreML")
            try FileManager.default.moveItem(at: outside, to: package.appendingPathComponent("core"))
            try FileManager.default.createSymbolicLink(at: outside, withDestinationURL: package.appendingPathComponent("core"))
            Self.expectLeaves("Data", in: package) { _ = try CoreML_Specification_Model(selfContainedContentsOf: package) }
        }
    }

    @Test(arguments: [false, true])
    func aCompiledFolderLinkingOutIsAnErrorNamingIt(linkStaysInside: Bool) throws {
        try withTemporaryDirectory { folder in
            let compiled = folder.appendingPathComponent("Dense.mlmodelc")
            try CoreML_Specification_Model(selfContainedContentsOf: Self.source).write(to: compiled)
            let specification = compiled.appendingPathComponent(CompiledModelLayout.specificationFileName)
            let outside = folder.appendingPathComponent("outside.mlmodel")
            try FileManager.default.moveItem(at: specification, to: outside)
            if !linkStaysInside {
                try FileManager.default.createSymbolicLink(at: specification, withDestinationURL: outside)
                Self.expectLeaves(CompiledModelLayout.specificationFileName, in: compiled, kind: "compiled model") { _ = try CoreML_Specification_Model(contentsOf: compiled) }
            } else {
                // A link inside the compiled folder is followed.
                try FileManager.default.moveItem(at: outside, to: compiled.appendingPathComponent("spec.bin"))
                try FileManager.default.createSymbolicLink(atPath: specification.path, withDestinationPath: "spec.bin")
                #expect(try CoreML_Specification_Model(contentsOf: compiled) == CoreML_Specification_Model(selfContainedContentsOf: Self.source))
            }
        }
    }

    @Test func pathsWithDotDotAreRefusedBeforeAnyLinkIsLookedAt() throws {
        try withTemporaryDirectory { folder in
            #expect(throws: ModelFileError.self) { try ContainedPath.url("Data/../../etc/passwd", in: folder) }
            #expect(throws: ModelFileError.self) { try ContainedPath.url("/etc/passwd", in: folder) }
            let missing = try ContainedPath.url("Data/missing/file", in: folder)
            #expect(missing.path == folder.appendingPathComponent("Data/missing/file").path)
        }
    }
}
