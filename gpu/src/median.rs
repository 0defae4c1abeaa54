//! The median heuristic on the device (select.wgsl): an exact radix select instead of reading the distances back.
//!
//! The median of the `m = n(n−1)/2` distances `sqrt(D_ij)`, `i < j`, with numpy.median semantics (the mean of the
//! two middle values for even `m`) is a function of the one or two middle order statistics of `D`, because
//! `sqrt` is monotone. Two histogram passes over the f32 bit patterns (high half-words, then low half-words inside
//! the one or two buckets holding the middle ranks) find those order statistics exactly, so σ is bit-for-bit
//! what `lethe::kernel::median_heuristic` returns on the same f32 distances (the core's f32 CPU path) — checked
//! against a full readback in this module's GPU test.
//!
//! Why not read `D` back: that moves `4n²` bytes (134 MiB at the largest n of a 128 MiB binding) and needs an
//! `n²`-sized host copy plus a selection over it, which in a browser competes for wasm's 4 GiB memory. The
//! select reads back 2 × 256 KiB whatever `n` is.

use bytemuck::{Pod, Zeroable};
use lethe::Result;

use crate::backend::GpuBackend;
use crate::readback::{grid, read};

/// Buckets per histogram pass: one per 16-bit half-word.
pub(crate) const BUCKETS: usize = 1 << 16;

/// Uniform block of select.wgsl (`SelectParams` there).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct SelectParams {
    n: u32,
    bucket0: u32,
    bucket1: u32,
    _pad: u32,
}

/// The bucket holding the element of 0-based `rank` and its rank inside that bucket.
fn locate(hist: &[u32], rank: u64) -> Option<(u32, u64)> {
    let mut below = 0u64;
    for (b, &c) in hist.iter().enumerate() {
        let c = u64::from(c);
        if below + c > rank {
            return Some((b as u32, rank - below));
        }
        below += c;
    }
    None
}

/// The 0-based ranks of the middle order statistics of `m` values: equal for odd `m`.
fn middle_ranks(m: u64) -> (u64, u64) {
    ((m - 1) / 2, m / 2)
}

/// σ from the middle order statistics of the squared distances: numpy.median of the distances (the mean of the two
/// middle values for an even count), falling back to 1.0 when that is 0, as `lethe::kernel::median_heuristic`.
fn sigma_from_middle(lo: f32, hi: f32) -> f64 {
    let (a, b) = (f64::from(lo).sqrt(), f64::from(hi).sqrt());
    let m = if lo == hi { b } else { (a + b) / 2.0 };
    if m > 0.0 && m.is_finite() { m } else { 1.0 }
}

/// What the two passes found: the middle order statistics, from the high-half histogram and the low-half
/// histograms of the selected buckets. Returns `None` if the histograms do not hold `m` values (a device fault).
fn middle_from_histograms(m: u64, high: &[u32], low: impl Fn(u32, u32) -> Vec<u32>) -> Option<(f32, f32)> {
    let (k0, k1) = middle_ranks(m);
    let (b0, r0) = locate(high, k0)?;
    let (b1, r1) = locate(high, k1)?;
    let lows = low(b0, b1);
    let (l0, _) = locate(lows.get(..BUCKETS)?, r0)?;
    let second = if b1 == b0 {
        lows.get(..BUCKETS)?
    } else {
        lows.get(BUCKETS..)?
    };
    let (l1, _) = locate(second, r1)?;
    Some((f32::from_bits(b0 << 16 | l0), f32::from_bits(b1 << 16 | l1)))
}

/// σ by the median heuristic for the squared distances in `d2` (`n × n`, already written by the commands in
/// `enc`, which this submits).
pub(crate) async fn median_sigma(
    gpu: &mut GpuBackend,
    d2: &wgpu::Buffer,
    n: usize,
    mut enc: wgpu::CommandEncoder,
) -> Result<f64> {
    let hist_bytes = (2 * BUCKETS * 4) as u64;
    let hist = gpu.scratch.hist.get(&gpu.device, hist_bytes).clone();
    let hist_read = gpu.scratch.hist_read.get(&gpu.device, hist_bytes).clone();
    let params = gpu
        .scratch
        .select_params
        .get(&gpu.device, std::mem::size_of::<SelectParams>() as u64)
        .clone();
    let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("lethe median select"),
        layout: &gpu.pipes.select_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: d2.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: hist.as_entire_binding(),
            },
        ],
    });
    let groups = grid(
        ((n * n) as u32).div_ceil(256),
        gpu.limits.max_compute_workgroups_per_dimension,
    );
    let pass = |enc: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline, buckets: usize| {
        enc.clear_buffer(&hist, 0, None);
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
        }
        enc.copy_buffer_to_buffer(&hist, 0, &hist_read, 0, (buckets * 4) as u64);
    };

    let p = SelectParams {
        n: n as u32,
        ..Zeroable::zeroed()
    };
    gpu.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
    pass(&mut enc, &gpu.pipes.hist_high, BUCKETS);
    gpu.queue.submit([enc.finish()]);
    let high: Vec<u32> = read(&gpu.device, &hist_read, BUCKETS).await?;

    let m = (n as u64) * (n as u64 - 1) / 2;
    let (k0, k1) = middle_ranks(m);
    let (b0, b1) = match (locate(&high, k0), locate(&high, k1)) {
        (Some((b0, _)), Some((b1, _))) => (b0, b1),
        _ => return Err(histogram_fault(m, &high)),
    };
    let p = SelectParams {
        n: n as u32,
        bucket0: b0,
        bucket1: b1,
        _pad: 0,
    };
    gpu.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    pass(&mut enc, &gpu.pipes.hist_low, 2 * BUCKETS);
    gpu.queue.submit([enc.finish()]);
    let low: Vec<u32> = read(&gpu.device, &hist_read, 2 * BUCKETS).await?;

    match middle_from_histograms(m, &high, |_, _| low.clone()) {
        Some((lo, hi)) => Ok(sigma_from_middle(lo, hi)),
        None => Err(histogram_fault(m, &high)),
    }
}

fn histogram_fault(m: u64, high: &[u32]) -> lethe::Error {
    let total: u64 = high.iter().map(|&c| u64::from(c)).sum();
    lethe::Error::Backend(format!(
        "the GPU's distance histogram holds {total} values instead of {m}; the device computed wrong results"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lethe::kernel::median_heuristic;

    /// The two passes emulated on the CPU, as select.wgsl runs them on the upper triangle.
    fn select_on_cpu(d2: &[f32], n: usize) -> f64 {
        let upper = || {
            (0..n)
                .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
                .map(|(i, j)| d2[i * n + j].to_bits())
        };
        let mut high = vec![0u32; BUCKETS];
        for bits in upper() {
            high[(bits >> 16) as usize] += 1;
        }
        let m = (n * (n - 1) / 2) as u64;
        let low = |b0: u32, b1: u32| {
            let mut h = vec![0u32; 2 * BUCKETS];
            for bits in upper() {
                if bits >> 16 == b0 {
                    h[(bits & 0xffff) as usize] += 1;
                }
                if bits >> 16 == b1 && b1 != b0 {
                    h[BUCKETS + (bits & 0xffff) as usize] += 1;
                }
            }
            h
        };
        let (lo, hi) = middle_from_histograms(m, &high, low).expect("consistent histograms");
        sigma_from_middle(lo, hi)
    }

    fn symmetric(n: usize, mut f: impl FnMut(usize, usize) -> f32) -> Vec<f32> {
        let mut d2 = vec![0f32; n * n];
        for i in 0..n {
            for j in (i + 1)..n {
                let v = f(i, j);
                d2[i * n + j] = v;
                d2[j * n + i] = v;
            }
        }
        d2
    }

    #[test]
    fn radix_select_matches_median_heuristic_bit_for_bit() {
        let mut s = 7u64;
        let mut next = move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 24) as f32
        };
        // Odd and even pair counts, wide and narrow ranges, heavy ties, values sharing a high half-word.
        for n in [2usize, 3, 4, 5, 8, 17, 40, 101] {
            let cases: Vec<Vec<f32>> = vec![
                symmetric(n, |_, _| next() * 10.0),
                symmetric(n, |_, _| 1.0 + next() * 1e-6),
                symmetric(n, |i, j| ((i + j) % 3) as f32),
                symmetric(n, |_, _| 0.0),
                symmetric(n, |i, _| if i % 2 == 0 { 0.0 } else { 2.5e-3 }),
                symmetric(n, |_, _| next() * 1e30),
            ];
            for (c, d2) in cases.iter().enumerate() {
                let want = median_heuristic(d2, n);
                let got = select_on_cpu(d2, n);
                assert_eq!(got.to_bits(), want.to_bits(), "n={n} case {c}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn middle_ranks_follow_numpy() {
        assert_eq!(middle_ranks(1), (0, 0));
        assert_eq!(middle_ranks(6), (2, 3));
        assert_eq!(middle_ranks(7), (3, 3));
        assert_eq!(locate(&[0, 2, 0, 3], 2), Some((3, 0)));
        assert_eq!(locate(&[1], 1), None);
    }
}
