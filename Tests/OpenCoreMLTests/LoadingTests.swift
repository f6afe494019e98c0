// Deliberately no `import Foundation`: `import OpenCoreML` brings it, as `import CoreML` does.
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Core ML's asynchronous loading, and Foundation through `import OpenCoreML`.
@Suite("Loading")
struct LoadingTests {
    @Test func foundationComesWithOpenCoreML() throws {
        let url: URL = Fixtures.url("classifier_sgd.mlmodel")
        let bytes = try Data(contentsOf: url)
        #expect(bytes.count > 0)
        #expect(Bundle.main.bundleURL.path.isEmpty == false)
    }

    @Test func loadWithACompletionHandler() async throws {
        let url = Fixtures.url("classifier_sgd.mlmodel")
        let loaded: Result<MLModel, Error> = await withCheckedContinuation { continuation in
            MLModel.load(contentsOf: url, configuration: MLModelConfiguration()) { continuation.resume(returning: $0) }
        }
        #expect(try loaded.get().modelDescription.predictedFeatureName == "classLabel")
        let missing: Result<MLModel, Error> = await withCheckedContinuation { continuation in
            MLModel.load(contentsOf: url.appendingPathExtension("missing")) { continuation.resume(returning: $0) }
        }
        #expect(throws: (any Error).self) { try missing.get() }
    }

    @Test func loadAsync() async throws {
        let model = try await MLModel.load(contentsOf: Fixtures.url("classifier_sgd.mlmodel"))
        #expect(model.modelDescription.inputDescriptionsByName["features"] != nil)
        await #expect(throws: (any Error).self) { _ = try await MLModel.load(contentsOf: URL(fileURLWithPath: "/no/such.mlmodel")) }
    }
}
