#!/usr/bin/env bash
# Executes every notebook in notebooks/ headless with Debian's Jupyter; the executed copies (with
# their plots) go to OUT. Exit 77 (ctest: skipped) when nbconvert is not installed.
set -euo pipefail
eksim=$1 src=$2 out=$3
python=/usr/bin/python3
if ! "$python" -c 'import nbconvert, ipykernel, matplotlib, pandas' 2>/dev/null; then
  echo "notebooks: python3-nbconvert/ipykernel/matplotlib/pandas missing (scripts/setup.sh installs them); skipped"
  exit 77
fi
mkdir -p "$out"
export EKSIM="$eksim" EKSIM_ROOT="$src" PYDEVD_DISABLE_FILE_VALIDATION=1
export EKSIM_SEEDS=${EKSIM_SEEDS:-4}  # the capacity-planning sweep's seeds per point in the test
for nb in "$src"/notebooks/*.ipynb; do
  echo "notebooks: executing $(basename "$nb")"
  "$python" -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
    --output-dir "$out" "$nb"
done
