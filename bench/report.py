"""Writes BENCHMARKS.md (to stdout) from the results of one bench/run.sh invocation. Standard library only."""

import glob
import json
import math
import os
import sys

RES = sys.argv[1]


def load(name, default=None):
    p = os.path.join(RES, name)
    if not os.path.exists(p):
        return default
    with open(p) as f:
        return json.load(f)


def cli_time(name, p, threads=1):
    """Best wall time and the largest RSS over the repeats of one CLI run."""
    tag = f"{name}_{p}" + ("" if threads == 1 else f"_t{threads}")
    runs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(RES, f"cli_{tag}.time*")))]
    if not runs:
        return None, None
    return min(r["wall_s"] for r in runs), max(r["max_rss_kb"] for r in runs)


def cli_values(name, p):
    r = load(f"cli_{name}_{p}.json")["result"]
    dists = [r["in_training_reference"], r["out_of_training_reference"]] + [t["distribution"] for t in r["targets"]]
    return [v for d in dists for v in d["values"]], r


def max_rel(a, b):
    if len(a) != len(b):
        return float("nan")
    return max(abs(x - y) / max(abs(x), abs(y), 1e-300) for x, y in zip(a, b))


def fmt_s(s):
    return "–" if s is None else (f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.0f} ms")


def jobs(file):
    return [j.split(":") for j in open(os.path.join(RES, file)).read().split()]


machine = load("machine.json")
node = load("wasm_node.json", {"runtime": "node (not run)", "results": []})
chromium = load("wasm_chromium.json", {"runtime": "chromium (not run)", "results": []})
# The relaxed-SIMD build of the same wasm (f32x4.relaxed_madd in the f32 kernels): what the page's worker runs in a
# browser that validates relaxed SIMD (Chromium does).
node_r = load("wasm_node_relaxed.json", {"runtime": "node (not run)", "results": []})
chromium_r = load("wasm_chromium_relaxed.json", {"runtime": "chromium (not run)", "results": []})
native = load("native.json", {})


def wasm(results, kind, **kw):
    for r in results["results"]:
        if r["kind"] == kind and all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


out = []
w = out.append
smoke = machine.get("smoke")
w("# Benchmarks" + (" (smoke run: tiny shapes, figures mean nothing)" if smoke else ""))
w("")
w("Written by `bench/run.sh` from one invocation; every figure below comes from that run. Benchmarks only: none of")
w("this runs in CI, and no unit test is timed.")
w("")
w(f"* Date: {machine['date']}; commit {machine['commit']}")
w(f"* Machine: {machine['cpu']}, {machine['cores']} cores shared with other work (load average, 1/5/15 min, at the "
  f"start: {machine.get('load_start', '?')}; at the end: {machine['load']}).")
if "machine_cpu_s" in machine:
    other = max(0.0, machine["machine_cpu_s"] - machine["own_cpu_s"])
    w(f"* Load during the run: the machine's processes used {machine['machine_cpu_s']:.0f} CPU-seconds in its "
      f"{machine['wall_s']:.0f} s, this run {machine['own_cpu_s']:.0f} of them (/proc/stat against `times`, which "
      f"misses Chromium's helper processes): other work took at most {other:.0f} CPU-seconds, "
      f"{other / machine['wall_s']:.0%} of one core on average; the "
      f"hypervisor gave {machine.get('steal_s', 0):.0f} s of CPU to other machines (steal). Other virtual machines on")
    w("  the same host can still share its cores' caches and memory bandwidth, which none of these counters shows:")
    w("  figures move from run to run by more than the differences between neighbouring rows; compare rows of one run.")
w(f"* Versions: {machine['rustc']}; Node {machine['node']}; {chromium['runtime']}; {machine['python']}, numpy "
  f"{(load('peer_once_table9.json') or {}).get('numpy', '?')}, hyppo 0.5.2 (bench/requirements.txt).")
blas = (load("peer_once_table9.json") or {}).get("blas") or []
if blas:
    b = blas[0]
    w(f"* numpy's BLAS, as threadpoolctl reports it in the peers' own process: {b.get('internal_api')} {b.get('version')}, "
      f"kernel **{b.get('architecture')}**, {b.get('num_threads')} thread(s). This machine's environment sets "
      f"`{machine.get('openblas_env', '?')}`, which pins OpenBLAS to an older kernel; `bench/run.sh` unsets both for the "
      "Python peers only, so that numpy runs its best kernel for this CPU.")
w("* Lethe wasm: `bench/wasm` (crate `lethe-bench`, raw exports around the same `lethe` core) built `--release` for")
w("  wasm32 twice: `+simd128`, and the relaxed-SIMD build (feature `relaxed-simd`: `f32x4.relaxed_madd` in the f32")
w("  Gram and exp; what the page's worker picks where the browser validates relaxed SIMD, as Chromium does; Node 20")
w("  runs it with `--experimental-wasm-relaxed-simd`). Run single-threaded (one instance, no threads) in Node and in")
w("  headless Chromium in a dedicated worker (`bench/web/`). Python peers: single-threaded BLAS (`*_NUM_THREADS=1`),")
w("  as Lethe's CPU path is.")
if native:
    w(f"* Native: the CLI's f32 Gram takes the {native.get('gram_path')} path here (run-time detection); ceilings measured by "
      f"`lethe-bench-native`: f32 FMA peak {native.get('peak_avx512_gflops')} GFLOP/s with AVX-512, "
      f"{native.get('peak_avx2_gflops')} with AVX2, one core at {native.get('clock_ghz')} GHz (a chain of dependent adds).")
w("* With both cores (its own section below): the CLI with `--threads 2`, the wasm on a pool of 2 plain Web Workers")
w("  in Chromium (each its own instance, no SharedArrayBuffer), numpy kernels-once with BLAS on 2 threads.")
w("")

# ----- Table 9 / 10
peer_once = {n: load(f"peer_once_{n}.json") for n, *_ in jobs("jobs.txt") + jobs("sweep.txt")}
targets = {}
for name, size, d, pool, draws, shuffles in jobs("jobs.txt"):
    subsets = int(draws) + 2
    once = peer_once[name]["seconds"]
    w(f"## {name.replace('table', 'Table ')} job: {draws} targets + 2 references, |S| = {size} (halves of {int(size) // 2}), d = {d}, T = {shuffles}")
    w("")
    w("| implementation | time | per subset | vs numpy kernels-once |")
    w("|---|---:|---:|---:|")
    rows = []
    for peer, label in [("naive", "numpy, Algorithm 1 as written (kernels every shuffle)"), ("once", "numpy, kernels built once"),
                        ("hyppo", "hyppo `Hsic(bias=True).test(reps=T, auto=False)`")]:
        r = load(f"peer_{peer}_{name}.json")
        if r:
            note = f" (timed on {r['subsets_timed']} of {r['subsets_total']} subsets, extrapolated)" if r["extrapolated"] else ""
            rows.append((label + note, r["seconds"]))
    for p in ("f64", "f32"):
        t, rss = cli_time(name, p)
        rows.append((f"Lethe native CLI `--precision {p}` (peak RSS {rss / 1024:.0f} MB)", t))
    for rt, label in [(node, "Node"), (chromium, "headless Chromium, worker"), (node_r, "Node, relaxed SIMD"),
                      (chromium_r, "headless Chromium, worker, relaxed SIMD")]:
        for f32 in (1, 0):
            r = wasm(rt, "job", name=name, f32=f32)
            if r:
                other = r["ms"] - r["prepare_ms"] - r["score_ms"]
                rows.append((f"Lethe wasm, {label}, {'f32' if f32 else 'f64'} (kernels {r['prepare_ms'] / r['ms']:.0%}, "
                             f"shuffles {r['score_ms'] / r['ms']:.0%}, rest {other / r['ms']:.0%})", r["ms"] / 1e3))
    for label, t in rows:
        ratio = f"{once / t:.1f}×" if t else "–"
        w(f"| {label} | {fmt_s(t)} | {fmt_s(t / subsets if t else None)} | {ratio} |")
    w("")
    c32 = cli_time(name, "f32")[0]
    ch = wasm(chromium, "job", name=name, f32=1)
    chr_ = wasm(chromium_r, "job", name=name, f32=1)
    targets[name] = (once, c32, ch["ms"] / 1e3 if ch else None, chr_["ms"] / 1e3 if chr_ else None)
    # correctness
    checks = []
    for p, f32 in (("f64", 0), ("f32", 1)):
        if not os.path.exists(os.path.join(RES, f"cli_{name}_{p}.json")):
            continue
        vals, rep = cli_values(name, p)
        for rt, label in [(node, "Node"), (chromium, "Chromium"), (node_r, "Node, relaxed"), (chromium_r, "Chromium, relaxed")]:
            r = wasm(rt, "job", name=name, f32=f32)
            if r and "values" in r:
                checks.append(f"wasm ({label}) vs native CLI, {p}: largest relative difference over all "
                              f"{len(vals)} shuffle values {max_rel(vals, r['values']):.1e}, OTR "
                              + (f"equal ({r['otr']})" if r['otr'] == rep['out_of_training_rate'] else
                                 f"{r['otr']} vs {rep['out_of_training_rate']} natively (a verdict near a tie falls "
                                 f"the other way under {p} rounding)"))
    a, b = wasm(chromium, "job", name=name, f32=1), wasm(chromium_r, "job", name=name, f32=1)
    if a and b and "values" in a and "values" in b:
        same = sum(1 for x, y in zip(a["values"], b["values"]) if x == y)
        checks.append(f"relaxed-SIMD vs simd128 build (Chromium), f32: {same} of {len(a['values'])} shuffle values identical, "
                      f"largest relative difference {max_rel(a['values'], b['values']):.1e}, OTR "
                      + ("equal" if a["otr"] == b["otr"] else f"{b['otr']} vs {a['otr']}"))
    _, rep64 = cli_values(name, "f64")
    zs = []
    for k, ref in enumerate(("in_training_reference", "out_of_training_reference")):
        m = rep64[ref]["moments"]
        se = m["sd"] / math.sqrt(int(shuffles))
        zs.append((peer_once[name]["reference_means"][k] - m["mean"]) / se if se > 0 else float("nan"))
    checks.append("numpy kernels-once vs Lethe on the two references (same rows, own shuffles): sample mean of its "
                  f"{shuffles} shuffles against Lethe's exact shuffle mean, z = {zs[0]:+.2f}, {zs[1]:+.2f} (standard errors)")
    w("Checks: " + "; ".join(checks) + ".")
    w("")

# ----- targets
w("## Targets (issue 4), measured in this run")
w("")
w("| target | measured | met? |")
w("|---|---|---|")
once9, cli9, ch9, chr9 = targets.get("table9", (None, None, None, None))
if ch9:
    w(f"| Table 9 job, headless Chromium, CPU wasm f32, one thread: ≤ 1.5 s | {ch9:.2f} s | {'yes' if ch9 <= 1.5 else 'no'} |")
    w(f"| … and ≥ 10× faster than numpy kernels-once ({once9:.1f} s) | {once9 / ch9:.1f}× | {'yes' if once9 / ch9 >= 10 else 'no'} |")
if cli9:
    w(f"| native CLI (f32) ≥ 20× numpy kernels-once | {once9 / cli9:.1f}× ({cli9:.2f} s) | {'yes' if once9 / cli9 >= 20 else 'no'} |")
g = wasm(chromium, "gram", n=500, d=512) or wasm(chromium, "gram")
peak = wasm(chromium, "peak")
if g and peak and g.get("gflops") and peak.get("gflops"):
    frac = g["gflops"] / peak["gflops"]
    w(f"| Gram (f32, {g['n']}×{g['d']}) ≥ 75% of the measured wasm simd128 ceiling (Chromium) | {g['gflops']:.1f} of {peak['gflops']:.1f} GFLOP/s = {frac:.0%} | {'yes' if frac >= 0.75 else 'no'} |")
w("| Table 9 job on a real GPU ≤ 0.2 s | not measured (no GPU lent to this task) | – |")
w("")
# Issue 16: against numpy kernels-once on its best BLAS kernel (OPENBLAS_CORETYPE unset, see the top).
w("## Targets (issue 16), measured in this run, against numpy kernels-once on its own best BLAS kernel")
w("")
w("| target | measured | met? |")
w("|---|---|---|")
yes = lambda ok: "yes" if ok else "**no**"
for name, want in (("table9", 15), ("table10", 4)):
    once, c32, ch, chr_ = targets.get(name, (None, None, None, None))
    best = chr_ or ch
    if once and best:
        which = "relaxed-SIMD build, the one the page picks in Chromium" if chr_ else "simd128 build"
        extra = f"; simd128 build {ch:.2f} s, {once / ch:.1f}×" if chr_ and ch else ""
        w(f"| {name.replace('table', 'Table ')} job, headless Chromium, CPU, one worker, f32: ≥ {want}× numpy kernels-once "
          f"({once:.1f} s) | {best:.2f} s, {once / best:.1f}× ({which}{extra}) | {yes(once / best >= want)} |")
for name, want in (("table9", 25), ("table10", 6)):
    once, c32, _, _ = targets.get(name, (None, None, None, None))
    if once and c32:
        w(f"| {name.replace('table', 'Table ')} job, native CLI, f32, one thread: ≥ {want}× | {c32:.2f} s, {once / c32:.1f}× | "
          f"{yes(once / c32 >= want)} |")
gr = wasm(chromium_r, "gram", n=500, d=512)
pr = wasm(chromium_r, "peak")
if gr and pr and gr.get("gflops") and pr.get("gflops"):
    f = gr["gflops"] / pr["gflops"]
    w(f"| Gram (f32, 500×512) ≥ 75% of the measured FMA ceiling, browser (Chromium, relaxed SIMD: `f32x4.relaxed_madd` "
      f"chains) | {gr['gflops']:.1f} of {pr['gflops']:.1f} GFLOP/s = {f:.0%} | {yes(f >= 0.75)} |")
ng = [x for x in native.get("grams", []) if x["n"] == 500 and x["d"] == 512 and x["path"] == "Auto"]
npk = native.get("peak_avx512_gflops") or native.get("peak_avx2_gflops")
if ng and npk:
    f = ng[0]["gflops"] / npk
    w(f"| Gram (f32, 500×512) ≥ 75% of the measured FMA ceiling, native ({native.get('gram_path')}; ceiling: AVX-512 "
      f"FMA chains) | {ng[0]['gflops']:.1f} of {npk:.1f} GFLOP/s = {f:.0%} | {yes(f >= 0.75)} |")
w("| Table 9 job with `--backend gpu` ≤ 0.2 s, and in the page on WebGPU | not measured: no GPU machine was lent to "
  "this task | – |")
w("")
gram_note = "the Gram itself was not measured"
if g and peak and g.get("gflops") and peak.get("gflops"):
    gram_note = f"the Gram itself ran at {g['gflops'] / peak['gflops']:.0%} of the ceiling in this run"
w("Where the misses come from (same run): per Table 9 subset the wasm job spends its time about evenly on the two")
w(f"kernels (Gram-bound; {gram_note}) and on the 200 shuffles, whose loop is bound by its")
w("dependent gathers (a load of a random entry of L per term; wasm has no gather instruction); relaxed SIMD speeds the")
w("kernels only, so the shuffles cap the browser's Table 9 ratio. Table 10 (d = 8192) is ~90% Gram in wasm: there the")
w("ceiling itself is the limit — `f32x4.relaxed_madd` is one 128-bit FMA, so the browser's ceiling is a quarter of")
w("the native AVX-512 one. Other work on the machine during the run (counted at the top) slows every row, the peers")
w("included.")
if native.get("score_ms") and native.get("clock_ghz"):
    n0, t0 = native["score_n"], native["score_shuffles"]
    terms = t0 * n0 * (n0 - 1) / 2
    per_cycle = terms / (native["score_ms"] * 1e-3 * native["clock_ghz"] * 1e9)
    w(f"The native shuffle loop (scalar, 8 shuffles a pass over the upper triangle): {t0} shuffles of n = {n0} took "
      f"{native['score_ms']:.2f} ms, {terms / 1e6:.1f} M gathered terms, **{per_cycle:.2f} terms per cycle** at the measured "
      f"{native['clock_ghz']:.2f} GHz. Per column j the 8 shuffles load 8 16-bit indices, the 8 entries of L they name "
      "and one entry of Kc (17 loads for 8 terms) and do a multiply and an add per term: the load ports (4 loads a "
      f"cycle on Zen 5) cap it at {4 * 8 / 17:.2f} terms a cycle ({per_cycle / (4 * 8 / 17):.0%} of it here), the two "
      "multiply and two add pipes at 2. At that cap the Table 9 job's shuffles alone would take "
      f"{102 * terms / (4 * 8 / 17) / (native['clock_ghz'] * 1e9):.2f} s natively. "
      "Tried and not kept: AVX2 hardware gathers (7.5 vs 5.1 ms for 200 shuffles), two rows a pass sharing index loads "
      "(5.2 vs 5.1 ms), byte offsets instead of indices.")
w("The native Gram: the hand-written AVX-512 kernel (4×4 tile of f32x16, run-time detection; AVX2 2×4 tile where")
w("AVX-512 is missing) against the `gemm` crate 0.18.2 (faer's and candle's GEMM) measured apart on this machine: on")
w("stable Rust `gemm` dispatches to AVX2+FMA only (its AVX-512 kernels need its `nightly` feature, which no longer")
w("builds), and it has no symmetric product, so it computes all n² entries: 2.01 ms for 500×512 (127 GFLOP/s computed,")
w("64 GFLOP/s useful) against the table's figures below; kept the hand-written kernels.")
w("The \"rest\" of a wasm job (outside kernels and shuffles; profiled apart with `node --cpu-prof`) is mostly drawing the")
w("shuffles' permutations (rand_chacha's ChaCha8, which has no wasm SIMD path, and Fisher–Yates: about 1.3 ms a subset")
w("in Node) and reading each subset's rows from the pool; the verdicts (JSD, Mann–Whitney) take under 0.1 ms a subset.")
cli9_t2 = cli_time("table9", "f32", 2)[0]
if cli9_t2 and once9:
    w(f"With `--threads 2` it takes {cli9_t2:.2f} s, {once9 / cli9_t2:.1f}× the single-threaded peer (not like-for-like;")
    w("see \"With both cores\").")
w("")

# ----- both cores
w("## With both cores")
w("")
w("The same jobs with two threads of work: the CLI with `--threads 2` (subsets on 2 threads, each its own CPU")
w("backend), the wasm on a pool of 2 plain Web Workers in headless Chromium (each its own wasm instance, no")
w("SharedArrayBuffer; the page hands out subsets one at a time, one worker assembles the report; timed from the first")
w("subset handed out to the report, loading excluded as in the one-worker job), and numpy kernels-once with BLAS on")
w("2 threads (`*_NUM_THREADS=2`: only its Gram is multithreaded; its shuffle loop is numpy on one thread either way,")
w("which is how a numpy user runs it). **Like-for-like**: each row against its own one-thread row, and the Lethe rows")
w("against the 2-thread numpy row (all may use both cores). The column against the single-threaded numpy peer is")
w("shown for reference only: it is *not* like-for-like, and no target is judged on it (the targets above are")
w("single-threaded; the wasm one explicitly so).")
w("")
for name, size, d, pool_rows, draws, shuffles in jobs("jobs.txt"):
    subsets = int(draws) + 2
    once1 = peer_once[name]["seconds"]
    o2 = load(f"peer_once2_{name}.json")
    once2 = o2["seconds"] if o2 else None
    w(f"{name.replace('table', 'Table ')} job:")
    w("")
    w("| implementation | time | per subset | speed-up over its one-thread row | vs numpy kernels-once, BLAS 2 threads | vs numpy kernels-once, 1 thread (not like-for-like) |")
    w("|---|---:|---:|---:|---:|---:|")
    rows = []
    if once2:
        rows.append(("numpy, kernels built once, BLAS on 2 threads", once2, once1))
    for p in ("f64", "f32"):
        t2 = cli_time(name, p, 2)[0]
        if t2:
            rows.append((f"Lethe native CLI `--precision {p} --threads 2`", t2, cli_time(name, p)[0]))
    for f32 in (1, 0):
        r = wasm(chromium, "poolJob", name=name, f32=f32)
        if r and "ms" in r:
            one = wasm(chromium, "job", name=name, f32=f32)
            split = "/".join(str(k) for k in r.get("per_worker", []))
            rows.append((f"Lethe wasm, headless Chromium, pool of 2 workers, {'f32' if f32 else 'f64'} (subsets per worker {split})",
                         r["ms"] / 1e3, one["ms"] / 1e3 if one else None))
    for label, t, t1 in rows:
        up = f"{t1 / t:.2f}×" if t1 else "–"
        r2 = f"{once2 / t:.1f}×" if once2 else "–"
        w(f"| {label} | {fmt_s(t)} | {fmt_s(t / subsets)} | {up} | {r2} | {once1 / t:.1f}× |")
    w("")
    checks = []
    for p in ("f64", "f32"):
        a, b = load(f"cli_{name}_{p}.json"), load(f"cli_{name}_{p}_t2.json")
        if a and b:
            checks.append(f"CLI `--threads 2` vs `--threads 1`, {p}: result {'identical' if a['result'] == b['result'] else 'DIFFERENT'}")
    for f32 in (1, 0):
        r, one = wasm(chromium, "poolJob", name=name, f32=f32), wasm(chromium, "job", name=name, f32=f32)
        if r and one and "values" in r and "values" in one:
            same = sum(1 for x, y in zip(r["values"], one["values"]) if x == y)
            checks.append(f"pool of 2 workers vs one worker, {'f32' if f32 else 'f64'}: {same} of {len(one['values'])} shuffle "
                          f"values identical, OTR {'equal' if r['otr'] == one['otr'] else 'DIFFERENT'}")
    if checks:
        w("Checks: " + "; ".join(checks) + ".")
        w("")
w("The Table 10 rows (and their one-thread rows) are single runs, the Table 9 rows the best of the repeats: a")
w("speed-up above 2× on two cores is run-to-run variation.")
w("")

# ----- Gram and kernels
w("## Gram kernel and the hot loops (f32 unless said)")
w("")
w("Ceilings, each measured in its own runtime: wasm simd128, 12 independent f32x4 `c = c·a + b` chains (a multiply and")
w("an add, 2 flops per lane); wasm relaxed SIMD, the same with `f32x4.relaxed_madd` (one FMA on this x86-64);")
w("native, 12 chains of `vfmadd` on 256-bit (AVX2) and 512-bit (AVX-512) registers. No memory traffic. Gram:")
w("`kernel::sq_dists` (the upper triangle of X Xᵀ, packed tiles, plus the distance pass and one mirroring), useful")
w("flops n(n+1)·d; natively also the Gram alone on each SIMD path.")
w("")
w("| | Node | Chromium | Node, relaxed SIMD | Chromium, relaxed SIMD |")
w("|---|---:|---:|---:|---:|")
pn, pc, pnr, pcr = wasm(node, "peak"), wasm(chromium, "peak"), wasm(node_r, "peak"), wasm(chromium_r, "peak")
cellp = lambda p: f"{p['gflops']:.1f} GFLOP/s" if p and p.get("gflops") else "–"
w(f"| ceiling (simd128 / relaxed_madd) | {cellp(pn)} | {cellp(pc)} | {cellp(pnr)} | {cellp(pcr)} |")
cell = lambda x, p: f"{x['ms']:.2f} ms, {x['gflops']:.1f} GFLOP/s ({x['gflops'] / p['gflops']:.0%})" if x and p and x.get("gflops") and p.get("gflops") else "–"
for r in [t for t in node["results"] if t["kind"] == "gram" and t.get("role") != "pool"]:
    kw = {"n": r["n"], "d": r["d"]}
    w(f"| Gram {r['n']}×{r['d']} | {cell(r, pn)} | {cell(wasm(chromium, 'gram', **kw), pc)} | "
      f"{cell(wasm(node_r, 'gram', **kw), pnr)} | {cell(wasm(chromium_r, 'gram', **kw), pcr)} |")
for kind, label, kw in [("exp", "exp_f32 over {len} values", {}), ("prepare", "both kernels of one {n}×{d} pair, f32", {"f32": 1}),
                        ("prepare", "both kernels of one {n}×{d} pair, f64", {"f32": 0}),
                        ("score", "{shuffles} shuffles, n = {n}, f32", {"f32": 1}), ("score", "{shuffles} shuffles, n = {n}, f64", {"f32": 0})]:
    a = wasm(node, kind, **kw)
    if a:
        cells = [wasm(rt, kind, **kw) for rt in (node, chromium, node_r, chromium_r)]
        w(f"| {label.format(**a)} | " + " | ".join(f"{c['ms']:.2f} ms" if c else "–" for c in cells) + " |")
w("")
if native:
    w("Native (`lethe-bench-native`, one thread, the CLI's kernels):")
    w("")
    pk = {"Avx512": native.get("peak_avx512_gflops"), "Avx2": native.get("peak_avx2_gflops")}
    auto = native.get("gram_path")
    w(f"| | time | GFLOP/s | of the AVX-512 FMA peak ({pk['Avx512']} GFLOP/s) | of the AVX2 FMA peak ({pk['Avx2']} GFLOP/s) |")
    w("|---|---:|---:|---:|---:|")
    for x in native.get("grams", []):
        label = {"Auto": f"the kernels' path ({auto})", "sq_dists": "Gram + distances + mirroring (`sq_dists`)"}.get(x["path"], x["path"])
        frac = lambda p: f"{x['gflops'] / p:.0%}" if p else "–"
        w(f"| Gram {x['n']}×{x['d']}, {label} | {x['ms']:.2f} ms | {x['gflops']:.1f} | {frac(pk['Avx512'])} | {frac(pk['Avx2'])} |")
    w(f"| exp_f32 over {native.get('exp_len')} values | {native.get('exp_ms', 0):.2f} ms | | | |")
    w(f"| both kernels of one 500×512 pair, f32 | {native.get('prepare_f32_ms', 0):.2f} ms | | | |")
    w(f"| {native.get('score_shuffles')} shuffles, n = {native.get('score_n')}, f32 | {native.get('score_ms', 0):.2f} ms | | | |")
    w("")
pool = wasm(node, "gram", role="pool")
g0 = [t for t in node["results"] if t["kind"] == "gram"][0]
if pool and g0["ms"] > 0:
    halves = pool["n"] // g0["n"]
    w("")
    w(f"Building one pool's Gram once and gathering sub-blocks (issue 4's question): a {pool['n']}×{pool['d']} Gram took "
      f"{pool['ms']:.0f} ms in Node against {g0['ms']:.2f} ms per {g0['n']}-row half, i.e. it pays only when a pool of "
      f"N rows serves more than about {pool['ms'] / g0['ms']:.0f} halves; the Table 9 job (5000-row pool, 200 halves) would save "
      f"at most ~{max(0.0, 200 * g0['ms'] - (pool['ms'] * (5000 / pool['n']) ** 2)):.0f} ms of its Gram time, memory grows as N² "
      "(a 25,000-row forget set: 2.5 GB in f32, past wasm's practical limit), and each subset's distances would then depend "
      "on the pool's centring instead of its own rows (no longer bit-identical to evaluating the same rows alone). Not done.")
w("")

# ----- sweep
w("## Scaling sweep (per subset: kernels of both halves + T shuffles; CLI and peers include loading and drawing)")
w("")
w("| shape | numpy kernels-once | Lethe CLI f32 | Lethe CLI f64 | Lethe wasm f32 (Node) | Lethe wasm f32 (Chromium) |")
w("|---|---:|---:|---:|---:|---:|")
for name, size, d, pool_rows, draws, shuffles in jobs("sweep.txt"):
    subsets = int(draws) + 2
    cells = [peer_once[name]["seconds"] / subsets]
    cells += [(cli_time(name, p)[0] or float("nan")) / subsets for p in ("f32", "f64")]
    for rt in (node, chromium):
        r = wasm(rt, "job", name=name, f32=1)
        cells.append(r["ms"] / 1e3 / subsets if r else None)
    w(f"| subsets of {size} rows (halves {int(size) // 2}), d = {d}, T = {shuffles} | " + " | ".join(fmt_s(c) for c in cells) + " |")
w("")

# ----- competition
w("## NeurIPS 2023 competition score, CPU")
w("")
eps = json.load(open(os.path.join(RES, "epsilon.time")))
m = load("metric.json")
comp = load("epsilon.json")["result"]["results"][0]
n_ex = len(comp["per_example"])
w("| implementation | 512 models × %d forget examples |" % n_ex if not smoke else "| implementation | time |")
w("|---|---:|")
w(f"| Lethe CLI `lethe epsilon` (official variant) | {fmt_s(eps['wall_s'])} |")
if m:
    w(f"| official metric.py (ffae0ff, unmodified, numpy torch shim; timed on {m['examples_timed']} examples, extrapolated) | "
      f"{fmt_s(m['seconds'])} ({m['seconds'] / eps['wall_s']:.0f}× Lethe) |" if eps['wall_s'] > 0 else
      f"{fmt_s(m['seconds'])} (Lethe's run was under the timer's 10 ms resolution) |")
    w("")
    w(f"Epsilons of the {m['epsilons_compared']} timed examples: {m['epsilons_equal']} of {m['epsilons_compared']} equal to Lethe's "
      f"(largest difference {m['max_abs_diff']:.1e}).")
else:
    w("| official metric.py | skipped: no metric.py given (`bench/run.sh --metric PATH`) |")
w("")

# ----- memory
w("## Memory (native CLI, peak RSS; one thread unless said)")
w("")
for name, *_ in jobs("jobs.txt"):
    for p in ("f32", "f64"):
        t, rss = cli_time(name, p)
        t2, rss2 = cli_time(name, p, 2)
        both = f"; `--threads 2`: {rss2 / 1024:.0f} MB, {t2:.2f} s" if t2 else ""
        w(f"* {name}, {p}: {rss / 1024:.0f} MB, {t:.2f} s{both}")
wide = load("wide_never.json")
if wide is not None:
    rows, d = open(os.path.join(RES, "wide.txt")).read().split(":")
    tn, ta = load("wide_never.time"), load("wide_always.time")
    same = wide["result"] == load("wide_always.json")["result"]
    w(f"* A wide input, {int(rows)} × {int(d)} float32 ({int(rows) * int(d) * 4 / 1e6:.0f} MB): `lethe sde` with references of")
    w(f"  {int(rows) // 2} rows and the whole file as target (`--equal-size`: {int(rows) // 2} of its rows drawn), 50 shuffles, f32: loaded (`--in-place never`)")
    w(f"  {tn['max_rss_kb'] / 1024:.0f} MB, {tn['wall_s']:.2f} s; read in place a panel of columns at a time (`--in-place always`)")
    w(f"  {ta['max_rss_kb'] / 1024:.0f} MB, {ta['wall_s']:.2f} s; reports {'identical' if same else 'DIFFERENT'}.")
w("* Before drawn targets became rows of their pool (commit d9590b5, measured once with `/usr/bin/time -v`): the")
w("  Table 10 job, f32, peaked at 6.85 GB RSS and took 44.3 s; at that change (f3b6908) the same command gave an")
w("  identical JSON result (later kernel commits reorder f64 sums: last-bit changes).")
w("")

w("## How to run")
w("")
w("* Everything: `bench/run.sh [--metric /path/to/metric.py]` (creates `bench/.venv` from bench/requirements.txt on")
w("  first use; about 6 minutes on this machine once the inputs exist and the builds are done). `bench/run.sh --smoke`")
w("  runs every part on tiny shapes to check the harness (writes bench/out/BENCHMARKS.smoke.md). It is not part of")
w("  `./build.sh test`: it needs the PyPI venv.")
w("* metric.py is read at run time, never committed: `git -C unlearning_evaluation show ffae0ff:metric.py > /tmp/metric.py`.")
w("* The wasm alone: `cargo build --release -p lethe-bench --target wasm32-unknown-unknown`, then")
w("  `node bench/node.mjs target/wasm32-unknown-unknown/release/lethe_bench.wasm PLAN.json bench/out/data OUT.json` or")
w("  `node bench/browser.mjs …` (same arguments; headless Chromium, worker); a plan is a list of tasks, see")
w("  bench/lethe-wasm.mjs and the one run.sh writes to bench/out/results/plan.json.")
w("* The relaxed-SIMD wasm: `cargo build --release -p lethe-bench --lib --target wasm32-unknown-unknown --features")
w("  relaxed-simd` (same plan; Node needs `--experimental-wasm-relaxed-simd`). The native ceilings and kernels:")
w("  `cargo build --release -p lethe-bench --bin lethe-bench-native && target/release/lethe-bench-native \"500:512\"`.")
w("* Native micro-benchmarks (criterion): `cargo bench -p lethe --bench sde` (the Table 9 subset shape: one 500×512")
w("  pair's kernels and 200 shuffles, f32 and f64).")
# Sections written by hand (their heading says "not from `bench/run.sh`") are carried over from the BENCHMARKS.md
# this run replaces, after the generated ones.
old = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "BENCHMARKS.md")
if not smoke and os.path.exists(old):
    keep, on = [], False
    for line in open(old).read().split("\n"):
        if line.startswith("## "):
            on = "not from `bench/run.sh`" in line
        if on:
            keep.append(line)
    if keep:
        out.append("")
        out.extend(keep)
print("\n".join(out).rstrip("\n"))
