#!/usr/bin/env bash
# Lethe benchmark harness: the SDE paper's Table 9 and Table 10 jobs and a scaling sweep, on the same seeded inputs,
# for the Python peers, Lethe's native CLI and Lethe's wasm (Node and headless Chromium, CPU, one thread; and with
# both cores: CLI --threads 2, a pool of 2 Web Workers in Chromium, numpy with BLAS on 2 threads), plus
# the Gram kernel against a measured simd128 ceiling and the NeurIPS 2023 competition score against the official
# metric.py. Writes BENCHMARKS.md (see there for what each figure is). Benchmarks only: never run in CI.
#
#   bench/run.sh [--smoke] [--metric PATH]
#
#   --smoke        tiny shapes (well under a minute once built): checks that the harness itself runs; writes
#                  bench/out/BENCHMARKS.smoke.md, not BENCHMARKS.md
#   --metric PATH  metric.py of google-deepmind/unlearning_evaluation at commit ffae0ff (or METRIC_PY=PATH):
#                  `git -C unlearning_evaluation show ffae0ff:metric.py > /tmp/metric.py`. Without it that row is
#                  skipped with a note. Never committed here.
#
# Needs: Rust with wasm32-unknown-unknown, Node 20, /usr/bin/chromium, python3 with venv (PyPI reachable for
# bench/.venv on first use), `npm ci` (playwright-core; run here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SMOKE=0
METRIC=${METRIC_PY:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) SMOKE=1 ;;
    --metric) METRIC=$2; shift ;;
    *) echo "usage: bench/run.sh [--smoke] [--metric PATH]" >&2; exit 2 ;;
  esac
  shift
done
log() { printf '\n== %s\n' "$*" >&2; }
# How busy the machine was: the load average at both ends, and the CPU time of every process on the machine
# (/proc/stat: user, nice, system, irq, softirq) against this run's own (bash `times`: its children), and the time
# the hypervisor gave to other machines (steal).
busy_s() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%.2f", ($2+$3+$4+$7+$8)/hz}' /proc/stat; }
steal_s() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%.2f", $9/hz}' /proc/stat; }
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
BUSY_START=$(busy_s)
STEAL_START=$(steal_s)
WALL_START=$(date +%s.%N)

OUT=bench/out
DATA=$OUT/data
RES=$OUT/results
[ $SMOKE = 1 ] && { DATA=$OUT/smoke-data; RES=$OUT/smoke-results; }
rm -rf "$RES"
mkdir -p "$DATA" "$RES"
# Single-threaded peers, as Lethe's CPU path is.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMBA_NUM_THREADS=1 PYTHONWARNINGS=ignore
# The Python peers run with OpenBLAS choosing its own kernel for this CPU: this workplace sets OPENBLAS_CORETYPE
# (Haswell) and OPENBLAS_L2_SIZE, which hold numpy to an older, slower kernel on this AVX-512 EPYC. They are unset
# for the peers only (`$PEER`); what was set is recorded, and peers.py records the kernel threadpoolctl reports.
OPENBLAS_SEEN="OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE-(unset)} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE-(unset)}"

# --- tools ---------------------------------------------------------------------------------------------------
PY=bench/.venv/bin/python
PEER="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $PY"
if [ ! -f bench/.venv/.installed ] || ! cmp -s bench/requirements.txt bench/.venv/.installed; then
  log "bench/.venv: pip install -r bench/requirements.txt"
  python3 -m venv bench/.venv
  $PY -m pip install -q -r bench/requirements.txt
  cp bench/requirements.txt bench/.venv/.installed
fi
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --silent
log "cargo build --release -p lethe-cli and lethe-bench-native; lethe-bench for wasm32 (+simd128, and +relaxed-simd)"
cargo build -q --release -p lethe-cli
cargo build -q --release -p lethe-bench --bin lethe-bench-native
# Two wasm builds of the same core: relaxed SIMD (feature relaxed-simd: f32x4.relaxed_madd in the f32 kernels), then
# simd128 (what browsers without relaxed SIMD run). The first is copied aside before the second overwrites it.
mkdir -p "$OUT"
cargo build -q --release -p lethe-bench --lib --target wasm32-unknown-unknown --features relaxed-simd
cp target/wasm32-unknown-unknown/release/lethe_bench.wasm "$OUT/lethe_bench_relaxed.wasm"
cargo build -q --release -p lethe-bench --lib --target wasm32-unknown-unknown
LETHE=target/release/lethe
WASM=target/wasm32-unknown-unknown/release/lethe_bench.wasm
WASM_RELAXED=$OUT/lethe_bench_relaxed.wasm
if cmp -s "$WASM" "$WASM_RELAXED"; then
  echo "the simd128 and relaxed-SIMD builds of lethe-bench are the same file: touch bench/wasm/src/lib.rs and rerun" >&2
  exit 1
fi

# --- shapes: name size d pool draws shuffles ----------------------------------------------------------------
if [ $SMOKE = 1 ]; then
  JOBS="table9:40:16:200:3:20 table10:40:64:200:3:20"
  SWEEP="n100_d16:100:16:300:2:20 n40_d32:40:32:200:2:20"
  GRAMS="40:16 64:32"
  PEER_SUBSETS=2; METRIC_K=1; COMP="16 20"; REPEAT=1; WIDE="200:2048"
else
  JOBS="table9:1000:512:5000:100:200 table10:1000:8192:5000:100:200"
  SWEEP="n400_d512:400:512:5000:8:200 n2000_d512:2000:512:5000:8:200 n1000_d128:1000:128:5000:8:200 n1000_d2048:1000:2048:5000:8:200"
  GRAMS="500:512 1000:512 1000:8192"
  PEER_SUBSETS=2; METRIC_K=2; COMP="512 1000"; REPEAT=2; WIDE="2000:65536"
fi
seed=9
for spec in $JOBS $SWEEP; do
  IFS=: read -r name size d pool draws shuffles <<<"$spec"
  [ -f "$DATA/$name/pool.npy" ] || $PY bench/gen.py "$DATA" "$name" "$size" "$d" "$pool" $((seed++))
done
echo "$JOBS" > "$RES/jobs.txt"
echo "$SWEEP" > "$RES/sweep.txt"

# --- native ceilings: the machine's own f32 FMA peak (AVX2, AVX-512), its clock, the Gram on each SIMD path ---
log "native: f32 FMA peak, clock, Gram per SIMD path, shuffle loop (lethe-bench-native)"
target/release/lethe-bench-native "$GRAMS" > "$RES/native.json"
cat "$RES/native.json" >&2

# --- Lethe native CLI ----------------------------------------------------------------------------------------
cli_job() { # name size draws shuffles precision repeat threads
  local name=$1 size=$2 draws=$3 shuffles=$4 p=$5 rep=$6 threads=$7 d="$DATA/$1" k tag
  tag=${name}_${p}
  [ "$threads" = 1 ] || tag=${tag}_t$threads
  for k in $(seq "$rep"); do
    /usr/bin/time -f '{"wall_s": %e, "max_rss_kb": %M}' -o "$RES/cli_${tag}.time$k" \
      $LETHE sde --it "$d/it.npy" --oot "$d/oot.npy" --draw-from "$d/pool.npy" --draw "$draws" --size "$size" \
      --shuffles "$shuffles" --precision "$p" --threads "$threads" --json > "$RES/cli_${tag}.json"
  done
  echo "  $name $p, $threads thread(s): $(cat "$RES/cli_${tag}.time"*)" >&2
}
log "Lethe CLI (--threads 1; the Table jobs also --threads 2)"
for spec in $JOBS $SWEEP; do
  IFS=: read -r name size d pool draws shuffles <<<"$spec"
  for p in f32 f64; do
    case "$name" in table*) rep=$REPEAT ;; *) rep=1 ;; esac
    [ "$name" = table10 ] && rep=1
    cli_job "$name" "$size" "$draws" "$shuffles" "$p" "$rep" 1
    case "$name" in table*) cli_job "$name" "$size" "$draws" "$shuffles" "$p" "$rep" 2 ;; esac
  done
done

# --- reading in place: one wide input (2000 × 65536 float32, 512 MB), loaded vs read in place ----------------
IFS=: read -r wide_rows wide_d <<<"$WIDE"
log "Lethe CLI on a wide input (${wide_rows} × ${wide_d} float32): --in-place never vs always"
[ -f "$DATA/wide/acts.npy" ] || $PY bench/gen.py wide "$DATA" "$wide_rows" "$wide_d" 21
echo "$WIDE" > "$RES/wide.txt"
for m in never always; do
  A="$DATA/wide/acts.npy"
  /usr/bin/time -f '{"wall_s": %e, "max_rss_kb": %M}' -o "$RES/wide_$m.time" \
    $LETHE sde --it "$A@0..$((wide_rows / 2))" --oot "$A@$((wide_rows / 2))..$wide_rows" --target "$A" \
    --equal-size --shuffles 50 --precision f32 --threads 1 --in-place "$m" --json > "$RES/wide_$m.json"
  echo "  wide, --in-place $m: $(cat "$RES/wide_$m.time")" >&2
done

# --- Python peers -------------------------------------------------------------------------------------------
log "Python peers (single-threaded BLAS; kernels-once of the Table jobs also with BLAS on 2 threads)"
for spec in $JOBS $SWEEP; do
  IFS=: read -r name size d pool draws shuffles <<<"$spec"
  $PEER bench/peers.py once "$DATA/$name" "$draws" "$size" "$shuffles" > "$RES/peer_once_$name.json"
  case "$name" in
    table*)
      OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 MKL_NUM_THREADS=2 \
        $PEER bench/peers.py once "$DATA/$name" "$draws" "$size" "$shuffles" > "$RES/peer_once2_$name.json"
      $PEER bench/peers.py naive "$DATA/$name" "$draws" "$size" "$shuffles" --subsets "$PEER_SUBSETS" > "$RES/peer_naive_$name.json"
      $PEER bench/peers.py hyppo "$DATA/$name" "$draws" "$size" "$shuffles" --subsets "$PEER_SUBSETS" > "$RES/peer_hyppo_$name.json" ;;
  esac
done

# --- wasm: the same plan in Node and in headless Chromium ---------------------------------------------------
log "wasm (Node, then headless Chromium in a worker, then the Table 9 job on a pool of 2 workers; then the relaxed-SIMD build)"
$PY - "$RES/plan.json" "$GRAMS" "$JOBS $SWEEP" "$REPEAT" "$RES/plan_relaxed.json" <<'PYEOF'
import json, sys
out, grams, jobs, repeat, out_relaxed = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4]), sys.argv[5]
tasks = [{"kind": "peak", "reps": 5}]
for g in grams:
    n, d = map(int, g.split(":"))
    tasks.append({"kind": "gram", "n": n, "d": d, "f32": 1, "reps": 10 if d <= 512 else 3})
n0, d0 = map(int, grams[0].split(":"))
tasks += [{"kind": "exp", "len": n0 * n0, "reps": 10},
          {"kind": "prepare", "n": n0, "d": d0, "f32": 1}, {"kind": "score", "n": n0, "shuffles": 200, "f32": 1},
          {"kind": "prepare", "n": n0, "d": d0, "f32": 0}, {"kind": "score", "n": n0, "shuffles": 200, "f32": 0}]
# The pool-Gram question: one Gram of a whole pool against the Grams of every drawn half.
pool = 5 * 2 * n0
tasks.append({"kind": "gram", "n": pool, "d": d0, "f32": 1, "reps": 1, "role": "pool"})
for j in jobs:
    name, size, d, p, draws, shuffles = j.split(":")
    for f32 in (1, 0):
        if name != "table9" and not f32:
            continue
        tasks.append({"kind": "job", "name": name, "dir": name, "draws": int(draws), "size": int(size),
                      "shuffles": int(shuffles), "f32": f32, "seed": 0, "keepValues": True,
                      "repeat": repeat if name == "table9" else 1})
# The Table 9 job on a pool of 2 plain Web Workers (headless Chromium only; bench/web/pool.mjs).
for j in jobs:
    name, size, d, p, draws, shuffles = j.split(":")
    if name == "table9":
        for f32 in (1, 0):
            tasks.append({"kind": "poolJob", "workers": 2, "name": name, "dir": name, "draws": int(draws),
                          "size": int(size), "shuffles": int(shuffles), "f32": f32, "seed": 0, "keepValues": True,
                          "repeat": repeat})
# Issue 23's page target: `lethe compare` on 50 methods × 10 seeds × 20 metrics, 10,000 resamples, in one worker
# with the page's module (pkg/lethe_web.js, built by ./build.sh wasm_pkg; headless Chromium only; bench/web/compare.mjs).
for baseline in (None, "method0"):
    tasks.append({"kind": "compare", "name": "compare_50x10x20_" + ("vs_baseline" if baseline else "all_pairs"),
                  "methods": 50, "seeds": 10, "metrics": 20, "resamples": 10000, "baseline": baseline,
                  "repeat": repeat})
json.dump({"tasks": tasks}, open(out, "w"))
# The relaxed-SIMD build: its ceiling, the f32 kernels and the f32 Table jobs on one worker (f64 is unchanged).
relaxed = [t for t in tasks if t["kind"] in ("peak", "exp") or (t["kind"] in ("gram", "prepare", "score") and t.get("f32")
           and t.get("role") != "pool") or (t["kind"] == "job" and t["f32"] and t["name"].startswith("table"))]
json.dump({"tasks": relaxed}, open(out_relaxed, "w"))
PYEOF
node bench/node.mjs "$WASM" "$RES/plan.json" "$DATA" "$RES/wasm_node.json"
node bench/browser.mjs "$WASM" "$RES/plan.json" "$DATA" "$RES/wasm_chromium.json"
# Node 20 (V8 11.3) has relaxed SIMD behind a flag; Chromium ships it.
node --experimental-wasm-relaxed-simd bench/node.mjs "$WASM_RELAXED" "$RES/plan_relaxed.json" "$DATA" "$RES/wasm_node_relaxed.json"
node bench/browser.mjs "$WASM_RELAXED" "$RES/plan_relaxed.json" "$DATA" "$RES/wasm_chromium_relaxed.json"

# --- competition score --------------------------------------------------------------------------------------
log "competition score: lethe epsilon vs metric.py"
read -r models examples <<<"$COMP"
[ -f "$DATA/competition/retrained.npy" ] || $PY bench/metric_bench.py gen "$DATA/competition" "$models" "$examples" 4
/usr/bin/time -f '{"wall_s": %e, "max_rss_kb": %M}' -o "$RES/epsilon.time" \
  $LETHE epsilon --retrained "$DATA/competition/retrained.npy" --unlearned "$DATA/competition/unlearned.npy" --json > "$RES/epsilon.json"
if [ -n "$METRIC" ] && [ -f "$METRIC" ]; then
  $PEER bench/metric_bench.py run "$METRIC" "$DATA/competition" "$METRIC_K" "$RES/epsilon.json" > "$RES/metric.json"
else
  echo "  metric.py not given (--metric PATH or METRIC_PY): the official row is skipped" >&2
fi

# --- report -------------------------------------------------------------------------------------------------
times > "$RES/times.txt" # in this shell (not a subshell): the CPU time of everything it ran
{
  echo "{"
  echo "\"date\": \"$(date -u +%Y-%m-%dT%H:%MZ)\","
  echo "\"cpu\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\","
  echo "\"cores\": $(getconf _NPROCESSORS_ONLN),"
  echo "\"load_start\": \"$LOAD_START\","
  echo "\"wall_s\": $(awk -v a="$(date +%s.%N)" -v b="$WALL_START" 'BEGIN{printf "%.1f", a - b}'),"
  echo "\"machine_cpu_s\": $(awk -v a="$(busy_s)" -v b="$BUSY_START" 'BEGIN{printf "%.1f", a - b}'),"
  echo "\"steal_s\": $(awk -v a="$(steal_s)" -v b="$STEAL_START" 'BEGIN{printf "%.1f", a - b}'),"
  # `times`' second line: this shell's children, user and system (e.g. "5m15.747s 0m47.728s").
  echo "\"own_cpu_s\": $(tail -1 "$RES/times.txt" | awk '{t = 0; for (i = 1; i <= NF; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%.1f", t}'),"
  echo "\"load\": \"$(cut -d' ' -f1-3 /proc/loadavg)\","
  echo "\"rustc\": \"$(rustc --version)\","
  echo "\"node\": \"$(node --version)\","
  echo "\"python\": \"$($PY --version 2>&1)\","
  echo "\"openblas_env\": \"$OPENBLAS_SEEN\","
  echo "\"commit\": \"$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crate/src crate/Cargo.toml cli bench/wasm || echo '+dirty')\","
  echo "\"smoke\": $SMOKE"
  echo "}"
} > "$RES/machine.json"
if [ $SMOKE = 1 ]; then
  python3 bench/report.py "$RES" > "$OUT/BENCHMARKS.smoke.md"
  echo "smoke run done: $OUT/BENCHMARKS.smoke.md" >&2
else
  # Into a new file first: report.py carries the hand-written sections over from the current BENCHMARKS.md.
  python3 bench/report.py "$RES" > "$OUT/BENCHMARKS.md.new"
  mv "$OUT/BENCHMARKS.md.new" BENCHMARKS.md
  echo "wrote BENCHMARKS.md" >&2
fi
