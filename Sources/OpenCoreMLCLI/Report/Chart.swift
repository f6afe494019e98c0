/// A chart as a list of shapes and texts in pixels (y grows downwards), drawn by two backends: SVG text
/// written here (`svg()`: text stays text, hover tooltips) and cairo (`pngData(scale:)`, `pdfData()`:
/// anti-aliased shapes and DejaVu Sans). The chart builders (`LossCurveChart`, `ConfusionMatrixChart`)
/// lay a chart out once, measuring text with the backend's `ChartTextMetrics`, so every file shows the
/// same chart.
struct Chart {
    var width: Double
    var height: Double
    /// The document's title (for screen readers in SVG).
    var title: String
    var elements: [Element] = []

    enum Element {
        /// A straight line with butt ends.
        case line(from: ChartPoint, to: ChartPoint, color: ChartColor, width: Double)
        /// Connected straight lines with round joins.
        case polyline([ChartPoint], color: ChartColor, width: Double)
        /// An axis-aligned rectangle, filled and/or outlined (the outline centred on its edges).
        case rectangle(x: Double, y: Double, width: Double, height: Double, fill: ChartColor?, stroke: ChartColor?, strokeWidth: Double)
        /// A filled circle; `tooltip` shows on hover in SVG.
        case circle(center: ChartPoint, radius: Double, fill: ChartColor, tooltip: String?)
        case text(ChartText)
        /// Elements that show `tooltip` on hover in SVG (a heat-map cell and its count).
        case group(tooltip: String, [Element])
    }

    mutating func append(_ element: Element) { elements.append(element) }

    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, anchor: ChartText.Anchor = .start, baseline: ChartText.Baseline = .alphabetic,
        color: ChartColor = .ink, bold: Bool = false, rotation: Double = 0
    ) {
        append(.text(ChartText(content: content, x: x, y: y, size: size, anchor: anchor, baseline: baseline, color: color, bold: bold, rotation: rotation)))
    }
}

struct ChartPoint: Equatable {
    var x: Double
    var y: Double

    init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// An opaque sRGB colour.
struct ChartColor: Equatable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `0x1f77b4` → red 0x1f, green 0x77, blue 0xb4.
    init(_ hex: UInt32) {
        self.init(red: UInt8(hex >> 16 & 0xFF), green: UInt8(hex >> 8 & 0xFF), blue: UInt8(hex & 0xFF))
    }

    /// `#1f77b4`.
    var hex: String {
        "#" + [red, green, blue].map { channel in
            let digits = String(channel, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// The colour `t` of the way from `self` to `other` (0…1), channels rounded.
    func mixed(with other: ChartColor, _ t: Double) -> ChartColor {
        let t = min(max(t, 0), 1)
        func channel(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return ChartColor(red: channel(red, other.red), green: channel(green, other.green), blue: channel(blue, other.blue))
    }

    static let white = ChartColor(0xFFFFFF)
    /// Titles and labels.
    static let ink = ChartColor(0x1A1A1A)
    /// Axes, ticks and axis titles.
    static let axis = ChartColor(0x444444)
    static let grid = ChartColor(0xE5E5E5)
    /// Notes under a chart.
    static let note = ChartColor(0x666666)
    static let faint = ChartColor(0x888888)
}

/// A line of text: where it starts, is centred or ends (`anchor`) on `x`, and where its baseline is.
struct ChartText {
    enum Anchor { case start, middle, end }
    enum Baseline {
        /// `y` is the baseline.
        case alphabetic
        /// `y` is the middle of the text's capitals and digits.
        case central
    }

    var content: String
    var x: Double
    var y: Double
    /// The font size in pixels.
    var size: Double
    var anchor: Anchor = .start
    var baseline: Baseline = .alphabetic
    var color: ChartColor = .ink
    var bold = false
    /// Degrees clockwise around (`x`, `y`).
    var rotation: Double = 0
}

/// How a backend measures text, and which text its font can draw, for laying a chart out.
protocol ChartTextMetrics {
    /// The advance width of `text` at `size` pixels.
    func width(of text: String, size: Double, bold: Bool) -> Double
    /// Whether every character of `text` has a glyph.
    func canDraw(_ text: String) -> Bool
}

extension ChartTextMetrics {
    func width(of text: String, size: Double) -> Double { width(of: text, size: size, bold: false) }
}
