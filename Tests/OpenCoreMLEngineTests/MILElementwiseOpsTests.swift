import CoreMLSpec
import Testing
import _OpenCoreMLTestSupport
@testable import _OpenCoreMLEngine

/// The ML Program's trigonometric, rounding and other one-input functions, `floor_div` and `mod`,
/// `clamped_relu`, `threshold` and `inverse`, on small programs. Expected values are NumPy's
/// (the opsets' reference), computed in the coremltools test environment by the snippet beside
/// each, float32 results printed as Python floats.
@Suite("ML Program elementwise operations")
struct MILElementwiseOpsTests {
    typealias Program = ProgramPlanTests.Program

    /// The output `y` of `type` applied to x (of `values`), with extra constant parameters.
    static func run(_ type: String, _ values: [Float], parameters: [String: Float] = [:]) throws -> [Float] {
        var p = Program()
        p.input("x", [values.count])
        var inputs = ["x": ["x"]]
        for (name, value) in parameters {
            p.constant(name, floats: [value], shape: [])
            inputs[name] = [name]
        }
        p.operation(type, inputs, output: "y")
        let result = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [values.count], values: values)])
        let y = try #require(result["y"])
        #expect(y.shape == [values.count])
        return y.values
    }

    static func close(_ a: [Float], _ b: [Float], tolerance: Float = 2e-6) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($1)) }
    }

    // t = np.array([-0.9,-0.3,0.0,0.2,0.7], dtype=np.float32)
    // [float(np.float32(v)) for v in fn(t.astype(np.float64))] for fn in np.sin, np.cos, …
    static let trigonometricInput: [Float] = [-0.9, -0.3, 0.0, 0.2, 0.7]
    static let trigonometric: [(String, [Float])] = [
        ("sin", [-0.7833269238471985, -0.29552021622657776, 0.0, 0.19866932928562164, 0.6442176699638367]),
        ("cos", [0.6216099858283997, 0.9553365111351013, 1.0, 0.9800665974617004, 0.7648422122001648]),
        ("tan", [-1.2601581811904907, -0.30933627486228943, 0.0, 0.20271003246307373, 0.8422883749008179]),
        ("asin", [-1.1197694540023804, -0.30469265580177307, 0.0, 0.20135793089866638, 0.7753974795341492]),
        ("acos", [2.690565824508667, 1.8754889965057373, 1.5707963705062866, 1.3694384098052979, 0.7953988313674927]),
        ("atan", [-0.7328150868415833, -0.29145681858062744, 0.0, 0.19739556312561035, 0.6107259392738342]),
        ("sinh", [-1.0265166759490967, -0.30452030897140503, 0.0, 0.20133601129055023, 0.758583664894104]),
        ("cosh", [1.4330863952636719, 1.04533851146698, 1.0, 1.020066738128662, 1.2551690340042114]),
        ("atanh", [-1.4722193479537964, -0.30951961874961853, 0.0, 0.20273256301879883, 0.8673005104064941]),
        ("exp2", [0.5358867645263672, 0.812252402305603, 1.0, 1.148698329925537, 1.624504804611206]),
    ]

    @Test func trigonometricAndHyperbolicFunctions() throws {
        for (type, expected) in Self.trigonometric {
            let y = try Self.run(type, Self.trigonometricInput)
            #expect(Self.close(y, expected), "\(type): \(y)")
        }
        // Outside the domain: NaN, as NumPy gives (np.arcsin(2), np.arctanh(1) = inf).
        #expect(try Self.run("asin", [2])[0].isNaN)
        #expect(try Self.run("atanh", [1])[0] == .infinity)
    }

    @Test func roundingAndSign() throws {
        // x = [-2.5,-1.5,-0.5,0,0.5,1.5,2.5,0.3]: np.round (ties to even), np.floor, np.ceil, np.sign.
        let x: [Float] = [-2.5, -1.5, -0.5, 0, 0.5, 1.5, 2.5, 0.3, -7.75]
        #expect(try Self.run("round", x) == [-2, -2, -0, 0, 0, 2, 2, 0, -8])
        #expect(try Self.run("floor", x) == [-3, -2, -1, 0, 0, 1, 2, 0, -8])
        #expect(try Self.run("ceil", x) == [-2, -1, -0, 0, 1, 2, 3, 1, -7])
        #expect(try Self.run("sign", x) == [-1, -1, -1, 0, 1, 1, 1, 1, -1])
        for type in ["round", "floor", "ceil", "sign"] { #expect(try Self.run(type, [.nan])[0].isNaN, "\(type)") }
    }

    @Test func errorFunctionOnBothSidesOfItsPolynomialsJoin() throws {
        // [float(np.float32(math.erf(v))) for v in e]; 12 values, so the vector path and its tail both run.
        let x: [Float] = [-3.0, -1.2, -0.4, -1e-3, 0.0, 2e-5, 0.45, 0.5, 0.8, 1.7, 2.9, 5.0]
        let expected: [Float] = [-0.9999778866767883, -0.9103139638900757, -0.42839235067367554, -0.001128378789871931, 0.0,
                                 2.2567583073396236e-05, 0.47548171877861023, 0.5204998850822449, 0.7421009540557861,
                                 0.9837904572486877, 0.999958872795105, 1.0]
        let y = try Self.run("erf", x)
        #expect(Self.close(y, expected, tolerance: 3e-7), "\(y)")
        let edges = try Self.run("erf", [.infinity, -.infinity, .nan])
        #expect(edges[0] == 1 && edges[1] == -1 && edges[2].isNaN)
    }

    @Test func floorDivisionAndModuloOfNegativeOperands() throws {
        // a = [7,-7,7,-7,5.5,-5.5,6,0], b = [3,3,-3,-3,2,2,-3,-2]: np.floor_divide(a, b), np.mod(a, b).
        var p = Program()
        p.input("a", [8])
        p.input("b", [8])
        p.constant("three", floats: [-3], shape: [])
        p.operation("floor_div", ["x": ["a"], "y": ["b"]], output: "q")
        p.operation("mod", ["x": ["a"], "y": ["b"]], output: "r")
        // Broadcast against one value (the C driver's run-and-scalar form): np.mod(a, -3).
        p.operation("mod", ["x": ["a"], "y": ["three"]], output: "s")
        p.operation("floor_div", ["x": ["three"], "y": ["b"]], output: "t")
        let result = try p.plan(outputs: ["q", "r", "s", "t"]).run([
            "a": MILTensor(shape: [8], values: [7, -7, 7, -7, 5.5, -5.5, 6, 0]),
            "b": MILTensor(shape: [8], values: [3, 3, -3, -3, 2, 2, -3, -2]),
        ])
        #expect(result["q"]?.values == [2, -3, -3, 2, 2, -3, -2, -0])
        #expect(result["r"]?.values == [1, 2, -2, -1, 1.5, 0.5, -0, -0])
        // np.mod(a, np.float32(-3)) = [-2,-1,-2,-1,-0.5,-2.5,-0,-0]; np.floor_divide(np.float32(-3), b) = [-1,-1,1,1,-2,-2,1,1]
        #expect(result["s"]?.values == [-2, -1, -2, -1, -0.5, -2.5, -0, -0])
        #expect(result["t"]?.values == [-1, -1, 1, 1, -2, -2, 1, 1])
        // A zero divisor: ±∞ or NaN for the quotient (as a/b), NaN for the remainder.
        var z = Program()
        z.input("a", [2])
        z.constant("zero", floats: [0], shape: [])
        z.operation("floor_div", ["x": ["a"], "y": ["zero"]], output: "q")
        z.operation("mod", ["x": ["a"], "y": ["zero"]], output: "r")
        let zero = try z.plan(outputs: ["q", "r"]).run(["a": MILTensor(shape: [2], values: [1, -1])])
        #expect(zero["q"]?.values == [.infinity, -.infinity])
        #expect(zero["r"]?.values.allSatisfy(\.isNaN) == true)
    }

    @Test func clampedReLUThresholdAndInverse() throws {
        // coremltools' smoke test: clamped_relu(x, alpha=2, beta=1) of [-1,2,-3,4,-5,6], plus 0.5 and -0.25.
        let x: [Float] = [-1, 2, -3, 4, -5, 6, 0.5, -0.25]
        #expect(try Self.run("clamped_relu", x, parameters: ["alpha": 2, "beta": 1]) == [-2, 1, -6, 1, -10, 1, 0.5, -0.5])
        #expect(try Self.run("clamped_relu", [.nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan],
                             parameters: ["alpha": 2, "beta": 1]).allSatisfy(\.isNaN))
        // np.maximum(x, 0.5)
        #expect(try Self.run("threshold", x, parameters: ["alpha": 0.5]) == [0.5, 2, 0.5, 4, 0.5, 6, 0.5, 0.5])
        // 1/(np.array([1,3,-0.5], np.float32) + np.float32(1e-4)): the default epsilon 1e-4.
        #expect(Self.close(try Self.run("inverse", [1, 3, -0.5]), [0.9998999834060669, 0.3333222270011902, -2.0004000663757324]))
        #expect(try Self.run("inverse", [1, 3, -0.5], parameters: ["epsilon": 0]) == [1, 1 / 3, -2])
    }

    @Test func classicLogAddsItsEpsilon() throws {
        // np.log(np.array([1,2,3], np.float32) + np.float32(0.1)) = [0.09531018, 0.7419373, 1.1314021]
        typealias Layers = ElementwiseLayerGradientTests
        var net = Layers.network([("x", [3])])
        net.add("unary", ["x"], ["y"]) { $0.unary.type = .log; $0.unary.epsilon = 0.1 }
        Layers.expectClose(try Layers.run(net, ["x": [1, 2, 3]], output: "y").values, [0.09531018, 0.7419373, 1.1314021])
    }

    @Test func classicUnaryFunctionsAreTheSameFunctions() {
        // UnaryFunction's derivatives for the classic trainer, against finite differences.
        for function in [UnaryFunction.sin, .cos, .tan, .asin, .acos, .atan, .sinh, .cosh, .atanh, .erf, .exp2] {
            let v: Float = 0.3, h: Float = 1e-3
            var values: [Float] = [v - h, v, v + h], y = [Float](repeating: 0, count: 3)
            values.withUnsafeMutableBufferPointer { x in
                y.withUnsafeMutableBufferPointer { y in function.forward(x.baseAddress!, y.baseAddress!, count: 3) }
            }
            let numeric = (y[2] - y[0]) / (2 * h)
            #expect(abs(function.derivative(v, y[1]) - numeric) < 1e-3, "\(function)")
        }
    }
}
