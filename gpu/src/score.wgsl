// Stage 3: batched permutation HSIC (dispatched by score.rs).
//
// For permutation p the unnormalised statistic is, by the symmetry of Kc and L,
//
//   Σ_ij Kc[i][j] L[p(i)][p(j)] = Σ_i Σ_{j ≥ i} w_ij Kc[i][j] L[p(i)][p(j)],   w_ii = 1, w_ij = 2 (j > i).
//
// Row r of the upper triangle has n − r entries, so rows are paired (q, n−1−q): each pair has n + 1 entries and
// the work per workgroup is even. Workgroup (x, y) takes row pairs [x·P, x·P + P) and the GROUP permutations
// y·GROUP .. y·GROUP + GROUP − 1, so one load of Kc[r][j] serves all of them. Each invocation sums its share in
// f32, the workgroup adds the 256 partials in a tree, and partials[s · blocks + x] receives the block's sum for
// permutation s; the CPU adds the blocks in f64 and divides by (n − 1)².

struct ScoreParams {
    n: u32,
    // Permutations in this dispatch.
    count: u32,
    // Row pairs per workgroup (P).
    pairs_per_block: u32,
    // Row blocks (workgroups along x).
    blocks: u32,
    // Row pairs: ceil(n / 2).
    half: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> sp: ScoreParams;
@group(0) @binding(1) var<storage, read> kc: array<f32>;
@group(0) @binding(2) var<storage, read> l: array<f32>;
@group(0) @binding(3) var<storage, read> perms: array<u32>;
@group(0) @binding(4) var<storage, read_write> partials: array<f32>;

const WG: u32 = 256u;
const GROUP: u32 = 4u;

var<workgroup> red: array<f32, 1024>; // GROUP × WG

@compute @workgroup_size(256)
fn score(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = sp.n;
    let block = wid.x;
    let s0 = wid.y * GROUP;
    let t = lid.x;
    // Slots past the last permutation recompute the last one; their sums are never written.
    var base: array<u32, 4>;
    for (var q = 0u; q < GROUP; q++) {
        base[q] = min(s0 + q, sp.count - 1u) * n;
    }
    var acc = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
    let q_lo = block * sp.pairs_per_block;
    let q_hi = min(q_lo + sp.pairs_per_block, sp.half);
    for (var q = q_lo; q < q_hi; q++) {
        for (var side = 0u; side < 2u; side++) {
            let r = select(q, n - 1u - q, side == 1u);
            // The middle row of an odd n pairs with itself: count it once.
            if side == 1u && r == q {
                break;
            }
            var lrow: array<u32, 4>;
            for (var u = 0u; u < GROUP; u++) {
                lrow[u] = perms[base[u] + r] * n;
            }
            for (var j = r + t; j < n; j += WG) {
                let k = select(2.0, 1.0, j == r) * kc[r * n + j];
                for (var u = 0u; u < GROUP; u++) {
                    acc[u] += k * l[lrow[u] + perms[base[u] + j]];
                }
            }
        }
    }
    for (var u = 0u; u < GROUP; u++) {
        red[u * WG + t] = acc[u];
    }
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if t < s {
            for (var u = 0u; u < GROUP; u++) {
                red[u * WG + t] += red[u * WG + t + s];
            }
        }
        workgroupBarrier();
    }
    if t < GROUP && s0 + t < sp.count {
        partials[(s0 + t) * sp.blocks + block] = red[t * WG];
    }
}
