import CoreMLSpec
/// Renders 28×28 grayscale digits 0–9 like MNIST's (white strokes on black, values 0...255), so that
/// `opencoreml demo` can train the LeNet on data it makes itself.
///
/// Each digit has a few hand-drawn styles, each a few strokes through control points in a unit box
/// (x right, y down); a stroke is a Catmull-Rom spline that breaks at its corner points. Every example
/// jitters the control points, bends the box a little, applies a random affine map (rotation ±15°,
/// scale 0.8–1.1, shear, aspect, translation ±3 px, held back where the
/// digit would leave the frame), draws the strokes 1.2–2.6 px wide with
/// distance-based anti-aliasing, then adds noise and, sometimes, speckles.
///
/// Only integer operations, `+ − × ÷` and square roots on `Float`, and `SplitMix64` are involved
/// (the rotation's sine and cosine are short Taylor series), so a seed gives the same bytes everywhere.
struct SyntheticDigits {
    static let side = 28

    let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
    }

    /// `count` examples: `count * 784` pixels (row-major, one image after another) and their labels,
    /// every run of ten consecutive labels (from the start) a shuffled 0...9.
    func make(count: Int) -> (pixels: [UInt8], labels: [Int]) {
        precondition(count >= 0, "count must not be negative")
        let area = Self.side * Self.side
        var seeds = SplitMix64(seed: seed)
        var shuffling = SplitMix64(seed: seeds.next())
        var labels = [Int]()
        labels.reserveCapacity(count)
        while labels.count < count {
            var block = Array(0..<10)
            for index in stride(from: 9, to: 0, by: -1) {
                block.swapAt(index, shuffling.below(index + 1))
            }
            labels += block.prefix(count - labels.count)
        }

        var pixels = [UInt8](repeating: 0, count: count * area)
        var renderer = Renderer()
        pixels.withUnsafeMutableBufferPointer { pixels in
            for (index, label) in labels.enumerated() {
                var random = SplitMix64(seed: seeds.next())
                renderer.draw(label, random: &random, into: pixels.baseAddress! + index * area)
            }
        }
        return (pixels, labels)
    }
}

// MARK: - Glyphs

extension SyntheticDigits {
    /// A control point; corners break the spline, the ends of a stroke are always corners.
    fileprivate enum Node {
        case smooth(Float, Float)
        case corner(Float, Float)

        var point: SIMD2<Float> {
            switch self {
            case .smooth(let x, let y), .corner(let x, let y): SIMD2(x, y)
            }
        }

        var isCorner: Bool {
            if case .corner = self { true } else { false }
        }
    }

    fileprivate struct Stroke {
        var nodes: [Node]
        /// A closed stroke is one smooth loop (its nodes must all be smooth).
        var closed = false
    }

    /// `glyphs[digit]` lists the digit's styles; a style is its strokes.
    fileprivate static let glyphs: [[[Stroke]]] = {
        func path(_ nodes: Node...) -> Stroke { Stroke(nodes: nodes) }
        func loop(_ nodes: Node...) -> Stroke { Stroke(nodes: nodes, closed: true) }
        typealias N = Node
        let c = N.corner
        let s = N.smooth
        return [
            // 0: an oval; or one whose end runs past its start.
            [
                [loop(s(0.5, 0.0), s(0.83, 0.13), s(0.95, 0.5), s(0.83, 0.87), s(0.5, 1.0), s(0.17, 0.87), s(0.05, 0.5),
                      s(0.17, 0.13))],
                [path(c(0.58, 0.03), s(0.22, 0.1), s(0.06, 0.5), s(0.2, 0.9), s(0.52, 1.0), s(0.84, 0.86),
                      s(0.94, 0.48), s(0.8, 0.1), s(0.45, 0.0), c(0.28, 0.1))],
            ],
            // 1: a bar; with a flag; with a flag and a foot.
            [
                [path(c(0.5, 0.0), c(0.5, 1.0))],
                [path(c(0.22, 0.24), c(0.52, 0.0), c(0.5, 1.0))],
                [path(c(0.25, 0.2), c(0.52, 0.0), c(0.5, 1.0)), path(c(0.22, 1.0), c(0.78, 1.0))],
            ],
            // 2: a swan neck and a flat base; or one base with a little hook.
            [
                [path(c(0.1, 0.28), s(0.3, 0.04), s(0.62, 0.0), s(0.86, 0.2), s(0.78, 0.48), s(0.45, 0.75), c(0.08, 1.0),
                      c(0.92, 0.98))],
                [path(c(0.12, 0.25), s(0.38, 0.02), s(0.75, 0.06), s(0.82, 0.35), s(0.45, 0.72), s(0.14, 0.97),
                      s(0.3, 0.9), s(0.6, 0.98), c(0.94, 0.94))],
            ],
            // 3: two bows; or a flat top and a bow.
            [
                [path(c(0.12, 0.15), s(0.4, 0.0), s(0.75, 0.05), s(0.8, 0.28), c(0.4, 0.47)),
                 path(c(0.4, 0.47), s(0.78, 0.56), s(0.9, 0.78), s(0.7, 0.97), s(0.38, 1.0), c(0.08, 0.86))],
                [path(c(0.12, 0.02), c(0.86, 0.02), c(0.42, 0.42), s(0.8, 0.52), s(0.9, 0.76), s(0.68, 0.97),
                      s(0.36, 1.0), c(0.08, 0.86))],
            ],
            // 4: closed (a triangle); or open at the top.
            [
                [path(c(0.62, 0.0), c(0.06, 0.66), c(0.94, 0.66)), path(c(0.7, 0.22), c(0.7, 1.0))],
                [path(c(0.2, 0.0), c(0.13, 0.6), c(0.92, 0.6)), path(c(0.72, 0.04), c(0.7, 1.0))],
            ],
            // 5: flag, stem and belly in one go; or the flag drawn apart.
            [
                [path(c(0.88, 0.02), c(0.26, 0.02), c(0.2, 0.46), s(0.5, 0.37), s(0.83, 0.5), s(0.88, 0.76),
                      s(0.64, 0.97), s(0.34, 1.0), c(0.08, 0.87))],
                [path(c(0.26, 0.06), c(0.2, 0.47), s(0.52, 0.38), s(0.84, 0.54), s(0.84, 0.8), s(0.55, 1.0), c(0.1, 0.9)),
                 path(c(0.3, 0.04), c(0.92, 0.0))],
            ],
            // 6: a sweeping stem into a loop; or a straighter stem.
            [
                [path(c(0.74, 0.0), s(0.4, 0.18), s(0.18, 0.5), s(0.14, 0.78), s(0.35, 1.0), s(0.68, 0.96), s(0.85, 0.72),
                      s(0.62, 0.52), s(0.32, 0.55), c(0.16, 0.72))],
                [path(c(0.6, 0.0), s(0.3, 0.36), s(0.16, 0.72), s(0.32, 0.98), s(0.66, 0.97), s(0.83, 0.74),
                      s(0.6, 0.55), s(0.3, 0.6), c(0.18, 0.72))],
            ],
            // 7: plain; crossed; with a hooked start.
            [
                [path(c(0.08, 0.02), c(0.92, 0.02), s(0.68, 0.45), c(0.45, 1.0))],
                [path(c(0.08, 0.02), c(0.92, 0.02), s(0.66, 0.45), c(0.42, 1.0)), path(c(0.3, 0.52), c(0.82, 0.5))],
                [path(c(0.1, 0.18), c(0.1, 0.02), c(0.92, 0.03), s(0.64, 0.48), c(0.46, 1.0))],
            ],
            // 8: one crossing loop; or two stacked loops.
            [
                [loop(s(0.5, 0.48), s(0.22, 0.28), s(0.32, 0.04), s(0.68, 0.04), s(0.78, 0.28), s(0.5, 0.48),
                      s(0.15, 0.72), s(0.3, 0.98), s(0.7, 0.98), s(0.86, 0.72))],
                [loop(s(0.5, 0.02), s(0.78, 0.22), s(0.5, 0.46), s(0.22, 0.22)),
                 loop(s(0.5, 0.46), s(0.85, 0.72), s(0.5, 1.0), s(0.15, 0.72))],
            ],
            // 9: a loop and a curved tail; or a straight one.
            [
                [loop(s(0.5, 0.02), s(0.82, 0.2), s(0.78, 0.42), s(0.5, 0.55), s(0.2, 0.45), s(0.16, 0.2)),
                 path(c(0.83, 0.2), s(0.8, 0.6), c(0.66, 1.0))],
                [loop(s(0.48, 0.02), s(0.8, 0.18), s(0.78, 0.42), s(0.48, 0.5), s(0.18, 0.4), s(0.18, 0.16)),
                 path(c(0.82, 0.16), c(0.82, 1.0))],
            ],
        ]
    }()
}

// MARK: - Rendering

extension SyntheticDigits {
    /// Scratch space reused across examples.
    fileprivate struct Renderer {
        var canvas = [Float](repeating: 0, count: SyntheticDigits.side * SyntheticDigits.side)
        var controls = [SIMD2<Float>]()

        /// Height of the unit box in pixels at scale 1 (MNIST fits its digits in 20×20).
        static let height: Float = 20

        mutating func draw(_ digit: Int, random: inout SplitMix64, into output: UnsafeMutablePointer<UInt8>) {
            let styles = SyntheticDigits.glyphs[digit]
            let strokes = styles[random.below(styles.count)]

            // The example's geometry: a gentle bend of the unit box, then the affine map to pixels.
            let bend = (random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2),
                        random.uniform(-0.2, 0.2))
            let jitter = random.uniform(0.015, 0.04)
            let (sine, cosine) = Self.sinCos(random.uniform(-15, 15) * (Float.pi / 180))
            let scale = random.uniform(0.8, 1.1) * Self.height
            let aspect = random.uniform(0.6, 0.85)
            let shear = random.uniform(-0.25, 0.25)
            let center = SIMD2<Float>(14 + random.uniform(-3, 3), 14 + random.uniform(-3, 3))
            let radius = random.uniform(1.2, 2.6) / 2
            let softness = random.uniform(0.8, 1.4)

            func place(_ node: Node, random: inout SplitMix64) -> SIMD2<Float> {
                var p = node.point - 0.5
                p += SIMD2(random.uniform(-jitter, jitter), random.uniform(-jitter, jitter))
                p += SIMD2(bend.0 * p.y * p.y + bend.1 * p.x * p.y, bend.2 * p.x * p.x + bend.3 * p.x * p.y)
                let x = (p.x * aspect + shear * p.y) * scale
                let y = p.y * scale
                return center + SIMD2(cosine * x - sine * y, sine * x + cosine * y)
            }

            controls.removeAll(keepingCapacity: true)
            for stroke in strokes {
                for node in stroke.nodes { controls.append(place(node, random: &random)) }
            }
            // Keep the ink inside the frame, as MNIST does: the translation gives way where it would cut.
            var low = controls[0]
            var high = controls[0]
            for point in controls {
                low = pointwiseMin(low, point)
                high = pointwiseMax(high, point)
            }
            let margin = radius + softness + 0.5
            let side = Float(SyntheticDigits.side)
            var shift = SIMD2<Float>()
            for axis in 0..<2 {
                if high[axis] - low[axis] + 2 * margin > side {
                    shift[axis] = side / 2 - (low[axis] + high[axis]) / 2
                } else if low[axis] < margin {
                    shift[axis] = margin - low[axis]
                } else if high[axis] > side - margin {
                    shift[axis] = side - margin - high[axis]
                }
            }
            for index in controls.indices { controls[index] += shift }

            for index in canvas.indices { canvas[index] = 0 }
            var first = 0
            for stroke in strokes {
                let last = first + stroke.nodes.count - 1
                if stroke.closed {
                    loop(first...last, radius: radius, softness: softness)
                } else {
                    // Split at corners; each piece is its own spline with held ends.
                    var start = first
                    for (offset, node) in stroke.nodes.enumerated().dropFirst() where node.isCorner || first + offset == last {
                        piece(start...(first + offset), radius: radius, softness: softness)
                        start = first + offset
                    }
                }
                first = last + 1
            }

            // Stretch so that the brightest stroke pixel is full white, as in MNIST.
            var peak: Float = 0
            for value in canvas { peak = max(peak, value) }
            if peak > 0 {
                let gain = 1 / peak
                for index in canvas.indices { canvas[index] *= gain }
            }

            // Now and then a few specks of dust.
            if random.uniform(0, 1) < 0.3 {
                for _ in 0...random.below(3) {
                    let dot = SIMD2(random.uniform(1, 27), random.uniform(1, 27))
                    segment(dot, dot, radius: random.uniform(0.3, 0.8), softness: 1, ink: random.uniform(0.3, 0.8))
                }
            }

            // Triangular noise up to ± a random 0–14 grey levels, four pixels per random number.
            let noise = random.uniform(0, 14) / (255 * 255)
            var index = 0
            while index < canvas.count {
                var bits = random.next()
                for _ in 0..<4 {
                    let wobble = Float(Int(bits & 0xFF) + Int((bits >> 8) & 0xFF) - 255) * noise
                    let value = min(max((canvas[index] + wobble) * 255, 0), 255)
                    output[index] = UInt8(value + 0.5)
                    bits >>= 16
                    index += 1
                }
            }
        }

        /// Draws the closed Catmull-Rom loop through `controls[nodes]`.
        private mutating func loop(_ nodes: ClosedRange<Int>, radius: Float, softness: Float) {
            let count = nodes.count
            for index in 0..<count {
                let p0 = controls[nodes.lowerBound + (index + count - 1) % count]
                let p1 = controls[nodes.lowerBound + index]
                let p2 = controls[nodes.lowerBound + (index + 1) % count]
                let p3 = controls[nodes.lowerBound + (index + 2) % count]
                span(p0, p1, p2, p3, radius: radius, softness: softness)
            }
        }

        /// Draws the open Catmull-Rom spline through `controls[nodes]`, its end points held (doubled).
        private mutating func piece(_ nodes: ClosedRange<Int>, radius: Float, softness: Float) {
            for index in nodes.dropLast() {
                let p0 = controls[max(index - 1, nodes.lowerBound)]
                let p3 = controls[min(index + 2, nodes.upperBound)]
                span(p0, controls[index], controls[index + 1], p3, radius: radius, softness: softness)
            }
        }

        /// The Catmull-Rom span from `p1` to `p2`, as segments about 1.5 px long.
        private mutating func span(
            _ p0: SIMD2<Float>, _ p1: SIMD2<Float>, _ p2: SIMD2<Float>, _ p3: SIMD2<Float>, radius: Float, softness: Float
        ) {
            let a = p1 * 2
            let b = p2 - p0
            let c = p0 * 2 - p1 * 5 + p2 * 4 - p3
            let d = (p1 - p2) * 3 + p3 - p0
            let delta = p2 - p1
            let length = (delta.x * delta.x + delta.y * delta.y).squareRoot()
            let pieces = min(Int(length / 1.5) + 1, 12)
            var previous = p1
            for step in 1...pieces {
                let t = Float(step) / Float(pieces)
                let next = step == pieces ? p2 : (a + b * t + c * (t * t) + d * (t * t * t)) * 0.5
                segment(previous, next, radius: radius, softness: softness, ink: 1)
                previous = next
            }
        }

        /// Anti-aliased segment: full coverage within `radius` of the segment, falling linearly to 0 over
        /// the next `softness` pixels; pixels keep the largest coverage they get.
        private mutating func segment(_ a: SIMD2<Float>, _ b: SIMD2<Float>, radius: Float, softness: Float, ink: Float) {
            let side = SyntheticDigits.side
            let reach = radius + softness
            let columns = Self.pixels(from: min(a.x, b.x) - reach, to: max(a.x, b.x) + reach)
            let rows = Self.pixels(from: min(a.y, b.y) - reach, to: max(a.y, b.y) + reach)
            guard !columns.isEmpty, !rows.isEmpty else { return }
            let ab = b - a
            let lengthSquared = ab.x * ab.x + ab.y * ab.y
            let inverse: Float = lengthSquared > 1e-12 ? 1 / lengthSquared : 0
            let reachSquared = reach * reach
            canvas.withUnsafeMutableBufferPointer { canvas in
                for row in rows {
                    let dy = Float(row) + 0.5 - a.y
                    for column in columns {
                        let dx = Float(column) + 0.5 - a.x
                        let t = min(max((dx * ab.x + dy * ab.y) * inverse, 0), 1)
                        let ex = dx - t * ab.x
                        let ey = dy - t * ab.y
                        let distanceSquared = ex * ex + ey * ey
                        guard distanceSquared < reachSquared else { continue }
                        let coverage = min((reach - distanceSquared.squareRoot()) / softness, 1) * ink
                        let pixel = row * side + column
                        canvas[pixel] = max(canvas[pixel], coverage)
                    }
                }
            }
        }

        /// The pixels whose centers lie in `low...high`, clipped to the image (may be empty).
        private static func pixels(from low: Float, to high: Float) -> Range<Int> {
            let first = max(Int((max(low, -1) - 0.5).rounded(.up)), 0)
            let last = min(Int((min(high, 29) - 0.5).rounded(.down)), SyntheticDigits.side - 1)
            return first..<max(last + 1, first)
        }

        /// Sine and cosine for |x| ≤ 0.3 by Taylor series (error < 1e-9), the same on every platform.
        static func sinCos(_ x: Float) -> (sin: Float, cos: Float) {
            let x2 = x * x
            let sine = x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72))))
            let cosine = 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56)))
            return (sine, cosine)
        }
    }
}

extension SplitMix64 {
    /// Uniform in `low..<high` from the top 24 bits (exact, unlike `Float.random`'s unspecified method).
    fileprivate mutating func uniform(_ low: Float, _ high: Float) -> Float {
        low + (high - low) * (Float(next() >> 40) * 0x1p-24)
    }

    /// Uniform in `0..<bound` by multiply-shift (bias below 2⁻³²).
    fileprivate mutating func below(_ bound: Int) -> Int {
        Int(((next() >> 32) &* UInt64(bound)) >> 32)
    }
}

extension LabeledDataset {
    /// `count` handwritten-looking 28 × 28 grayscale digits 0–9, drawn by the program itself (no
    /// download), pixels in 0…1 as white strokes on black like MNIST's; the same `seed` gives the
    /// same bytes on every platform. Every run of ten consecutive labels holds each digit once.
    ///
    /// What `opencoreml demo` trains on; handy for tests and examples that need image-like data.
    public static func generatedDigits(_ count: Int, seed: UInt64 = 1, name: String = "generated digits") -> LabeledDataset {
        let (pixels, labels) = SyntheticDigits(seed: seed).make(count: count)
        let side = SyntheticDigits.side
        return LabeledDataset(
            name: name, count: count, featureCount: side * side, values: pixels.map { Float($0) / 255 }, labels: labels,
            sampleShape: [side, side])
    }
}
