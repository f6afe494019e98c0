import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's `uniDirectionalLSTM`, forward and backpropagation through time.
///
/// Blobs: inputs `x` (required), `h0`, `c0` (optional, zeros when absent); outputs `y`, `h_T`, `c_T`
/// (the last two optional). `x` is a sequence: the blob's outer (sequence) axis is time and each
/// step holds `inputVectorSize` values (C·H·W). `h0`, `c0`, `h_T`, `c_T` hold `outputVectorSize` values.
/// `y` holds every step's output when `sequenceOutput`, else the last one.
///
/// Per step, with `f`, `g`, `h` the three activations (default sigmoid, tanh, tanh):
///
///     i = f(clip(W_i x + R_i y₋ + p_i ⊙ c₋ + b_i))
///     f = f(clip(W_f x + R_f y₋ + p_f ⊙ c₋ + b_f (+ 1 with forgetBias)))
///     z = g(clip(W_z x + R_z y₋ + b_z))
///     c = clamp(c₋ ⊙ f + i ⊙ z, ±cellClipThreshold)      (coupled gates: c₋ ⊙ (1 − i) + i ⊙ z)
///     o = f(clip(W_o x + R_o y₋ + p_o ⊙ c + b_o))
///     y = o ⊙ h(c)
///
/// where `clip` limits pre-activations to ±50 and `cellClipThreshold` 0 means 50 (both as the
/// specification states; values beyond a clip get no gradient).
///
/// Conventions where the specification is silent:
/// - `reverseInput` processes the steps from last to first and `y` lists the outputs in processing
///   order (`y[0]` is the output after reading the last input step), as coremltools' reference tests
///   for the neural-network backend expect.
/// - Core ML lists `linear`, `scaledTanh` and `sigmoidHard` with fixed constants for recurrent layers
///   (1 and 0; 1.71 and 2/3; 0.2 and 0.5), while coremltools writes those activations without
///   parameters. An activation whose alpha and beta are both 0 takes those constants; otherwise its
///   own alpha and beta are used.
/// - With `coupledInputAndForgetGate` the forget-gate weights are not used (they may be empty) and
///   get zero gradients. `forgetBias` adds 1 to the forget gate even without bias vectors.
/// - Under the exact mapping a rank-5 `[Seq, Batch, C, 1, 1]` input needs Batch = 1 (the engine
///   batches on its own axis); outputs then keep rank 5.
///
/// Every weight, recursion matrix, bias and peephole is trainable (when marked updatable); backward
/// also gives `x`, `h0` and `c0` their gradients.
final class LSTMNode: LayerNode, @unchecked Sendable {
    /// A recurrent activation (one of the shared ``Activation``s) read from `params`.
    static func activation(_ params: CoreML_Specification_ActivationParams, location: String) throws -> Activation {
        switch params.nonlinearityType {
        case .sigmoid?: return .sigmoid
        case .tanh?: return .tanh
        case .reLu?: return .relu
        case .linear(let p)?:
            return p.alpha == 0 && p.beta == 0 ? .linear(alpha: 1, beta: 0) : .linear(alpha: p.alpha, beta: p.beta)
        case .scaledTanh(let p)?:
            return p.alpha == 0 && p.beta == 0 ? .scaledTanh(alpha: 1.71, beta: 2.0 / 3) : .scaledTanh(alpha: p.alpha, beta: p.beta)
        case .sigmoidHard(let p)?:
            return p.alpha == 0 && p.beta == 0 ? .sigmoidHard(alpha: 0.2, beta: 0.5) : .sigmoidHard(alpha: p.alpha, beta: p.beta)
        case nil:
            throw EngineError(location, "an activation is not set")
        default:
            throw EngineError(location, "activation \(params.nonlinearityType.map { "\($0)".prefix { $0 != "(" } } ?? "") is not supported in an LSTM; use sigmoid, tanh, linear, relu, scaledTanh or sigmoidHard")
        }
    }

    /// The gates in the order of the buffers: input, forget, block input, output.
    private enum Gate: Int, CaseIterable { case input = 0, forget, block, output }

    let inputSize: Int
    let hiddenSize: Int
    let gateActivation: Activation
    let cellActivation: Activation
    let outputActivation: Activation
    let sequenceOutput: Bool
    let reverseInput: Bool
    let forgetBias: Bool
    let coupled: Bool
    let cellClip: Float
    /// W_i, W_f, W_z, W_o ([hidden, input] row-major).
    let inputWeights: [Parameter]
    /// R_i, R_f, R_z, R_o ([hidden, hidden] row-major).
    let recursionWeights: [Parameter]
    /// b_i, b_f, b_z, b_o, when the layer has bias vectors.
    let biases: [Parameter]?
    /// p_i, p_f, p_o, when the layer has peepholes.
    let peepholes: [Parameter]?

    /// The pre-activation clip the specification applies to every gate.
    private static let gateClip: Float = 50

    // Geometry, set by prepareForShapes.
    private var steps = 1
    private var hasInitialHidden: Bool { inputs.count > 1 }
    /// Whether backward may use the derivatives of sigmoid gates, tanh block input and output
    /// written out: no peepholes, separate input and forget gates.
    private var usesVectorGates: Bool {
        guard peepholes == nil, !coupled, case .sigmoid = gateActivation, case .tanh = cellActivation, case .tanh = outputActivation else { return false }
        return true
    }
    private var hasInitialCell: Bool { inputs.count > 2 }

    // Per-step state, `[batch][steps][hidden]` indexed by input position (the gates: 4 such blocks).
    private let preactivations = FloatBuffer()
    private let activations = FloatBuffer()
    private let previousHidden = FloatBuffer()
    private let previousCell = FloatBuffer()
    private let rawCell = FloatBuffer()
    private let cell = FloatBuffer()
    private let cellOutput = FloatBuffer()
    private let hidden = FloatBuffer()
    // Backward scratch.
    private let preactivationGradients = FloatBuffer()
    private let hiddenGradient = FloatBuffer()
    private let cellGradient = FloatBuffer()
    private let peepholeScratch = FloatBuffer()
    /// The recursion matrices stacked gate after gate (4·hidden × hidden), and one step's four gates
    /// side by side per example (batch × 4·hidden).
    private let stackedRecursion = FloatBuffer()
    private let stepScratch = FloatBuffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_UniDirectionalLSTMLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        let location = "layer '\(spec.name)' (uniDirectionalLSTM)"
        inputSize = try Self.declaredSize(params.inputVectorSize, "inputVectorSize", of: spec)
        hiddenSize = try Self.declaredSize(params.outputVectorSize, "outputVectorSize", of: spec)
        guard inputSize > 0, hiddenSize > 0 else {
            throw EngineError(location, "inputVectorSize (\(inputSize)) and outputVectorSize (\(hiddenSize)) must be positive")
        }
        switch params.activations.count {
        case 0:
            (gateActivation, cellActivation, outputActivation) = (.sigmoid, .tanh, .tanh)
        case 3:
            gateActivation = try Self.activation(params.activations[0], location: location)
            cellActivation = try Self.activation(params.activations[1], location: location)
            outputActivation = try Self.activation(params.activations[2], location: location)
        default:
            throw EngineError(location, "\(params.activations.count) activations given; 3 expected (gates, block input, output)")
        }
        let lstm = params.params
        sequenceOutput = lstm.sequenceOutput
        reverseInput = params.reverseInput
        forgetBias = lstm.forgetBias
        coupled = lstm.coupledInputAndForgetGate
        cellClip = lstm.cellClipThreshold == 0 ? 50 : abs(lstm.cellClipThreshold)

        // The blobs the layer table lists; the forget gate's may be left out when the gates are
        // coupled (they are unused), which Core ML does not allow but costs nothing to accept.
        let listed = Set(spec.weightBlobs.map(\.name)), isCoupled = lstm.coupledInputAndForgetGate
        func read(_ names: [String]) throws -> [Parameter]? {
            guard names.allSatisfy(listed.contains) else { return nil }
            return try names.map { name in
                if isCoupled, name.hasPrefix("forgetGate"), let entry = spec.weightBlob(named: name),
                   spec[keyPath: entry.path].count == 0, case .exactly(let count) = entry.expectedCount {
                    return Parameter(name: "\(spec.name).\(name)", values: [Float](repeating: 0, count: count), isTrainable: false)
                }
                return try Parameter.required(name, of: spec)
            }
        }
        inputWeights = try read(["inputGateWeightMatrix", "forgetGateWeightMatrix", "blockInputWeightMatrix", "outputGateWeightMatrix"]) ?? []
        recursionWeights = try read(["inputGateRecursionMatrix", "forgetGateRecursionMatrix", "blockInputRecursionMatrix", "outputGateRecursionMatrix"]) ?? []
        biases = try read(["inputGateBiasVector", "forgetGateBiasVector", "blockInputBiasVector", "outputGateBiasVector"])
        peepholes = try read(["inputGatePeepholeVector", "forgetGatePeepholeVector", "outputGatePeepholeVector"])
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = inputWeights + recursionWeights + (biases ?? []) + (peepholes ?? [])
    }

    override func prepareForShapes() throws {
        steps = input.shape.classic.outer
    }

    override func reserve(batch: Int, training: Bool) {
        let size = batch * steps * hiddenSize
        preactivations.reserve(4 * size)
        activations.reserve(4 * size)
        previousHidden.reserve(size)
        previousCell.reserve(size)
        rawCell.reserve(size)
        cell.reserve(size)
        cellOutput.reserve(size)
        hidden.reserve(size)
        stackedRecursion.reserve(4 * hiddenSize * hiddenSize)
        stepScratch.reserve(4 * batch * hiddenSize)
        if training {
            preactivationGradients.reserve(4 * size)
            hiddenGradient.reserve(batch * hiddenSize)
            cellGradient.reserve(batch * hiddenSize)
            peepholeScratch.reserve(size)
        }
    }

    /// Input positions in processing order.
    private var order: [Int] { reverseInput ? Array((0..<steps).reversed()) : Array(0..<steps) }

    /// The cell's activations, clips and coupling (``Recurrent/LSTMCell``).
    private var lstmCell: Recurrent.LSTMCell {
        Recurrent.LSTMCell(gate: gateActivation, cell: cellActivation, output: outputActivation,
                           preactivationClip: Self.gateClip, cellClip: cellClip, coupled: coupled)
    }

    /// Where example `example`'s gates for input position `t` lie in `base` (pre-activations,
    /// activations or their gradients): four blocks of `[batch][steps][hidden]`.
    private func gates(_ base: UnsafeMutablePointer<Float>, example: Int, step t: Int, batch: Int) -> Recurrent.Gates {
        let size = batch * steps * hiddenSize, row = (example * steps + t) * hiddenSize
        return Recurrent.Gates(input: base + row, forget: base + size + row, block: base + 2 * size + row, output: base + 3 * size + row)
    }

    // MARK: Forward

    override func forward(batch: Int, training: Bool) {
        if !coupled { stackRecursion() }
        projectInputs(batch: batch)
        var previous: Int? = nil
        for t in order {
            enterStep(t, after: previous, batch: batch)
            if previous != nil || hasInitialHidden { addRecurrence(t, batch: batch) }
            runCell(t, batch: batch)
            previous = t
        }
        writeOutputs(batch: batch, last: previous ?? 0)
    }

    /// The four recursion matrices stacked (4·hidden × hidden), for one recurrent GEMM per step.
    private func stackRecursion() {
        let hs = hiddenSize
        for g in 0..<4 { (stackedRecursion.pointer + g * hs * hs).update(from: recursionWeights[g].value.pointer, count: hs * hs) }
    }

    /// The input projections of every step at once, plus the biases (and 1 on the forget gate
    /// with `forgetBias`).
    private func projectInputs(batch: Int) {
        let (hs, xs) = (hiddenSize, inputSize)
        let rows = batch * steps, size = rows * hs
        let pre = preactivations.pointer, x = input.value.pointer
        for gate in Gate.allCases {
            let g = gate.rawValue
            if coupled && gate == .forget { continue }
            ocm_sgemm(false, true, Int32(rows), Int32(hs), Int32(xs), 1, x, Int32(xs), inputWeights[g].value.pointer, Int32(xs), 0, pre + g * size, Int32(hs))
            if let biases { ocm_add_row_vector(pre + g * size, biases[g].value.pointer, Int32(rows), Int32(hs), Int32(hs)) }
            if gate == .forget && forgetBias {
                let p = pre + g * size
                for index in 0..<size { p[index] += 1 }
            }
        }
    }

    /// The state entering step `t`, kept for backward: the step `previous`'s, or the initial
    /// state (zeros when absent).
    private func enterStep(_ t: Int, after previous: Int?, batch: Int) {
        let (s, hs) = (steps, hiddenSize)
        let hPrev = previousHidden.pointer, cPrev = previousCell.pointer
        for example in 0..<batch {
            let row = (example * s + t) * hs
            if let previous {
                let from = (example * s + previous) * hs
                (hPrev + row).update(from: hidden.pointer + from, count: hs)
                (cPrev + row).update(from: cell.pointer + from, count: hs)
            } else {
                if hasInitialHidden { (hPrev + row).update(from: inputs[1].value.pointer + example * hs, count: hs) }
                else { (hPrev + row).update(repeating: 0, count: hs) }
                if hasInitialCell { (cPrev + row).update(from: inputs[2].value.pointer + example * hs, count: hs) }
                else { (cPrev + row).update(repeating: 0, count: hs) }
            }
        }
    }

    /// The recurrent contributions `R·h₋` added into each gate's pre-activations: one GEMM over
    /// the batch against the four stacked recursion matrices (one per gate when coupled).
    private func addRecurrence(_ t: Int, batch: Int) {
        let (s, hs) = (steps, hiddenSize)
        let size = batch * s * hs, ldState = s * hs
        let pre = preactivations.pointer, hPrev = previousHidden.pointer
        guard !coupled else {
            for gate in Gate.allCases where gate != .forget {
                let g = gate.rawValue
                ocm_sgemm(false, true, Int32(batch), Int32(hs), Int32(hs), 1, hPrev + t * hs, Int32(ldState),
                          recursionWeights[g].value.pointer, Int32(hs), 1, pre + g * size + t * hs, Int32(ldState))
            }
            return
        }
        let stepGates = stepScratch.pointer
        ocm_sgemm(false, true, Int32(batch), Int32(4 * hs), Int32(hs), 1, hPrev + t * hs, Int32(ldState),
                  stackedRecursion.pointer, Int32(hs), 0, stepGates, Int32(4 * hs))
        for example in 0..<batch {
            for g in 0..<4 {
                let target = pre + g * size + (example * s + t) * hs
                ocm_add(target, stepGates + (example * 4 + g) * hs, target, hs)
            }
        }
    }

    /// The cell (gates, cell update, output) on every example's row of step `t`.
    private func runCell(_ t: Int, batch: Int) {
        let lstmCell = lstmCell
        let peephole = peepholes.map { Recurrent.Peephole(input: $0[0].value.pointer, forget: $0[1].value.pointer, output: $0[2].value.pointer) }
        let pre = preactivations.pointer, act = activations.pointer
        for example in 0..<batch {
            let row = (example * steps + t) * hiddenSize
            let state = Recurrent.State(rawCell: rawCell.pointer + row, cell: cell.pointer + row, cellOutput: cellOutput.pointer + row,
                                        hidden: hidden.pointer + row)
            lstmCell.step(pre: gates(pre, example: example, step: t, batch: batch), act: gates(act, example: example, step: t, batch: batch),
                          previous: previousCell.pointer + row, peephole: peephole, state: state, count: hiddenSize)
        }
    }

    /// `y` (every step in processing order, or the last), `h_T` and `c_T`.
    private func writeOutputs(batch: Int, last: Int) {
        let (s, hs) = (steps, hiddenSize)
        let hOut = hidden.pointer, cOut = cell.pointer
        let y = outputs[0].value.pointer
        for example in 0..<batch {
            if sequenceOutput {
                for (k, t) in order.enumerated() {
                    (y + (example * s + k) * hs).update(from: hOut + (example * s + t) * hs, count: hs)
                }
            } else {
                (y + example * hs).update(from: hOut + (example * s + last) * hs, count: hs)
            }
            if outputs.count > 1 { (outputs[1].value.pointer + example * hs).update(from: hOut + (example * s + last) * hs, count: hs) }
            if outputs.count > 2 { (outputs[2].value.pointer + example * hs).update(from: cOut + (example * s + last) * hs, count: hs) }
        }
    }

    // MARK: Backward

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        seedStateGradients(batch: batch)
        if coupled { (preactivationGradients.pointer + batch * steps * hiddenSize).update(repeating: 0, count: batch * steps * hiddenSize) }
        for (k, t) in order.enumerated().reversed() {
            if usesVectorGates { sigmoidTanhStepGradients(k, t, batch: batch) } else { stepGradients(k, t, batch: batch) }
            propagateHidden(t, batch: batch)
        }
        initialStateGradients(batch: batch)
        parameterGradients(batch: batch)
        inputGradient(batch: batch)
    }

    /// The gradients entering the last step: from `h_T`, `c_T` and (without sequence output) `y`.
    private func seedStateGradients(batch: Int) {
        let hs = hiddenSize
        let dh = hiddenGradient.pointer, dc = cellGradient.pointer, dy = outputs[0].gradient.pointer
        for example in 0..<batch {
            let dhRow = dh + example * hs, dcRow = dc + example * hs
            if outputs.count > 1 { dhRow.update(from: outputs[1].gradient.pointer + example * hs, count: hs) }
            else { dhRow.update(repeating: 0, count: hs) }
            if !sequenceOutput { for j in 0..<hs { dhRow[j] += dy[example * hs + j] } }
            if outputs.count > 2 { dcRow.update(from: outputs[2].gradient.pointer + example * hs, count: hs) }
            else { dcRow.update(repeating: 0, count: hs) }
        }
    }

    /// Step `t`'s (the `k`-th processed) gate gradients with sigmoid gates, tanh block input and
    /// output and no peepholes: the derivatives written out (at |pre| > 50 they are 0 in float
    /// anyway, as the clip asks). Carries the cell gradient to the step before.
    private func sigmoidTanhStepGradients(_ k: Int, _ t: Int, batch: Int) {
        let (s, hs) = (steps, hiddenSize)
        let size = batch * s * hs
        let act = activations.pointer, dPre = preactivationGradients.pointer
        let dh = hiddenGradient.pointer, dc = cellGradient.pointer, dy = outputs[0].gradient.pointer
        let cPrev = previousCell.pointer, cRaw = rawCell.pointer, cAct = cellOutput.pointer
        let cellClip = self.cellClip
        for example in 0..<batch {
            let row = (example * s + t) * hs
            let dhRow = dh + example * hs, dcRow = dc + example * hs
            let dyRow = sequenceOutput ? dy + (example * s + k) * hs : nil
            for j in 0..<hs {
                let index = row + j
                let dhj = dhRow[j] + (dyRow?[j] ?? 0)
                let i = act[index], f = act[size + index], z = act[2 * size + index], o = act[3 * size + index]
                let hc = cAct[index], raw = cRaw[index]
                let dC = dcRow[j] + dhj * o * (1 - hc * hc)
                let dRaw = raw >= -cellClip && raw <= cellClip ? dC : 0
                dcRow[j] = dRaw * f
                dPre[index] = dRaw * z * i * (1 - i)
                dPre[size + index] = dRaw * cPrev[index] * f * (1 - f)
                dPre[2 * size + index] = dRaw * i * (1 - z * z)
                dPre[3 * size + index] = dhj * hc * o * (1 - o)
            }
        }
    }

    /// Step `t`'s (the `k`-th processed) gate gradients for any activations, peepholes and
    /// coupling; values beyond a clip pass no gradient. Carries the cell gradient to the step before.
    private func stepGradients(_ k: Int, _ t: Int, batch: Int) {
        let (s, hs) = (steps, hiddenSize)
        let size = batch * s * hs
        let pre = preactivations.pointer, act = activations.pointer, dPre = preactivationGradients.pointer
        let dh = hiddenGradient.pointer, dc = cellGradient.pointer, dy = outputs[0].gradient.pointer
        let cPrev = previousCell.pointer, cRaw = rawCell.pointer, cOut = cell.pointer, cAct = cellOutput.pointer
        let peep = peepholes.map { $0.map(\.value.pointer) }
        let (fAct, gAct, hAct) = (gateActivation, cellActivation, outputActivation)
        let clip = Self.gateClip, cellClip = self.cellClip, coupled = self.coupled
        for example in 0..<batch {
            let row = (example * s + t) * hs
            for j in 0..<hs {
                let index = row + j
                var dhj = dh[example * hs + j]
                if sequenceOutput { dhj += dy[(example * s + k) * hs + j] }
                let i = act[index], f = act[size + index], z = act[2 * size + index], o = act[3 * size + index]
                let c = cOut[index], hc = cAct[index], cp = cPrev[index]
                let preI = pre[index], preF = pre[size + index], preZ = pre[2 * size + index], preO = pre[3 * size + index]

                let dO = dhj * hc
                let dPreO = abs(preO) <= clip ? dO * fAct.derivative(preO, o) : 0
                var dC = dc[example * hs + j] + dhj * o * hAct.derivative(c, hc)
                if let peep { dC += dPreO * peep[2][j] }
                // Clamped cells pass no gradient.
                let raw = cRaw[index]
                let dRaw = raw >= -cellClip && raw <= cellClip ? dC : 0
                let dI: Float, dF: Float, dCPrev: Float
                if coupled {
                    dI = dRaw * (z - cp)
                    dF = 0
                    dCPrev = dRaw * (1 - i)
                } else {
                    dI = dRaw * z
                    dF = dRaw * cp
                    dCPrev = dRaw * f
                }
                let dZ = dRaw * i
                let dPreI = abs(preI) <= clip ? dI * fAct.derivative(preI, i) : 0
                let dPreF = !coupled && abs(preF) <= clip ? dF * fAct.derivative(preF, f) : 0
                let dPreZ = abs(preZ) <= clip ? dZ * gAct.derivative(preZ, z) : 0
                var dCarry = dCPrev
                if let peep { dCarry += dPreI * peep[0][j] + dPreF * peep[1][j] }
                dc[example * hs + j] = dCarry
                dPre[index] = dPreI
                dPre[size + index] = dPreF
                dPre[2 * size + index] = dPreZ
                dPre[3 * size + index] = dPreO
            }
        }
    }

    /// `dh₋ = Σ_gates dPre · R`: the step's four gate gradients side by side, one GEMM against
    /// the stacked recursion matrices (one per gate when coupled).
    private func propagateHidden(_ t: Int, batch: Int) {
        let (s, hs) = (steps, hiddenSize)
        let size = batch * s * hs, ldState = s * hs
        let dPre = preactivationGradients.pointer, dh = hiddenGradient.pointer
        guard !coupled else {
            var first = true
            for gate in Gate.allCases where gate != .forget {
                let g = gate.rawValue
                ocm_sgemm(false, false, Int32(batch), Int32(hs), Int32(hs), 1, dPre + g * size + t * hs, Int32(ldState),
                          recursionWeights[g].value.pointer, Int32(hs), first ? 0 : 1, dh, Int32(hs))
                first = false
            }
            return
        }
        let stepGates = stepScratch.pointer
        for example in 0..<batch {
            for g in 0..<4 {
                (stepGates + (example * 4 + g) * hs).update(from: dPre + g * size + (example * s + t) * hs, count: hs)
            }
        }
        ocm_sgemm(false, false, Int32(batch), Int32(hs), Int32(4 * hs), 1, stepGates, Int32(4 * hs),
                  stackedRecursion.pointer, Int32(hs), 0, dh, Int32(hs))
    }

    /// The gradients of `h0` and `c0`: what reaches the first processed step.
    private func initialStateGradients(batch: Int) {
        let hs = hiddenSize
        if hasInitialHidden && inputs[1].needsGradient {
            setGradient(of: inputs[1], count: batch * hs) { $0.update(from: hiddenGradient.pointer, count: batch * hs) }
        }
        if hasInitialCell && inputs[2].needsGradient {
            setGradient(of: inputs[2], count: batch * hs) { $0.update(from: cellGradient.pointer, count: batch * hs) }
        }
    }

    /// The weights', recursion matrices', biases' and peepholes' gradients: sums over every step
    /// of every example.
    private func parameterGradients(batch: Int) {
        let (hs, xs) = (hiddenSize, inputSize)
        let rows = batch * steps, size = rows * hs
        let dPre = preactivationGradients.pointer, x = input.value.pointer, hPrev = previousHidden.pointer
        for g in 0..<4 {
            let dGate = dPre + g * size
            let w = inputWeights[g], r = recursionWeights[g]
            if w.isTrainable {
                ocm_sgemm(true, false, Int32(hs), Int32(xs), Int32(rows), 1, dGate, Int32(hs), x, Int32(xs), 0, w.gradient.pointer, Int32(xs))
            }
            if r.isTrainable {
                ocm_sgemm(true, false, Int32(hs), Int32(hs), Int32(rows), 1, dGate, Int32(hs), hPrev, Int32(hs), 0, r.gradient.pointer, Int32(hs))
            }
            if let b = biases?[g], b.isTrainable {
                ocm_sum_rows(dGate, b.gradient.pointer, Int32(rows), Int32(hs), Int32(hs), false)
            }
        }
        if let peepholes {
            // p_i and p_f meet the previous cell state, p_o the new one.
            let sources: [(gate: Int, state: UnsafeMutablePointer<Float>)] = [(0, previousCell.pointer), (1, previousCell.pointer), (3, cell.pointer)]
            let scratch = peepholeScratch.pointer
            for (p, source) in zip(peepholes, sources) where p.isTrainable {
                ocm_mul(dPre + source.gate * size, source.state, scratch, size)
                ocm_sum_rows(scratch, p.gradient.pointer, Int32(rows), Int32(hs), Int32(hs), false)
            }
        }
    }

    /// The input's gradient: `dx = Σ_gates dPre · W`.
    private func inputGradient(batch: Int) {
        guard input.needsGradient else { return }
        let (hs, xs) = (hiddenSize, inputSize)
        let rows = batch * steps, size = rows * hs
        let dPre = preactivationGradients.pointer
        setGradient(of: input, count: rows * xs) { dx in
            var first = true
            for gate in Gate.allCases {
                let g = gate.rawValue
                if coupled && gate == .forget { continue }
                ocm_sgemm(false, false, Int32(rows), Int32(xs), Int32(hs), 1, dPre + g * size, Int32(hs),
                          inputWeights[g].value.pointer, Int32(xs), first ? 0 : 1, dx, Int32(xs))
                first = false
            }
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .uniDirectionalLstm(var params)? = spec.layer else { return }
        var w = params.weightParams
        inputWeights[0].store(in: &w.inputGateWeightMatrix)
        inputWeights[1].store(in: &w.forgetGateWeightMatrix)
        inputWeights[2].store(in: &w.blockInputWeightMatrix)
        inputWeights[3].store(in: &w.outputGateWeightMatrix)
        recursionWeights[0].store(in: &w.inputGateRecursionMatrix)
        recursionWeights[1].store(in: &w.forgetGateRecursionMatrix)
        recursionWeights[2].store(in: &w.blockInputRecursionMatrix)
        recursionWeights[3].store(in: &w.outputGateRecursionMatrix)
        if let biases {
            biases[0].store(in: &w.inputGateBiasVector)
            biases[1].store(in: &w.forgetGateBiasVector)
            biases[2].store(in: &w.blockInputBiasVector)
            biases[3].store(in: &w.outputGateBiasVector)
        }
        if let peepholes {
            peepholes[0].store(in: &w.inputGatePeepholeVector)
            peepholes[1].store(in: &w.forgetGatePeepholeVector)
            peepholes[2].store(in: &w.outputGatePeepholeVector)
        }
        params.weightParams = w
        spec.uniDirectionalLstm = params
    }
}
