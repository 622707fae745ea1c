#!/usr/bin/env bash
# The whole GPU check in one go, for the few minutes a GPU is lent (issue 28): under 8 minutes on
# one GPU, every step bounded by its own timeout, one summary table at the end.
#
#   bash bench/gpu_check.sh              # on a machine with a CUDA GPU and a CUDA build of torch
#   bash bench/gpu_check.sh --dry-run    # anywhere: the same steps on the CPU, tiny, to check the script
#
# Steps: (1) the CUDA-marked tests (tests/gpu: the model on the GPU against the CPU, the fused path,
# bf16, the KV cache and the decode step, seeded sampling, a short training run and its exact resume);
# (2) `glassformer bench machine --device cuda` (the GPU's float32/bf16 product rates, bandwidth);
# (3) bench/peers.py --device cuda at `small` (training, sampling; MFU against the measured peak);
# (4) a 1-GPU torchrun of `glassformer train` (NCCL for CUDA tensors, train/distributed.py).
# Figures land in $GPU_CHECK_OUT (default: a fresh folder under /tmp, printed); copy the table into
# docs/performance.md.
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-}
if [ -z "$PY" ]; then
    if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export CUBLAS_WORKSPACE_CONFIG=${CUBLAS_WORKSPACE_CONFIG:-:4096:8}  # deterministic cuBLAS for the resume test
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1
OUT=${GPU_CHECK_OUT:-$(mktemp -d /tmp/gpu_check.XXXXXX)}
mkdir -p "$OUT"

if ! "$PY" -c "import torch" 2>/dev/null; then
    echo "gpu_check: $PY cannot import torch; run 'make setup' first (or set PYTHON=...)." >&2
    exit 2
fi
HAS_CUDA=$("$PY" -c "import torch; print(int(torch.cuda.is_available()))")
if [ "$DRY" = 0 ] && [ "$HAS_CUDA" != 1 ]; then
    "$PY" -c "import torch; print(f'gpu_check: torch {torch.__version__} sees no CUDA GPU here (torch.cuda.is_available() is False; CUDA build: {torch.version.cuda}). Run it on a machine with a GPU, or add --dry-run to check the script on the CPU.')" >&2
    exit 2
fi
if [ "$DRY" = 1 ]; then
    DEV=cpu
    echo "gpu_check --dry-run: every step on the CPU, tiny; figures mean nothing. Output: $OUT"
else
    DEV=cuda
    "$PY" -c "import torch; print('gpu_check on', torch.cuda.get_device_name(), '| torch', torch.__version__, '| CUDA', torch.version.cuda)"
    echo "output: $OUT"
fi

ROWS=()
step() {  # step NAME TIMEOUT_S LOGFILE COMMAND...: run it, keep its status and time for the table
    local name=$1 limit=$2 log=$3
    shift 3
    local start=$SECONDS
    echo "== $name (at most ${limit} s): $*"
    timeout --kill-after=10 "$limit" "$@" >"$OUT/$log" 2>&1
    local rc=$?
    local took=$((SECONDS - start))
    tail -n 25 "$OUT/$log"
    local verdict=ok
    [ $rc -ne 0 ] && verdict="FAILED (exit $rc)"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="TIMED OUT"
    ROWS+=("$(printf '%-34s %-18s %5s s  %s' "$name" "$verdict" "$took" "$log")")
}

if [ "$DRY" = 1 ]; then
    step "cuda tests (skip without a GPU)" 120 tests.log "$PY" -m pytest tests/gpu -m cuda -q -p no:cacheprovider -rs
    step "bench machine" 60 machine.log "$PY" -m glassformer bench machine --device cpu --budget 0.05 --no-save
    step "peers (dry run)" 300 peers.log "$PY" bench/peers.py --device cpu --shapes baby --dry-run --json "$OUT/peers.json"
    step "torchrun, 1 process (gloo)" 180 torchrun.log "$PY" -m torch.distributed.run --standalone --nproc_per_node=1 \
        -m glassformer train --preset baby --max_steps=5 --eval_interval=5 --eval_iters=1 --no-progress --out "$OUT/ddp"
else
    step "cuda tests" 170 tests.log "$PY" -m pytest tests/gpu -m cuda -q -p no:cacheprovider -rs
    step "bench machine --device cuda" 30 machine.log "$PY" -m glassformer bench machine --device cuda --budget 1 --no-save
    step "peers --device cuda, small" 170 peers.log "$PY" bench/peers.py --device cuda --shapes small --steps 10 \
        --warmup 3 --sample-rounds 2 --no-memory --json "$OUT/peers.json"
    step "torchrun, 1 GPU (nccl)" 90 torchrun.log "$PY" -m torch.distributed.run --standalone --nproc_per_node=1 \
        -m glassformer train --preset baby --device=cuda --max_steps=200 --eval_interval=100 --no-progress --out "$OUT/ddp"
    "$PY" -c "import torch.distributed as d; print('nccl available:', d.is_nccl_available())" >>"$OUT/torchrun.log" 2>&1
fi

echo
echo "== gpu_check summary ($( [ "$DRY" = 1 ] && echo 'dry run, CPU' || echo "$DEV" )); logs in $OUT"
printf '%-34s %-18s %7s  %s\n' "step" "result" "time" "log"
for row in "${ROWS[@]}"; do echo "$row"; done
grep -hE "^(glass|fused|hf-gpt2|nanogpt)|kv-cache, decode step|hf-generate|16 in one batch|GFLOP/s|GB/s" \
    "$OUT/peers.log" "$OUT/machine.log" 2>/dev/null | sed 's/^/  /'
grep -hE "passed|failed|skipped" "$OUT/tests.log" | tail -n 1 | sed 's/^/  tests: /'
grep -hE "^(done|完成)|speed|nccl" "$OUT/torchrun.log" | sed 's/^/  torchrun: /'
for row in "${ROWS[@]}"; do
    case "$row" in *FAILED* | *"TIMED OUT"*) exit 1 ;; esac
done
exit 0
