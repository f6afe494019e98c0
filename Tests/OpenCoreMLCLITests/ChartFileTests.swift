import Foundation
import Testing
import _OpenCoreMLImageIO
import _OpenCoreMLTestSupport
@testable import OpenCoreMLCLI

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Chart files as files: each format at the asked size, SVG text escaped, axis ticks, and paths that
/// cannot be written refused without leaving anything behind.
@Suite("Chart files")
struct ChartFileTests {
    private static let loss = [2.2, 1.4, 1.0, 0.8, 0.66]

    private func lossCurve(_ metrics: any ChartTextMetrics) -> Chart {
        LossCurveChart.make(loss: Self.loss, title: "Loss", metrics: metrics)
    }

    /// The width and height in a PNG's IHDR chunk (bytes 16–23, big-endian), after its signature.
    private func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test func eachFormatHasTheAskedSize() throws {
        try withTemporaryDirectory { folder in
            // The loss curve is 640 × 360: a PNG of twice that, an SVG and a PDF page of that.
            let png = folder.appendingPathComponent("loss.png"), svg = folder.appendingPathComponent("loss.svg")
            let pdf = folder.appendingPathComponent("loss.pdf")
            for url in [png, svg, pdf] { try writeChart(to: url.path, lossCurve) }

            let pngData = try Data(contentsOf: png)
            let size = try #require(pngSize(pngData))
            #expect(size.width == 1280 && size.height == 720)
            let image = try RGBAImage(data: pngData, name: "loss.png")
            #expect(image.width == 1280 && image[0, 0] == SIMD4(255, 255, 255, 255))
            #expect(try #require(pngSize(try Chart(width: 10.25, height: 3, title: "odd").pngData(scale: 2))) == (21, 6))  // rounded up

            let svgText = try String(contentsOf: svg, encoding: .utf8)
            #expect(svgText.contains(#"width="640" height="360" viewBox="0 0 640 360""#))
            #expect(XMLParser(data: Data(svgText.utf8)).parse())

            let pdfData = try Data(contentsOf: pdf)
            let pdfText = String(decoding: pdfData, as: UTF8.self)
            #expect(pdfData.starts(with: Data("%PDF-".utf8)))
            #expect(pdfText.contains("/MediaBox [ 0 0 640 360 ]"), "\(pdfText.prefix(2000))")
            #expect(pdfText.contains("/FontFile"))  // the text stays text, its font embedded
        }
    }

    @Test func svgEscapesLabelsFromModelFiles() throws {
        // Class labels and titles come from model files.
        let names = [#"<script>alert("x")</script>"#, "Tom & Jerry's", "a\u{1}b"]
        let chart = ConfusionMatrixChart.make(matrix: [[1, 0, 0], [0, 2, 0], [0, 0, 3]], classNames: names,
                                              title: #"model "<b>" & co"#, text: SVG.Metrics())
        let svg = chart.svg()
        #expect(!svg.contains("<script>") && !svg.contains("<b>"))
        #expect(svg.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        #expect(svg.contains("Tom &amp; Jerry&apos;s"))
        #expect(svg.contains("a\u{FFFD}b") && !svg.contains("\u{1}"))
        #expect(svg.contains("<title>model &quot;&lt;b&gt;&quot; &amp; co</title>"))
        #expect(XMLParser(data: Data(svg.utf8)).parse())
        // The same labels drawn by cairo (PNG and PDF) need no escaping and do not fail.
        let drawn = ConfusionMatrixChart.make(matrix: [[1, 0, 0], [0, 2, 0], [0, 0, 3]], classNames: names,
                                              title: #"model "<b>" & co"#, text: ChartFont.Metrics())
        #expect(try pngSize(drawn.pngData()) != nil)
        #expect(try drawn.pdfData().starts(with: Data("%PDF-".utf8)))
    }

    @Test func ticksAreRoundStepsCoveringTheRange() {
        func close(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-9 } }
        // 0…1 in about 5: rough step 0.2 → 2 × 10⁻¹.
        #expect(close(SVG.ticks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]))
        // 0.43…2.2: rough 0.354 → 5 × 10⁻¹, from ⌊0.43/0.5⌋·0.5 = 0 to ⌈2.2/0.5⌉·0.5 = 2.5.
        #expect(close(SVG.ticks(0.43, 2.2), [0, 0.5, 1, 1.5, 2, 2.5]))
        // −3…7: rough 2 → 2, from −4 to 8.
        #expect(close(SVG.ticks(-3, 7), [-4, -2, 0, 2, 4, 6, 8]))
        // 1…100 in about 10: rough 9.9 → 10, from 0 to 100.
        #expect(close(SVG.ticks(1, 100, count: 10), stride(from: 0.0, through: 100, by: 10).map { $0 }))
        // 1…10 epochs in 9: rough 1 → 1.
        #expect(close(SVG.ticks(1, 10, count: 9), (1...10).map(Double.init)))
        // A flat series (5, 5) is padded by 10 %: 4.5…5.5, rough 0.2 → 0.2, from 4.4 to 5.6.
        #expect(close(SVG.ticks(5, 5), [4.4, 4.6, 4.8, 5.0, 5.2, 5.4, 5.6]))
        // Tiny losses: 0.00012…0.00031, rough 0.000038 → 5 × 10⁻⁵, from 0.0001 to 0.00035.
        #expect(close(SVG.ticks(0.00012, 0.00031), [0.0001, 0.00015, 0.0002, 0.00025, 0.0003, 0.00035]))

        // Labels: as many decimals as the step needs, no "-0".
        #expect(SVG.tickLabel(0.5, step: 0.5) == "0.5")
        #expect(SVG.tickLabel(2, step: 2) == "2")
        #expect(SVG.tickLabel(-1e-17, step: 0.2) == "0.0")
        #expect(SVG.tickLabel(0.00015, step: 0.00005) == "0.00015")
        #expect(SVG.tickLabel(40, step: 10) == "40")
    }

    @Test func unwritablePathsAreRefusedAndLeaveNothingBehind() throws {
        try withTemporaryDirectory { folder in
            for name in ["loss.png", "loss.svg", "loss.pdf"] {
                let missing = folder.appendingPathComponent("missing").appendingPathComponent(name).path
                #expect {
                    try writeChart(to: missing, lossCurve)
                } throws: { error in
                    "\(error)".contains("missing/\(name)") && "\(error)".contains("does not exist")
                }
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("missing").path))

                // A folder in the way of the file.
                let blocked = folder.appendingPathComponent("blocked-" + name)
                try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: false)
                #expect {
                    try writeChart(to: blocked.path, lossCurve)
                } throws: { error in
                    "\(error)".contains("a folder is in the way")
                }
            }
            // Writing over an existing chart replaces it whole and leaves no temporary file.
            let chart = folder.appendingPathComponent("loss.png")
            try Data("old".utf8).write(to: chart)
            try writeChart(to: chart.path, lossCurve)
            #expect(try pngSize(Data(contentsOf: chart)) != nil)
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(left == ["blocked-loss.pdf", "blocked-loss.png", "blocked-loss.svg", "loss.png"], "\(left)")
            // An unknown extension is refused before anything is drawn.
            #expect {
                try writeChart(to: folder.appendingPathComponent("loss.jpg").path, lossCurve)
            } throws: { error in
                "\(error)".contains(".svg, .png or .pdf")
            }
        }
    }

    @Test func aChartTooLargeForAPNGIsRefusedWithAHint() {
        let huge = Chart(width: 20_000, height: 100, title: "wide")
        #expect {
            try huge.pngData()
        } throws: { error in
            "\(error)".contains("40000×200") && "\(error)".contains(".svg or .pdf")
        }
        #expect((try? huge.pdfData()) != nil)
    }
}
