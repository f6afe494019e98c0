# Sourced by the scripts that need coremltools: sets venv=.venv-coremltools (relative to the
# repository root, the caller's working directory) and creates it with coremltools 9.0 and numpy the
# first time.
venv=.venv-coremltools
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check coremltools==9.0 numpy
fi
