import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Writing `.mlpackage` folders: every fixture coremltools wrote, read and written back, reads back
/// as the same program with the same weight file; a self-contained program written as a package
/// keeps its large values in the weight file; and what cannot be written is an error naming it.
@Suite("ML Program packages: writing")
struct MLProgramPackageWritingTests {
    static let folder = MLProgramTests.folder
    static let fixtures = try! FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mlpackage") }.sorted()

    static func weightFile(_ package: URL) -> URL { package.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin") }

    @Test(arguments: fixtures)
    func aPackageWrittenBackReadsAsTheSameProgramAndWeights(name: String) throws {
        try withTemporaryDirectory { folder in
            let source = Self.folder.appendingPathComponent(name)
            let model = try CoreML_Specification_Model(contentsOf: source)
            let destination = folder.appendingPathComponent(name)
            try ModelPackage.write(model, weightsFrom: ModelPackage(contentsOf: source), to: destination)

            let written = try ModelPackage(contentsOf: destination)
            #expect(written.items.map(\.name).sorted() == ["model.mlmodel", "weights"])
            #expect(written.rootItem.path == "com.apple.CoreML/model.mlmodel" && written.fileFormatVersion == "1.0.0")
            #expect(written.items.allSatisfy { $0.author == "com.apple.CoreML" })
            let again = try CoreML_Specification_Model(contentsOf: destination)
            #expect(again == model, "the program (its blob offsets included) is unchanged")
            #expect(try Data(contentsOf: Self.weightFile(destination)) == Data(contentsOf: Self.weightFile(source)))
            let before = try MLProgramWeights(program: MLProgramTests.program(model), package: ModelPackage(contentsOf: source))
            let after = try MLProgramWeights(program: MLProgramTests.program(again), package: written)
            #expect(before.entries.map { "\($0.operation).\($0.name) \($0.dataType) @\($0.offset)" }
                    == after.entries.map { "\($0.operation).\($0.name) \($0.dataType) @\($0.offset)" })
            #expect(before.entries.map(\.data) == after.entries.map(\.data))
        }
    }

    @Test(arguments: ["Conv.mlpackage", "TorchUNet.mlpackage", "Palettized18.mlpackage", "PrunedQuantized18.mlpackage"])
    func aSelfContainedProgramWrittenAsAPackageMovesItsLargeValuesToTheWeightFile(name: String) throws {
        try withTemporaryDirectory { folder in
            let source = Self.folder.appendingPathComponent(name)
            let selfContained = try CoreML_Specification_Model(selfContainedContentsOf: source)
            let destination = folder.appendingPathComponent(name)
            try selfContained.write(to: destination)
            // The same values, now in a weight file again: the same blobs as coremltools stored.
            let written = try CoreML_Specification_Model(contentsOf: destination)
            #expect(try CoreML_Specification_Model(selfContainedContentsOf: destination) == selfContained)
            let original = try MLProgramWeights(program: MLProgramTests.program(CoreML_Specification_Model(contentsOf: source)),
                                                package: ModelPackage(contentsOf: source))
            let moved = try MLProgramWeights(program: MLProgramTests.program(written), package: ModelPackage(contentsOf: destination))
            #expect(moved.entries.map { "\($0.operation).\($0.name) \($0.dataType)" } == original.entries.map { "\($0.operation).\($0.name) \($0.dataType)" })
            #expect(moved.immediateBytes == original.immediateBytes)
        }
    }

    @Test func aNeuralNetworkPackageHasNoWeightsItem() throws {
        try withTemporaryDirectory { folder in
            let model = try CoreML_Specification_Model(contentsOf: Fixtures.url("classifier_sgd.mlmodel"))
            let destination = folder.appendingPathComponent("Classifier.mlpackage")
            try model.write(to: destination)
            let package = try ModelPackage(contentsOf: destination)
            #expect(package.items.map(\.name) == ["model.mlmodel"])
            #expect(try CoreML_Specification_Model(contentsOf: destination) == model)
        }
    }

    // MARK: What cannot be written

    @Test func blobReferencesWithoutTheirPackageAreAnErrorNamingTheOperation() throws {
        try withTemporaryDirectory { folder in
            let model = try CoreML_Specification_Model(contentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"))
            let destination = folder.appendingPathComponent("Dense.mlpackage")
            let error = #expect(throws: ModelFileError.self) { try model.write(to: destination) }
            #expect(error?.reason.contains("operation '") == true && error?.reason.contains("no package to read it from") == true,
                    "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    @Test func aDamagedSourceIsAnErrorAndLeavesTheDestinationAsItWas() throws {
        try withTemporaryDirectory { folder in
            let source = try MLProgramTests.copy("Dense.mlpackage", into: folder)
            let model = try CoreML_Specification_Model(contentsOf: source)
            let destination = folder.appendingPathComponent("Out.mlpackage")
            try ModelPackage.write(model, weightsFrom: ModelPackage(contentsOf: source), to: destination)
            let before = try Data(contentsOf: Self.weightFile(destination))

            let weights = Self.weightFile(source)
            try Data(try Data(contentsOf: weights).prefix(300)).write(to: weights)
            let error = #expect(throws: ModelFileError.self) {
                try ModelPackage.write(model, weightsFrom: ModelPackage(contentsOf: source), to: destination)
            }
            #expect(error?.path == weights.path && error?.reason.contains("past the end of the file") == true, "\(String(describing: error))")
            #expect(try Data(contentsOf: Self.weightFile(destination)) == before)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    @Test func aValueWhoseBytesDoNotFitItsShapeIsAnErrorNamingTheOperation() throws {
        try withTemporaryDirectory { folder in
            var model = try CoreML_Specification_Model(selfContainedContentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"))
            var program = try MLProgramTests.program(model)
            var damaged = false
            try program.updateHeldValues(opsetBodiesOnly: true) { _, _, value in
                guard !damaged, case .immediateValue(let immediate)? = value.value, case .bytes(let bytes)? = immediate.tensor.value,
                      bytes.values.count >= 40 else { return }
                value.immediateValue.tensor.bytes.values = bytes.values.dropLast(4)
                damaged = true
            }
            #expect(damaged)
            model.mlProgram = program
            let error = #expect(throws: ModelFileError.self) { try model.write(to: folder.appendingPathComponent("Dense.mlpackage")) }
            #expect(error?.reason.contains("operation '") == true && error?.reason.contains("its shape holds") == true, "\(String(describing: error))")
        }
    }

    @Test func aFileInTheWayIsAnError() throws {
        try withTemporaryDirectory { folder in
            let destination = folder.appendingPathComponent("Taken.mlpackage")
            try Data("x".utf8).write(to: destination)
            let model = try CoreML_Specification_Model(selfContainedContentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"))
            let error = #expect(throws: ModelFileError.self) { try model.write(to: destination) }
            #expect(error?.reason.contains("in the way") == true, "\(String(describing: error))")
        }
    }

    // MARK: The weight file writer

    @Test func theWeightFileWriterLaysOutRecordsAsTheReaderExpects() throws {
        var writer = MILBlobFileWriter()
        let first = writer.append(.uint3, count: 5, bytes: Data([0xFF, 0x7F]))
        let second = writer.append(.float32, count: 1, bytes: Data([0, 0, 0x80, 0x3F]))
        let refused = writer.append(.uint4, count: 5, bytes: Data([1, 2]))  // 5 values take 3 bytes
        #expect(refused == nil)
        #expect(first == 64 && second == 192 && writer.count == 2)
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("weight.bin")
            try writer.data.write(to: url)
            let file = try MILBlobFile(contentsOf: url)
            let blobs = try file.blobs()
            #expect(file.count == 2 && blobs.map(\.metadataOffset) == [64, 192])
            #expect(blobs[0].dataType == .uint3 && blobs[0].paddingBits == 1 && blobs[0].count == 5)
            #expect(blobs[1].dataType.floats(from: blobs[1].data, count: 1) == [1])
        }
    }
}
