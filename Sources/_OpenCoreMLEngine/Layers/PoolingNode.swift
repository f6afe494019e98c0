import CoreMLSpec

/// A classic pooling layer (max, average and L2 over each channel plane, windowed or global, with
/// Core ML's three padding modes: valid with explicit amounts, same, and Caffe-style
/// include-last-pixel): an adapter from the layer's parameters onto ``Pooling2D``.
final class PoolingNode: LayerNode, @unchecked Sendable {
    let type: CoreML_Specification_PoolingLayerParams.PoolingType
    let isGlobal: Bool
    let excludePadding: Bool
    let params: CoreML_Specification_PoolingLayerParams

    /// The pooling on the current input (set by prepareForShapes()).
    private(set) var pooling: Pooling2D?
    private let argmax = Int32Buffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_PoolingLayerParams, inputs: [Blob], outputs: [Blob]) {
        type = params.type
        isGlobal = params.globalPooling
        excludePadding = params.avgPoolExcludePadding
        self.params = params
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        let classic = input.shape.classic, h = classic.height, w = classic.width
        // The layer table has checked that the window fits, so there is a geometry.
        guard let geometry = try? params.geometry(height: h, width: w) else {
            throw fail("input '\(input.name)' (\(h)×\(w)) does not fit the pooling window")
        }
        let kind: Pooling2D.Kind = switch type {
        case .max: .max
        case .average: .average(excludePadding: excludePadding)
        case .l2, .UNRECOGNIZED: .l2
        }
        pooling = Pooling2D(kind, window: geometry, isGlobal: isGlobal)
    }

    /// The output plane's size.
    var outputSize: (h: Int, w: Int) { (pooling?.window.outputHeight ?? 0, pooling?.window.outputWidth ?? 0) }

    /// Whether a convolution before this layer can run it (windowed max pooling), through
    /// ``Pooling2D/forward(_:into:planes:argmax:)``.
    var fusesAsMaxPooling: Bool { type == .max && !isGlobal }

    /// Whether this is max pooling with a 2×2 window, stride 2 and no padding, whose backward
    /// `ocm_maxpool2x2_backward` computes without a scatter.
    var isMaxPooling2x2: Bool { fusesAsMaxPooling && pooling?.isMaxPooling2x2 == true }

    private func planes(_ batch: Int) -> Int {
        let classic = input.shape.classic, outer = classic.outer, c = classic.channels
        return batch * outer * c
    }

    override func reserve(batch: Int, training: Bool) {
        if type == .max && training { argmax.reserve(batch * output.shape.count) }
    }

    /// Max pooling keeps each window's winner for the backward pass only when training; predictions
    /// take the kernels' faster path without indices.
    override func forward(batch: Int, training: Bool) {
        pooling?.forward(input.value.pointer, into: output.value.pointer, planes: planes(batch), argmax: type == .max && training ? argmax.pointer : nil)
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient, let pooling else { return }
        pooling.backward(output.gradient.pointer, into: input.gradient.pointer, planes: planes(batch), accumulate: input.gradientWritten,
                         argmax: argmax.pointer, x: input.value.pointer, y: output.value.pointer)
        input.gradientWritten = true
    }
}
