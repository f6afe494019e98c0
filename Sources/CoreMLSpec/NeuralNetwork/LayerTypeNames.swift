extension CoreML_Specification_NeuralNetworkLayer {
    /// Every layer type in Apple's `NeuralNetworkLayer.layer` oneof, by field number.
    ///
    /// The schema models all of them (up to specification version 9); the table names a layer's
    /// type for `inspect` and error messages.
    public static let appleLayerTypeNames: [Int: String] = [
        100: "convolution", 120: "pooling", 130: "activation", 140: "innerProduct", 150: "embedding",
        160: "batchnorm", 165: "mvn", 170: "l2normalize", 175: "softmax", 180: "lrn", 190: "crop",
        200: "padding", 210: "upsample", 211: "resizeBilinear", 212: "cropResize", 220: "unary", 230: "add",
        231: "multiply", 240: "average", 245: "scale", 250: "bias", 260: "max", 261: "min", 270: "dot",
        280: "reduce", 290: "loadConstant", 300: "reshape", 301: "flatten", 310: "permute", 320: "concat",
        330: "split", 340: "sequenceRepeat", 345: "reorganizeData", 350: "slice", 400: "simpleRecurrent",
        410: "gru", 420: "uniDirectionalLSTM", 430: "biDirectionalLSTM", 500: "custom", 600: "copy",
        605: "branch", 615: "loop", 620: "loopBreak", 625: "loopContinue", 635: "rangeStatic",
        640: "rangeDynamic", 660: "clip", 665: "ceil", 670: "floor", 680: "sign", 685: "round", 700: "exp2",
        710: "sin", 715: "cos", 720: "tan", 730: "asin", 735: "acos", 740: "atan", 750: "sinh", 755: "cosh",
        760: "tanh", 770: "asinh", 775: "acosh", 780: "atanh", 790: "erf", 795: "gelu", 815: "equal",
        820: "notEqual", 825: "lessThan", 827: "lessEqual", 830: "greaterThan", 832: "greaterEqual",
        840: "logicalOr", 845: "logicalXor", 850: "logicalNot", 855: "logicalAnd", 865: "modBroadcastable",
        870: "minBroadcastable", 875: "maxBroadcastable", 880: "addBroadcastable", 885: "powBroadcastable",
        890: "divideBroadcastable", 895: "floorDivBroadcastable", 900: "multiplyBroadcastable",
        905: "subtractBroadcastable", 920: "tile", 925: "stack", 930: "gather", 935: "scatter",
        940: "gatherND", 945: "scatterND", 950: "softmaxND", 952: "gatherAlongAxis", 954: "scatterAlongAxis",
        960: "reverse", 965: "reverseSeq", 975: "splitND", 980: "concatND", 985: "transpose",
        995: "sliceStatic", 1000: "sliceDynamic", 1005: "slidingWindows", 1015: "topK", 1020: "argMin",
        1025: "argMax", 1040: "embeddingND", 1045: "batchedMatmul", 1065: "getShape", 1070: "loadConstantND",
        1080: "fillLike", 1085: "fillStatic", 1090: "fillDynamic", 1100: "broadcastToLike",
        1105: "broadcastToStatic", 1110: "broadcastToDynamic", 1120: "squeeze", 1125: "expandDims",
        1130: "flattenTo2D", 1135: "reshapeLike", 1140: "reshapeStatic", 1145: "reshapeDynamic",
        1150: "rankPreservingReshape", 1155: "constantPad", 1170: "randomNormalLike",
        1175: "randomNormalStatic", 1180: "randomNormalDynamic", 1190: "randomUniformLike",
        1195: "randomUniformStatic", 1200: "randomUniformDynamic", 1210: "randomBernoulliLike",
        1215: "randomBernoulliStatic", 1220: "randomBernoulliDynamic", 1230: "categoricalDistribution",
        1250: "reduceL1", 1255: "reduceL2", 1260: "reduceMax", 1265: "reduceMin", 1270: "reduceSum",
        1275: "reduceProd", 1280: "reduceMean", 1285: "reduceLogSum", 1290: "reduceSumSquare",
        1295: "reduceLogSumExp", 1313: "whereNonZero", 1315: "matrixBandPart", 1320: "lowerTriangular",
        1325: "upperTriangular", 1330: "whereBroadcastable", 1350: "layerNormalization",
        1400: "NonMaximumSuppression", 1450: "oneHot", 1455: "cumSum", 1460: "clampedReLU", 1461: "argSort",
        1465: "pooling3d", 1466: "globalPooling3d", 1470: "sliceBySize", 1471: "convolution3d",
    ]

    /// The layer's type as Apple's specification names it (`convolution`, `innerProduct`, `lrn`, ...),
    /// whether or not OpenCoreML models it; `none` when the layer has no type.
    public var layerTypeName: String {
        let number = layerFieldNumber ?? UnknownFieldScanner.fieldNumbers(in: unknownFields.data)
            .first { Self.appleLayerTypeNames[$0] != nil }
        return number.flatMap { Self.appleLayerTypeNames[$0] } ?? "none"
    }

    /// Whether the layer's type is one this schema models (every type up to specification version
    /// 9; a later one is kept as an unknown field).
    public var isModeledLayerType: Bool { layer != nil }

    /// Whether OpenCoreML predicts with the layer's type by itself: every modeled type but custom
    /// layers, which run only with an implementation the app registers (`MLCustomLayer`).
    public var isSupportedLayerType: Bool {
        switch layer {
        case nil, .custom?: return false
        default: return true
        }
    }

    /// Whether the layer needs specification version 4 (iOS 13, macOS 10.15) or later: a layer type
    /// added then (softmaxND, concatND, batchedMatmul, flattenTo2D, reshapeStatic, clip, …, field
    /// numbers 600 and up in Apple's `layer` oneof), or a later option of an iOS 12 layer (a
    /// convolution taking its weights as a second input, an int8-quantized innerProduct, a
    /// bilinear or fractional upsample), as Core ML's validator sorts them. Core ML refuses such a
    /// layer in a network whose multi-array inputs use RANK5_ARRAY_MAPPING.
    public var needsRankNInterpretation: Bool {
        switch layer {
        case .convolution?: return input.count != 1
        case .innerProduct(let p)?: return p.int8DynamicQuantize
        case .upsample(let p)?: return p.linearUpsampleMode != .default || !p.fractionalScalingFactor.isEmpty
        default: break
        }
        let number = layerFieldNumber ?? UnknownFieldScanner.fieldNumbers(in: unknownFields.data)
            .first { Self.appleLayerTypeNames[$0] != nil }
        return (number ?? 0) >= 600
    }
}

extension CoreML_Specification_NeuralNetworkLayer {
    /// The field number of the layer's type in the `layer` oneof; nil when the oneof is unset.
    var layerFieldNumber: Int? {
        switch layer {
        case .convolution?: return 100
        case .pooling?: return 120
        case .activation?: return 130
        case .innerProduct?: return 140
        case .embedding?: return 150
        case .batchnorm?: return 160
        case .mvn?: return 165
        case .l2Normalize?: return 170
        case .softmax?: return 175
        case .lrn?: return 180
        case .crop?: return 190
        case .padding?: return 200
        case .upsample?: return 210
        case .resizeBilinear?: return 211
        case .cropResize?: return 212
        case .unary?: return 220
        case .add?: return 230
        case .multiply?: return 231
        case .average?: return 240
        case .scale?: return 245
        case .bias?: return 250
        case .max?: return 260
        case .min?: return 261
        case .dot?: return 270
        case .reduce?: return 280
        case .loadConstant?: return 290
        case .reshape?: return 300
        case .flatten?: return 301
        case .permute?: return 310
        case .concat?: return 320
        case .split?: return 330
        case .sequenceRepeat?: return 340
        case .reorganizeData?: return 345
        case .slice?: return 350
        case .simpleRecurrent?: return 400
        case .gru?: return 410
        case .uniDirectionalLstm?: return 420
        case .biDirectionalLstm?: return 430
        case .custom?: return 500
        case .copy?: return 600
        case .branch?: return 605
        case .loop?: return 615
        case .loopBreak?: return 620
        case .loopContinue?: return 625
        case .rangeStatic?: return 635
        case .rangeDynamic?: return 640
        case .clip?: return 660
        case .ceil?: return 665
        case .floor?: return 670
        case .sign?: return 680
        case .round?: return 685
        case .exp2?: return 700
        case .sin?: return 710
        case .cos?: return 715
        case .tan?: return 720
        case .asin?: return 730
        case .acos?: return 735
        case .atan?: return 740
        case .sinh?: return 750
        case .cosh?: return 755
        case .tanh?: return 760
        case .asinh?: return 770
        case .acosh?: return 775
        case .atanh?: return 780
        case .erf?: return 790
        case .gelu?: return 795
        case .equal?: return 815
        case .notEqual?: return 820
        case .lessThan?: return 825
        case .lessEqual?: return 827
        case .greaterThan?: return 830
        case .greaterEqual?: return 832
        case .logicalOr?: return 840
        case .logicalXor?: return 845
        case .logicalNot?: return 850
        case .logicalAnd?: return 855
        case .modBroadcastable?: return 865
        case .minBroadcastable?: return 870
        case .maxBroadcastable?: return 875
        case .addBroadcastable?: return 880
        case .powBroadcastable?: return 885
        case .divideBroadcastable?: return 890
        case .floorDivBroadcastable?: return 895
        case .multiplyBroadcastable?: return 900
        case .subtractBroadcastable?: return 905
        case .tile?: return 920
        case .stack?: return 925
        case .gather?: return 930
        case .scatter?: return 935
        case .gatherNd?: return 940
        case .scatterNd?: return 945
        case .softmaxNd?: return 950
        case .gatherAlongAxis?: return 952
        case .scatterAlongAxis?: return 954
        case .reverse?: return 960
        case .reverseSeq?: return 965
        case .splitNd?: return 975
        case .concatNd?: return 980
        case .transpose?: return 985
        case .sliceStatic?: return 995
        case .sliceDynamic?: return 1000
        case .slidingWindows?: return 1005
        case .topK?: return 1015
        case .argMin?: return 1020
        case .argMax?: return 1025
        case .embeddingNd?: return 1040
        case .batchedMatmul?: return 1045
        case .getShape?: return 1065
        case .loadConstantNd?: return 1070
        case .fillLike?: return 1080
        case .fillStatic?: return 1085
        case .fillDynamic?: return 1090
        case .broadcastToLike?: return 1100
        case .broadcastToStatic?: return 1105
        case .broadcastToDynamic?: return 1110
        case .squeeze?: return 1120
        case .expandDims?: return 1125
        case .flattenTo2D?: return 1130
        case .reshapeLike?: return 1135
        case .reshapeStatic?: return 1140
        case .reshapeDynamic?: return 1145
        case .rankPreservingReshape?: return 1150
        case .constantPad?: return 1155
        case .randomNormalLike?: return 1170
        case .randomNormalStatic?: return 1175
        case .randomNormalDynamic?: return 1180
        case .randomUniformLike?: return 1190
        case .randomUniformStatic?: return 1195
        case .randomUniformDynamic?: return 1200
        case .randomBernoulliLike?: return 1210
        case .randomBernoulliStatic?: return 1215
        case .randomBernoulliDynamic?: return 1220
        case .categoricalDistribution?: return 1230
        case .reduceL1?: return 1250
        case .reduceL2?: return 1255
        case .reduceMax?: return 1260
        case .reduceMin?: return 1265
        case .reduceSum?: return 1270
        case .reduceProd?: return 1275
        case .reduceMean?: return 1280
        case .reduceLogSum?: return 1285
        case .reduceSumSquare?: return 1290
        case .reduceLogSumExp?: return 1295
        case .whereNonZero?: return 1313
        case .matrixBandPart?: return 1315
        case .lowerTriangular?: return 1320
        case .upperTriangular?: return 1325
        case .whereBroadcastable?: return 1330
        case .layerNormalization?: return 1350
        case .nonMaximumSuppression?: return 1400
        case .oneHot?: return 1450
        case .cumSum?: return 1455
        case .clampedReLu?: return 1460
        case .argSort?: return 1461
        case .pooling3D?: return 1465
        case .globalPooling3D?: return 1466
        case .sliceBySize?: return 1470
        case .convolution3D?: return 1471
        case nil: return nil
        }
    }
}
