/// A line search that returns a step α satisfying the strong Wolfe conditions for φ(α) = f(x + α·d):
///
///     φ(α) ≤ φ(0) + c₁·α·φ′(0)        (sufficient decrease)
///     |φ′(α)| ≤ c₂·|φ′(0)|            (curvature)
///
/// Nocedal & Wright's bracketing phase (Algorithm 3.5) followed by `zoom` (Algorithm 3.6), with a
/// safeguarded cubic interpolation for every new trial step. The accepted step is always the last
/// one evaluated, so the caller's trial point and gradient are the ones to keep.
///
/// Near a minimum, differences of f fall below its rounding (float32 logits, say) long before the
/// slopes do. So a step is also accepted when it meets Hager & Zhang's approximate Wolfe conditions,
/// which test the decrease through the slope: `(2c₁ − 1)·φ′(0) ≥ φ′(α) ≥ c₂·φ′(0)` with
/// `φ(α) ≤ φ(0) + valueNoise·|φ(0)|`.
struct WolfeLineSearch {
    /// c₁ in the sufficient-decrease condition.
    var sufficientDecrease = 1e-4
    /// c₂ in the curvature condition (0.9 suits quasi-Newton directions).
    var curvature = 0.9
    /// At most this many evaluations of φ per search.
    var maxEvaluations = 25
    /// The largest step tried.
    var maxStep = 1e10
    /// The relative rounding of φ within which the approximate Wolfe conditions may accept a step
    /// (0: exact conditions only).
    var valueNoise = 0.0

    /// One evaluation of φ: its value and slope φ′.
    struct Point {
        var step: Double
        var value: Double
        var slope: Double
    }

    /// Searches from `initialStep`, given φ(0) and φ′(0) < 0. `evaluate(α)` returns φ(α) and φ′(α).
    /// Returns the accepted point, or nil when no step satisfying both conditions was found within
    /// the evaluation budget (or φ′(0) is not a descent slope).
    func search(initialStep: Double, value0: Double, slope0: Double, evaluate: (Double) -> (value: Double, slope: Double)) -> Point? {
        guard slope0 < 0, slope0.isFinite, value0.isFinite else { return nil }
        let origin = Point(step: 0, value: value0, slope: slope0)
        var previous = origin
        var step = min(initialStep, maxStep)
        var evaluations = 0
        while evaluations < maxEvaluations {
            let (value, slope) = evaluate(step)
            evaluations += 1
            let current = Point(step: step, value: value, slope: slope)
            if !value.isFinite {
                // Overshot into overflow: shrink towards the last good point.
                step = previous.step + 0.1 * (step - previous.step)
                continue
            }
            if satisfiesApproximateWolfe(current, origin) { return current }
            if !satisfiesDecrease(current, origin) || (evaluations > 1 && value >= previous.value) {
                return zoom(low: previous, high: current, origin: origin, evaluations: evaluations, evaluate: evaluate)
            }
            if abs(slope) <= -curvature * slope0 { return current }
            if slope >= 0 {
                return zoom(low: current, high: previous, origin: origin, evaluations: evaluations, evaluate: evaluate)
            }
            guard step < maxStep else { return nil }
            // Extrapolate: a cubic step beyond the current one, kept within [1.1, 4] times it.
            let guess = cubicMinimizer(previous, current)
            let next = guess.isFinite && guess > step ? guess : 2 * step
            previous = current
            step = min(max(next, 1.1 * step), 4 * step, maxStep)
        }
        return nil
    }

    private func satisfiesDecrease(_ point: Point, _ origin: Point) -> Bool {
        point.value <= origin.value + sufficientDecrease * point.step * origin.slope
    }

    private func satisfiesApproximateWolfe(_ point: Point, _ origin: Point) -> Bool {
        valueNoise > 0 && point.value <= origin.value + valueNoise * abs(origin.value)
            && (2 * sufficientDecrease - 1) * origin.slope >= point.slope && point.slope >= curvature * origin.slope
    }

    /// Narrows an interval known to hold acceptable steps. `low` satisfies sufficient decrease and
    /// has the lowest value seen; φ′(low)·(high − low) < 0.
    private func zoom(low: Point, high: Point, origin: Point, evaluations: Int,
                      evaluate: (Double) -> (value: Double, slope: Double)) -> Point? {
        var low = low, high = high
        var evaluations = evaluations
        while evaluations < maxEvaluations {
            let lo = min(low.step, high.step), hi = max(low.step, high.step)
            let width = hi - lo
            guard width > 1e-16 * max(hi, 1e-300) else { return nil }
            var step = high.value.isFinite ? cubicMinimizer(low, high) : .nan
            // Keep the trial inside the interval, away from its ends; else bisect.
            if !step.isFinite || step < lo + 0.1 * width || step > hi - 0.1 * width {
                step = lo + 0.5 * width
            }
            let (value, slope) = evaluate(step)
            evaluations += 1
            let current = Point(step: step, value: value, slope: slope)
            if satisfiesApproximateWolfe(current, origin) { return current }
            if !value.isFinite || !satisfiesDecrease(current, origin) || value >= low.value {
                high = current
            } else {
                if abs(slope) <= -curvature * origin.slope { return current }
                if slope * (high.step - low.step) >= 0 { high = low }
                low = current
            }
        }
        return nil
    }

    /// The minimizer of the cubic through two points with their values and slopes (NaN when the
    /// cubic has none).
    private func cubicMinimizer(_ a: Point, _ b: Point) -> Double {
        let d1 = a.slope + b.slope - 3 * (a.value - b.value) / (a.step - b.step)
        let discriminant = d1 * d1 - a.slope * b.slope
        guard discriminant >= 0 else { return .nan }
        let d2 = (b.step > a.step ? 1.0 : -1.0) * discriminant.squareRoot()
        let denominator = b.slope - a.slope + 2 * d2
        guard denominator != 0 else { return .nan }
        return b.step - (b.step - a.step) * (b.slope + d2 - d1) / denominator
    }
}
