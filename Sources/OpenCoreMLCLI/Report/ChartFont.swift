import CCairo
import Foundation

/// The PNG and PDF charts' font: the system's DejaVu Sans through cairo's font API (fontconfig and
/// FreeType on Linux; on a Mac without DejaVu, cairo falls back to Helvetica). Metrics are unhinted so
/// that a width measured at one size scales with the drawing (the PNG is drawn at twice the size).
///
/// Text is drawn one glyph per character, without shaping: it is composed first (NFC, so "e" + U+0301
/// is drawn as "é"), variation selectors are dropped, and a character the font has no glyph for is
/// drawn as "?".
enum ChartFont {
    static let family = "DejaVu Sans"

    /// The font options every chart text is measured and drawn with (the caller destroys them).
    static func makeOptions() -> OpaquePointer? {
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        return options
    }

    /// Calls `body` with cairo's font face for the family, regular or bold.
    static func withFace<Result>(bold: Bool, _ body: (OpaquePointer?) -> Result) -> Result {
        let face = cairo_toy_font_face_create(family, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        defer { cairo_font_face_destroy(face) }
        return body(face)
    }

    /// Calls `body` with the font at `size` pixels, unrotated.
    static func withScaledFont<Result>(size: Double, bold: Bool, _ body: (OpaquePointer?) -> Result) -> Result {
        withFace(bold: bold) { face in
            var fontMatrix = cairo_matrix_t(), identity = cairo_matrix_t()
            cairo_matrix_init_scale(&fontMatrix, size, size)
            cairo_matrix_init_identity(&identity)
            let options = makeOptions()
            defer { cairo_font_options_destroy(options) }
            let font = cairo_scaled_font_create(face, &fontMatrix, &identity, options)
            defer { cairo_scaled_font_destroy(font) }
            return body(font)
        }
    }

    /// Whether the font has a glyph for each of `scalars` (glyph 0 is the font's "missing" box).
    private static func glyphPresence(_ scalars: [Unicode.Scalar], font: OpaquePointer?) -> [Bool]? {
        guard !scalars.isEmpty else { return [] }
        let utf8 = Array(String(String.UnicodeScalarView(scalars)).utf8)
        var glyphs: UnsafeMutablePointer<cairo_glyph_t>?
        var count: Int32 = 0
        let status = utf8.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                cairo_scaled_font_text_to_glyphs(font, 0, 0, text.baseAddress, Int32(text.count), &glyphs, &count, nil, nil, nil)
            }
        }
        defer { cairo_glyph_free(glyphs) }
        // Without shaping, cairo maps each character to one glyph, in order.
        guard status == CAIRO_STATUS_SUCCESS, let glyphs, Int(count) == scalars.count else { return nil }
        return (0..<scalars.count).map { glyphs[$0].index != 0 }
    }

    /// The composed scalars of `text`, variation selectors dropped.
    private static func composedScalars(_ text: String) -> [Unicode.Scalar] {
        text.precomposedStringWithCanonicalMapping.unicodeScalars.filter { !(0xFE00...0xFE0F).contains($0.value) }
    }

    /// `text` as drawn: composed, without variation selectors, "?" for every character without a glyph.
    static func drawnText(_ text: String, font: OpaquePointer?) -> String {
        let scalars = composedScalars(text)
        guard let present = glyphPresence(scalars, font: font) else { return String(String.UnicodeScalarView(scalars)) }
        return String(String.UnicodeScalarView(zip(scalars, present).map { $1 ? $0 : "?" }))
    }

    /// Text measured with the font's unhinted advances; drawable when every character has a glyph.
    struct Metrics: ChartTextMetrics {
        func width(of text: String, size: Double, bold: Bool) -> Double {
            ChartFont.withScaledFont(size: size, bold: bold) { font in
                var extents = cairo_text_extents_t()
                cairo_scaled_font_text_extents(font, ChartFont.drawnText(text, font: font), &extents)
                return extents.x_advance
            }
        }

        func canDraw(_ text: String) -> Bool {
            ChartFont.withScaledFont(size: 12, bold: false) { font in
                ChartFont.glyphPresence(ChartFont.composedScalars(text), font: font)?.allSatisfy { $0 } ?? false
            }
        }

        /// How far the middle of the capitals and digits lies above the baseline, at `size` pixels.
        func capitalMiddle(size: Double, bold: Bool) -> Double {
            ChartFont.withScaledFont(size: size, bold: bold) { font in
                var extents = cairo_text_extents_t()
                cairo_scaled_font_text_extents(font, "H", &extents)
                return -extents.y_bearing / 2
            }
        }
    }
}
