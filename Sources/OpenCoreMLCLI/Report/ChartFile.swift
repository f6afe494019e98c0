import ArgumentParser
import CoreMLSpec
import Foundation

/// The format of a chart file, told by its name's extension (any case): `.svg` (text, written here;
/// hover tooltips), `.png` (drawn by cairo at twice the chart's size) or `.pdf` (cairo; vector, text
/// as text).
enum ChartFormat {
    case svg
    case png
    case pdf

    /// The extensions, for help texts and errors.
    static let names = "SVG, PNG or PDF; name the file .svg, .png or .pdf"

    init?(path: String) {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "svg": self = .svg
        case "png": self = .png
        case "pdf": self = .pdf
        default: return nil
        }
    }

    /// How the format measures text while a chart is laid out.
    var textMetrics: any ChartTextMetrics {
        switch self {
        case .svg: SVG.Metrics()
        case .png, .pdf: ChartFont.Metrics()
        }
    }

    /// For chart options' `transform`: `path` itself, or a usage error naming the extensions.
    static func checkedPath(_ path: String) throws -> String {
        guard ChartFormat(path: path) != nil else {
            throw ValidationError("a chart is written as \(names)")
        }
        return path
    }
}

/// Lays the chart out with the text metrics of `path`'s format (`ChartFormat`) and writes it there
/// atomically (a temporary file beside it, renamed into place), as SVG, PNG or PDF by the extension.
/// A missing folder is refused before anything is drawn.
func writeChart(to path: String, _ layout: (any ChartTextMetrics) -> Chart) throws {
    guard let format = ChartFormat(path: path) else {
        throw CLIError.file(path, "a chart is written as \(ChartFormat.names)")
    }
    try CLIError.wrapping { try OutputLocation.check(URL(fileURLWithPath: path)) }
    let chart = layout(format.textMetrics)
    let data: Data
    do {
        switch format {
        case .svg: data = Data(chart.svg().utf8)
        case .png: data = try chart.pngData()
        case .pdf: data = try chart.pdfData()
        }
    } catch {
        throw CLIError.file(path, "\(error)")
    }
    try writeFile(data, to: path)
}
