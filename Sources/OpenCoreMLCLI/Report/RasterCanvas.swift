import Foundation

/// An opaque RGBA picture to draw anti-aliased shapes and text on, in pixels (y grows downwards).
///
/// Every shape is a set of closed polygons filled by exact area coverage: each edge adds, to the pixels
/// it crosses, the signed share of their area that lies to its right, and a running sum along each row
/// turns that into coverage (clamped to 1, so overlapping shapes of the same direction unite, while the
/// opposite direction of a glyph's inner contour cuts a hole).
struct RasterCanvas {
    let width: Int
    let height: Int
    /// `width * height * 4` bytes, alpha always 255.
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int, background: ChartColor = .white) {
        precondition(width > 0 && height > 0, "RasterCanvas: size \(width)×\(height)")
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = background.red
            pixels[i + 1] = background.green
            pixels[i + 2] = background.blue
        }
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y`.
    func color(x: Int, y: Int) -> ChartColor {
        let i = (y * width + x) * 4
        return ChartColor(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2])
    }

    // MARK: Shapes

    /// Fills the union of `polygons` (each turned to the same direction first).
    mutating func fill(union polygons: [[ChartPoint]], color: ChartColor) {
        fill(polygons.map { signedArea($0) < 0 ? $0.reversed() : $0 }, color: color)
    }

    /// A rectangle (sides on pixel edges stay sharp).
    mutating func fillRectangle(x: Double, y: Double, width: Double, height: Double, color: ChartColor) {
        guard width > 0, height > 0 else { return }
        fill([[ChartPoint(x, y), ChartPoint(x + width, y), ChartPoint(x + width, y + height), ChartPoint(x, y + height)]], color: color)
    }

    mutating func fillCircle(center: ChartPoint, radius: Double, color: ChartColor) {
        fill([circle(center: center, radius: radius)], color: color)
    }

    /// A line `lineWidth` wide with butt ends. A horizontal or vertical one is moved by less than half a
    /// pixel so that its edges fall on pixel edges, as crisp as the rectangle it is.
    mutating func strokeLine(from start: ChartPoint, to end: ChartPoint, lineWidth: Double, color: ChartColor) {
        var start = start, end = end
        if start.y == end.y {
            start.y = snapped(start.y, lineWidth: lineWidth)
            end.y = start.y
        } else if start.x == end.x {
            start.x = snapped(start.x, lineWidth: lineWidth)
            end.x = start.x
        }
        guard let quad = segmentQuad(start, end, halfWidth: lineWidth / 2) else { return }
        fill([quad], color: color)
    }

    /// Connected lines with round joins and butt ends.
    mutating func strokePolyline(_ points: [ChartPoint], lineWidth: Double, color: ChartColor) {
        guard points.count > 1 else { return }
        var polygons: [[ChartPoint]] = []
        for index in 1..<points.count {
            if let quad = segmentQuad(points[index - 1], points[index], halfWidth: lineWidth / 2) { polygons.append(quad) }
            if index < points.count - 1 { polygons.append(circle(center: points[index], radius: lineWidth / 2)) }
        }
        fill(union: polygons, color: color)
    }

    /// The outline of a rectangle, centred on its edges.
    mutating func strokeRectangle(x: Double, y: Double, width: Double, height: Double, lineWidth: Double, color: ChartColor) {
        let left = snapped(x, lineWidth: lineWidth), right = snapped(x + width, lineWidth: lineWidth)
        let top = snapped(y, lineWidth: lineWidth), bottom = snapped(y + height, lineWidth: lineWidth)
        let half = lineWidth / 2
        fill(union: [
            rectangle(left - half, top - half, right + half, top + half),
            rectangle(left - half, bottom - half, right + half, bottom + half),
            rectangle(left - half, top - half, left + half, bottom + half),
            rectangle(right - half, top - half, right + half, bottom + half),
        ], color: color)
    }

    // MARK: Text

    /// Draws `text` in the chart font; characters it has no glyph for are drawn as "?".
    mutating func draw(_ text: ChartText) {
        let scale = text.size / Double(ChartFont.unitsPerEm)
        let scalars = ChartFont.drawnScalars(text.content)
        let advance = scalars.reduce(0.0) { $0 + (ChartFont.glyph($1, bold: text.bold)?.advance ?? 0) } * scale
        // In the text's own frame: x along the baseline from the anchor, y down from the baseline.
        var startX: Double
        switch text.anchor {
        case .start: startX = 0
        case .middle: startX = -advance / 2
        case .end: startX = -advance
        }
        var baselineY = text.baseline == .central ? Double(ChartFont.capHeight) * scale / 2 : 0
        let angle = text.rotation * .pi / 180
        let cosine = cos(angle), sine = sin(angle)
        if text.rotation == 0 {
            // Upright text: start and baseline on whole pixels, so stems and the baseline stay sharp.
            startX = (text.x + startX).rounded() - text.x
            baselineY = (text.y + baselineY).rounded() - text.y
        }
        func place(_ point: ChartPoint) -> ChartPoint {
            let x = startX + point.x, y = baselineY + point.y
            return ChartPoint(text.x + x * cosine - y * sine, text.y + x * sine + y * cosine)
        }

        var polygons: [[ChartPoint]] = []
        var pen = 0.0
        let tolerance = 0.05
        for scalar in scalars {
            guard let glyph = ChartFont.glyph(scalar, bold: text.bold) else { continue }
            for contour in glyph.contours {
                var polygon: [ChartPoint] = []
                var last = ChartPoint(0, 0)
                for segment in contour {
                    func device(_ p: ChartPoint) -> ChartPoint { place(ChartPoint(pen + p.x * scale, -p.y * scale)) }
                    switch segment {
                    case let .move(to), let .line(to):
                        last = device(to)
                        polygon.append(last)
                    case let .quadratic(control, to):
                        let c = device(control), end = device(to)
                        // A quadratic strays from its chord by at most |p0 − 2c + p2| / 8 / n² with n pieces.
                        let bend = hypot(last.x - 2 * c.x + end.x, last.y - 2 * c.y + end.y)
                        let pieces = max(1, Int((bend / (8 * tolerance)).squareRoot().rounded(.up)))
                        for piece in 1...pieces {
                            let t = Double(piece) / Double(pieces), u = 1 - t
                            polygon.append(ChartPoint(u * u * last.x + 2 * u * t * c.x + t * t * end.x, u * u * last.y + 2 * u * t * c.y + t * t * end.y))
                        }
                        last = end
                    }
                }
                polygons.append(polygon)
            }
            pen += glyph.advance * scale
        }
        fill(polygons, color: text.color)
    }

    // MARK: Filling

    /// Fills `polygons` by area coverage, without changing their directions.
    private mutating func fill(_ polygons: [[ChartPoint]], color: ChartColor) {
        let points = polygons.joined()
        guard let minX = points.map(\.x).min(), let maxX = points.map(\.x).max(),
              let minY = points.map(\.y).min(), let maxY = points.map(\.y).max(),
              minX.isFinite, maxX.isFinite, minY.isFinite, maxY.isFinite else { return }
        let left = max(0, Int(minX.rounded(.down))), right = min(width, Int(maxX.rounded(.up)))
        let top = max(0, Int(minY.rounded(.down))), bottom = min(height, Int(maxY.rounded(.up)))
        guard left < right, top < bottom else { return }
        let columns = right - left, stride = columns + 2
        var accumulation = [Double](repeating: 0, count: stride * (bottom - top))

        accumulation.withUnsafeMutableBufferPointer { cells in
            for polygon in polygons where polygon.count > 2 {
                for index in polygon.indices {
                    let a = polygon[index], b = polygon[(index + 1) % polygon.count]
                    // Left of the box counts as its first column; right of it changes nothing inside.
                    addEdge(
                        from: ChartPoint(min(max(a.x, Double(left)), Double(right)) - Double(left), a.y - Double(top)),
                        to: ChartPoint(min(max(b.x, Double(left)), Double(right)) - Double(left), b.y - Double(top)),
                        rows: bottom - top, stride: stride, into: cells)
                }
            }
        }

        let red = Double(color.red), green = Double(color.green), blue = Double(color.blue)
        let canvasWidth = width
        accumulation.withUnsafeBufferPointer { cells in
            pixels.withUnsafeMutableBufferPointer { target in
                for row in 0..<(bottom - top) {
                    var sum = 0.0
                    for column in 0..<columns {
                        sum += cells[row * stride + column]
                        let coverage = min(1, abs(sum))
                        guard coverage > 1.0 / 512 else { continue }
                        let i = ((top + row) * canvasWidth + left + column) * 4
                        if coverage >= 1 - 1.0 / 512 {
                            target[i] = color.red
                            target[i + 1] = color.green
                            target[i + 2] = color.blue
                        } else {
                            target[i] = UInt8((Double(target[i]) + (red - Double(target[i])) * coverage).rounded())
                            target[i + 1] = UInt8((Double(target[i + 1]) + (green - Double(target[i + 1])) * coverage).rounded())
                            target[i + 2] = UInt8((Double(target[i + 2]) + (blue - Double(target[i + 2])) * coverage).rounded())
                        }
                    }
                }
            }
        }
    }

    /// Adds one edge's share of coverage, row by row. Within a row the edge covers `dy` of the row's
    /// height (signed by its direction); of pixel column `c` it covers the average, over that piece, of
    /// how much of the column lies right of the edge: `dy · (H(c+1−x0) − H(c+1−x1)) / (x1 − x0)` with
    /// H the integral of clamp(u, 0, 1). Each column stores the change from the column before.
    private func addEdge(from a: ChartPoint, to b: ChartPoint, rows: Int, stride: Int, into cells: UnsafeMutableBufferPointer<Double>) {
        guard a.y != b.y else { return }
        let direction: Double = a.y < b.y ? 1 : -1
        let (upper, lower) = a.y < b.y ? (a, b) : (b, a)
        let slope = (lower.x - upper.x) / (lower.y - upper.y)
        let firstRow = max(0, Int(upper.y.rounded(.down))), endRow = min(rows, Int(lower.y.rounded(.up)))
        guard firstRow < endRow else { return }

        func integral(_ u: Double) -> Double { u <= 0 ? 0 : u < 1 ? u * u / 2 : u - 0.5 }

        for row in firstRow..<endRow {
            let y0 = max(Double(row), upper.y), y1 = min(Double(row + 1), lower.y)
            guard y1 > y0 else { continue }
            let dy = (y1 - y0) * direction
            let xa = upper.x + (y0 - upper.y) * slope, xb = upper.x + (y1 - upper.y) * slope
            let x0 = min(xa, xb), x1 = max(xa, xb)
            let base = row * stride
            let firstColumn = Int(x0.rounded(.down)), lastColumn = min(stride - 2, Int(x1.rounded(.up)))
            var previous = 0.0
            for column in firstColumn...max(firstColumn, lastColumn) {
                let right = Double(column + 1)
                let covered = x1 - x0 < 1e-9
                    ? min(max(right - (x0 + x1) / 2, 0), 1)
                    : (integral(right - x0) - integral(right - x1)) / (x1 - x0)
                cells[base + column] += dy * (covered - previous)
                previous = covered
            }
            // Every column further right is covered by the whole piece.
            if lastColumn + 1 < stride { cells[base + lastColumn + 1] += dy * (1 - previous) }
        }
    }

    // MARK: Geometry

    /// Moves a coordinate so that a horizontal or vertical line of `lineWidth` there has its edges on
    /// whole pixels.
    private func snapped(_ value: Double, lineWidth: Double) -> Double {
        let odd = Int(lineWidth.rounded()) % 2 == 1
        return odd ? (value - 0.5).rounded() + 0.5 : value.rounded()
    }

    private func segmentQuad(_ a: ChartPoint, _ b: ChartPoint, halfWidth: Double) -> [ChartPoint]? {
        let dx = b.x - a.x, dy = b.y - a.y, length = hypot(dx, dy)
        guard length > 0 else { return nil }
        let nx = -dy / length * halfWidth, ny = dx / length * halfWidth
        return [ChartPoint(a.x + nx, a.y + ny), ChartPoint(b.x + nx, b.y + ny), ChartPoint(b.x - nx, b.y - ny), ChartPoint(a.x - nx, a.y - ny)]
    }

    private func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [ChartPoint] {
        [ChartPoint(x0, y0), ChartPoint(x1, y0), ChartPoint(x1, y1), ChartPoint(x0, y1)]
    }

    /// A polygon close enough to a circle that no side strays a tenth of a pixel from it.
    private func circle(center: ChartPoint, radius: Double) -> [ChartPoint] {
        let sides = max(12, Int((Double.pi / acos(max(-1, 1 - 0.1 / max(radius, 0.1)))).rounded(.up)))
        return (0..<sides).map { index in
            let angle = 2 * Double.pi * Double(index) / Double(sides)
            return ChartPoint(center.x + radius * cos(angle), center.y + radius * sin(angle))
        }
    }

    private func signedArea(_ polygon: [ChartPoint]) -> Double {
        var area = 0.0
        for index in polygon.indices {
            let a = polygon[index], b = polygon[(index + 1) % polygon.count]
            area += a.x * b.y - b.x * a.y
        }
        return area / 2
    }
}
