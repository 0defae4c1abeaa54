//! # Lethe GPU backend
//!
//! A [`lethe::backend::Backend`] on WebGPU (in browsers) and Vulkan/GL (natively) through wgpu: it builds the
//! kernels of an HSIC permutation test on the GPU and scores batches of permutations there, in f32 with f64 totals
//! on the CPU. Everything else (drawing permutations, p-values, verdicts) stays in the backend-agnostic core, so
//! the GPU and [`lethe::backend::CpuBackend`] score the same shuffles and can be compared value by value.
//!
//! ## What runs where
//!
//! For `X` (`n × d`) the backend computes, as the core's [`lethe::kernel`] does:
//!
//! ```text
//! x̃_i   = x_i − mean(x)                      column centring, on the CPU in f64, uploaded as f32
//! G_ij  = ⟨x̃_i, x̃_j⟩                          gram.wgsl: 64×64 tiles of the upper triangle, mirrored
//! D_ij  = max(G_ii + G_jj − 2 G_ij, 0)        gram.wgsl, D_ii = 0
//! σ     = sqrt(d) | median_{i<j} sqrt(D_ij) | fixed        select.wgsl: exact radix select of the middle D_ij
//! K_ij  = exp(D_ij · s),  s = −1/(2σ²)        kernel.wgsl; s in f64 on the CPU, rounded once to f32; K_ii = 1
//! Kc_ij = K_ij − r_i − r_j + g                kernel.wgsl; r = row means (workgroup tree reductions), g = mean(r)
//! ```
//!
//! and the same for `Y` without the centring (`L`). Scoring a permutation `p` (score.wgsl) is
//!
//! ```text
//! HSIC(X, Y[p]) = Σ_ij Kc_ij L_{p(i) p(j)} / (n − 1)² = (Σ_i Kc_ii L_{p(i)p(i)} + 2 Σ_{i<j} Kc_ij L_{p(i)p(j)}) / (n − 1)²
//! ```
//!
//! over the upper triangle, rows paired `(q, n−1−q)` for equal work per workgroup, four permutations per
//! workgroup sharing each `Kc` load, per-invocation f32 partials reduced in a workgroup tree, and one partial per
//! (permutation, row block) read back and added in f64.
//!
//! ## Precision
//!
//! WebGPU has no f64, so kernels are stored and summed in f32 on the device (the core's `Precision::F32` path
//! does the same on the CPU). Kernel entries carry ~1e-7 relative error; a shuffle score is a sum of n² such
//! terms and its error is bounded by a few f32 epsilons times `Σ_ij |Kc_ij| L_{p(i)p(j)} / (n−1)²` — see the
//! tolerances and measured errors in `gpu/tests/backends.rs`. The kernel statistics ([`lethe::kernel::KernelStats`])
//! are computed from the per-row f32 sums of the off-diagonal entries, read back and added in f64.
//!
//! ## Limits
//!
//! The backend asks for [`wgpu::Limits::downlevel_defaults`] (lowered to the adapter's values where those are
//! smaller, then checked against what the shaders need) with the two buffer-size limits raised to the adapter's.
//! Each `n × n` f32 matrix must fit one storage binding: with the WebGPU default of 128 MiB that is n ≤ 5792;
//! larger `n` is an [`lethe::Error::Backend`] naming the largest `n` the device supports ([`GpuBackend::max_n`]).
//! Wide data is uploaded and multiplied in column chunks that fit a binding, and large permutation batches are
//! split into several dispatches; workgroup grids are 2-D where a dimension would pass 65535.

mod backend;
mod device;
mod kernels;
mod median;
mod readback;
mod score;

pub use backend::{GpuBackend, GpuPair};
pub use device::GpuOptions;
/// The wgpu this crate is built against, for callers that create their own device for [`GpuBackend::new`].
pub use wgpu;
