/// How a picture is fitted to a model's input size: Vision's `VNImageCropAndScaleOption`s.
package enum CropAndScale: Sendable, Equatable {
    /// Scaled, keeping the aspect ratio, until the shorter side fits; the longer side is cut evenly
    /// on both ends. Scale `s = max(W/w, H/h)`; the source window is `W/s × H/s`, centred.
    case centerCrop
    /// Scaled, keeping the aspect ratio, until the longer side fits; the picture is centred and the
    /// rest is transparent black. Scale `s = min(W/w, H/h)`; the picture covers
    /// `round(w·s) × round(h·s)` pixels starting at `((W − round(w·s)) / 2, (H − round(h·s)) / 2)`
    /// (integer halves, rounded down).
    case scaleFit
    /// Scaled to exactly `W × H`, changing the aspect ratio as needed.
    case scaleFill
}

extension RGBAImage {
    /// The picture fitted to `width × height` by `mode`, with `resampled(from:width:height:)`.
    package func scaled(toWidth width: Int, height: Int, mode: CropAndScale) -> RGBAImage {
        let w = Double(self.width), h = Double(self.height)
        switch mode {
        case .scaleFill:
            return resized(width: width, height: height)
        case .centerCrop:
            let scale = max(Double(width) / w, Double(height) / h)
            let windowWidth = Double(width) / scale, windowHeight = Double(height) / scale
            let window = PixelRect(x: (w - windowWidth) / 2, y: (h - windowHeight) / 2, width: windowWidth, height: windowHeight)
            return resampled(from: window, width: width, height: height)
        case .scaleFit:
            let scale = min(Double(width) / w, Double(height) / h)
            let fittedWidth = min(max(Int((w * scale).rounded()), 1), width)
            let fittedHeight = min(max(Int((h * scale).rounded()), 1), height)
            let fitted = resized(width: fittedWidth, height: fittedHeight)
            var canvas = RGBAImage(width: width, height: height)
            let left = (width - fittedWidth) / 2, top = (height - fittedHeight) / 2
            for row in 0..<fittedHeight {
                let target = ((top + row) * width + left) * 4
                canvas.pixels.replaceSubrange(target..<(target + fittedWidth * 4), with: fitted.pixels[(row * fittedWidth * 4)..<((row + 1) * fittedWidth * 4)])
            }
            return canvas
        }
    }
}
