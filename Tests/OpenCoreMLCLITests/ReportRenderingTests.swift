import Foundation
import Testing
import OpenCreateML
import _OpenCoreMLTestSupport
@testable import OpenCoreMLCLI

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What an XML parse of an SVG document found: element counts, attributes and text per element.
private final class SVGSummary: NSObject, XMLParserDelegate {
    var elementCounts: [String: Int] = [:]
    var attributes: [String: [[String: String]]] = [:]
    var texts: [String] = []  // the text of each <text> element
    var titles: [String] = []
    private var current: String?
    private var buffer = ""
    var parseError: Error?

    init(_ svg: String) {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = self
        if !parser.parse() { parseError = parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        elementCounts[name, default: 0] += 1
        self.attributes[name, default: []].append(attributes)
        if name == "text" || name == "title" {
            current = name
            buffer = ""
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if current != nil { buffer += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == current {
            if name == "text" { texts.append(buffer) } else { titles.append(buffer) }
            current = nil
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred error: Error) { parseError = error }
}

struct ReportRenderingTests {
    /// Ten samples of three classes; every number below is worked out by hand from this confusion matrix:
    ///            predicted A  B  C
    ///   true A (4)          2  1  1
    ///   true B (3)          1  2  0
    ///   true C (3)          0  1  2
    private let truth = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    private let predicted = [0, 0, 1, 2, 1, 1, 0, 2, 2, 1]

    @Test func textTablesLineUpWithEmoji() throws {
        #expect(displayWidth("ab") == 2)
        #expect(displayWidth("✊") == 2)
        #expect(displayWidth("✌️") == 2)
        #expect(displayWidth("👍🏽") == 2)
        #expect(displayWidth("日本") == 4)
        #expect(displayWidth("é") == 1)

        let names = ["✊", "✋", "✌️"]
        let report = try MLClassifierMetrics(classLabels: names, trueLabels: truth, predictedLabels: predicted)
        let text = report.renderText()
        #expect(text.contains("accuracy 60.00% (6 of 10)"))
        #expect(text.contains("0.6667"))
        let lines = text.split(separator: "\n").map(String.init)
        // The per-class rows end in the right-aligned support column at the same display width.
        let rows = lines.filter { line in names.contains { line.hasPrefix("  " + $0 + " ") } }
        #expect(rows.count == 6)  // three in the metrics table, three in the confusion matrix
        let metricRows = Array(rows.prefix(3)), matrixRows = Array(rows.suffix(3))
        #expect(Set(metricRows.map(displayWidth)).count == 1)
        #expect(Set(matrixRows.map(displayWidth)).count == 1)
        #expect(matrixRows[0].hasSuffix(" 2   1   1"))  // columns two wide for the emoji headers

        // Long names: the matrix numbers its columns.
        let long = try MLClassifierMetrics(classLabels: ["T-shirt/top", "Trouser"], trueLabels: [0, 1], predictedLabels: [0, 1])
        #expect(long.renderText().contains("0 T-shirt/top"))
    }

    @Test func confusionMatrixSVGIsValidXML() throws {
        let names = ["✊", "✋", "✌️", "<rock & \"roll\">"]
        let report = try MLClassifierMetrics(classLabels: names, trueLabels: [0, 0, 1, 2, 3, 3], predictedLabels: [0, 1, 1, 2, 3, 0])
        let svg = ConfusionMatrixChart.make(report, title: "Hands & <friends>", text: SVG.Metrics()).svg()
        let summary = SVGSummary(svg)
        #expect(summary.parseError == nil)
        #expect(summary.elementCounts["svg"] == 1)
        #expect(summary.elementCounts["rect"] == 1 + 16)  // the background and one per cell
        for name in names {
            #expect(summary.texts.filter { $0 == name }.count == 2)  // row and column label
        }
        #expect(summary.titles.first == "Hands & <friends>")
        #expect(summary.titles.contains("true <rock & \"roll\">, predicted ✊: 1 (50% of <rock & \"roll\">)"))
        // Each cell shows its count, row by row.
        let counts = summary.texts.compactMap(Int.init)
        #expect(counts == report.confusionMatrix.flatMap { $0 })
        // Fuller rows are darker: the cell holding all of ✌️'s samples is darker than an empty one.
        let fills = summary.attributes["rect"]!.dropFirst().map { $0["fill"]! }
        #expect(fills[2 * 4 + 2] != fills[2 * 4 + 0])
    }

    @Test func lossCurveSVGIsValidXML() throws {
        let loss = [2.3, 1.1, 0.7, .nan, 0.5]
        let accuracy = [0.3, 0.6, 0.7, 0.75, 0.8]
        let svg = LossCurveChart.make(loss: loss, accuracy: accuracy, title: "LeNet <Fashion-MNIST>", metrics: SVG.Metrics()).svg()
        let summary = SVGSummary(svg)
        #expect(summary.parseError == nil)
        #expect(summary.elementCounts["circle"] == 4 + 5)  // no point for the NaN loss
        #expect(summary.elementCounts["polyline"] == 2)  // loss 1-3 (epoch 5 stands alone) and accuracy
        #expect(summary.texts.contains("epoch") && summary.texts.contains("loss") && summary.texts.contains("accuracy"))
        #expect(summary.texts.contains("100%") && summary.texts.contains("0%"))
        #expect(summary.titles.contains("epoch 2: loss 1.1000"))
        #expect(summary.titles.contains("epoch 4: accuracy 75.00%"))

        // Falling loss draws left to right and downwards (SVG's y grows down).
        let points = summary.attributes["polyline"]![0]["points"]!.split(separator: " ").map { pair in
            pair.split(separator: ",").map { Double($0)! }
        }
        #expect(points.count == 3)
        #expect(points[0][0] < points[1][0] && points[1][0] < points[2][0])
        #expect(points[0][1] < points[1][1] && points[1][1] < points[2][1])

        // Loss ticks cover the data with round steps.
        let ticks = SVG.ticks(0.5, 2.3)
        #expect(ticks.first! <= 0.5 && ticks.last! >= 2.3)
        #expect(ticks == [0.5, 1.0, 1.5, 2.0, 2.5])

        for edge in [[], [0.7], [1, 1, 1]].map({ LossCurveChart.make(loss: $0, metrics: SVG.Metrics()).svg() }) {
            #expect(SVGSummary(edge).parseError == nil)
        }
    }

    @Test func escapingKeepsXMLValid() {
        #expect(SVG.escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;")
        #expect(SVG.escape("bell\u{7}") == "bell\u{FFFD}")
        #expect(SVG.escape("✌️") == "✌️")
    }

    /// Class labels come from model files: a label that would steer the terminal is printed escaped
    /// in the per-class table, the confusion matrix's headers and its rows.
    @Test func classifierMetricsEscapeLabels() throws {
        for labels in [["ok", "\u{1B}[31m"], ["a long label", "\u{1B}]0;title\u{7}"]] {
            let report = try MLClassifierMetrics(classLabels: labels, trueLabels: [0, 1, 1], predictedLabels: [0, 1, 0]).renderText()
            #expect(!report.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(report)")
            #expect(report.contains("\\u{1B}"), "\(report)")
        }
    }
}
