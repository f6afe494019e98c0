#!/usr/bin/env bash
# Regenerates the Swift code in Sources/CoreMLSpec/Generated/ from Schema/*.proto.
#
# The generated *.pb.swift files are committed so that building the package
# needs neither protoc nor protoc-gen-swift; rerun this script after editing
# anything under Schema/ and commit the result.
#
# Usage:  Scripts/generate-protos.sh
#   Requires `protoc` on PATH. Set PROTOC_GEN_SWIFT to an existing
#   protoc-gen-swift binary to skip building one; otherwise swift-protobuf
#   (tag below, which must match the runtime version in Package.swift) is
#   cloned into a cache directory and the plugin is built from it.
set -euo pipefail

SWIFT_PROTOBUF_TAG="1.39.0"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCHEMA_DIR="$ROOT/Schema"
OUT_DIR="$ROOT/Sources/CoreMLSpec/Generated"

command -v protoc >/dev/null 2>&1 || {
    echo "error: protoc not found (e.g. apt-get install protobuf-compiler)" >&2
    exit 1
}

if [[ -z "${PROTOC_GEN_SWIFT:-}" ]]; then
    CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/opencoreml/swift-protobuf-$SWIFT_PROTOBUF_TAG"
    if [[ ! -d "$CACHE_DIR/.git" ]]; then
        rm -rf "$CACHE_DIR"
        mkdir -p "$(dirname "$CACHE_DIR")"
        git clone --depth 1 --branch "$SWIFT_PROTOBUF_TAG" \
            https://github.com/apple/swift-protobuf.git "$CACHE_DIR"
    fi
    (cd "$CACHE_DIR" && swift build -c release --product protoc-gen-swift)
    PROTOC_GEN_SWIFT="$(cd "$CACHE_DIR" && swift build -c release --show-bin-path)/protoc-gen-swift"
fi

if [[ ! -x "$PROTOC_GEN_SWIFT" ]]; then
    echo "error: protoc-gen-swift not executable: $PROTOC_GEN_SWIFT" >&2
    exit 1
fi

mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR"/*.pb.swift

shopt -s nullglob
protos=("$SCHEMA_DIR"/*.proto)
if (( ${#protos[@]} == 0 )); then
    echo "error: no .proto files in $SCHEMA_DIR" >&2
    exit 1
fi

protoc \
    --plugin=protoc-gen-swift="$PROTOC_GEN_SWIFT" \
    --proto_path="$SCHEMA_DIR" \
    --swift_out="$OUT_DIR" \
    --swift_opt=Visibility=Public \
    --swift_opt=FileNaming=DropPath \
    "${protos[@]}"

echo "Generated $(ls "$OUT_DIR"/*.pb.swift | wc -l) files in ${OUT_DIR#"$ROOT"/}"
