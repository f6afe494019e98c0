import Foundation

extension MLModel {
    /// A new state for this model, every buffer zero (Core ML: iOS 18); empty for a model without
    /// states. Pass it to ``prediction(from:using:options:)``.
    public func makeState() -> MLState {
        // The program is compiled first: it reserves its states' sizes from the memory limit, so a
        // state too large for it is refused there (a prediction with the state says why) before
        // any buffer is made.
        MLState(model: self, makeBuffers: (try? prepareForPrediction()) != nil)
    }

    /// Predicts the outputs for one example with `state`: the prediction reads the state's buffers
    /// and leaves their new values in them (a decoder's key and value caches grow by the example's
    /// token).
    ///
    /// - Throws: An ``MLModelError`` for a state made by another model, or for what
    ///   ``prediction(from:)`` throws for.
    public func prediction(from input: MLFeatureProvider, using state: MLState) throws -> MLFeatureProvider {
        try prediction(from: input, using: state, options: MLPredictionOptions())
    }

    /// Predicts the outputs for one example with `state` (the options are accepted for Core ML
    /// compatibility).
    public func prediction(from input: MLFeatureProvider, using state: MLState, options: MLPredictionOptions) throws -> MLFeatureProvider {
        guard state.model === self else { throw MLModelError(.generic, "the state was made by another model (each model makes its own with makeState())") }
        let runner = try runner()
        guard let program = runner as? MLProgramRunner else { return try runner.predictions([input])[0] }
        return try program.predictions([input], state: state)[0]
    }

    /// Predicts with `state` off the calling thread.
    public func prediction(from input: MLFeatureProvider, using state: MLState) async throws -> MLFeatureProvider {
        try await prediction(from: input, using: state, options: MLPredictionOptions())
    }

    /// Predicts with `state` off the calling thread.
    public func prediction(from input: MLFeatureProvider, using state: MLState, options: MLPredictionOptions) async throws -> MLFeatureProvider {
        let box = UncheckedBox((input, state, options))
        return try await Task.detached { [self] in
            UncheckedBox(try self.prediction(from: box.value.0, using: box.value.1, options: box.value.2))
        }.value.value
    }
}
