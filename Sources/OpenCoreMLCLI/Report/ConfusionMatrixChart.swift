import OpenCreateML

/// A confusion matrix as an SVG heat map: true classes down the left, predicted classes across the top,
/// each cell showing its count and shaded by its share of the true class's samples (so rare classes
/// read as clearly as common ones). Hovering a cell shows the details.
enum ConfusionMatrixSVG {
    static func render(_ metrics: MLClassifierMetrics, title: String = "Confusion matrix") -> String {
        render(matrix: metrics.confusionMatrix, classNames: metrics.classLabels, title: title)
    }

    /// `matrix[t][p]`: samples of true class `t` predicted as `p`; one row and column per class name.
    static func render(matrix: [[Int]], classNames: [String], title: String = "Confusion matrix") -> String {
        let n = classNames.count
        precondition(matrix.count == n && matrix.allSatisfy { $0.count == n }, "an n × n matrix for n class names")
        let cell = min(56, max(18, 560 / Double(max(n, 1))))
        let labelFont = min(14, max(9, cell * 0.3))
        let widestName = classNames.map { SVG.estimatedWidth($0, fontSize: labelFont) }.max() ?? 0
        let rotateColumns = widestName > cell - 4
        let rowLabelWidth = min(220, widestName) + 12
        let columnLabelHeight = rotateColumns ? min(220, widestName) * 0.71 + 14 : labelFont + 10

        let left = 28 + rowLabelWidth  // room for the rotated "true class" title
        let top = 34 + 22 + columnLabelHeight  // chart title, "predicted class" title
        let note = "shade: share of the true class's samples"
        let right = rotateColumns ? min(220, widestName) * 0.71 + 8 : 16  // rotated labels lean right
        let width = max(left + cell * Double(n) + right, left + SVG.estimatedWidth(note, fontSize: 11) + 16, SVG.estimatedWidth(title, fontSize: 16) + 32)
        let height = top + cell * Double(n) + 40

        var body: [String] = []
        body.append(SVG.text(title, x: width / 2, y: 24, ##"text-anchor="middle" font-size="16" font-weight="600""##))
        body.append(SVG.text("predicted class", x: left + cell * Double(n) / 2, y: 50, ##"text-anchor="middle" font-size="12" fill="#444444""##))
        let middleY = top + cell * Double(n) / 2
        body.append(SVG.text("true class", x: 16, y: middleY, ##"text-anchor="middle" font-size="12" fill="#444444" transform="rotate(-90 16 \##(SVG.number(middleY)))""##))

        for (index, name) in classNames.enumerated() {
            let x = left + cell * (Double(index) + 0.5)
            if rotateColumns {
                let y = top - 6
                body.append(SVG.text(name, x: x, y: y, ##"font-size="\##(SVG.number(labelFont))" transform="rotate(-45 \##(SVG.number(x)) \##(SVG.number(y)))""##))
            } else {
                body.append(SVG.text(name, x: x, y: top - 6, ##"text-anchor="middle" font-size="\##(SVG.number(labelFont))""##))
            }
            let y = top + cell * (Double(index) + 0.5)
            body.append(SVG.text(name, x: left - 8, y: y, ##"text-anchor="end" dominant-baseline="central" font-size="\##(SVG.number(labelFont))""##))
        }

        for (truth, row) in matrix.enumerated() {
            let rowTotal = row.reduce(0, +)
            for (predicted, count) in row.enumerated() {
                let share = rowTotal > 0 ? Double(count) / Double(rowTotal) : 0
                let x = left + cell * Double(predicted), y = top + cell * Double(truth)
                let countFont = min(14, cell * 0.34, (cell - 4) / max(1, Double(String(count).count) * 0.62))
                let percent = (share * 1000).rounded() / 10
                let tip = "true \(classNames[truth]), predicted \(classNames[predicted]): \(count) (\(formatted(percent))% of \(classNames[truth]))"
                body.append("<g>")
                body.append("<title>\(SVG.escape(tip))</title>")
                body.append(##"<rect x="\##(SVG.number(x))" y="\##(SVG.number(y))" width="\##(SVG.number(cell))" height="\##(SVG.number(cell))" fill="\##(shade(share))" stroke="#ffffff" stroke-width="1"/>"##)
                body.append(SVG.text(String(count), x: x + cell / 2, y: y + cell / 2, ##"text-anchor="middle" dominant-baseline="central" font-size="\##(SVG.number(countFont))" fill="\##(share > 0.5 ? "#ffffff" : "#1a1a1a")""##))
                body.append("</g>")
            }
        }
        body.append(SVG.text(note, x: left, y: height - 14, ##"font-size="11" fill="#666666""##))
        return SVG.document(width: width, height: height, title: title, body: body)
    }

    /// White to dark blue as `share` goes from 0 to 1.
    private static func shade(_ share: Double) -> String {
        let from = (247.0, 251.0, 255.0), to = (8.0, 48.0, 107.0)
        let t = min(max(share, 0), 1)
        let channels = [from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t, from.2 + (to.2 - from.2) * t]
        return "#" + channels.map { channel in
            let hex = String(Int(channel.rounded()), radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}
