import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Files that are not models give one clear `ModelFileError` naming the path; nothing crashes.
struct BadInputTests {
    private func fileError(_ body: () throws -> Void) -> ModelFileError? {
        do {
            try body()
            return nil
        } catch let error as ModelFileError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    @Test func missingPath() {
        let error = fileError { _ = try CoreML_Specification_Model(contentsOf: URL(fileURLWithPath: "/no/such/model.mlmodel")) }
        #expect(error?.kind == .notFound)
        #expect(error?.description.contains("/no/such/model.mlmodel") == true)
    }

    @Test func folderThatIsNotAModel() throws {
        try withTemporaryDirectory { folder in
            #expect(fileError { _ = try CoreML_Specification_Model(contentsOf: folder) }?.kind == .notAModel)
            // A folder laid out like Apple's compiled models.
            _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("coremldata.bin").path, contents: Data([1, 2]))
            let error = fileError { _ = try CoreML_Specification_Model(contentsOf: folder) }
            #expect(error?.kind == .notAModel)
            #expect(error?.reason.contains("Apple") == true)
        }
    }

    @Test func emptyFile() {
        #expect(fileError { _ = try CoreML_Specification_Model(serializedModel: Data()) }?.kind == .notCoreML)
    }

    @Test func truncatedFiles() throws {
        let original = try Fixtures.data("lenet_updatable.mlmodel")
        let error = fileError { _ = try CoreML_Specification_Model(serializedModel: original.prefix(original.count / 2)) }
        #expect(error?.kind == .corrupt)
        #expect(error?.reason.contains("truncated") == true)
        // Cut anywhere: the file is refused on reading or on validation, never accepted silently.
        for name in Fixtures.allNames {
            let data = try Fixtures.data(name)
            for cut in stride(from: 1, to: data.count, by: max(1, data.count / 97)) {
                do {
                    let model = try CoreML_Specification_Model(serializedModel: data.prefix(cut))
                    #expect(!model.validationIssues().isEmpty, "\(name) cut at \(cut) was accepted")
                } catch is ModelFileError {
                }
            }
        }
    }

    @Test func randomBytes() {
        var generator = TestRandom(seed: 7)
        var refusedOnRead = 0
        for trial in 0..<500 {
            let count = 1 + Int(generator.next() % 4096)
            let bytes = Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            do {
                let model = try CoreML_Specification_Model(serializedModel: bytes)
                #expect(!model.validationIssues().isEmpty, "random bytes #\(trial) were accepted")
            } catch is ModelFileError {
                refusedOnRead += 1
            } catch {
                Issue.record("unexpected error type: \(error)")
            }
        }
        #expect(refusedOnRead > 450)
    }

    @Test func protobufOfAnotherKind() throws {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = "not a model"
        feature.shortDescription = "a feature description, which is protobuf but not a Core ML model"
        let mismatched = fileError { _ = try CoreML_Specification_Model(serializedModel: try feature.serializedBytes()) }
        #expect(mismatched?.kind == .corrupt || mismatched?.kind == .notCoreML)
        // Field 1 is a varint here as in a model, so this decodes, but it is no model.
        var parameter = CoreML_Specification_Int64Parameter()
        parameter.defaultValue = 3
        let error = fileError { _ = try CoreML_Specification_Model(serializedModel: try parameter.serializedBytes()) }
        #expect(error?.kind == .notCoreML)
        #expect(error?.reason.contains("not a Core ML model") == true)
    }

    @Test func textFile() {
        let text = Data("{\"this\": \"is JSON, not a model\"}\n".utf8)
        let error = fileError { _ = try CoreML_Specification_Model(serializedModel: text, path: "model.json") }
        #expect(error != nil)
        #expect(error?.description.hasPrefix("model.json: ") == true)
    }
}
