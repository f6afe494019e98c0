#!/usr/bin/env bash
# The image classifier's accuracy on the seeds' hand-gesture photos (OpenCreateML's article
# "Training an Image Classifier"; BENCHMARKS.md): for each configuration, 5-fold cross-validation on the 30 training photos (what
# the defaults were chosen on), the accuracy on the 15 test photos after training on the 30, and
# 5-fold cross-validation over all 45.
#
#   Scripts/hands-accuracy.sh [HANDS_DIR] [-- "OPTIONS" "OPTIONS" ...]
#
# HANDS_DIR defaults to ../shared/datasets/hands (train/ and test/, one sub-folder per gesture).
# Each OPTIONS string is passed to `opencoreml image-classifier train` and `cross-validate`; the
# empty string is the defaults. Needs `swift build -c release --product opencoreml` first
# ($OPENCOREML overrides the binary).
set -euo pipefail
cd "$(dirname "$0")/.."

hands=../shared/datasets/hands
if [ $# -gt 0 ] && [ "$1" != "--" ]; then hands=$1; shift; fi
[ "${1:-}" = "--" ] && shift
if [ $# -gt 0 ]; then configs=("$@"); else
  configs=(
    ""
    "--l2 0.0001" "--l2 0.01" "--l2 0.1" "--l2 1"
    "--standardize" "--standardize --l2 0.1" "--standardize --l2 1"
    "--max-iterations 100"
    "--augment flip"
    "--algorithm knn --neighbors 1" "--algorithm knn --neighbors 3" "--algorithm knn --neighbors 5"
  )
fi
bin=${OPENCOREML:-.build/release/opencoreml}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

accuracy() { sed -n 's/.*accuracy \([0-9.]*%\) (\([0-9]*\) of \([0-9]*\)).*/\1 (\2\/\3)/p' | tail -1; }

printf '| options | 5-fold CV, 30 training photos | test, 15 photos | 5-fold CV, all 45 photos |\n|---|---|---|---|\n'
for options in "${configs[@]}"; do
  # shellcheck disable=SC2086
  train_cv=$("$bin" image-classifier cross-validate "$hands/train" --folds 5 $options 2>/dev/null | accuracy)
  # shellcheck disable=SC2086
  "$bin" image-classifier train "$hands/train" $options --output "$work/Hands.mlmodel" > /dev/null 2>&1
  test=$("$bin" image-classifier evaluate "$work/Hands.mlmodel" "$hands/test" 2>/dev/null | accuracy)
  # shellcheck disable=SC2086
  all_cv=$("$bin" image-classifier cross-validate "$hands/train" "$hands/test" --folds 5 $options 2>/dev/null | accuracy)
  printf '| %s | %s | %s | %s |\n' "${options:-defaults}" "$train_cv" "$test" "$all_cv"
done
