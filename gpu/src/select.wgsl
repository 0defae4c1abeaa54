// The median heuristic without reading the distances back (dispatched by median.rs): an exact two-pass radix
// select over the f32 bit patterns of the squared distances D[i][j], i < j. Non-negative f32 values order like
// their bits as u32, so
//
//   hist_high: hist[bits >> 16] += 1                                     65536 buckets of the high half-words
//   hist_low:  hist[w · 65536 + (bits & 0xffff)] += 1 where bits >> 16 == bucket[w], w = 0, 1
//
// and the CPU walks the counts to the order statistics it needs (the one or two middle values). D is clamped
// at +0 and has no NaN (gram.wgsl), so every value is a non-negative finite f32.

struct SelectParams {
    n: u32,
    // High half-words of the two middle order statistics (hist_low only; equal when both fall in one bucket).
    bucket0: u32,
    bucket1: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> sp: SelectParams;
@group(0) @binding(1) var<storage, read> d2: array<f32>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;

const WG: u32 = 256u;

fn linear_group(wid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return wid.y * groups.x + wid.x;
}

@compute @workgroup_size(256)
fn hist_high(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let n = sp.n;
    let e = linear_group(wid, groups) * WG + lid.x;
    if e < n * n && e % n > e / n {
        atomicAdd(&hist[bitcast<u32>(d2[e]) >> 16u], 1u);
    }
}

@compute @workgroup_size(256)
fn hist_low(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let n = sp.n;
    let e = linear_group(wid, groups) * WG + lid.x;
    if e < n * n && e % n > e / n {
        let bits = bitcast<u32>(d2[e]);
        let high = bits >> 16u;
        if high == sp.bucket0 {
            atomicAdd(&hist[bits & 0xffffu], 1u);
        }
        if high == sp.bucket1 && sp.bucket1 != sp.bucket0 {
            atomicAdd(&hist[65536u + (bits & 0xffffu)], 1u);
        }
    }
}
