#!/usr/bin/env bash
# The venv the Python package is checked in (.build/suites-venv): coremltools 9.0 with the packages
# its shipped test suites need (scikit-learn 1.5.1, XGBoost, torch 2.13.0+cpu, pandas, requests, Pillow,
# pyarrow for opencoreml.turicreate's tables,
# pytest, pytest-timeout; numpy below 2.3, where converting a one-element array to a float became an
# error that coremltools 9.0's tree converters run into), and the opencoreml package installed from Python/ as a user installs it
# (`pip install ./Python`, which builds libOpenCoreMLC.so; OPENCOREML_LIBRARY=/path/libOpenCoreMLC.so
# bundles a built one instead). Prints the venv's path.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/suites-venv
if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import coremltools, sklearn, xgboost, torch, pandas, pyarrow, requests, PIL, pytest_timeout, numpy; assert tuple(map(int, numpy.__version__.split('.')[:2])) < (2, 3)" 2>/dev/null; then
    python3 -m venv "$venv"
    # torch's CPU wheel comes from where pip is configured to find it: this machine's wheel folder
    # (pip's find-links), or PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu elsewhere
    # (PyPI's plain torch is the 5 GB CUDA build).
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        coremltools==9.0 scikit-learn==1.5.1 xgboost==3.2.0 torch==2.13.0+cpu "numpy<2.3" pandas pyarrow requests pillow pytest pytest-timeout >&2
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./Python >&2
echo "$PWD/$venv"
