#!/usr/bin/env bash
# Builds and runs every fuzz target (the file readers, the CLI's argument parser and the statistics' entry points)
# for SECONDS each (default 20), then prints each target's exec count.
#
#   fuzz/run.sh [SECONDS]
#
# cargo-fuzz needs nightly compiler flags; on the stable toolchain RUSTC_BOOTSTRAP=1 allows them. AddressSanitizer
# is used when its runtime is available, else the targets build with --sanitizer none (panics, hangs and
# out-of-memory are still caught by libFuzzer). Corpora are seeded from tests/fixtures/formats (cli_spec: from a
# few example arguments, below); a crash leaves its input in fuzz/artifacts/<target>/ and makes this script exit
# non-zero. Logs go to fuzz/build.log and fuzz/fuzz-<target>.log; fuzz/README.md records long runs.
set -euo pipefail
cd "$(dirname "$0")"
SECS=${1:-20}
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

command -v cargo-fuzz >/dev/null || cargo install -q cargo-fuzz

FIX=../tests/fixtures/formats
seed() { # seed TARGET FILES...
  local t=$1; shift
  mkdir -p "corpus/$t"
  for f in "$@"; do [ -f "$f" ] && cp -f "$f" "corpus/$t/$(echo "${f#"$FIX"/}" | tr / _)"; done
  return 0
}
seed npy "$FIX"/npy/*.npy "$FIX"/bad/*.npy
seed npz "$FIX"/npz/*.npz "$FIX"/bad/*.npz
seed safetensors "$FIX"/safetensors/*.safetensors
seed text "$FIX"/text/* "$FIX"/bad/*.csv
seed json "$FIX"/json/*.json "$FIX"/bad/*.json
# cli_spec: the first byte says which prefixes "exist" (see fuzz_targets/cli_spec.rs), the rest is the argument.
mkdir -p corpus/cli_spec
k=0
for arg in 'x.npy' 'a/b.npz#act@0..10' 'x.npy@3, 1,4' 'x.npy@forget.txt' 'x.npy@split.txt==forget' \
  'run@2#b.npy@idx@1.txt' 'x.npz#@0..3' 'x.npy@0..99999999999999999999' '1,2,184467440737095516160' \
  'a==b.txt==x==y' '../idx.txt' ' 7 .. 9 '; do
  for mask in '\x00' '\xff' '\x55'; do
    printf "$mask%s" "$arg" >"corpus/cli_spec/seed$((k += 1))"
  done
done
# columns: the first line is the array name (a column choice), the rest a table.
mkdir -p corpus/columns
for f in "$FIX"/text/* "$FIX"/bad/*.csv; do
  for name in 'columns=all' 'drop=1' 'columns=2,1' 'drop=id,label' ''; do
    { printf '%s\n' "$name"; cat "$f"; } >"corpus/columns/$(basename "$f")-${name//[=,]/_}"
  done
done
printf 'x\nid,f0,f1,label\n0,0.5,1.5,1\n1,2.5,3.5,0\n' >corpus/columns/label-id.csv
# rouge: reference NUL prediction.
mkdir -p corpus/rouge
printf 'the cat sat on the mat\0the cat is on the mat' >corpus/rouge/cat
printf 'Running runs ran runner\0run running ran\0' >corpus/rouge/stem
printf 'Caf\xc3\xa9 \xc4\xb0stanbul 2001 \xe2\x84\xaaelvin\0caf istanbul kelvin' >corpus/rouge/unicode
seed any "$FIX"/npy/f4_le_C.npy "$FIX"/npy/rank3_F.npy "$FIX"/npz/stored.npz "$FIX"/npz/compressed.npz \
  "$FIX"/safetensors/bf16.safetensors "$FIX"/text/projector.tsv "$FIX"/text/header.csv "$FIX"/json/object.json
# tools_ou: the open-unlearning / TOFU / MUSE sample files (tests/fixtures/tools, PROVENANCE_ou_tofu_muse.md).
TOOLS=../tests/fixtures/tools
mkdir -p corpus/tools_ou
for f in "$TOOLS"/open_unlearning/*/*.json "$TOOLS"/muse/*/privleak/*.json "$TOOLS"/tofu/*/*.json; do
  [ -f "$f" ] && cp -f "$f" "corpus/tools_ou/$(echo "${f#"$TOOLS"/}" | tr / _)"
done
# tools_pm: the privacy-meter, LeakPro and competition sample files (tests/fixtures/tools/PROVENANCE.md); the first
# byte picks one file (even) or two split at the next two bytes (odd: memberships + signals, retrain + unlearned).
TOOLS=../tests/fixtures/tools
mkdir -p corpus/tools_pm
for f in "$TOOLS"/privacy_meter/log/report/exp/*.npz "$TOOLS"/leakpro/*.json "$TOOLS"/competition/*.npz; do
  [ -f "$f" ] && { printf '\x00'; cat "$f"; } >"corpus/tools_pm/$(echo "${f#"$TOOLS"/}" | tr / _)"
done
pair() { # pair NAME A B
  local n; n=$(stat -c %s "$2")
  { printf '\x01'; printf "\\x$(printf %02x $((n % 256)))\\x$(printf %02x $((n / 256)))"; cat "$2" "$3"; } >"corpus/tools_pm/$1"
}
[ -f "$TOOLS"/privacy_meter/log/memberships.npy ] && pair pm_set "$TOOLS"/privacy_meter/log/memberships.npy \
  "$TOOLS"/privacy_meter/log/signals/rmia_signals.npy
[ -f "$TOOLS"/competition/retrain_confs.npz ] && pair competition_pair "$TOOLS"/competition/retrain_confs.npz \
  "$TOOLS"/competition/unlearned_confs.npz
# tools_lira: mi_lira_2021 folders cut from tests/fixtures/golden_lira/exp (fuzz_targets/tools_lira.rs): the first
# byte is the number of experiment folders − 1, then each folder's keep.npy and scores file, each after its u16 length.
LIRA=../tests/fixtures/golden_lira/exp
mkdir -p corpus/tools_lira
u16() { printf "\\x$(printf %02x $(($1 % 256)))\\x$(printf %02x $(($1 / 256)))"; }
for k in 1 2 4; do
  {
    printf "\\x$(printf %02x $((k - 1)))"
    for m in $(seq 0 $((k - 1))); do
      for f in "$LIRA/experiment-${m}_16/keep.npy" "$LIRA/experiment-${m}_16/scores/0000000100.npy"; do
        [ -f "$f" ] && { u16 "$(stat -c %s "$f")"; cat "$f"; }
      done
    done
  } >"corpus/tools_lira/seed$k"
done
# ks: two samples of f64 (first byte: where they split); no seeds needed.
mkdir -p corpus/ks
# stats: arbitrary bytes decoded into shapes, values and parameters (fuzz_targets/stats.rs); no seeds needed.
mkdir -p corpus/stats

SAN=()
if ! cargo fuzz build -O npy >build.log 2>&1; then
  echo "AddressSanitizer build failed (see fuzz/build.log); building with --sanitizer none"
  SAN=(--sanitizer none)
fi
cargo fuzz build -O "${SAN[@]}" >>build.log 2>&1 || { cat build.log; exit 1; }

status=0
summary=()
for t in $(cargo fuzz list); do
  log="fuzz-$t.log"
  # -rss_limit_mb: a reader that allocates from an unchecked header field fails here.
  if cargo fuzz run -O "${SAN[@]}" "$t" "corpus/$t" -- -max_total_time="$SECS" -rss_limit_mb=1024 \
      -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see fuzz/$log and fuzz/artifacts/$t/)"
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  summary+=("$(printf '%-12s %12s execs in %ss  %s' "$t" "${execs:-?}" "$SECS" "$result")")
done
printf '%s\n' "${summary[@]}"
exit $status
