import OpenCreateML

/// A confusion matrix as a heat map: true classes down the left, predicted classes across the top,
/// each cell showing its count and shaded by its share of the true class's samples (so rare classes
/// read as clearly as common ones). Hovering a cell shows the details (SVG).
///
/// A class label the backend's font cannot draw (emoji in a PNG or PDF) is shown as `#index`, and a note under
/// the chart names its characters.
enum ConfusionMatrixChart {
    static func make(_ metrics: MLClassifierMetrics, title: String = "Confusion matrix", text: any ChartTextMetrics) -> Chart {
        make(matrix: metrics.confusionMatrix, classNames: metrics.classLabels, title: title, text: text)
    }

    /// `matrix[t][p]`: samples of true class `t` predicted as `p`; one row and column per class name.
    static func make(matrix: [[Int]], classNames: [String], title: String = "Confusion matrix", text: any ChartTextMetrics) -> Chart {
        let n = classNames.count
        precondition(matrix.count == n && matrix.allSatisfy { $0.count == n }, "an n × n matrix for n class names")
        let cell = min(56, max(18, 560 / Double(max(n, 1))))
        let labelFont = min(14, max(9, cell * 0.3))
        let numbered = classNames.indices.filter { !text.canDraw(classNames[$0]) }
        let labels = classNames.enumerated().map { index, name in
            numbered.contains(index) ? "#\(index)" : fitted(name, width: 220, size: labelFont, text: text)
        }
        let widestName = labels.map { text.width(of: $0, size: labelFont) }.max() ?? 0
        let rotateColumns = widestName > cell - 4
        let rowLabelWidth = min(220, widestName) + 12
        let columnLabelHeight = rotateColumns ? min(220, widestName) * 0.71 + 14 : labelFont + 10

        let left = 28 + rowLabelWidth  // room for the rotated "true class" title
        let top = 34 + 22 + columnLabelHeight  // chart title, "predicted class" title
        let right = rotateColumns ? min(220, widestName) * 0.71 + 8 : 16  // rotated labels lean right
        let gridWidth = cell * Double(n)
        let shadeNote = "shade: share of the true class's samples"
        var width = max(left + gridWidth + right, text.width(of: title, size: 16, bold: true) + 32)
        let legend = legendLines(numbered.map { "#\($0) \(described(classNames[$0], text: text))" },
                                 width: max(width - left - 16, 320), text: text)
        let notes = [shadeNote] + legend
        width = max(width, left + (notes.map { text.width(of: $0, size: 11) }.max() ?? 0) + 16)
        let height = top + gridWidth + 40 + 16 * Double(notes.count - 1)

        var chart = Chart(width: width, height: height, title: title)
        chart.text(title, x: width / 2, y: 24, size: 16, anchor: .middle, bold: true)
        chart.text("predicted class", x: left + gridWidth / 2, y: 50, size: 12, anchor: .middle, color: .axis)
        let middleY = top + gridWidth / 2
        chart.text("true class", x: 16, y: middleY, size: 12, anchor: .middle, color: .axis, rotation: -90)

        for (index, label) in labels.enumerated() {
            let x = left + cell * (Double(index) + 0.5)
            if rotateColumns {
                chart.text(label, x: x, y: top - 6, size: labelFont, rotation: -45)
            } else {
                chart.text(label, x: x, y: top - 6, size: labelFont, anchor: .middle)
            }
            chart.text(label, x: left - 8, y: top + cell * (Double(index) + 0.5), size: labelFont, anchor: .end, baseline: .central)
        }

        for (truth, row) in matrix.enumerated() {
            let rowTotal = row.reduce(0, +)
            for (predicted, count) in row.enumerated() {
                let share = rowTotal > 0 ? Double(count) / Double(rowTotal) : 0
                let x = left + cell * Double(predicted), y = top + cell * Double(truth)
                let countFont = min(14, cell * 0.34, (cell - 4) / max(1, Double(String(count).count) * 0.62))
                let percent = (share * 1000).rounded() / 10
                let tip = "true \(classNames[truth]), predicted \(classNames[predicted]): \(count) (\(formatted(percent))% of \(classNames[truth]))"
                chart.append(.group(tooltip: tip, [
                    .rectangle(x: x, y: y, width: cell, height: cell, fill: shade(share), stroke: .white, strokeWidth: 1),
                    .text(ChartText(content: String(count), x: x + cell / 2, y: y + cell / 2, size: countFont, anchor: .middle, baseline: .central,
                                    color: share > 0.5 ? .white : .ink)),
                ]))
            }
        }
        for (index, note) in notes.enumerated() {
            chart.text(note, x: left, y: top + gridWidth + 26 + 16 * Double(index), size: 11, color: .note)
        }
        return chart
    }

    /// White to dark blue as `share` goes from 0 to 1.
    static func shade(_ share: Double) -> ChartColor {
        ChartColor(0xF7FBFF).mixed(with: ChartColor(0x08306B), share)
    }

    /// `name`, cut short with "…" when wider than `width`.
    private static func fitted(_ name: String, width: Double, size: Double, text: any ChartTextMetrics) -> String {
        guard text.width(of: name, size: size) > width else { return name }
        var characters = Array(name)
        while characters.count > 1 && text.width(of: String(characters) + "…", size: size) > width { characters.removeLast() }
        return String(characters) + "…"
    }

    /// A label whose characters the font lacks, in words: "✊" → "raised fist", "ok 👍" → "ok [thumbs up sign]",
    /// "👨‍👩‍👧" → "man-woman-girl", "🇫🇷" → "flag FR".
    private static func described(_ label: String, text: any ChartTextMetrics) -> String {
        func name(_ character: Character) -> String {
            let regionalIndicators = character.unicodeScalars.filter { (0x1F1E6...0x1F1FF).contains($0.value) }
            if regionalIndicators.count == 2 {
                return "flag " + String(String.UnicodeScalarView(regionalIndicators.compactMap { Unicode.Scalar($0.value - 0x1F1E6 + 0x41) }))
            }
            // Joiners, variation selectors and skin tones add no words.
            let scalars = character.unicodeScalars.filter { scalar in
                scalar != "\u{200D}" && !(0xFE00...0xFE0F).contains(scalar.value) && !scalar.properties.isEmojiModifier
            }
            return (scalars.isEmpty ? Array(character.unicodeScalars.prefix(1)) : Array(scalars)).map { scalar in
                scalar.properties.name?.lowercased() ?? "U+" + String(scalar.value, radix: 16, uppercase: true)
            }.joined(separator: "-")
        }
        guard label.contains(where: { !$0.isWhitespace && text.canDraw(String($0)) }) else {
            return label.filter { !$0.isWhitespace }.map(name).joined(separator: " + ")
        }
        return label.map { text.canDraw(String($0)) ? String($0) : "[\(name($0))]" }.joined()
    }

    /// "labels the font lacks: #0 …, #1 …" broken into lines no wider than `width` at 11 pixels.
    private static func legendLines(_ entries: [String], width: Double, text: any ChartTextMetrics) -> [String] {
        guard !entries.isEmpty else { return [] }
        var lines: [String] = []
        var line = "labels the font lacks:"
        for (index, entry) in entries.enumerated() {
            let piece = entry + (index < entries.count - 1 ? "," : "")
            if text.width(of: line + " " + piece, size: 11) > width && !line.isEmpty {
                lines.append(line)
                line = piece
            } else {
                line += line.isEmpty ? piece : " " + piece
            }
        }
        lines.append(line)
        return lines
    }
}
