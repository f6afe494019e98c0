import Foundation
import OpenCoreML

extension Chart {
    /// The chart drawn `scale` pixels per chart pixel (2: as sharp as on a high-density screen).
    func raster(scale: Double = 2) -> RasterCanvas {
        var canvas = RasterCanvas(width: Int((width * scale).rounded(.up)), height: Int((height * scale).rounded(.up)))
        for element in elements { draw(element, on: &canvas, scale: scale) }
        return canvas
    }

    /// The chart as a PNG file's bytes, drawn `scale` pixels per chart pixel. Hover tooltips are SVG's
    /// alone.
    func pngData(scale: Double = 2) throws -> Data {
        let canvas = raster(scale: scale)
        guard let buffer = PixelBuffer(width: canvas.width, height: canvas.height, pixelFormatType: kCVPixelFormatType_32RGBA) else {
            throw CLIError.model("a \(canvas.width)×\(canvas.height) chart is too large to draw")
        }
        canvas.pixels.withUnsafeBytes { pixels in
            for row in 0..<canvas.height {
                (buffer.baseAddress + row * buffer.bytesPerRow).copyMemory(
                    from: pixels.baseAddress! + row * canvas.width * 4, byteCount: canvas.width * 4)
            }
        }
        return try CLIError.wrapping { try buffer.pngData() }
    }

    private func draw(_ element: Element, on canvas: inout RasterCanvas, scale: Double) {
        func point(_ p: ChartPoint) -> ChartPoint { ChartPoint(p.x * scale, p.y * scale) }
        switch element {
        case let .line(from, to, color, width):
            canvas.strokeLine(from: point(from), to: point(to), lineWidth: width * scale, color: color)
        case let .polyline(points, color, width):
            canvas.strokePolyline(points.map(point), lineWidth: width * scale, color: color)
        case let .rectangle(x, y, width, height, fill, stroke, strokeWidth):
            if let fill { canvas.fillRectangle(x: x * scale, y: y * scale, width: width * scale, height: height * scale, color: fill) }
            if let stroke {
                canvas.strokeRectangle(x: x * scale, y: y * scale, width: width * scale, height: height * scale, lineWidth: strokeWidth * scale, color: stroke)
            }
        case let .circle(center, radius, fill, _):
            canvas.fillCircle(center: point(center), radius: radius * scale, color: fill)
        case var .text(text):
            text.x *= scale
            text.y *= scale
            text.size *= scale
            canvas.draw(text)
        case let .group(_, elements):
            for element in elements { draw(element, on: &canvas, scale: scale) }
        }
    }
}
