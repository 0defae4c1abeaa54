// Stage 2: RBF kernel and double centring, in place over the squared-distance matrix (dispatched by kernels.rs).
//
//   rbf_rows: K[i][j] = exp(D[i][j] · s) with s = −1/(2σ²) (f64 on the CPU, rounded once), K[i][i] = 1;
//             sums[i] = Σ_{j≠i} K[i][j] (per-thread partials, then a workgroup tree reduction)
//   grand:    norms[i] = r_i = (sums[i] + 1) / n (row means), sums[n] = Σ_i r_i / n (grand mean)
//   centre:   Kc[i][j] = K[i][j] − r_i − r_j + g
//
// The off-diagonal row sums are what the CPU reads back for KernelStats (its f64 total of n f32 values), and the
// diagonal is exactly 1 as in the CPU path (exp(−0) = 1), so mean_offdiag is not a difference of near-equal sums.

struct Params {
    n: u32,
    d: u32,
    accumulate: u32,
    _pad0: u32,
    neg_s: f32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read_write> g: array<f32>;
@group(0) @binding(3) var<storage, read_write> norms: array<f32>;
@group(0) @binding(4) var<storage, read_write> sums: array<f32>;

const WG: u32 = 256u;
// rbf_rows: one workgroup per row. 64 invocations suit rows of a few hundred to a few thousand entries, and
// keep the reduction short (lavapipe measured 2.7x faster than with 256 at n = 500).
const ROW_WG: u32 = 64u;

var<workgroup> red: array<f32, 256>;

fn linear_group(wid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return wid.y * groups.x + wid.x;
}

// Tree reduction of red[0..width] (a power of two); every invocation of the workgroup must call it with the
// same width. Result in red[0].
fn reduce(t: u32, width: u32) {
    workgroupBarrier();
    for (var s = width / 2u; s > 0u; s >>= 1u) {
        if t < s {
            red[t] += red[t + s];
        }
        workgroupBarrier();
    }
}

// One workgroup per row.
@compute @workgroup_size(ROW_WG)
fn rbf_rows(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let n = params.n;
    let i = linear_group(wid, groups);
    if i >= n {
        return;
    }
    var acc = 0.0;
    for (var j = lid.x; j < n; j += ROW_WG) {
        let e = i * n + j;
        var v = 1.0;
        if j != i {
            v = exp(g[e] * params.neg_s);
            acc += v;
        }
        g[e] = v;
    }
    red[lid.x] = acc;
    reduce(lid.x, ROW_WG);
    if lid.x == 0u {
        sums[i] = red[0];
    }
}

// A single workgroup.
@compute @workgroup_size(256)
fn grand(@builtin(local_invocation_id) lid: vec3<u32>) {
    let n = params.n;
    let nf = f32(n);
    var acc = 0.0;
    for (var i = lid.x; i < n; i += WG) {
        let r = (sums[i] + 1.0) / nf;
        norms[i] = r;
        acc += r;
    }
    red[lid.x] = acc;
    reduce(lid.x, WG);
    if lid.x == 0u {
        sums[n] = red[0] / nf;
    }
}

@compute @workgroup_size(256)
fn centre(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let n = params.n;
    let e = linear_group(wid, groups) * WG + lid.x;
    if e < n * n {
        let i = e / n;
        let j = e % n;
        g[e] = ((g[e] - norms[i]) - norms[j]) + sums[n];
    }
}
