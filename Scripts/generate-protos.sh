#!/usr/bin/env bash
# Regenerates the Swift code in Sources/CoreMLSpec/Generated/ from Schema/*.proto (Core ML's
# format, public types) and in Sources/OpenCoreMLFlower/Generated/ from Schema/Flower/*.proto
# (Flower's Fleet API, internal types).
#
# The generated *.pb.swift files are committed so that building the package
# needs neither protoc nor protoc-gen-swift; rerun this script after editing
# anything under Schema/ and commit the result.
#
# Usage:  Scripts/generate-protos.sh
#   Requires `protoc` on PATH, or PROTOC set to a command (for instance
#   PROTOC="python -m grpc_tools.protoc" with PyPI's grpcio-tools in a venv). Set PROTOC_GEN_SWIFT to an existing
#   protoc-gen-swift binary to skip building one; otherwise swift-protobuf
#   (tag below, which must match the runtime version in Package.swift) is
#   copied from .build/checkouts (when it is at that tag) or cloned into a
#   cache directory, and the plugin is built from it.
set -euo pipefail

SWIFT_PROTOBUF_TAG="1.39.0"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
read -r -a PROTOC_COMMAND <<< "${PROTOC:-protoc}"
command -v "${PROTOC_COMMAND[0]}" >/dev/null 2>&1 || {
    echo "error: protoc not found (e.g. apt-get install protobuf-compiler, or PROTOC=\"python -m grpc_tools.protoc\")" >&2
    exit 1
}

if [[ -z "${PROTOC_GEN_SWIFT:-}" ]]; then
    CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/opencoreml/swift-protobuf-$SWIFT_PROTOBUF_TAG"
    if [[ ! -d "$CACHE_DIR/.git" ]]; then
        rm -rf "$CACHE_DIR"
        mkdir -p "$(dirname "$CACHE_DIR")"
        # SwiftPM's own checkout of the package's dependency, when it is at the tag, saves a clone
        # (and works offline).
        LOCAL_CHECKOUT="$ROOT/.build/checkouts/swift-protobuf"
        if [[ -e "$LOCAL_CHECKOUT/.git" ]] \
            && [[ "$(git -C "$LOCAL_CHECKOUT" describe --tags --exact-match 2>/dev/null)" == "$SWIFT_PROTOBUF_TAG" ]]; then
            cp -a "$LOCAL_CHECKOUT" "$CACHE_DIR"
        else
            git clone --depth 1 --branch "$SWIFT_PROTOBUF_TAG" \
                https://github.com/apple/swift-protobuf.git "$CACHE_DIR"
        fi
    fi
    (cd "$CACHE_DIR" && swift build -c release --product protoc-gen-swift)
    PROTOC_GEN_SWIFT="$(cd "$CACHE_DIR" && swift build -c release --show-bin-path)/protoc-gen-swift"
fi

if [[ ! -x "$PROTOC_GEN_SWIFT" ]]; then
    echo "error: protoc-gen-swift not executable: $PROTOC_GEN_SWIFT" >&2
    exit 1
fi

# generate SCHEMA_DIR OUT_DIR VISIBILITY: every .proto directly in SCHEMA_DIR into OUT_DIR.
generate() {
    local schema_dir="$1" out_dir="$2" visibility="$3"
    mkdir -p "$out_dir"
    rm -f "$out_dir"/*.pb.swift
    shopt -s nullglob
    local protos=("$schema_dir"/*.proto)
    if (( ${#protos[@]} == 0 )); then
        echo "error: no .proto files in $schema_dir" >&2
        exit 1
    fi
    "${PROTOC_COMMAND[@]}" \
        --plugin=protoc-gen-swift="$PROTOC_GEN_SWIFT" \
        --proto_path="$schema_dir" \
        --swift_out="$out_dir" \
        --swift_opt=Visibility="$visibility" \
        --swift_opt=FileNaming=DropPath \
        "${protos[@]}"
    echo "Generated $(ls "$out_dir"/*.pb.swift | wc -l) files in ${out_dir#"$ROOT"/}"
}

generate "$ROOT/Schema" "$ROOT/Sources/CoreMLSpec/Generated" Public
generate "$ROOT/Schema/Flower" "$ROOT/Sources/OpenCoreMLFlower/Generated" Internal
