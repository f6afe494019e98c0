import Foundation

extension Chart {
    /// The chart as a UTF-8 SVG document; tooltips show on hover.
    func svg() -> String {
        var body: [String] = []
        for element in elements { SVG.append(element, to: &body) }
        return SVG.document(width: width, height: height, title: title, body: body)
    }
}

/// The SVG backend of `Chart`, and small helpers for SVG written as plain strings.
enum SVG {
    /// Text measured by estimate: the viewer's font is unknown, every character is drawable.
    struct Metrics: ChartTextMetrics {
        func width(of text: String, size: Double, bold: Bool) -> Double { SVG.estimatedWidth(text, fontSize: size) }
        func canDraw(_ text: String) -> Bool { true }
    }

    fileprivate static func append(_ element: Chart.Element, to body: inout [String]) {
        switch element {
        case let .line(from, to, color, width):
            body.append(##"<line x1="\##(number(from.x))" y1="\##(number(from.y))" x2="\##(number(to.x))" y2="\##(number(to.y))" stroke="\##(color.hex)" stroke-width="\##(number(width))"/>"##)
        case let .polyline(points, color, width):
            let list = points.map { "\(number($0.x)),\(number($0.y))" }.joined(separator: " ")
            body.append(##"<polyline points="\##(list)" fill="none" stroke="\##(color.hex)" stroke-width="\##(number(width))" stroke-linejoin="round"/>"##)
        case let .rectangle(x, y, width, height, fill, stroke, strokeWidth):
            let outline = stroke.map { ##" stroke="\##($0.hex)" stroke-width="\##(number(strokeWidth))""## } ?? ""
            body.append(##"<rect x="\##(number(x))" y="\##(number(y))" width="\##(number(width))" height="\##(number(height))" fill="\##(fill?.hex ?? "none")"\##(outline)/>"##)
        case let .circle(center, radius, fill, tooltip):
            let circle = ##"<circle cx="\##(number(center.x))" cy="\##(number(center.y))" r="\##(number(radius))" fill="\##(fill.hex)""##
            body.append(tooltip.map { circle + "><title>\(escape($0))</title></circle>" } ?? circle + "/>")
        case let .text(text):
            var attributes: [String] = []
            switch text.anchor {
            case .start: break
            case .middle: attributes.append(##"text-anchor="middle""##)
            case .end: attributes.append(##"text-anchor="end""##)
            }
            if text.baseline == .central { attributes.append(##"dominant-baseline="central""##) }
            attributes.append(##"font-size="\##(number(text.size))""##)
            if text.bold { attributes.append(##"font-weight="600""##) }
            attributes.append(##"fill="\##(text.color.hex)""##)
            if text.rotation != 0 {
                attributes.append(##"transform="rotate(\##(number(text.rotation)) \##(number(text.x)) \##(number(text.y)))""##)
            }
            body.append(self.text(text.content, x: text.x, y: text.y, attributes.joined(separator: " ")))
        case let .group(tooltip, elements):
            body.append("<g>")
            body.append("<title>\(escape(tooltip))</title>")
            for element in elements { append(element, to: &body) }
            body.append("</g>")
        }
    }

    /// A complete UTF-8 SVG document of `width × height` pixels around `body`, titled for screen readers.
    static func document(width: Double, height: Double, title: String, body: [String]) -> String {
        var lines = [
            ##"<?xml version="1.0" encoding="UTF-8"?>"##,
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(number(width))" height="\##(number(height))" viewBox="0 0 \##(number(width)) \##(number(height))" role="img" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">"##,
            "<title>\(escape(title))</title>",
            ##"<rect width="100%" height="100%" fill="#ffffff"/>"##,
        ]
        lines += body
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` safe inside XML elements and quoted attributes; characters XML 1.0 forbids become U+FFFD.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                let allowed = value >= 0x20 && !(0xFFFE...0xFFFF).contains(value)
                result.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return result
    }

    /// A coordinate with at most two decimals and no trailing zeros.
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return formatted(rounded == 0 ? 0 : rounded)
    }

    /// `<text>` at (x, y) with extra attributes (`text-anchor`, `font-size`, …).
    static func text(_ content: String, x: Double, y: Double, _ attributes: String = "") -> String {
        "<text x=\"\(number(x))\" y=\"\(number(y))\"\(attributes.isEmpty ? "" : " " + attributes)>\(escape(content))</text>"
    }

    /// Evenly spaced round values (steps of 1, 2 or 5 × 10ⁿ) covering `lower…upper`, about `count` of them.
    static func ticks(_ lower: Double, _ upper: Double, count: Int = 5) -> [Double] {
        var lower = lower, upper = upper
        if !(upper > lower) {
            let pad = lower == 0 ? 1 : abs(lower) * 0.1
            lower -= pad
            upper += pad
        }
        let rough = (upper - lower) / Double(max(1, count))
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        let first = (lower / step).rounded(.down) * step
        let last = (upper / step).rounded(.up) * step
        let steps = Int(((last - first) / step).rounded())
        return (0...steps).map { first + Double($0) * step }
    }

    /// A tick label with just enough decimals for the ticks' step.
    static func tickLabel(_ value: Double, step: Double) -> String {
        let decimals = max(0, Int(-log10(step).rounded(.down)))
        let text = String(format: "%.\(decimals)f", value)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    /// Roughly how wide `text` is at `fontSize`, for laying out labels.
    static func estimatedWidth(_ text: String, fontSize: Double) -> Double {
        Double(displayWidth(text)) * fontSize * 0.6
    }
}
