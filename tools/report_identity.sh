#!/usr/bin/env bash
# Writes the --json report of every CLI command run by cli/tests/report_schema.rs (same inputs), plus runs on inputs
# whose readers and cores raise warnings (header rows, label columns, trailing bytes, non-finite values, the cores'
# notes), one file per run, into OUT. Run it before and after a change and `cmp` the two folders: a refactor that
# must not change any report (issue 26) leaves every file byte-identical.
#   tools/report_identity.sh OUT [LETHE_BINARY]
# The scratch inputs are written to a fixed folder (/tmp/lethe-report-identity, or LETHE_IDENTITY_TMP) so the
# reports' paths are the same on every run; give each concurrent user its own. The inputs are read from the tree the
# script is in, or LETHE_ROOT: the reports hold their paths, so compare two binaries on one tree.
set -u
out=${1:?usage: tools/report_identity.sh OUT [LETHE_BINARY]}
root=${LETHE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${2:-$root/target/debug/lethe}
tmp=${LETHE_IDENTITY_TMP:-/tmp/lethe-report-identity}
rm -rf "$tmp" && mkdir -p "$tmp" "$out"
demo=$root/examples/data/digits
tools=$root/tests/fixtures/tools
act=$demo/act_unlearned.npy
scores=$demo/mia_scores.npz
tofu() { echo "$tools/open_unlearning/$1/TOFU_EVAL.json"; }
printf '[0, 0.1, 0.3, 0, 0.9, 0.2, 0.05, 0.5]' >"$tmp/s.json"
printf 'the cat sat on the mat\nnothing\n' >"$tmp/gen.txt"
printf '0.01\n0.04\n0.03\n0.5\n' >"$tmp/p.txt"
for _ in $(seq 10); do echo 1; done >"$tmp/tied.txt"
printf '1\n2\n3\n4\n5\n' >"$tmp/same.txt"
for _ in $(seq 40); do echo 1,1,1,1; done >"$tmp/constant.csv"
# Inputs whose readers warn: a header row, a label column, a NaN, bytes after an .npy's data, leak scores of 0/1.
{ echo a,b; for i in $(seq 30); do echo "$i,$((i * 7 % 11))"; done; } >"$tmp/header.csv"
{ for i in $(seq 30); do echo "row$i,$i,$((i * 3 % 7))"; done; } >"$tmp/labels.csv"
{ for i in $(seq 30); do echo "$((i * 5 % 13))"; done; echo nan; } >"$tmp/nan.txt"
cp "$demo/act_original.npy" "$tmp/trailing.npy" && printf 'junk' >>"$tmp/trailing.npy"
printf '[0, 1, 1, 0, 0, 0, 1, 0, 0, 0]' >"$tmp/flags.json"
n=0
run() {
    n=$((n + 1))
    local f
    f=$(printf '%s/%02d-%s.json' "$out" "$n" "$1")
    "$bin" "$@" --json >"$f" 2>"$f.stderr"
    echo "$?" >>"$f.stderr"
}
run inspect "$act"
run inspect "$tools/competition/retrain_confs.npz"
run hsic "$act@0..60" "$demo/act_retrained.npy@0..60" --permutations 20
run sde --it "$act@144..244" --oot "$act@544..644" --target "$act@0..100" --shuffles 30 --baselines
run calibrate --data "$act" --it-pool "$demo/retain.txt" --oot-pool "$demo/test.txt" --draw-from 0..144 --draw 3 \
    --size 30 --refs 6 --paper-shuffles 20 --seed 2
run ruler --unlearned "$act" --oracle "$demo/act_retrained.npy" --original "$demo/act_original.npy" \
    --forget "$demo/forget.txt" --retain "$demo/retain.txt"
run epsilon --retrained "$tools/competition/retrain_confs.npz#retrained_confs" \
    --unlearned "$tools/competition/unlearned_confs.npz#unlearned_confs"
run bounds "$tmp/s.json" --x 0.5
run rouge --predictions "$tmp/gen.txt" --reference-text "the cat is on the mat" --bounds
run mwu "$scores#loss_unlearned@0..144" "$scores#loss_unlearned@144..503"
run wilcoxon "$scores#loss_unlearned@0..100" "$scores#loss_unlearned@100..200"
run jsd "$scores#loss_unlearned@0..144" "$scores#loss_unlearned@144..503"
run mmd "$act@0..20" "$act@20..40"
run wasserstein "$act@0..20" "$act@20..40"
run mia "$scores#lira_unlearned@0..144" "$scores#lira_unlearned@144..503" --ci bootstrap --resamples 50
run lira "$root/tests/fixtures/golden_lira/exp"
run fdr "$tmp/p.txt"
run eps-lower --counts 40,5,45,10
run eps-lower "$scores#lira_unlearned@0..144" "$scores#lira_unlearned@144..503"
run forget-quality --unlearned "$(tofu unlearned)" --retain "$(tofu retain)"
run privleak --unlearned "$(tofu unlearned)" --retain "$(tofu retain)" --resamples 50
run tool-rouge "$(tofu unlearned)"
run mwu "$tmp/tied.txt" "$tmp/tied.txt"
run wilcoxon "$tmp/same.txt" "$tmp/same.txt"
run sde --it "$tmp/constant.csv@0..20" --oot "$tmp/constant.csv@20..40" --target "$tmp/constant.csv@0..20" \
    --shuffles 20 --baselines
run calibrate --data "$tmp/constant.csv" --it-pool 0..20 --oot-pool 20..40 --target 0..5 --refs 1 --size 5
# Warnings from the readers and the cores' notes.
for f in header.csv labels.csv nan.txt trailing.npy flags.json; do run inspect "$tmp/$f"; done
run mwu "$tmp/header.csv#columns=a" "$tmp/header.csv#columns=b"
run mwu "$tmp/nan.txt" "$tmp/same.txt"
run wilcoxon "$tmp/header.csv#columns=a" "$tmp/header.csv#columns=b"
run jsd "$tmp/nan.txt@0..30" "$tmp/header.csv#columns=b"
run bounds "$tmp/flags.json"
run bounds "$tmp/s.json"
run sde --it "$tmp/trailing.npy@0..21" --oot "$tmp/trailing.npy@21..42" --target "$act@0..21" --shuffles 20
run sde --it "$tmp/labels.csv@0..14" --oot "$tmp/labels.csv@14..28" --target "$tmp/labels.csv@0..14" --shuffles 20
run calibrate --data "$act" --it-pool 0..100 --oot-pool 50..200 --target 0..10 --refs 3 --size 10
run calibrate --data "$tmp/header.csv" --it-pool 0..14 --oot-pool 14..28 --target 0..5 --refs 2 --size 5
run epsilon --retrained "$tools/competition/retrain_confs.npz#retrained_confs@0..8" \
    --unlearned "$tools/competition/unlearned_confs.npz#unlearned_confs@0..8"
run ruler --unlearned "$act" --oracle "$demo/act_retrained.npy" --original "$act" \
    --forget "$demo/forget.txt" --retain "$demo/retain.txt"
run mia "$tmp/header.csv#columns=b@0..15" "$tmp/header.csv#columns=b@15..30"
# Labelled targets (report_schema.rs runs the first): the controls are counted apart from the unlabelled targets.
run calibrate --data "$act" --it-pool "$demo/retain.txt" --oot-pool "$demo/test.txt" --draw-in 144..544 \
    --draw-out 544..744 --draw 3 --size 30 --refs 6 --paper-shuffles 20
run calibrate --data "$demo/act_retrained.npy" --it-pool 144..444 --oot-pool 544..644 --draw-from 0..144 \
    --draw-in 444..544 --draw-out 644..744 --size 30
# SDE on the digits example with its references as given and swapped (the swap hint).
run sde --it "$act@144..544" --oot "$act@544..744" --target "$act@0..144" --equal-size --shuffles 30
run sde --it "$act@544..744" --oot "$act@144..544" --target "$act@0..144" --equal-size --shuffles 30
echo "$n runs written to $out"
