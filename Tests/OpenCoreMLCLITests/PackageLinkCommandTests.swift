import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `inspect`, `convert` and `predict` on a package whose item (or a folder on its way) is a
/// symbolic link to a copy outside it: exit code 1, one line naming the item and saying it leaves
/// the package, and nothing written; a link that stays inside works.
struct PackageLinkCommandTests {
    static let source = InspectMLProgramTests.folder.appendingPathComponent("Dense.mlpackage")
    static let items = [
        "Manifest.json", "Data", "Data/com.apple.CoreML", "Data/com.apple.CoreML/model.mlmodel",
        "Data/com.apple.CoreML/weights", "Data/com.apple.CoreML/weights/weight.bin",
    ]

    static func input(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("x.json")
        try Data("[\((0..<32).map { String(Double($0 % 5) / 5 - 0.3) }.joined(separator: ","))]".utf8).write(to: url)
        return url
    }

    @Test(arguments: items)
    func everyCommandRefusesALinkOutOfThePackage(item: String) throws {
        try withTemporaryDirectory { folder in
            let package = folder.appendingPathComponent("Dense.mlpackage")
            try FileManager.default.copyItem(at: Self.source, to: package)
            let outside = folder.appendingPathComponent("outside").appendingPathComponent(item)
            try FileManager.default.createDirectory(at: outside.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: package.appendingPathComponent(item), to: outside)
            try FileManager.default.createSymbolicLink(at: package.appendingPathComponent(item), withDestinationURL: outside)
            let x = try Self.input(in: folder)
            let copy = folder.appendingPathComponent("Copy.mlpackage"), single = folder.appendingPathComponent("Single.mlmodel")
            for arguments in [["inspect", package.path], ["convert", package.path, copy.path], ["convert", package.path, single.path],
                              ["predict", package.path, "--input", "x=\(x.path)"]] {
                let result = try CommandRunner.run(arguments)
                #expect(result.status == 1, "\(arguments[0]): \(result.stdout)")
                #expect(result.stderr.contains("\(package.appendingPathComponent(item).path): a symbolic link that leaves the package"),
                        "\(arguments[0]): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: copy.path) && !FileManager.default.fileExists(atPath: single.path))
        }
    }

    @Test func aLinkInsideThePackageWorks() throws {
        try withTemporaryDirectory { folder in
            let package = folder.appendingPathComponent("Dense.mlpackage")
            try FileManager.default.copyItem(at: Self.source, to: package)
            let weights = package.appendingPathComponent("Data/com.apple.CoreML/weights")
            try FileManager.default.moveItem(at: weights, to: package.appendingPathComponent("Data/kept"))
            try FileManager.default.createSymbolicLink(atPath: weights.path, withDestinationPath: "../../Data/kept")
            let x = try Self.input(in: folder)
            let copy = folder.appendingPathComponent("Copy.mlpackage")
            var outputs: [String] = []
            for arguments in [["inspect", package.path], ["convert", package.path, copy.path],
                              ["predict", package.path, "--input", "x=\(x.path)"], ["predict", Self.source.path, "--input", "x=\(x.path)"]] {
                let result = try CommandRunner.run(arguments)
                #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
                if arguments[0] == "predict" { outputs.append(result.stdout) }
            }
            #expect(outputs.count == 2 && outputs[0] == outputs[1], "\(outputs)")
            #expect(try Data(contentsOf: copy.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin"))
                    == Data(contentsOf: Self.source.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin")))
        }
    }
}
