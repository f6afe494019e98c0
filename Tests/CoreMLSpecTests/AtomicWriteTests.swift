import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Writing models never leaves a half-written or missing destination: compiled folders are swapped
/// in atomically, leftovers of killed writers are cleaned, and bad destinations fail before writing.
@Suite("Atomic writes")
struct AtomicWriteTests {
    /// The names in `folder` other than `keep`.
    static func leftovers(in folder: URL, besides keep: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !keep.contains($0) }.sorted()
    }

    /// The id of a process that has ended.
    static func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func aCompiledFolderIsReplacedWholeAndNothingIsLeftBehind() throws {
        try withTemporaryDirectory { folder in
            let destination = folder.appendingPathComponent("Model.mlmodelc")
            var first = try Fixtures.model("classifier_sgd.mlmodel")
            first.description_p.metadata.shortDescription = "first"
            try first.write(to: destination)
            var second = first
            second.description_p.metadata.shortDescription = "second"
            try second.write(to: destination)
            #expect(try CoreML_Specification_Model(contentsOf: destination).description_p.metadata.shortDescription == "second")
            #expect(try Self.leftovers(in: folder, besides: ["Model.mlmodelc"]).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted() == ["metadata.json", "model.mlmodel"])
        }
    }

    @Test func leftoversOfADeadWriterAreRemovedAndALiveOnesKept() throws {
        try withTemporaryDirectory { folder in
            let destination = folder.appendingPathComponent("Model.mlmodelc")
            let dead = try Self.deadProcessID()
            let staleFolder = ".Model.mlmodelc.tmp-\(dead)-\(UUID().uuidString)"
            let staleFile = ".Model.mlmodelc.tmp-\(dead)-\(UUID().uuidString)"
            let live = ".Model.mlmodelc.tmp-\(getpid())-\(UUID().uuidString)"
            let other = ".Other.mlmodel.tmp-\(dead)-\(UUID().uuidString)"
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(staleFolder), withIntermediateDirectories: false)
            try Data("x".utf8).write(to: folder.appendingPathComponent(staleFolder).appendingPathComponent("model.mlmodel"))
            for name in [staleFile, live, other] { try Data("x".utf8).write(to: folder.appendingPathComponent(name)) }

            try Fixtures.model("classifier_sgd.mlmodel").write(to: destination)
            // The dead writer's names for this destination are gone; a running writer's and another
            // destination's stay.
            #expect(try Self.leftovers(in: folder, besides: ["Model.mlmodelc"]) == [live, other].sorted())
        }
    }

    @Test func badDestinationsFailBeforeWritingAnything() throws {
        try withTemporaryDirectory { folder in
            let model = try Fixtures.model("classifier_sgd.mlmodel")
            let missing = folder.appendingPathComponent("missing/Model.mlmodel")
            #expect(throws: ModelFileError.self) { try model.write(to: missing) }
            let blocker = folder.appendingPathComponent("Model.mlmodel")
            try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
            do {
                try model.write(to: blocker)
                Issue.record("a folder in the way was overwritten")
            } catch let error as ModelFileError {
                #expect(error.description.contains("a folder is in the way"))
            }
            #expect(try Self.leftovers(in: folder, besides: ["Model.mlmodel"]).isEmpty)
            #expect(throws: ModelFileError.self) { try OutputLocation.check(folder.appendingPathComponent("missing/chart.svg")) }
        }
    }
}
