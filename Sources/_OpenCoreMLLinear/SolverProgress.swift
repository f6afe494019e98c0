/// How a linear model's solver variables map onto the model (a standardization folded back).
package protocol SolverLayout: Sendable {
    associatedtype Model: Sendable
    func model(from x: [Double]) -> Model
}

/// One finished iteration of a linear model's `fit`, for progress tables and for keeping the
/// iteration that does best on validation data.
package struct SolverProgress<Layout: SolverLayout>: Sendable {
    /// 1 for the first iteration.
    package var iteration: Int
    /// The training objective: the mean loss (cross-entropy, or half the squared error) plus the penalties.
    package var loss: Double
    /// The largest absolute component of the objective's gradient (OWL-QN's pseudo-gradient
    /// under an L1 penalty), the quantity the gradient tolerance is compared with.
    package var gradientNorm: Double
    /// Objective evaluations so far (each is a pass over the data).
    package var evaluations: Int

    let variables: [Double]
    let layout: Layout

    /// The model at this iteration.
    package func model() -> Layout.Model { layout.model(from: variables) }
}

/// What a linear model's `fit` returns: the model and how the solver ended.
package struct SolverFit<Model: Sendable>: Sendable {
    package var model: Model
    /// Iterations taken.
    package var iterations: Int
    /// Objective evaluations made.
    package var evaluations: Int
    /// The final training objective (mean loss plus penalties).
    package var loss: Double
    /// The final largest gradient component (pseudo-gradient under L1).
    package var gradientNorm: Double
    /// Why the solver stopped.
    package var stop: MinimizationStop
}
