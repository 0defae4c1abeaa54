// Stage 1: Gram matrix and squared Euclidean distances of column-centred rows (dispatched by kernels.rs).
//
//   gram:   G[i][j] (+)= Σ_k x[i][k] x[j][k] over one chunk of columns, upper-triangle tiles only, mirrored
//   diag:   norms[i] = G[i][i]
//   sqdist: D[i][j] = max(norms[i] + norms[j] − 2 G[i][j], 0), D[i][i] = 0, in place over G
//
// Every entry of G is computed by the same instruction sequence (same k order, same accumulator), so identical
// rows give bitwise-identical G entries and exactly zero distances — the median heuristic's fallback for constant
// data depends on that.

struct Params {
    n: u32,
    // Columns in this chunk (gram only).
    d: u32,
    // 1: add this chunk's products to G (column chunks after the first).
    accumulate: u32,
    _pad0: u32,
    // −1/(2σ²), rounded to f32 (kernel.wgsl only).
    neg_s: f32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> g: array<f32>;
@group(0) @binding(3) var<storage, read_write> norms: array<f32>;

// Output tile edge: 16×16 invocations, each computing a 4×4 block (rows ty + 16a, columns tx + 16b).
const TILE: u32 = 64u;
// Columns staged in workgroup memory per step.
const TK: u32 = 16u;
const WG: u32 = 256u;

var<workgroup> tile_a: array<f32, 1024>; // TILE × TK, rows of the tile's row block
var<workgroup> tile_b: array<f32, 1024>; // TILE × TK, rows of the tile's column block

@compute @workgroup_size(16, 16)
fn gram(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let bi = wid.y;
    let bj = wid.x;
    // The lower triangle is mirrored from the upper one; whole workgroups leave (uniform control flow).
    if bj < bi {
        return;
    }
    let n = params.n;
    let d = params.d;
    let row0 = bi * TILE;
    let col0 = bj * TILE;
    let t = lid.y * 16u + lid.x;
    var acc: array<f32, 16>;
    for (var q = 0u; q < 16u; q++) {
        acc[q] = 0.0;
    }
    for (var k0 = 0u; k0 < d; k0 += TK) {
        for (var e = t; e < TILE * TK; e += WG) {
            let r = e / TK;
            let k = k0 + e % TK;
            var a = 0.0;
            var b = 0.0;
            if k < d {
                if row0 + r < n {
                    a = x[(row0 + r) * d + k];
                }
                if col0 + r < n {
                    b = x[(col0 + r) * d + k];
                }
            }
            tile_a[e] = a;
            tile_b[e] = b;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            var av: array<f32, 4>;
            var bv: array<f32, 4>;
            for (var u = 0u; u < 4u; u++) {
                av[u] = tile_a[(lid.y + 16u * u) * TK + kk];
                bv[u] = tile_b[(lid.x + 16u * u) * TK + kk];
            }
            for (var u = 0u; u < 4u; u++) {
                for (var v = 0u; v < 4u; v++) {
                    acc[u * 4u + v] += av[u] * bv[v];
                }
            }
        }
        workgroupBarrier();
    }
    for (var q = 0u; q < 16u; q++) {
        let i = row0 + lid.y + 16u * (q / 4u);
        let j = col0 + lid.x + 16u * (q % 4u);
        if i < n && j < n {
            var v = acc[q];
            if params.accumulate != 0u {
                v += g[i * n + j];
            }
            g[i * n + j] = v;
            if bi != bj {
                g[j * n + i] = v;
            }
        }
    }
}

// Workgroups may be laid out on a 2-D grid (65535 per dimension); this is the linear workgroup index.
fn linear_group(wid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return wid.y * groups.x + wid.x;
}

@compute @workgroup_size(256)
fn diag(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let n = params.n;
    let i = linear_group(wid, groups) * WG + lid.x;
    if i < n {
        norms[i] = g[i * n + i];
    }
}

@compute @workgroup_size(256)
fn sqdist(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let n = params.n;
    let e = linear_group(wid, groups) * WG + lid.x;
    if e < n * n {
        let i = e / n;
        let j = e % n;
        let v = g[e];
        let d2 = (norms[i] + norms[j]) - (v + v);
        // Round-off below 0 (and NaN, which finite input cannot produce) becomes 0, as on the CPU.
        g[e] = select(0.0, d2, i != j && d2 > 0.0);
    }
}
