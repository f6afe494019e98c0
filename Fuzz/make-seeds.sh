#!/usr/bin/env bash
# Rewrites the committed seed corpus (Fuzz/corpus/) and the protobuf dictionary (Fuzz/model.dict).
#
#   model/  the small fixture models (Tests/Fixtures/models, knn and classic, and the ML Programs of
#           Tests/Fixtures/mlprogram as self-contained .mlmodel files; not the 2.3 MB
#           lenet_updatable.mlmodel, whose shape gen-lenet-tiny-*.mlmodel keep at 1 KB, nor five
#           large ML Programs with smaller twins), one generated model per layer type and variant,
#           and generated ML Programs, gen-mil-* (MakeSeeds), and hostile-classic-* for the
#           classic model types' checks (Fuzz/make-classic-seeds.py)
#   data/   FuzzData inputs (format byte, options byte, file): generated CSV, JSON, IDX, NPY
#           files (MakeSeeds) and the small test images, as image inputs
#   tabular/ FuzzTabular inputs (trainer byte, options byte, CSV): Fuzz/make-tabular-seeds.py
#   cinput/ FuzzCInput call sequences: Fuzz/make-cinput-seeds.py
#
# Needs the fuzz build (Fuzz/run.sh build), which MakeSeeds is part of. Libfuzzer's own corpus
# grows in Fuzz/.fuzz-work/, never here; to fold its useful inputs in, see FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "${FUZZ_NO_BUILD:-0}" = 1 ] || Fuzz/run.sh build
# suite-nn-* stay: the smallest model of each layer-type set that coremltools' neural-network
# builder tests load (Scripts/coremltools-suites.sh with --opencoreml-keep-models, then
# Fuzz/pick-suite-seeds.py), one seed for nearly every classic layer type; regenerate them that way.
find Fuzz/corpus/model -type f ! -name 'suite-nn-*' -delete 2>/dev/null || true
rm -rf Fuzz/corpus/data
mkdir -p Fuzz/corpus/model Fuzz/corpus/data

for model in Tests/Fixtures/models/*.mlmodel Tests/Fixtures/knn/*.mlmodel; do
    case "$(basename "$model")" in lenet_updatable.mlmodel) continue ;; esac
    cp "$model" "Fuzz/corpus/model/fixture-$(basename "$model")"
done

# The classic model types coremltools converted from scikit-learn and XGBoost, those of 6 KB or less.
for model in Tests/Fixtures/classic/*.mlmodel; do
    [ "$(stat -c %s "$model")" -le 6144 ] || continue
    cp "$model" "Fuzz/corpus/model/fixture-classic-$(basename "$model")"
done

# The ML Program fixtures as single .mlmodel files (their weights copied into the program), but
# for the larger float32/float16 twins of smaller ones (TorchTransformer18, TorchAttention16 and
# TorchBiLSTM16 stay; TorchUNet's convolutions are TorchCNN's), so the corpus stays under 300 KB.
# Hashing seeded the same in every process, so that maps serialize in the same order each time and
# regenerating rewrites only what changed.
export SWIFT_DETERMINISTIC_HASHING=1
swift build -c release --product opencoreml
for package in Tests/Fixtures/mlprogram/*.mlpackage; do
    case "$(basename "$package" .mlpackage)" in TorchTransformer | TorchTransformer16 | TorchAttention | TorchBiLSTM | TorchUNet) continue ;; esac
    .build/release/opencoreml convert "$package" "Fuzz/corpus/model/mlprogram-$(basename "$package" .mlpackage).mlmodel" >/dev/null
done

SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 OPENCOREML_NUM_THREADS=1 \
    "Fuzz/.build-fuzz/${FUZZ_CONFIGURATION:-release}/MakeSeeds" Fuzz/corpus/model Fuzz/corpus/data
# Whether the copied fixtures validate and predict (with the inputs FuzzModel makes), like the generated ones.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 OPENCOREML_NUM_THREADS=1 \
    "Fuzz/.build-fuzz/${FUZZ_CONFIGURATION:-release}/MakeSeeds" --check Fuzz/corpus/model/fixture-* Fuzz/corpus/model/mlprogram-*

# Images: FuzzData's format 9 with a few option bytes (size, pixel format, scaling, crop).
options=(0x00 0x11 0x2a 0x5f 0x87 0xf3)
index=0
for image in Tests/Fixtures/images/*.jpg Tests/Fixtures/images/*.png; do
    option="${options[$((index % ${#options[@]}))]}"
    { printf '\x09'; printf "\\x${option#0x}"; cat "$image"; } >"Fuzz/corpus/data/fixture-$(basename "$image").bin"
    index=$((index + 1))
done

python3 Fuzz/make-dict.py
# The classic model types' checks: one small model breaking each rule, and a few stressing
# evaluation within the rules (Fuzz/make-classic-seeds.py needs coremltools 9.0's protobuf classes:
# set COREMLTOOLS_PYTHON to a venv's python that has it, as for Tests/Fixtures/make_classic.py).
"${COREMLTOOLS_PYTHON:-python3}" Fuzz/make-classic-seeds.py Fuzz/corpus/model
# FuzzCInput: call sequences for the C interface's input conversion.
python3 Fuzz/make-cinput-seeds.py
# FuzzTabular: small tables for each trainer.
python3 Fuzz/make-tabular-seeds.py Fuzz/corpus/tabular
echo "corpus: $(find Fuzz/corpus -type f | wc -l) files, $(cat Fuzz/corpus/*/* | wc -c) bytes"
