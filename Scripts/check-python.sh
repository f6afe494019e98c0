#!/usr/bin/env bash
# The Python package as a user gets it: `pip install ./Python` into a venv (a release build of
# libOpenCoreMLC.so with Swift's runtime linked in, bundled with the libraries it needs), checked
# to need no Swift toolchain (`ldd`, and its tests run with the toolchain off PATH and
# LD_LIBRARY_PATH); then a fixed sample of coremltools' own test suites predicting through it,
# each suite required to pass at least the share of its tests that reached OpenCoreML given below
# (a little under what the full run in COMPATIBILITY.md measured).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv="$(Scripts/python-venv.sh)"

library="$("$venv/bin/python" -c 'import opencoreml._capi as c, os; print(c.library_path())')"
echo "check-python: $library"
if ldd "$library" | grep -E "libswift|libFoundation|not found"; then
    echo "check-python: the installed library needs the Swift toolchain's libraries (above)" >&2
    exit 1
fi

# The package's tests, from outside the source tree (so the installed package is the one imported)
# and with nothing of the toolchain on the paths.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The tests skip when the library cannot be loaded (for a checkout without a build); here it must load.
(cd "$scratch" && env -i PATH=/usr/bin:/bin HOME="$HOME" LANG=C.UTF-8 \
    "$venv/bin/python" -c 'import opencoreml; print("check-python: library", opencoreml.library_version(), "loads")')
(cd "$scratch" && env -i PATH=/usr/bin:/bin HOME="$HOME" LANG=C.UTF-8 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/Python/tests")

# coremltools' suites: about ten minutes on two cores. The samples are subsets of the full run's (1/12 of
# 1/1, 1/96 of 1/32), whose pass rates there were 0.654 (MIL operations) and 0.299 (PyTorch); since
# issue 40 runs every classic layer type, the neural-network builder suite (whole) passes 0.989 and
# the PyTorch frontend 0.975 (1/64 sample) to 0.99 (its neural-network cases, 1/8 sample), so their
# floors are 0.95 and 0.80 (the 1/96 sample is small); the scikit-learn (1.0 of the tests that reach OpenCoreML) and pipeline
# (0.94) suites run whole, and the XGBoost suite too (its tests all need the Boston housing data from
# the web, so none reaches OpenCoreML offline; it has no floor).
REPORT_ARGS="--require mil-ops=${MIL_OPS_MIN:-0.60} --require sklearn=${SKLEARN_MIN:-0.80} --require pipeline=${PIPELINE_MIN:-0.80} --require neural-network=${NEURAL_NETWORK_MIN:-0.95} --require torch=${TORCH_MIN:-0.80}" \
    Scripts/coremltools-suites.sh --jobs 2 --sample mil-ops=12 --sample torch=96 --report .build/coremltools-suites/CI.md
grep -A8 "^| Suite" .build/coremltools-suites/CI.md
