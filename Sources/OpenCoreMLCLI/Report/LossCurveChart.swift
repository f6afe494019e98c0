import OpenCoreML
import Foundation

/// Per-epoch training loss as a line chart, with accuracy (fractions, shown as percentages on a
/// right-hand axis) when given. Epochs run from 1; non-finite values leave a gap in the line.
enum LossCurveChart {
    static let lossColor = ChartColor(0x1F77B4)
    static let accuracyColor = ChartColor(0xFF7F0E)

    /// The loss (and, when every epoch has one, the accuracy) of an update's epochs.
    static func make(_ epochs: [MLUpdateResult.Epoch], title: String = "Training loss", metrics: any ChartTextMetrics) -> Chart {
        let accuracy = epochs.compactMap(\.accuracy)
        return make(loss: epochs.map { $0.loss ?? .nan }, accuracy: accuracy.count == epochs.count ? accuracy : nil, title: title, metrics: metrics)
    }

    static func make(loss: [Double], accuracy: [Double]? = nil, title: String = "Training loss", xLabel: String = "epoch",
                     metrics: any ChartTextMetrics) -> Chart {
        let width = 640.0, height = 360.0
        let left = 68.0, right = accuracy == nil ? 24.0 : 68.0, top = 56.0, bottom = 50.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let epochs = max(loss.count, accuracy?.count ?? 0)

        // x: epochs 1…n (one epoch sits in the middle), every epoch ticked up to 10.
        let xLower = epochs > 1 ? 1.0 : 0.5, xUpper = epochs > 1 ? Double(epochs) : 1.5
        func x(_ epoch: Double) -> Double { left + (epoch - xLower) / (xUpper - xLower) * plotWidth }
        let xTicks = epochs > 1
            ? SVG.ticks(1, Double(epochs), count: min(epochs - 1, 10)).filter { $0 >= xLower && $0 <= xUpper }
            : epochs == 1 ? [1.0] : []

        // Left y: loss, round ticks around the finite values.
        let finite = loss.filter(\.isFinite)
        let lossTicks = SVG.ticks(finite.min() ?? 0, finite.max() ?? 1)
        let yLower = lossTicks.first!, yUpper = lossTicks.last!
        let lossStep = lossTicks.count > 1 ? lossTicks[1] - lossTicks[0] : 1
        func yLoss(_ value: Double) -> Double { top + (yUpper - value) / (yUpper - yLower) * plotHeight }
        func yAccuracy(_ value: Double) -> Double { top + (1 - value) * plotHeight }

        var chart = Chart(width: width, height: height, title: title)
        chart.text(title, x: width / 2, y: 24, size: 16, anchor: .middle, bold: true)

        // Grid, axes and ticks.
        for tick in lossTicks {
            let y = yLoss(tick)
            chart.append(.line(from: ChartPoint(left, y), to: ChartPoint(left + plotWidth, y), color: .grid, width: 1))
            chart.text(SVG.tickLabel(tick, step: lossStep), x: left - 8, y: y, size: 11, anchor: .end, baseline: .central, color: .axis)
        }
        for tick in xTicks {
            let position = x(tick)
            chart.append(.line(from: ChartPoint(position, top + plotHeight), to: ChartPoint(position, top + plotHeight + 5), color: .axis, width: 1))
            chart.text(formatted(tick), x: position, y: top + plotHeight + 18, size: 11, anchor: .middle, color: .axis)
        }
        chart.append(.rectangle(x: left, y: top, width: plotWidth, height: plotHeight, fill: nil, stroke: .axis, strokeWidth: 1))
        chart.text(xLabel, x: left + plotWidth / 2, y: height - 10, size: 12, anchor: .middle, color: .axis)
        let middleY = top + plotHeight / 2
        chart.text("loss", x: 18, y: middleY, size: 12, anchor: .middle, color: lossColor, rotation: -90)
        if accuracy != nil {
            for step in 0...5 {
                let value = Double(step) / 5
                chart.text("\(step * 20)%", x: left + plotWidth + 8, y: yAccuracy(value), size: 11, baseline: .central, color: .axis)
            }
            chart.text("accuracy", x: width - 14, y: middleY, size: 12, anchor: .middle, color: accuracyColor, rotation: 90)
        }

        // Lines and points; points shrink into the line when epochs lie closer than 9 pixels.
        let radius = epochs > 1 ? min(3, max(1, plotWidth / Double(epochs - 1) / 3)) : 3
        chart.elements += series(loss, name: "loss", color: lossColor, radius: radius, xLabel: xLabel, x: x, y: yLoss) { String(format: "%.4f", $0) }
        if let accuracy {
            chart.elements += series(accuracy, name: "accuracy", color: accuracyColor, radius: radius, xLabel: xLabel, x: x, y: yAccuracy) { String(format: "%.2f%%", $0 * 100) }
        }

        // Legend, top right above the plot.
        var legendX = left + plotWidth
        for (name, color) in (accuracy == nil ? [("loss", lossColor)] : [("accuracy", accuracyColor), ("loss", lossColor)]) {
            legendX -= metrics.width(of: name, size: 12) + 34
            chart.append(.line(from: ChartPoint(legendX, 44), to: ChartPoint(legendX + 20, 44), color: color, width: 2))
            chart.text(name, x: legendX + 25, y: 44, size: 12, baseline: .central)
        }
        if epochs == 0 {
            chart.text("no epochs yet", x: left + plotWidth / 2, y: middleY, size: 13, anchor: .middle, color: .faint)
        }
        return chart
    }

    /// Lines through each run of finite values, and a point with a tooltip per value.
    private static func series(
        _ values: [Double], name: String, color: ChartColor, radius: Double, xLabel: String,
        x: (Double) -> Double, y: (Double) -> Double, label: (Double) -> String
    ) -> [Chart.Element] {
        var lines: [Chart.Element] = []
        var run: [ChartPoint] = []
        func closeRun() {
            if run.count > 1 { lines.append(.polyline(run, color: color, width: 2)) }
            run = []
        }
        var points: [Chart.Element] = []
        for (index, value) in values.enumerated() {
            guard value.isFinite else { closeRun(); continue }
            let point = ChartPoint(x(Double(index + 1)), y(value))
            run.append(point)
            points.append(.circle(center: point, radius: radius, fill: color, tooltip: "\(xLabel) \(index + 1): \(name) \(label(value))"))
        }
        closeRun()
        return lines + points
    }
}
