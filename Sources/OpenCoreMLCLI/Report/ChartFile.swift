import ArgumentParser
import Foundation

/// The format of a chart file, told by its name's extension: `.svg` or `.png` (any case).
enum ChartFormat {
    case svg
    case png

    init?(path: String) {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "svg": self = .svg
        case "png": self = .png
        default: return nil
        }
    }

    /// How the format measures text while a chart is laid out.
    var textMetrics: any ChartTextMetrics {
        switch self {
        case .svg: SVG.Metrics()
        case .png: ChartFont.Metrics()
        }
    }

    /// For chart options' `transform`: `path` itself, or a usage error naming the extensions.
    static func checkedPath(_ path: String) throws -> String {
        guard ChartFormat(path: path) != nil else {
            throw ValidationError("a chart is written as SVG or PNG; name the file .svg or .png")
        }
        return path
    }
}

/// Lays the chart out with the text metrics of `path`'s format (`ChartFormat`) and writes it there
/// atomically, as SVG or PNG by the extension.
func writeChart(to path: String, _ layout: (any ChartTextMetrics) -> Chart) throws {
    guard let format = ChartFormat(path: path) else {
        throw CLIError.file(path, "a chart is written as SVG or PNG; name the file .svg or .png")
    }
    let chart = layout(format.textMetrics)
    let data: Data
    switch format {
    case .svg:
        data = Data(chart.svg().utf8)
    case .png:
        do {
            data = try chart.pngData()
        } catch {
            throw CLIError.file(path, "\(error)")
        }
    }
    try writeFile(data, to: path)
}
