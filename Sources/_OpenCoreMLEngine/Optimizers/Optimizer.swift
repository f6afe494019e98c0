import _OpenCoreMLKernels

/// Applies one update to every trainable parameter from its gradient. The settings may change
/// between steps (the next step uses them); moments and velocities carry over.
package final class Optimizer: @unchecked Sendable {
    package var settings: OptimizerSettings
    /// The number of updates made so far (Adam's bias correction uses it).
    package private(set) var step = 0

    package init(_ settings: OptimizerSettings) {
        self.settings = settings
    }

    package func update(_ parameters: [Parameter]) {
        step += 1
        for parameter in parameters where parameter.isTrainable {
            switch settings {
            case .sgd(let rate, let momentum):
                if momentum != 0, parameter.state.isEmpty { parameter.state = [FloatBuffer(capacity: parameter.count)] }
                ocm_sgd_update(parameter.value.pointer, parameter.gradient.pointer,
                               momentum != 0 ? parameter.state[0].pointer : nil, parameter.count, Float(rate), Float(momentum))
            case .adam(let rate, let beta1, let beta2, let eps):
                if parameter.state.count < 2 {
                    parameter.state = [FloatBuffer(capacity: parameter.count), FloatBuffer(capacity: parameter.count)]
                }
                ocm_adam_update(parameter.value.pointer, parameter.gradient.pointer, parameter.state[0].pointer,
                                parameter.state[1].pointer, parameter.count, Float(rate), Float(beta1), Float(beta2),
                                Float(eps), step)
            }
        }
    }
}
