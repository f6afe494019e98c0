#if !canImport(Vision)
/// Vision's crop-and-scale options, where Vision does not exist, for
/// `MLFeatureValue.ImageOption.cropAndScale` (the geometry is in `CropAndScale`'s documentation).
/// The two rotating options are not supported.
///
/// The type lives here rather than in OpenVision (Vision's home for it on Apple platforms) because
/// `MLFeatureValue`'s `.cropAndScale` option takes it and OpenCoreML cannot depend on OpenVision;
/// `import OpenVision` re-exports it, and `VNCoreMLRequest.imageCropAndScaleOption` takes it.
public enum VNImageCropAndScaleOption: UInt, Sendable {
    /// Scales the picture, keeping its aspect ratio, until its shorter side fits, and cuts the longer
    /// side evenly at both ends.
    case centerCrop = 0
    /// Scales the whole picture, keeping its aspect ratio, until its longer side fits, and centres it;
    /// the rest is black.
    case scaleFit = 1
    /// Stretches the whole picture to the target size, ignoring its aspect ratio.
    case scaleFill = 2
    /// Vision's rotate-then-fit option; not supported.
    case scaleFitRotate90CCW = 257
    /// Vision's rotate-then-fill option; not supported.
    case scaleFillRotate90CCW = 258
}
#endif
