#!/usr/bin/env bash
# The GPU check in one command, on a machine with an NVIDIA GPU and its driver (docs/gpu.md), from anywhere:
#   OUT=/some/folder bash bench/gpu_check.sh
# Sets up PyCUDA (from .whl/ beside the checkout where it is: .whl/setup.sh builds PyCUDA from its source, for a
# machine that reaches no package registry; else pip install -e '.[gpu]'), then runs the tests that need the GPU,
# `lanearena run --backend cuda` (graph and plain path), and bench/gpu_check.py: the paths equal bit for bit, the
# tiny configs against the numpy runtime, the timing table and each step's profile. Everything printed is also in
# $OUT/gpu_check.log (default out/gpu_check/), with the table in gpu_check.txt/.json and the profiles' charts.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu_check}
mkdir -p "$OUT"

main() {
start=$SECONDS
if [ -f .whl/setup.sh ]; then
  # shellcheck disable=SC1091
  source .whl/setup.sh || { echo "gpu_check: the setup from .whl/ failed"; return 1; }
else
  python3 -m venv .venv-gpu && . .venv-gpu/bin/activate && python -m pip install -q -e '.[gpu,plot]' pytest hypothesis \
    || { echo "gpu_check: pip install failed"; return 1; }
fi
echo "== setup done in $((SECONDS - start)) s; what this python has:"
python3 - <<'PY'
import importlib
for name in ("numpy", "numba", "xdsl", "pycuda", "cuda.bindings", "pytest", "hypothesis", "matplotlib", "torch", "cupy"):
    try:
        m = importlib.import_module(name)
        print(f"  {name} {getattr(m, '__version__', '')}")
    except Exception as e:  # noqa: BLE001 (any failure to import is reported the same)
        print(f"  {name}: missing ({type(e).__name__})")
PY
status=0
echo "== the tests that need the GPU"
if python3 -c "import pytest, hypothesis" 2>/dev/null; then
  timeout 150 python3 -m pytest -q -p no:cacheprovider test/unit/lowering/test_cuda.py \
    test/unit/lowering/test_end_to_end.py -k "cuda or gpu or graph or pytorch or primary" || status=1
else
  echo "skipped: pytest and hypothesis are not installed here (add their wheels to .whl/)"
fi
echo "== lanearena run --backend cuda --json (tiny): graph, then the plain path"
python3 -m lanearena.cli run --backend cuda --json tiny || status=1
python3 -m lanearena.cli run --backend cuda --json --no-graph tiny || status=1
echo "== bench/gpu_check.py"
timeout 300 python3 bench/gpu_check.py --out "$OUT" "$@" || status=1
echo "== gpu_check.sh: exit $status after $((SECONDS - start)) s"
return $status
}

main "$@" 2>&1 | tee "$OUT/gpu_check.log"
exit "${PIPESTATUS[0]}"
