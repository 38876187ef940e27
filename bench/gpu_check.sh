#!/usr/bin/env bash
# The GPU check, on a machine with an NVIDIA GPU and CUDA driver: the gpu extra from the repo's own files, then
# bench/gpu_check.py (emitted module on PyCUDA vs the numpy runtime, and the step's timing).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv-gpu
. .venv-gpu/bin/activate
python -m pip install -q -e '.[gpu]'
python bench/gpu_check.py "$@"
