import Foundation
import Testing
import OpenCreateML
import _OpenCoreMLImageIO
import _OpenCoreMLTestSupport
@testable import OpenCoreMLCLI

/// PNG charts: the encoder, cairo's drawing and the font, the charts read back pixel by pixel, and the
/// chart options of the real executable.
///
/// Set `OPENCOREML_CHART_PREVIEW` to a folder to also get the rendered charts there, to look at.
@Suite("PNG charts")
struct ChartPNGTests {
    static let fashionNames = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]

    /// Decodes `chart` drawn as PNG (and leaves a copy, with the SVG and PDF, in the preview folder
    /// when one is set).
    private func decodedPNG(_ chart: Chart, name: String, scale: Double = 2) throws -> RGBAImage {
        let data = try chart.pngData(scale: scale)
        if let folder = ProcessInfo.processInfo.environment["OPENCOREML_CHART_PREVIEW"] {
            try data.write(to: URL(fileURLWithPath: folder).appendingPathComponent(name + ".png"))
            try Data(chart.svg().utf8).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name + ".svg"))
            try chart.pdfData().write(to: URL(fileURLWithPath: folder).appendingPathComponent(name + ".pdf"))
        }
        return try RGBAImage(data: data, name: name)
    }

    private func color(_ image: RGBAImage, _ x: Double, _ y: Double, scale: Double = 2) -> ChartColor {
        let pixel = image[Int(x * scale), Int(y * scale)]
        #expect(pixel.w == 255)
        return ChartColor(red: pixel.x, green: pixel.y, blue: pixel.z)
    }

    /// How far apart two colours are, channel by channel.
    private func distance(_ a: ChartColor, _ b: ChartColor) -> Int {
        max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
    }

    private func brightness(_ color: ChartColor) -> Int { Int(color.red) + Int(color.green) + Int(color.blue) }

    @Test func theEncoderRoundTripsThroughTheDecoder() throws {
        var opaque = RGBAImage(width: 7, height: 5, fill: SIMD4(10, 20, 30, 255))
        opaque[3, 2] = SIMD4(255, 0, 128, 255)
        opaque[6, 4] = SIMD4(0, 255, 1, 255)
        let opaqueData = try opaque.pngData()
        #expect(opaqueData.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try RGBAImage(data: opaqueData, name: "opaque") == opaque)

        var translucent = opaque
        translucent[0, 0] = SIMD4(200, 100, 50, 0)
        translucent[1, 0] = SIMD4(200, 100, 50, 77)
        #expect(try RGBAImage(data: translucent.pngData(), name: "translucent") == translucent)
        #expect(opaqueData.count < (try translucent.pngData()).count + 16)  // RGB when opaque

        let big = RGBAImage(width: 1280, height: 720, fill: SIMD4(255, 255, 255, 255))
        let decoded = try RGBAImage(data: big.pngData(), name: "big")
        #expect(decoded.width == 1280 && decoded.height == 720 && decoded == big)
    }

    @Test func glyphsHaveHolesAndTextMeasuresByTheFont() throws {
        let metrics = ChartFont.Metrics()
        #expect(metrics.canDraw("T-shirt/top") && metrics.canDraw("Café") && metrics.canDraw("Cafe\u{301}"))
        #expect(!metrics.canDraw("✊") && !metrics.canDraw("ok 👍"))
        #expect(metrics.canDraw("✌️"))  // DejaVu's ✌, the emoji variation selector dropped
        #expect(metrics.canDraw("Кошка") && metrics.canDraw("αβγ") && metrics.canDraw("Ελλάδα"))  // beyond Latin-1
        #expect(metrics.width(of: "WWW", size: 20) > metrics.width(of: "iii", size: 20))
        #expect(abs(metrics.width(of: "HH", size: 20) - 2 * metrics.width(of: "H", size: 20)) < 1e-6)
        #expect(abs(metrics.width(of: "H", size: 40) - 2 * metrics.width(of: "H", size: 20)) < 1e-6)  // unhinted: scales with the size
        #expect(metrics.width(of: "Loss", size: 16, bold: true) > metrics.width(of: "Loss", size: 16))
        // A decomposed accent is drawn composed, as wide as the composed word.
        #expect(abs(metrics.width(of: "Cafe\u{301}", size: 20) - metrics.width(of: "Café", size: 20)) < 1e-6)
        // A character without a glyph is drawn, and measured, as "?".
        #expect(abs(metrics.width(of: "a👍b", size: 20) - metrics.width(of: "a?b", size: 20)) < 1e-6)

        // An "O" 80 pixels tall: ink on its ring, background in its hole and around it.
        var chart = Chart(width: 100, height: 100, title: "O")
        chart.append(.text(ChartText(content: "O", x: 50, y: 50, size: 80, anchor: .middle, baseline: .central, color: ChartColor(0x000000))))
        let image = try decodedPNG(chart, name: "glyph-o", scale: 1)
        #expect(image.width == 100 && image.height == 100)
        #expect(color(image, 50, 50, scale: 1) == .white)
        #expect(color(image, 2, 50, scale: 1) == .white)
        let ring = (0..<50).map { color(image, Double($0), 50, scale: 1) }
        #expect(ring.contains(ChartColor(0x000000)))
        #expect(ring.contains { $0 != .white && $0 != ChartColor(0x000000) })  // anti-aliased edges
        // The ring is centred on x = 50 (anchor middle) and on y = 50 (baseline central), within a pixel.
        let columns = (0..<100).filter { color(image, Double($0), 50, scale: 1) != .white }
        let rows = (0..<100).filter { color(image, 50, Double($0), scale: 1) != .white }
        #expect(abs(Double(columns.first! + columns.last!) / 2 - 50) <= 1.5, "\(columns)")
        #expect(abs(Double(rows.first! + rows.last!) / 2 - 50) <= 1.5, "\(rows)")
    }

    @Test func theLossCurveDrawsItsLinesColoursAndText() throws {
        let loss = [2.2, 1.4, 1.0, 0.8, 0.66, 0.58, 0.52, 0.48, 0.45, 0.43]
        let accuracy = [0.35, 0.55, 0.66, 0.72, 0.77, 0.8, 0.82, 0.835, 0.845, 0.85]
        let chart = LossCurveChart.make(loss: loss, accuracy: accuracy, title: "LeNet on Fashion-MNIST", metrics: ChartFont.Metrics())
        let image = try decodedPNG(chart, name: "loss-curve")
        #expect(image.width == 1280 && image.height == 720)
        #expect(color(image, 1, 1) == .white)

        // Halfway along each line's first segment: the line's own colour.
        let lines = chart.elements.compactMap { element -> ([ChartPoint], ChartColor)? in
            if case let .polyline(points, color, _) = element { return (points, color) }
            return nil
        }
        #expect(lines.map(\.1) == [LossCurveChart.lossColor, LossCurveChart.accuracyColor])
        for (points, lineColor) in lines {
            let middle = ChartPoint((points[0].x + points[1].x) / 2, (points[0].y + points[1].y) / 2)
            #expect(distance(color(image, middle.x, middle.y), lineColor) <= 8, "\(lineColor.hex) at \(middle)")
        }
        // Ink where the title is, the plot frame's grey on its left edge.
        let titleRow = (440..<840).map { image[$0, 42] }
        #expect(titleRow.contains { Int($0.x) + Int($0.y) + Int($0.z) < 200 })
        #expect(color(image, 68, 200) == .axis)
    }

    @Test func heatMapCellsDarkenWithTheirShareAndEmojiBecomeNumbers() throws {
        // True ✊: 8 of 8 right; true ✋: 4 right, 4 as ✊; true 👌: 1 right, 7 as ✋. (DejaVu Sans has
        // none of the three; it does have ✌, so "✌️" would be drawn.)
        let names = ["✊", "✋", "👌"]
        let matrix = [[8, 0, 0], [4, 4, 0], [0, 7, 1]]
        let chart = ConfusionMatrixChart.make(matrix: matrix, classNames: names, title: "Hands", text: ChartFont.Metrics())
        let image = try decodedPNG(chart, name: "confusion-emoji")
        #expect(image.width == Int((chart.width * 2).rounded(.up)) && image.height == Int((chart.height * 2).rounded(.up)))
        #expect(color(image, 1, 1) == .white)

        let cells = chart.elements.compactMap { element -> (x: Double, y: Double, size: Double)? in
            guard case let .group(_, parts) = element, case let .rectangle(x, y, width, _, _, _, _)? = parts.first else { return nil }
            return (x, y, width)
        }
        #expect(cells.count == 9)
        // A corner of each cell, away from its count: the shade of its share.
        let shades = cells.map { color(image, $0.x + 4, $0.y + 4) }
        #expect(shades[0] == ConfusionMatrixChart.shade(1))
        #expect(shades[1] == ConfusionMatrixChart.shade(0))
        #expect(distance(shades[3], ConfusionMatrixChart.shade(0.5)) <= 1)
        #expect(brightness(shades[0]) < brightness(shades[7]) && brightness(shades[7]) < brightness(shades[3])
                && brightness(shades[3]) < brightness(shades[8]) && brightness(shades[8]) < brightness(shades[1]))
        // The white count on the darkest cell.
        let darkCell = cells[0]
        let countPixels = (0..<Int(darkCell.size * 2)).map { image[Int(darkCell.x * 2) + $0, Int((darkCell.y + darkCell.size / 2) * 2)] }
        #expect(countPixels.contains { $0 == SIMD4(255, 255, 255, 255) })

        // The font has no emoji: the labels are numbered, and a note names them.
        let texts = chart.elements.compactMap { element -> String? in
            if case let .text(text) = element { return text.content }
            return nil
        }
        #expect(texts.filter { $0 == "#0" || $0 == "#1" || $0 == "#2" }.count == 6)
        #expect(!texts.contains("✊"))
        let notes = texts.filter { $0.contains("raised") || $0.contains("ok hand") }.joined(separator: " ")
        #expect(notes.contains("#0 raised fist") && notes.contains("#1 raised hand") && notes.contains("#2 ok hand sign"), "\(notes)")

        // The SVG keeps the emoji.
        let svg = ConfusionMatrixChart.make(matrix: matrix, classNames: names, title: "Hands", text: SVG.Metrics()).svg()
        #expect(svg.contains(">👌<") && !svg.contains(">#2<"))
    }

    @Test func longClassNamesSlantAcrossTheTop() throws {
        var matrix = [[Int]](repeating: [Int](repeating: 0, count: 10), count: 10)
        for row in 0..<10 {
            matrix[row][row] = 80 + row
            matrix[row][(row + 3) % 10] = 12
            matrix[row][(row + 6) % 10] = 3 * row
        }
        let chart = ConfusionMatrixChart.make(matrix: matrix, classNames: Self.fashionNames, title: "LeNet on Fashion-MNIST", text: ChartFont.Metrics())
        let image = try decodedPNG(chart, name: "confusion-fashion")
        #expect(image.width == Int((chart.width * 2).rounded(.up)))
        let slanted = chart.elements.compactMap { element -> ChartText? in
            if case let .text(text) = element, text.rotation == -45 { return text }
            return nil
        }
        #expect(slanted.map(\.content) == Self.fashionNames)
        // Every label lies inside the picture.
        for text in slanted { #expect(text.x + ChartFont.Metrics().width(of: text.content, size: text.size) * 0.71 < chart.width) }
    }

    // MARK: Through the executable

    @Test func trainAndEvaluateWritePNGChartsByTheExtension() throws {
        try withTemporaryDirectory { folder in
            let train = folder.appendingPathComponent("train.csv"), test = folder.appendingPathComponent("test.csv")
            try TrainEvaluatePredictCommandTests.writeCSV(train, count: 60, seed: 3)
            try TrainEvaluatePredictCommandTests.writeCSV(test, count: 30, seed: 4)
            let output = folder.appendingPathComponent("trained.mlmodel").path
            let curve = folder.appendingPathComponent("loss.PNG")
            let trained = try CommandRunner.run([
                "train", TrainEvaluatePredictCommandTests.classifier, "--data", train.path, "--scale", "1", "--output", output,
                "--epochs", "10", "--learning-rate", "0.05", "--loss-curve", curve.path,
            ])
            #expect(trained.status == 0, "\(trained.stderr)")
            let curveImage = try RGBAImage(contentsOf: curve)
            #expect(curveImage.width == 1280 && curveImage.height == 720)
            #expect(curveImage[2, 2] == SIMD4(255, 255, 255, 255))

            let matrix = folder.appendingPathComponent("confusion.png")
            let evaluated = try CommandRunner.run(["evaluate", output, "--data", test.path, "--scale", "1", "--confusion-matrix", matrix.path])
            #expect(evaluated.status == 0, "\(evaluated.stderr)")
            let matrixImage = try RGBAImage(contentsOf: matrix)
            #expect(matrixImage.width > 400 && matrixImage.height > 400)
            let svg = folder.appendingPathComponent("confusion.svg")
            #expect(try CommandRunner.run(["evaluate", output, "--data", test.path, "--scale", "1", "--confusion-matrix", svg.path]).status == 0)
            #expect(try String(contentsOf: svg, encoding: .utf8).contains("<svg"))
            let pdf = folder.appendingPathComponent("confusion.Pdf")
            let wrotePDF = try CommandRunner.run(["evaluate", output, "--data", test.path, "--scale", "1", "--confusion-matrix", pdf.path])
            #expect(wrotePDF.status == 0, "\(wrotePDF.stderr)")
            let pdfBytes = try Data(contentsOf: pdf)
            #expect(pdfBytes.starts(with: Data("%PDF-".utf8)) && String(decoding: pdfBytes.suffix(8), as: UTF8.self).contains("%%EOF"))
            // The help names the three formats.
            for command in [["evaluate"], ["train"], ["image-classifier", "evaluate"], ["federated", "report"]] {
                let help = try CommandRunner.run(command + ["--help"])
                let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // however the help wraps
                #expect(words.contains("FILE.svg, FILE.png or FILE.pdf"), "\(command)")
            }

            // Any other extension is a usage error naming the three, and writes nothing.
            let text = folder.appendingPathComponent("chart.txt").path
            let usage = [
                try CommandRunner.run(["train", TrainEvaluatePredictCommandTests.classifier, "--data", train.path, "--scale", "1",
                                       "--output", output, "--loss-curve", text]),
                try CommandRunner.run(["evaluate", output, "--data", test.path, "--scale", "1", "--confusion-matrix", text]),
                try CommandRunner.run(["image-classifier", "evaluate", output, folder.path, "--plot", text]),
            ]
            for result in usage {
                #expect(result.status == 2, "\(result.stderr)")
                #expect(result.stderr.contains(".svg, .png or .pdf"), "\(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: text))
        }
    }
}
