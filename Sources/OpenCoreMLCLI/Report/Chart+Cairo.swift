import CCairo
import Foundation

/// The PNG and PDF backends of `Chart`, drawn by cairo: anti-aliased shapes, text in `ChartFont`.
extension Chart {
    /// A PNG is at most this many pixels a side (cairo's own limit) and `maximumPNGPixels` in all
    /// (256 MB while drawn); a larger chart is written as SVG or PDF instead.
    static let maximumPNGSide = 32_767
    static let maximumPNGPixels = 1 << 26

    /// The chart as a PNG file's bytes, drawn `scale` pixels per chart pixel (2: as sharp as on a
    /// high-density screen). Opaque RGB; hover tooltips are SVG's alone.
    func pngData(scale: Double = 2) throws -> Data {
        let pixelWidth = Int((width * scale).rounded(.up)), pixelHeight = Int((height * scale).rounded(.up))
        guard pixelWidth >= 1, pixelHeight >= 1, pixelWidth <= Self.maximumPNGSide, pixelHeight <= Self.maximumPNGSide,
              pixelWidth * pixelHeight <= Self.maximumPNGPixels else {
            throw CLIError.model("a \(pixelWidth)×\(pixelHeight) chart is too large for a PNG; write it as .svg or .pdf")
        }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(pixelWidth), Int32(pixelHeight))
        defer { cairo_surface_destroy(surface) }
        try Self.check(cairo_surface_status(surface), "make a \(pixelWidth)×\(pixelHeight) picture")
        try draw(on: surface, scale: scale, snapping: true)
        let sink = CairoDataSink()
        let status = withExtendedLifetime(sink) { cairo_surface_write_to_png_stream(surface, CairoDataSink.write, sink.closure) }
        try Self.check(status, "encode the PNG")
        return sink.data
    }

    /// The chart as a one-page PDF file's bytes, one point per chart pixel, its text as text.
    func pdfData() throws -> Data {
        let sink = CairoDataSink()
        try withExtendedLifetime(sink) {
            let surface = cairo_pdf_surface_create_for_stream(CairoDataSink.write, sink.closure, width, height)
            defer { cairo_surface_destroy(surface) }
            try Self.check(cairo_surface_status(surface), "start the PDF")
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "opencoreml")
            try draw(on: surface, scale: 1, snapping: false)
            cairo_surface_finish(surface)
            try Self.check(cairo_surface_status(surface), "write the PDF")
        }
        return sink.data
    }

    private static func check(_ status: cairo_status_t, _ doing: String) throws {
        guard status == CAIRO_STATUS_SUCCESS else {
            throw CLIError.model("could not \(doing) for the chart: \(String(cString: cairo_status_to_string(status)))")
        }
    }

    /// Paints the background white and draws every element, chart pixels scaled by `scale`. With
    /// `snapping`, horizontal and vertical lines and rectangle sides are moved by less than a device
    /// pixel so that their edges fall on whole pixels (crisp instead of two half-grey rows).
    private func draw(on surface: OpaquePointer?, scale: Double, snapping: Bool) throws {
        let context = cairo_create(surface)
        defer { cairo_destroy(context) }
        cairo_scale(context, scale, scale)
        cairo_set_source_rgb(context, 1, 1, 1)
        cairo_paint(context)
        let options = ChartFont.makeOptions()
        defer { cairo_font_options_destroy(options) }
        cairo_set_font_options(context, options)
        let painter = CairoPainter(context: context, scale: scale, snapping: snapping)
        for element in elements { painter.draw(element) }
        try Self.check(cairo_status(context), "draw")
    }
}

/// Draws `Chart.Element`s on a cairo context whose user space is chart pixels.
private struct CairoPainter {
    let context: OpaquePointer?
    let scale: Double
    let snapping: Bool

    func draw(_ element: Chart.Element) {
        switch element {
        case let .line(from, to, color, width):
            var from = from, to = to
            if from.x == to.x {
                from.x = snapped(from.x, lineWidth: width)
                to.x = from.x
            }
            if from.y == to.y {
                from.y = snapped(from.y, lineWidth: width)
                to.y = from.y
            }
            setColor(color)
            cairo_set_line_width(context, width)
            cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT)
            cairo_move_to(context, from.x, from.y)
            cairo_line_to(context, to.x, to.y)
            cairo_stroke(context)
        case let .polyline(points, color, width):
            guard let first = points.first else { return }
            setColor(color)
            cairo_set_line_width(context, width)
            cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT)
            cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
            cairo_move_to(context, first.x, first.y)
            for point in points.dropFirst() { cairo_line_to(context, point.x, point.y) }
            cairo_stroke(context)
        case let .rectangle(x, y, width, height, fill, stroke, strokeWidth):
            if let fill {
                let left = snapped(x, lineWidth: 0), right = snapped(x + width, lineWidth: 0)
                let top = snapped(y, lineWidth: 0), bottom = snapped(y + height, lineWidth: 0)
                setColor(fill)
                cairo_rectangle(context, left, top, right - left, bottom - top)
                cairo_fill(context)
            }
            if let stroke {
                let left = snapped(x, lineWidth: strokeWidth), right = snapped(x + width, lineWidth: strokeWidth)
                let top = snapped(y, lineWidth: strokeWidth), bottom = snapped(y + height, lineWidth: strokeWidth)
                setColor(stroke)
                cairo_set_line_width(context, strokeWidth)
                cairo_set_line_join(context, CAIRO_LINE_JOIN_MITER)
                cairo_rectangle(context, left, top, right - left, bottom - top)
                cairo_stroke(context)
            }
        case let .circle(center, radius, fill, _):
            setColor(fill)
            cairo_new_sub_path(context)
            cairo_arc(context, center.x, center.y, radius, 0, 2 * .pi)
            cairo_fill(context)
        case let .text(text):
            draw(text)
        case let .group(_, elements):
            for element in elements { draw(element) }
        }
    }

    private func draw(_ text: ChartText) {
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_select_font_face(context, ChartFont.family, CAIRO_FONT_SLANT_NORMAL, text.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, text.size)
        let drawn = ChartFont.drawnText(text.content, font: cairo_get_scaled_font(context))
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, drawn, &extents)
        let dx: Double
        switch text.anchor {
        case .start: dx = 0
        case .middle: dx = -extents.x_advance / 2
        case .end: dx = -extents.x_advance
        }
        var dy = 0.0
        if text.baseline == .central {
            var capital = cairo_text_extents_t()
            cairo_text_extents(context, "H", &capital)
            dy = -capital.y_bearing / 2
        }
        setColor(text.color)
        cairo_translate(context, text.x, text.y)
        if text.rotation != 0 { cairo_rotate(context, text.rotation * .pi / 180) }
        cairo_move_to(context, dx, dy)
        cairo_show_text(context, drawn)
    }

    private func setColor(_ color: ChartColor) {
        cairo_set_source_rgb(context, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255)
    }

    /// `value` moved so that a horizontal or vertical line `lineWidth` wide there (0: an edge) has its
    /// edges on whole device pixels; unchanged when not snapping.
    private func snapped(_ value: Double, lineWidth: Double) -> Double {
        guard snapping else { return value }
        let deviceWidth = (lineWidth * scale).rounded()
        let offset = deviceWidth.truncatingRemainder(dividingBy: 2) == 1 ? 0.5 : 0
        return ((value * scale - offset).rounded() + offset) / scale
    }
}

/// Collects what cairo writes through a stream callback.
private final class CairoDataSink {
    var data = Data()

    var closure: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static let write: cairo_write_func_t = { closure, bytes, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<CairoDataSink>.fromOpaque(closure).takeUnretainedValue()
        if let bytes, length > 0 { sink.data.append(bytes, count: Int(length)) }
        return CAIRO_STATUS_SUCCESS
    }
}
