import Foundation
import _OpenCoreMLKernels

/// The elementwise math functions of one input that both interpreters share (the classic `unary`
/// layer's, the ML Program's `exp`, `sqrt`, `rsqrt`, `log`, `inverse`, `threshold`, the
/// trigonometric and rounding functions, …), on the C kernels (``ocm_unary``).
package enum UnaryFunction: Equatable, Sendable {
    case exp
    /// `log(x + epsilon)`.
    case log(epsilon: Float)
    case sqrt
    /// `1/√(x + epsilon)`.
    case rsqrt(epsilon: Float)
    /// `1/(x + epsilon)`.
    case inverse(epsilon: Float)
    case abs, square
    /// `x^exponent`.
    case power(Float)
    /// `max(floor, x)` (a NaN x gives `floor`).
    case threshold(Float)
    /// `x == 0 ? 1 : 0`.
    case logicalNot
    /// The float16 value nearest x (a cast to fp16).
    case roundToHalf
    /// x rounded toward zero (a cast to an integer type).
    case truncate
    /// `x != 0 ? 1 : 0` (a cast to bool).
    case boolean
    case sin, cos, tan, asin, acos, atan, sinh, cosh, atanh
    case erf
    /// `2^x`.
    case exp2
    case floor, ceil
    /// The nearest integer, ties to even (NumPy's `round`, which the opsets' reference uses).
    case round
    /// 1, −1 or 0 by the sign of x (NaN stays NaN).
    case sign

    private var kernel: (op: ocm_unary_op, p: Float) {
        switch self {
        case .exp: (OCM_UNARY_EXP, 0)
        case .log(let epsilon): (OCM_UNARY_LOG, epsilon)
        case .sqrt: (OCM_UNARY_SQRT, 0)
        case .rsqrt(let epsilon): (OCM_UNARY_RSQRT, epsilon)
        case .inverse(let epsilon): (OCM_UNARY_INVERSE, epsilon)
        case .abs: (OCM_UNARY_ABS, 0)
        case .square: (OCM_UNARY_SQUARE, 0)
        case .power(let exponent): (OCM_UNARY_POWER, exponent)
        case .threshold(let floor): (OCM_UNARY_THRESHOLD, floor)
        case .logicalNot: (OCM_UNARY_LOGICAL_NOT, 0)
        case .roundToHalf: (OCM_UNARY_ROUND_HALF, 0)
        case .truncate: (OCM_UNARY_TRUNC, 0)
        case .boolean: (OCM_UNARY_BOOL, 0)
        case .sin: (OCM_UNARY_SIN, 0)
        case .cos: (OCM_UNARY_COS, 0)
        case .tan: (OCM_UNARY_TAN, 0)
        case .asin: (OCM_UNARY_ASIN, 0)
        case .acos: (OCM_UNARY_ACOS, 0)
        case .atan: (OCM_UNARY_ATAN, 0)
        case .sinh: (OCM_UNARY_SINH, 0)
        case .cosh: (OCM_UNARY_COSH, 0)
        case .atanh: (OCM_UNARY_ATANH, 0)
        case .erf: (OCM_UNARY_ERF, 0)
        case .exp2: (OCM_UNARY_EXP2, 0)
        case .floor: (OCM_UNARY_FLOOR, 0)
        case .ceil: (OCM_UNARY_CEIL, 0)
        case .round: (OCM_UNARY_ROUND, 0)
        case .sign: (OCM_UNARY_SIGN, 0)
        }
    }

    /// `y = f(x)` over `count` values (y may be x).
    func forward(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        let (op, p) = kernel
        ocm_unary(op, x, y, count, p, 0)
    }

    /// f′(v), given v and y = f(v) (the classic trainer's; the gradient of abs at 0 and of
    /// threshold at its floor is taken as 0, that of the rounding functions and sign as 0 everywhere).
    @inline(__always)
    func derivative(_ v: Float, _ y: Float) -> Float {
        switch self {
        case .sqrt: return 0.5 / y
        case .rsqrt: return -0.5 * y * y * y
        case .inverse: return -y * y
        case .power(let alpha): return alpha * Foundation.pow(v, alpha - 1)
        case .exp: return y
        case .log(let epsilon): return 1 / (v + epsilon)
        case .abs: return v > 0 ? 1 : v < 0 ? -1 : 0
        case .square: return 2 * v
        case .threshold(let floor): return v > floor ? 1 : 0
        case .sin: return Foundation.cos(v)
        case .cos: return -Foundation.sin(v)
        case .tan: return 1 + y * y
        case .asin: return 1 / (1 - v * v).squareRoot()
        case .acos: return -1 / (1 - v * v).squareRoot()
        case .atan: return 1 / (1 + v * v)
        case .sinh: return Foundation.cosh(v)
        case .cosh: return Foundation.sinh(v)
        case .atanh: return 1 / (1 - v * v)
        case .erf: return 1.1283791670955126 * Foundation.exp(-v * v)
        case .exp2: return 0.6931471805599453 * y
        case .logicalNot, .roundToHalf, .truncate, .boolean, .floor, .ceil, .round, .sign: return 0
        }
    }
}

/// NumPy broadcasting written once: the shape operands broadcast to and each operand's strides
/// over it (0 along the axes it repeats), run by the C driver, which merges axes and hands each
/// contiguous run (or a run against one repeated value) to a vector function. The ML Program's
/// elementwise operations and the classic `add`, `multiply` (through ``ClassicBroadcast``) use it.
package struct Broadcast: Sendable {
    package let shape: [Int]
    /// Per operand, its strides over `shape`.
    package let strides: [[Int]]

    package init(shape: [Int], strides: [[Int]]) {
        self.shape = shape
        self.strides = strides
    }

    /// NumPy's rule: shapes aligned at their last axis, each axis 1 or the largest size. Nil when
    /// they do not broadcast.
    package init?(_ shapes: [[Int]]) {
        let rank = shapes.map(\.count).max() ?? 0
        let padded = shapes.map { Array(repeating: 1, count: rank - $0.count) + $0 }
        var shape = [Int](repeating: 1, count: rank)
        for d in 0..<rank {
            for sizes in padded where sizes[d] != 1 {
                guard shape[d] == 1 || shape[d] == sizes[d] else { return nil }
                shape[d] = sizes[d]
            }
        }
        self.init(shape: shape, strides: padded.map(Self.strides(repeatingOnes:)))
    }

    /// Row-major strides of `shape` (the last axis 1).
    package static func strides(_ shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        for d in shape.indices.dropLast().reversed() { strides[d] = strides[d + 1] * shape[d + 1] }
        return strides
    }

    /// Row-major strides of `shape`, 0 along its axes of size 1.
    package static func strides(repeatingOnes shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 0, count: shape.count)
        var step = 1
        for d in stride(from: shape.count - 1, through: 0, by: -1) {
            strides[d] = shape[d] == 1 ? 0 : step
            step *= shape[d]
        }
        return strides
    }

    /// The number of values of the broadcast shape.
    package var count: Int { shape.reduce(1, *) }

    /// `y = a op b` (operands 0 and 1), y row-major over `shape`; y may be an operand whose strides
    /// are y's own.
    package func binary(_ op: ocm_binary_op, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
        guard shape.count < 16 else { return elementByElement { y[$0] = Self.scalar(op, a[$1[0]], b[$1[1]]) } }
        ocm_broadcast_binary(op, Int32(shape.count), shape, strides[0], strides[1], a, b, y)
    }

    /// `y = cond != 0 ? a : b` (operands 0, 1, 2).
    package func select(_ cond: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
        guard shape.count < 16 else { return elementByElement { y[$0] = cond[$1[0]] != 0 ? a[$1[1]] : b[$1[2]] } }
        ocm_broadcast_select(Int32(shape.count), shape, strides[0], strides[1], strides[2], cond, a, b, y)
    }

    /// The C driver takes ranks below 16: a higher-rank broadcast (no real network's) goes position
    /// by position, `body(position, offsets)`.
    private func elementByElement(_ body: (Int, [Int]) -> Void) {
        var index = [Int](repeating: 0, count: shape.count)
        var offsets = [Int](repeating: 0, count: strides.count)
        for position in 0..<count {
            for o in strides.indices { offsets[o] = zip(index, strides[o]).reduce(0) { $0 + $1.0 * $1.1 } }
            body(position, offsets)
            Self.advance(&index, within: shape)
        }
    }

    /// The next row-major index of a tensor of `shape` (an odometer: the last dimension turns first).
    package static func advance(_ index: inout [Int], within shape: [Int]) {
        var d = shape.count - 1
        while d >= 0 {
            index[d] += 1
            if index[d] < shape[d] { return }
            index[d] = 0
            d -= 1
        }
    }

    private static func scalar(_ op: ocm_binary_op, _ a: Float, _ b: Float) -> Float {
        var y: Float = 0
        withUnsafePointer(to: a) { a in withUnsafePointer(to: b) { b in ocm_binary(op, a, b, &y, 1) } }
        return y
    }
}
