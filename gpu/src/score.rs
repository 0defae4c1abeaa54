//! `score`: batched permutation HSIC (score.wgsl), per-block f32 partials added in f64 on the CPU.

use bytemuck::{Pod, Zeroable};
use lethe::Result;

use crate::backend::{GpuBackend, GpuPair};
use crate::device::Scopes;
use crate::kernels::f32_bytes;
use crate::readback::read;

/// Permutations per workgroup (`GROUP` in score.wgsl).
const GROUP: u32 = 4;
/// Upper-triangle entries per workgroup and permutation to aim for: 64 per invocation amortise the workgroup's
/// tree reduction (lavapipe ran 2.7x faster than with 16) while the per-invocation f32 runs stay short and
/// n = 500, B = 200 still launches 400 workgroups (100k invocations).
const WORK_PER_GROUP: usize = 16384;
/// Permutations per dispatch at most, to bound the readback buffers (more are split into several dispatches).
const MAX_PERMS_PER_DISPATCH: usize = 1 << 14;

/// Uniform block of score.wgsl (`ScoreParams` there).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct ScoreParams {
    n: u32,
    count: u32,
    pairs_per_block: u32,
    blocks: u32,
    half: u32,
    _pad: [u32; 3],
}

/// How the row pairs of an `n`-row triangle are split into workgroups: `(pairs per block, blocks, pairs)`.
fn layout(n: usize) -> (usize, usize, usize) {
    let half = n.div_ceil(2);
    let per_block = WORK_PER_GROUP.div_ceil(n + 1).clamp(1, half);
    (per_block, half.div_ceil(per_block), half)
}

pub(crate) async fn score(gpu: &mut GpuBackend, pair: &GpuPair, perms: &[u32], out: &mut [f64]) -> Result<()> {
    gpu.check_pair(pair)?;
    let n = pair.n;
    lethe::backend::check_perms(perms, n, out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    gpu.health.check("scoring permutations")?;
    let (per_block, blocks, half) = layout(n);
    let max_dim = gpu.limits.max_compute_workgroups_per_dimension as usize;
    let per_dispatch = MAX_PERMS_PER_DISPATCH
        .min(max_dim * GROUP as usize)
        .min((gpu.max_binding() / f32_bytes(n)) as usize)
        .max(1);
    let norm = ((n - 1) * (n - 1)) as f64;

    let scopes = Scopes::push(&gpu.device);
    for (chunk, res) in perms.chunks(per_dispatch * n).zip(out.chunks_mut(per_dispatch)) {
        let count = res.len();
        let params = gpu
            .scratch
            .score_params
            .get(&gpu.device, std::mem::size_of::<ScoreParams>() as u64)
            .clone();
        let perm_buf = gpu.scratch.perms.get(&gpu.device, f32_bytes(chunk.len())).clone();
        let part_bytes = f32_bytes(count * blocks);
        let partials = gpu.scratch.partials.get(&gpu.device, part_bytes).clone();
        let staging = gpu.scratch.partials_read.get(&gpu.device, part_bytes).clone();
        let p = ScoreParams {
            n: n as u32,
            count: count as u32,
            pairs_per_block: per_block as u32,
            blocks: blocks as u32,
            half: half as u32,
            _pad: [0; 3],
        };
        gpu.queue.write_buffer(&params, 0, bytemuck::bytes_of(&p));
        gpu.queue.write_buffer(&perm_buf, 0, bytemuck::cast_slice(chunk));
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("lethe score"),
            layout: &gpu.pipes.score_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: pair.kc.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: pair.l.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: perm_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: partials.as_entire_binding(),
                },
            ],
        });
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("lethe score"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&gpu.pipes.score);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(blocks as u32, (count as u32).div_ceil(GROUP), 1);
        }
        enc.copy_buffer_to_buffer(&partials, 0, &staging, 0, part_bytes);
        gpu.queue.submit([enc.finish()]);
        let sums = read::<f32>(&gpu.device, &staging, count * blocks).await?;
        for (r, s) in res.iter_mut().zip(sums.chunks_exact(blocks)) {
            *r = s.iter().map(|&v| f64::from(v)).sum::<f64>() / norm;
        }
    }
    scopes.finish("scoring permutations").await?;
    gpu.health.check("scoring permutations")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_covers_every_row_pair() {
        for n in [2, 3, 4, 17, 64, 257, 500, 4095, 5792] {
            let (per_block, blocks, half) = layout(n);
            assert!(
                per_block >= 1 && per_block * blocks >= half && per_block * (blocks - 1) < half,
                "n={n}"
            );
            assert_eq!(half, n.div_ceil(2));
        }
    }

    #[test]
    fn params_match_the_wgsl_uniform_layout() {
        assert_eq!(std::mem::size_of::<ScoreParams>(), 32);
    }
}
