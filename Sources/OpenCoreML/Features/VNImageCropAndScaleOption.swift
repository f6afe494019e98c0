#if !canImport(Vision)
/// Vision's crop-and-scale options, where Vision does not exist, for
/// `MLFeatureValue.ImageOption.cropAndScale` (the geometry is in `CropAndScale`'s documentation).
/// The two rotating options are not supported.
public enum VNImageCropAndScaleOption: UInt, Sendable {
    case centerCrop = 0
    case scaleFit = 1
    case scaleFill = 2
    case scaleFitRotate90CCW = 257
    case scaleFillRotate90CCW = 258
}
#endif
