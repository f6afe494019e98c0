import Foundation

extension MLModel {
    /// Loads the model at `url` off the calling thread and hands the result to `handler` (Core ML's
    /// asynchronous loading). The handler runs on a background queue.
    ///
    /// ```swift
    /// MLModel.load(contentsOf: url, configuration: MLModelConfiguration()) { result in
    ///     switch result {
    ///     case .success(let model): self.model = model
    ///     case .failure(let error): print(error)
    ///     }
    /// }
    /// ```
    public class func load(
        contentsOf url: URL, configuration: MLModelConfiguration = MLModelConfiguration(),
        completionHandler handler: @escaping @Sendable (Result<MLModel, Error>) -> Void
    ) {
        let copy = configuration.copy()
        DispatchQueue.global(qos: .userInitiated).async {
            handler(Result { try MLModel(contentsOf: url, configuration: copy) })
        }
    }

    /// Loads the model at `url` without blocking the calling task (Core ML's `async` loading).
    public class func load(contentsOf url: URL, configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> MLModel {
        let copy = configuration.copy()
        return try await withCheckedThrowingContinuation { continuation in
            load(contentsOf: url, configuration: copy) { continuation.resume(with: $0) }
        }
    }
}
