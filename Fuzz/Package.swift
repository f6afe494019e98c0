// swift-tools-version: 6.1
// Fuzz targets for OpenCoreML, kept out of the library's own package so that the sanitizer flags
// they are built with never reach the library's users. Build and run with `Fuzz/run.sh`
// (see FUZZING.md at the repository's root).
import PackageDescription

let package = Package(
    name: "OpenCoreMLFuzz",
    dependencies: [
        .package(name: "OpenCoreML", path: ".."),
    ],
    targets: [
        /// libFuzzer's `LLVMFuzzerRunDriver`, and `LLVMFuzzerTestOneInput` forwarding to a callback.
        .target(name: "CLibFuzzer"),
        /// `runLibFuzzer`: libFuzzer's driver calling a Swift closure per input.
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        /// Model bytes: decode, validate, compile, predict with inputs made from the description.
        .executableTarget(
            name: "FuzzModel",
            dependencies: [
                "FuzzSupport",
                .product(name: "OpenCoreML", package: "OpenCoreML"),
                .product(name: "CoreMLSpec", package: "OpenCoreML"),
            ]
        ),
        /// Data files: CSV and IDX data sets, CSV and JSON tables, NPY/JSON/CSV arrays, JPEG and PNG.
        .executableTarget(
            name: "FuzzData",
            dependencies: [
                "FuzzSupport",
                .product(name: "OpenCreateML", package: "OpenCoreML"),
                .product(name: "OpenCoreML", package: "OpenCoreML"),
            ]
        ),
        /// CSV tables through the tabular trainers: read, train (each of the eight), write, load, predict.
        .executableTarget(
            name: "FuzzTabular",
            dependencies: [
                "FuzzSupport",
                .product(name: "OpenCreateML", package: "OpenCoreML"),
                .product(name: "OpenCoreML", package: "OpenCoreML"),
            ]
        ),
        /// The C interface's input conversion (`ocm_features_set_*`, then a prediction) through its
        /// header, as the Python package calls it; links the library as `libOpenCoreMLC.so`.
        .executableTarget(
            name: "FuzzCInput",
            dependencies: [
                "FuzzSupport",
                .product(name: "OpenCoreMLC", package: "OpenCoreML"),
            ]
        ),
        /// Writes the seed corpus (`Fuzz/make-seeds.sh`): small models of each layer type the engine
        /// runs, and small data files of each format FuzzData reads.
        .executableTarget(
            name: "MakeSeeds",
            dependencies: [
                "CLibFuzzer",  // LLVMFuzzerTestOneInput, which the fuzz build's libFuzzer refers to
                .product(name: "OpenCoreML", package: "OpenCoreML"),
                .product(name: "CoreMLSpec", package: "OpenCoreML"),
            ]
        ),
    ]
)
