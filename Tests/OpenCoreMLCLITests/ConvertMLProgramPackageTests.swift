import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `convert` writing `.mlpackage` folders: a package to a package, a self-contained model to a
/// package, both predicting as the original; a damaged input is a one-line error.
struct ConvertMLProgramPackageTests {
    static let folder = InspectMLProgramTests.folder

    @Test func packagesRoundTripAndPredictAsTheOriginal() throws {
        try withTemporaryDirectory { folder in
            let source = Self.folder.appendingPathComponent("PrunedPalettized18.mlpackage")
            let copy = folder.appendingPathComponent("Copy.mlpackage")
            let single = folder.appendingPathComponent("Single.mlmodel")
            let back = folder.appendingPathComponent("Back.mlpackage")
            for (input, output) in [(source, copy), (copy, single), (single, back)] {
                let result = try CommandRunner.run(["convert", input.path, output.path])
                #expect(result.status == 0 && result.stdout.contains("Wrote \(output.path)"), "\(result.stdout)\(result.stderr)")
            }
            #expect(try Data(contentsOf: copy.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin"))
                    == Data(contentsOf: source.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin")))
            let input = folder.appendingPathComponent("x.json")
            try Data("[\((0..<144).map { String(Double($0 % 7) / 7 - 0.4) }.joined(separator: ","))]".utf8).write(to: input)
            var outputs: [String] = []
            for model in [source, copy, single, back] {
                let result = try CommandRunner.run(["predict", model.path, "--input", "x=\(input.path)"])
                #expect(result.status == 0, "\(model.lastPathComponent): \(result.stderr)")
                outputs.append(result.stdout)
            }
            #expect(Set(outputs).count == 1, "\(outputs)")
        }
    }

    @Test func aDamagedPackageIsAOneLineErrorAndWritesNothing() throws {
        try withTemporaryDirectory { folder in
            let package = folder.appendingPathComponent("Dense.mlpackage")
            try FileManager.default.copyItem(at: Self.folder.appendingPathComponent("Dense.mlpackage"), to: package)
            let weights = package.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin")
            try Data(try Data(contentsOf: weights).prefix(200)).write(to: weights)
            let output = folder.appendingPathComponent("Out.mlpackage")
            let result = try CommandRunner.run(["convert", package.path, output.path])
            #expect(result.status == 1 && result.stderr.contains("weight.bin") && result.stderr.contains("past the end of the file"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}
