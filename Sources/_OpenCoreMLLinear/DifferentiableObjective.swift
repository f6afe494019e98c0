/// A smooth function of `dimension` real variables that a quasi-Newton solver can minimize.
package protocol DifferentiableObjective {
    /// The number of variables.
    var dimension: Int { get }

    /// Returns f(x) and writes ∇f(x) into `gradient` (both `dimension` long).
    func value(at x: [Double], gradient: inout [Double]) -> Double
}
