import OpenCoreML
import Foundation

/// Per-epoch training loss as an SVG line chart, with accuracy (fractions, shown as percentages on a
/// right-hand axis) when given. Epochs run from 1; non-finite values leave a gap in the line.
enum LossCurveSVG {
    static let lossColor = "#1f77b4"
    static let accuracyColor = "#ff7f0e"

    /// The loss (and, when every epoch has one, the accuracy) of an update's epochs.
    static func render(_ epochs: [MLUpdateResult.Epoch], title: String = "Training loss") -> String {
        let accuracy = epochs.compactMap(\.accuracy)
        return render(loss: epochs.map { $0.loss ?? .nan }, accuracy: accuracy.count == epochs.count ? accuracy : nil, title: title)
    }

    static func render(loss: [Double], accuracy: [Double]? = nil, title: String = "Training loss") -> String {
        let width = 640.0, height = 360.0
        let left = 68.0, right = accuracy == nil ? 24.0 : 68.0, top = 56.0, bottom = 50.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let epochs = max(loss.count, accuracy?.count ?? 0)

        // x: epochs 1…n (one epoch sits in the middle).
        let xLower = epochs > 1 ? 1.0 : 0.5, xUpper = epochs > 1 ? Double(epochs) : 1.5
        func x(_ epoch: Double) -> Double { left + (epoch - xLower) / (xUpper - xLower) * plotWidth }
        let xTicks = epochs > 1
            ? SVG.ticks(1, Double(epochs), count: min(epochs - 1, 8)).filter { $0 >= xLower && $0 <= xUpper }
            : [1.0]

        // Left y: loss, round ticks around the finite values.
        let finite = loss.filter(\.isFinite)
        let lossTicks = SVG.ticks(finite.min() ?? 0, finite.max() ?? 1)
        let yLower = lossTicks.first!, yUpper = lossTicks.last!
        let lossStep = lossTicks.count > 1 ? lossTicks[1] - lossTicks[0] : 1
        func yLoss(_ value: Double) -> Double { top + (yUpper - value) / (yUpper - yLower) * plotHeight }
        func yAccuracy(_ value: Double) -> Double { top + (1 - value) * plotHeight }

        var body: [String] = []
        body.append(SVG.text(title, x: width / 2, y: 24, ##"text-anchor="middle" font-size="16" font-weight="600""##))

        // Grid, axes and ticks.
        for tick in lossTicks {
            let y = yLoss(tick)
            body.append(##"<line x1="\##(SVG.number(left))" y1="\##(SVG.number(y))" x2="\##(SVG.number(left + plotWidth))" y2="\##(SVG.number(y))" stroke="#e5e5e5" stroke-width="1"/>"##)
            body.append(SVG.text(SVG.tickLabel(tick, step: lossStep), x: left - 8, y: y, ##"text-anchor="end" dominant-baseline="central" font-size="11" fill="#444444""##))
        }
        for tick in xTicks {
            let position = x(tick)
            body.append(##"<line x1="\##(SVG.number(position))" y1="\##(SVG.number(top + plotHeight))" x2="\##(SVG.number(position))" y2="\##(SVG.number(top + plotHeight + 5))" stroke="#444444" stroke-width="1"/>"##)
            body.append(SVG.text(formatted(tick), x: position, y: top + plotHeight + 18, ##"text-anchor="middle" font-size="11" fill="#444444""##))
        }
        body.append(##"<rect x="\##(SVG.number(left))" y="\##(SVG.number(top))" width="\##(SVG.number(plotWidth))" height="\##(SVG.number(plotHeight))" fill="none" stroke="#444444" stroke-width="1"/>"##)
        body.append(SVG.text("epoch", x: left + plotWidth / 2, y: height - 10, ##"text-anchor="middle" font-size="12" fill="#444444""##))
        let middleY = top + plotHeight / 2
        body.append(SVG.text("loss", x: 18, y: middleY, ##"text-anchor="middle" font-size="12" fill="\##(lossColor)" transform="rotate(-90 18 \##(SVG.number(middleY)))""##))
        if accuracy != nil {
            for step in 0...5 {
                let value = Double(step) / 5, y = yAccuracy(value)
                body.append(SVG.text("\(step * 20)%", x: left + plotWidth + 8, y: y, ##"dominant-baseline="central" font-size="11" fill="#444444""##))
            }
            let axisX = width - 14
            body.append(SVG.text("accuracy", x: axisX, y: middleY, ##"text-anchor="middle" font-size="12" fill="\##(accuracyColor)" transform="rotate(90 \##(SVG.number(axisX)) \##(SVG.number(middleY)))""##))
        }

        // Lines and points.
        body += series(loss, name: "loss", color: lossColor, x: x, y: yLoss) { String(format: "%.4f", $0) }
        if let accuracy {
            body += series(accuracy, name: "accuracy", color: accuracyColor, x: x, y: yAccuracy) { String(format: "%.2f%%", $0 * 100) }
        }

        // Legend, top right above the plot.
        var legendX = left + plotWidth
        for (name, color) in (accuracy == nil ? [("loss", lossColor)] : [("accuracy", accuracyColor), ("loss", lossColor)]) {
            legendX -= SVG.estimatedWidth(name, fontSize: 12) + 34
            body.append(##"<line x1="\##(SVG.number(legendX))" y1="44" x2="\##(SVG.number(legendX + 20))" y2="44" stroke="\##(color)" stroke-width="2"/>"##)
            body.append(SVG.text(name, x: legendX + 25, y: 44, ##"dominant-baseline="central" font-size="12""##))
        }
        if epochs == 0 {
            body.append(SVG.text("no epochs yet", x: left + plotWidth / 2, y: middleY, ##"text-anchor="middle" font-size="13" fill="#888888""##))
        }
        return SVG.document(width: width, height: height, title: title, body: body)
    }

    /// Polylines through each run of finite values, and a point with a tooltip per value.
    private static func series(
        _ values: [Double], name: String, color: String,
        x: (Double) -> Double, y: (Double) -> Double, label: (Double) -> String
    ) -> [String] {
        var elements: [String] = []
        var run: [String] = []
        func closeRun() {
            if run.count > 1 {
                elements.append(##"<polyline points="\##(run.joined(separator: " "))" fill="none" stroke="\##(color)" stroke-width="2" stroke-linejoin="round"/>"##)
            }
            run = []
        }
        var points: [String] = []
        for (index, value) in values.enumerated() {
            guard value.isFinite else { closeRun(); continue }
            let px = SVG.number(x(Double(index + 1))), py = SVG.number(y(value))
            run.append("\(px),\(py)")
            points.append(##"<circle cx="\##(px)" cy="\##(py)" r="3" fill="\##(color)"><title>epoch \##(index + 1): \##(name) \##(label(value))</title></circle>"##)
        }
        closeRun()
        return elements + points
    }
}
