// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "OpenCoreML",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // Public modules.
        .library(name: "OpenCoreML", targets: ["OpenCoreML"]),
        .library(name: "CoreMLSpec", targets: ["CoreMLSpec"]),
        .library(name: "OpenCoreMLTools", targets: ["OpenCoreMLTools"]),
        .library(name: "OpenCreateML", targets: ["OpenCreateML"]),
        .library(name: "OpenVision", targets: ["OpenVision"]),
        .library(name: "OpenCoreMLFlower", targets: ["OpenCoreMLFlower"]),
        .executable(name: "opencoreml", targets: ["opencoreml"]),
        /// The C interface (`Sources/COpenCoreML/include/opencoreml.h`), as the shared library
        /// `libOpenCoreMLC.so` that the Python package loads.
        .library(name: "OpenCoreMLC", type: .dynamic, targets: ["OpenCoreMLC"]),
        /// Xcode-style typed classes for the `.mlmodel` files of a target.
        .plugin(name: "OpenCoreMLCodeGen", targets: ["OpenCoreMLCodeGen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf.git", exact: "1.39.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
    ],
    targets: [
        // MARK: Public modules

        /// The Core ML model format: generated protobuf messages plus load, validate and save. No compute.
        .target(
            name: "CoreMLSpec",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf"), "_OpenCoreMLFileSystem"]
        ),
        /// Core ML's API (`MLModel`, `MLModelDescription`, ...) on every platform Swift runs on.
        .target(name: "OpenCoreML", dependencies: ["CoreMLSpec", "_OpenCoreMLEngine", "_OpenCoreMLKernels", "_OpenCoreMLImageIO"]),
        /// Building and editing models in Swift: a result-builder DSL and model surgery.
        .target(name: "OpenCoreMLTools", dependencies: ["CoreMLSpec"]),
        /// Create ML's API: data tables, labelled data sets bound onto models, classifier and regressor
        /// metrics, the image classifier, the activity classifier and logistic regression. Ships EfficientNet-Lite0 up to block 9 (ImageNet, 8-bit weights, 513 KB,
        /// Apache-2.0; made by Scripts/make-bundled-extractor.sh) as the image classifier's default feature extractor.
        .target(
            name: "OpenCreateML",
            dependencies: ["OpenCoreML", "OpenCoreMLTools", "CoreMLSpec", "_OpenCoreMLEngine", "_OpenCoreMLImageIO", "_OpenCoreMLLinear", "_OpenCoreMLFormats", "CZlib"],
            resources: [
                .copy("Resources/EfficientNetLite0Features.mlmodel"),
                .copy("Resources/LICENSE-EfficientNet-Lite0.txt"),
            ]
        ),
        /// Vision's requests for Core ML image models (`VNCoreMLRequest`, `VNImageRequestHandler`, ...),
        /// with stand-ins for `CIImage` and `CGImagePropertyOrientation` where Linux lacks them.
        .target(name: "OpenVision", dependencies: ["OpenCoreML", "_OpenCoreMLImageIO"]),
        /// Federated training: a Flower SuperNode (flwr 1.40+ Fleet API over HTTP, signed requests,
        /// content-addressed objects) that trains any updatable model on local data. Its protobuf
        /// messages are generated from Schema/Flower by Scripts/generate-protos.sh and committed.
        .target(
            name: "OpenCoreMLFlower",
            dependencies: [
                "OpenCoreML", "_OpenCoreMLFormats",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        /// The C interface: `@_cdecl` functions over `OpenCoreML` (models) and `OpenCreateML` (the trainers), declared in `COpenCoreML`'s header.
        .target(name: "OpenCoreMLC", dependencies: ["COpenCoreML", "OpenCoreML", "CoreMLSpec", "OpenCreateML", "OpenCoreMLTools"]),
        /// The C interface's header, `opencoreml.h`: opaque handles, status codes, raw buffers.
        .target(name: "COpenCoreML"),

        // MARK: Implementation

        /// File formats, neutral and below every other module (Foundation only): NumPy `.npy` reading
        /// and writing, a JSON reader that keeps the order of keys, and the one CSV reader (Create ML's
        /// parsing options, errors naming line and column). `package` access, like the engine.
        .target(name: "_OpenCoreMLFormats"),
        /// C: swapping two paths atomically (renameat2 / renamex_np), so a compiled model folder is
        /// replaced in one step.
        .target(name: "_OpenCoreMLFileSystem"),
        /// C kernels (GEMM, im2col, pooling, elementwise, optimizers) with runtime CPU dispatch
        /// (AVX-512 / AVX2+FMA / NEON / scalar) and a thread pool. Raw pointers, counts and strides only.
        .target(name: "_OpenCoreMLKernels"),
        /// The engine: tensors, a graph compiled once from a specification, forward and backward per
        /// layer, losses, optimizers, k-NN. `package` access: used by the modules above, never seen by users.
        .target(name: "_OpenCoreMLEngine", dependencies: ["CoreMLSpec", "_OpenCoreMLKernels"]),
        /// Multinomial logistic regression by L-BFGS (OWL-QN under an L1 penalty) on float rows, on the
        /// kernels' GEMM and the engine's buffers and parallel loops: the solver behind Create ML-style
        /// linear classifiers, apart from the graph engine.
        .target(name: "_OpenCoreMLLinear", dependencies: ["_OpenCoreMLEngine", "_OpenCoreMLKernels"]),
        /// Images: JPEG and PNG decoding and PNG encoding (libjpeg-turbo and libpng on Linux, ImageIO
        /// on Apple platforms), EXIF orientation, crop, resampling and Vision's crop-and-scale geometry.
        .target(
            name: "_OpenCoreMLImageIO",
            dependencies: [
                .target(name: "_OpenCoreMLCodecs", condition: .when(platforms: [.linux])),
            ]
        ),
        /// libjpeg's and libpng's decoders and libpng's encoder behind one C call each, so that their
        /// error `longjmp`s never cross Swift frames.
        .target(
            name: "_OpenCoreMLCodecs",
            dependencies: [
                .target(name: "CJPEG", condition: .when(platforms: [.linux])),
                .target(name: "CPNG", condition: .when(platforms: [.linux])),
            ]
        ),
        /// The system libjpeg-turbo and libpng (Linux).
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        /// The system zlib (gzip data sets).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        /// The system cairo: the command-line tool's charts as PNG and PDF, with anti-aliased text.
        /// Only `OpenCoreMLCLI` depends on it; the library modules never do.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"]), .brew(["cairo"])]),

        // MARK: Command-line tool

        /// The `opencoreml` subcommands, as a library so that tests can reach them.
        .target(
            name: "OpenCoreMLCLI",
            dependencies: [
                "OpenCoreML", "OpenCoreMLTools", "OpenCreateML", "OpenCoreMLFlower", "CoreMLSpec", "CCairo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "opencoreml", dependencies: ["OpenCoreMLCLI"]),
        /// The plugin's tool: the schema and the class generator only.
        .executableTarget(name: "opencoreml-generate", dependencies: ["CoreMLSpec", "OpenCoreMLTools"]),
        /// Generates Xcode-style model classes for every `.mlmodel` in a target at build time.
        .plugin(name: "OpenCoreMLCodeGen", capability: .buildTool(), dependencies: ["opencoreml-generate"]),

        // MARK: Tests

        /// Fixture lookup, the fixtures' independent facts, temporary folders.
        .target(name: "_OpenCoreMLTestSupport", dependencies: ["CoreMLSpec", "CZlib"], path: "Tests/_OpenCoreMLTestSupport"),

        .testTarget(name: "CoreMLSpecTests", dependencies: ["CoreMLSpec", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenCoreMLFormatsTests", dependencies: ["_OpenCoreMLFormats"]),
        .testTarget(name: "OpenCoreMLKernelsTests", dependencies: ["_OpenCoreMLKernels", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenCoreMLLinearTests", dependencies: ["_OpenCoreMLLinear", "_OpenCoreMLEngine", "_OpenCoreMLKernels", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenCoreMLEngineTests", dependencies: ["_OpenCoreMLEngine", "_OpenCoreMLKernels", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenCoreMLTests", dependencies: ["OpenCoreML", "_OpenCoreMLEngine", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenCoreMLToolsTests", dependencies: ["OpenCoreMLTools", "OpenCoreML", "_OpenCoreMLEngine", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenCreateMLTests", dependencies: ["OpenCreateML", "OpenCoreMLTools", "OpenCoreML", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenVisionTests", dependencies: ["OpenVision", "OpenCoreMLTools", "_OpenCoreMLTestSupport"]),
        .testTarget(name: "OpenCoreMLImageIOTests", dependencies: ["_OpenCoreMLImageIO", "_OpenCoreMLTestSupport"]),
        .testTarget(
            name: "OpenCoreMLCodeGenTests", dependencies: ["OpenCoreML", "_OpenCoreMLTestSupport"],
            exclude: ["Models/make_regressor.py", "Models/make_healthysnacks.py", "Models/make_gestureclassifier.sh"],
            resources: [.copy("Models/ClassifierSGD.mlmodel"), .copy("Models/PipelineKNN.mlmodel"), .copy("Models/Regressor.mlmodel"),
                        .copy("Models/HealthySnacks.mlmodel"), .copy("Models/GestureClassifier.mlmodel"),
                        .copy("Models/DiabetesSVR.mlmodel"), .copy("Models/IrisForest.mlmodel")],
            plugins: ["OpenCoreMLCodeGen"]
        ),
        .testTarget(
            name: "OpenCoreMLFlowerTests", dependencies: ["OpenCoreMLFlower", "OpenCoreML", "OpenCreateML", "OpenCoreMLTools", "_OpenCoreMLTestSupport"],
            exclude: ["Fixtures/make_fixtures.py", "Fixtures/README.md"],
            resources: [.copy("Fixtures/npy"), .copy("Fixtures/objects"), .copy("Fixtures/signature")]
        ),
        .testTarget(name: "OpenCoreMLCTests", dependencies: ["COpenCoreML", "OpenCoreMLC", "OpenCoreMLTools", "OpenCreateML", "OpenCoreML", "_OpenCoreMLTestSupport",
                                                           .product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        .testTarget(name: "OpenCoreMLCLITests", dependencies: ["OpenCoreMLCLI", "_OpenCoreMLImageIO", "_OpenCoreMLTestSupport"]),
    ]
)
