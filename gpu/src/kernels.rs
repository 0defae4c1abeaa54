//! `prepare`: RBF kernels of `X` and `Y` on the device (gram.wgsl, kernel.wgsl), and reading them back.

use bytemuck::{Pod, Zeroable};
use lethe::backend::PairStats;
use lethe::check;
use lethe::data::{Columns, Scalar};
use lethe::kernel::{self, Bandwidth, KernelStats, MatrixSums};
use lethe::{Error, Result};

use crate::backend::{GpuBackend, GpuPair};
use crate::device::Scopes;
use crate::median;
use crate::readback::{grid, read};

/// Output tile edge of the gram shader (`TILE` in gram.wgsl).
const GRAM_TILE: u32 = 64;
/// Invocations per workgroup of the 1-D stages (`WG` in the shaders).
const WG: u32 = 256;

/// Uniform block shared by gram.wgsl and kernel.wgsl (`Params` there).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct KernelParams {
    n: u32,
    d: u32,
    accumulate: u32,
    _pad0: u32,
    neg_s: f32,
    _pad1: [u32; 3],
}

const PARAMS_BYTES: u64 = std::mem::size_of::<KernelParams>() as u64;

/// Bytes of `count` f32 (or u32) values. Callers have checked `n` against `GpuBackend::max_n`, so `n²` fits
/// `usize` even on wasm32.
pub(crate) fn f32_bytes(count: usize) -> u64 {
    count as u64 * 4
}

pub(crate) async fn prepare<S: Scalar>(
    gpu: &mut GpuBackend,
    x: &mut dyn Columns<S>,
    y: &mut dyn Columns<S>,
    bw_x: Bandwidth,
    bw_y: Bandwidth,
) -> Result<GpuPair> {
    const WHAT: &str = "the GPU HSIC backend";
    check::shape(x.name(), x.rows(), x.cols(), 2, WHAT)?;
    check::shape(y.name(), y.rows(), y.cols(), 2, WHAT)?;
    if x.rows() != y.rows() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "x has {} rows but y has {}; HSIC pairs row i of x with row i of y, so they must match",
                x.rows(),
                y.rows()
            ),
        });
    }
    let (bw_x, bw_y) = (bw_x.validate()?, bw_y.validate()?);
    let n = x.rows();
    gpu.check_n(n)?;
    gpu.health.check("preparing kernels")?;

    let scopes = Scopes::push(&gpu.device);
    let bytes = f32_bytes(n * n);
    let matrix = |label| {
        gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let (kc, l) = (matrix("lethe Kc"), matrix("lethe L"));
    gpu.scratch.stats_read.get(&gpu.device, f32_bytes(2 * n));
    let sigma_x = build(gpu, x, bw_x, &kc, true, 0).await?;
    let sigma_y = build(gpu, y, bw_y, &l, false, 1).await?;
    let sums = read::<f32>(
        &gpu.device,
        gpu.scratch.stats_read.get(&gpu.device, f32_bytes(2 * n)),
        2 * n,
    )
    .await?;

    // The exact shuffle moments need a few O(n²) sums of Kc and L (row sums, diagonals, squares): read both
    // matrices back once (2n² floats) and sum them in f64, as the CPU f32 path does.
    let (kc_host, l_host) = (read_matrix(gpu, &kc, n).await?, read_matrix(gpu, &l, n).await?);
    scopes.finish("preparing kernels").await?;
    gpu.health.check("preparing kernels")?;

    let (sx, sy) = sums.split_at(n);
    Ok(GpuPair {
        backend: gpu.id,
        n,
        kc,
        l,
        stats: PairStats {
            n,
            x: stats(sx, n, sigma_x),
            y: stats(sy, n, sigma_y),
            kc_sums: MatrixSums::of_symmetric(&kc_host, n),
            l_sums: MatrixSums::of_symmetric(&l_host, n),
        },
    })
}

/// Kernel statistics from the off-diagonal row sums: the diagonal of K is exactly 1, so the total is
/// `Σ_i sums_i + n`, added in f64.
fn stats(offdiag_row_sums: &[f32], n: usize, sigma: f64) -> KernelStats {
    let off: f64 = offdiag_row_sums.iter().map(|&v| f64::from(v)).sum();
    let nn = (n * n) as f64;
    KernelStats {
        n,
        sigma,
        mean_all: (off + n as f64) / nn,
        mean_offdiag: off / (nn - n as f64),
    }
}

/// Builds the RBF kernel of `m` into `target` (centred when `centre`), copies its off-diagonal row sums into the
/// stats readback buffer at row-sum slot `slot`, and returns σ. `m` is read by column panels, each centred on the
/// host (column means in f64, as the CPU path) and added to the device's Gram matrix.
async fn build<S: Scalar>(
    gpu: &mut GpuBackend,
    m: &mut dyn Columns<S>,
    bw: Bandwidth,
    target: &wgpu::Buffer,
    centre: bool,
    slot: u64,
) -> Result<f64> {
    let (n, d) = (m.rows(), m.cols());
    // Column panels that fit one binding and the host's panel budget.
    let chunk = kernel::panel_width::<S, f32>(n, d).min((gpu.max_binding() / f32_bytes(n)).max(1) as usize);
    let fixed_sigma = match bw {
        Bandwidth::SqrtDim => Some((d as f64).sqrt()),
        Bandwidth::Fixed(s) => Some(s),
        Bandwidth::Median => None,
    };
    let neg_s = |sigma: f64| (-1.0 / (2.0 * sigma * sigma)) as f32;
    let max_dim = gpu.limits.max_compute_workgroups_per_dimension;
    let tiles = (n as u32).div_ceil(GRAM_TILE);
    let n2_groups = grid(((n * n) as u32).div_ceil(WG), max_dim);

    let norms = gpu.scratch.norms.get(&gpu.device, f32_bytes(n)).clone();
    let sums = gpu.scratch.sums.get(&gpu.device, f32_bytes(n + 1)).clone();
    let params = gpu.scratch.kernel_params.get(&gpu.device, PARAMS_BYTES).clone();
    let x_buf = gpu.scratch.x.get(&gpu.device, f32_bytes(n * chunk)).clone();
    let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("lethe kernel stages"),
        layout: &gpu.pipes.kernel_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: x_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: target.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: norms.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: sums.as_entire_binding(),
            },
        ],
    });
    let dispatch = |enc: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline, (gx, gy): (u32, u32)| {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(gx, gy, 1);
    };

    // Stage 1: Gram matrix panel by panel (each panel its own submission: the x buffer and params are rewritten),
    // then squared distances.
    let (mut raw, mut xc) = (Vec::with_capacity(n * chunk), Vec::<f32>::with_capacity(n * chunk));
    let mut k0 = 0;
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    while k0 < d {
        let w = chunk.min(d - k0);
        m.read(k0, w, &mut raw)?;
        kernel::center_panel(&raw, n, w, &mut xc);
        let p = KernelParams {
            n: n as u32,
            d: w as u32,
            accumulate: u32::from(k0 > 0),
            neg_s: fixed_sigma.map_or(0.0, neg_s),
            ..Zeroable::zeroed()
        };
        gpu.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
        gpu.queue.write_buffer(&x_buf, 0, bytemuck::cast_slice(&xc));
        dispatch(&mut enc, &gpu.pipes.gram, (tiles, tiles));
        k0 += w;
        if k0 < d {
            gpu.queue
                .submit([std::mem::replace(&mut enc, gpu.device.create_command_encoder(&Default::default())).finish()]);
        }
    }
    dispatch(&mut enc, &gpu.pipes.diag, grid((n as u32).div_ceil(WG), max_dim));
    dispatch(&mut enc, &gpu.pipes.sqdist, n2_groups);

    let sigma = match fixed_sigma {
        Some(s) => s,
        None => {
            // The exact median of the n(n−1)/2 f32 distances, as the core's f32 CPU path takes it (median.rs).
            let enc = std::mem::replace(&mut enc, gpu.device.create_command_encoder(&Default::default()));
            let sigma = median::median_sigma(gpu, target, n, enc).await?;
            #[cfg(test)]
            if gpu.check_median_by_readback {
                let d2 = read_matrix(gpu, target, n).await?;
                assert_eq!(
                    sigma.to_bits(),
                    kernel::median_heuristic(&d2, n).to_bits(),
                    "radix select vs readback"
                );
            }
            let p = KernelParams {
                n: n as u32,
                neg_s: neg_s(sigma),
                ..Zeroable::zeroed()
            };
            gpu.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
            sigma
        }
    };

    // Stage 2: exp, row sums, centring.
    dispatch(&mut enc, &gpu.pipes.rbf_rows, grid(n as u32, max_dim));
    if centre {
        dispatch(&mut enc, &gpu.pipes.grand, (1, 1));
        dispatch(&mut enc, &gpu.pipes.centre, n2_groups);
    }
    let stats_read = gpu.scratch.stats_read.get(&gpu.device, f32_bytes(2 * n));
    enc.copy_buffer_to_buffer(&sums, 0, stats_read, slot * f32_bytes(n), f32_bytes(n));
    gpu.queue.submit([enc.finish()]);
    Ok(sigma)
}

impl GpuBackend {
    /// Reads a prepared pair's kernels back: `(Kc, L)`, row-major `n × n` f32 each. For tests and diagnostics;
    /// scoring never needs it.
    ///
    /// # Errors
    /// A pair from another backend, GPU failures ([`Error::Backend`]).
    ///
    /// # Examples
    /// ```
    /// # pollster::block_on(async {
    /// use lethe::{backend::Backend, kernel::Bandwidth, Matrix};
    /// let mut gpu = lethe_gpu::GpuBackend::request(&Default::default()).await?;
    /// let x = Matrix::from_rows(&[[0.0], [1.0], [3.0]])?;
    /// let pair = gpu.prepare(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim).await?;
    /// let (kc, l) = gpu.read_kernels(&pair).await?;
    /// assert_eq!(l[0], 1.0); // the diagonal of an RBF kernel
    /// # Ok::<(), lethe::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn read_kernels(&mut self, pair: &GpuPair) -> Result<(Vec<f32>, Vec<f32>)> {
        self.check_pair(pair)?;
        self.health.check("reading kernels back")?;
        let scopes = Scopes::push(&self.device);
        let read = async {
            let kc = read_matrix(self, &pair.kc, pair.n).await?;
            let l = read_matrix(self, &pair.l, pair.n).await?;
            Ok::<_, Error>((kc, l))
        };
        let r = read.await;
        scopes.finish("reading kernels back").await?;
        r.map_err(|e| self.explain(e, "reading kernels back"))
    }
}

/// An `n × n` f32 matrix copied back from the device.
async fn read_matrix(gpu: &mut GpuBackend, m: &wgpu::Buffer, n: usize) -> Result<Vec<f32>> {
    let bytes = f32_bytes(n * n);
    let staging = gpu.scratch.dist_read.get(&gpu.device, bytes).clone();
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(m, 0, &staging, 0, bytes);
    gpu.queue.submit([enc.finish()]);
    read::<f32>(&gpu.device, &staging, n * n).await
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(not(target_arch = "wasm32"))]
    use lethe::{Matrix, backend::Backend};

    /// The radix-select median against `median_heuristic` on the read-back distances, bit for bit, on the GPU
    /// (fails without an adapter; lavapipe serves natively).
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn median_by_radix_select_equals_median_of_read_back_distances() {
        let options = crate::GpuOptions {
            backends: wgpu::Backends::VULKAN,
            ..Default::default()
        };
        let mut gpu = pollster::block_on(GpuBackend::request(&options)).expect("a GPU adapter (lavapipe natively)");
        println!("adapter: {:?}", gpu.adapter_info());
        gpu.check_median_by_readback = true;
        let mut s = 3u64;
        let mut next = move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        // n(n−1)/2 odd and even; continuous data, integer ties, half the rows duplicated, constant columns.
        for n in [2usize, 3, 4, 5, 64, 130] {
            let d = 3;
            let cases: [Vec<f64>; 4] = [
                (0..n * d).map(|_| next() * 4.0 - 2.0).collect(),
                (0..n * d).map(|_| (next() * 4.0).floor()).collect(),
                (0..n * d).map(|k| ((k / d) % 2) as f64 + (k % d) as f64).collect(),
                (0..n * d).map(|k| if k % d == 0 { next() } else { 1.0 }).collect(),
            ];
            for data in cases {
                let m = Matrix::from_vec(n, d, data).unwrap();
                let pair = pollster::block_on(gpu.prepare(m.view(), m.view(), Bandwidth::Median, Bandwidth::Median));
                assert!(pair.is_ok(), "n={n}: {pair:?}");
            }
        }
    }

    #[test]
    fn params_match_the_wgsl_uniform_layout() {
        // gram.wgsl / kernel.wgsl `Params`: 4 u32, an f32, 3 u32 of padding = 32 bytes (a multiple of 16).
        assert_eq!(PARAMS_BYTES, 32);
    }

    #[test]
    fn stats_use_the_exact_unit_diagonal() {
        // 3×3 kernel with off-diagonal entries 0.5: off-diagonal row sums 1.0 each.
        let s = stats(&[1.0, 1.0, 1.0], 3, 2.0);
        assert_eq!(s.mean_offdiag, 0.5);
        assert!((s.mean_all - 6.0 / 9.0).abs() < 1e-15);
    }
}
