//! The shared check suite (suite/mod.rs) instantiated per native backend: CPU f64 (the reference against itself:
//! proves the checks are tight), CPU f32 (the yardstick for f32 rounding), and the GPU.
//!
//! The GPU instance needs an adapter and FAILS without one (it never skips): on a machine without a GPU,
//! `mesa-vulkan-drivers` provides lavapipe (Vulkan on the CPU). The tests search Vulkan only unless `WGPU_BACKEND`
//! says otherwise, so GL/EGL is not probed; set `XDG_RUNTIME_DIR=$(mktemp -d)` to silence the loader's warning
//! about a missing runtime directory. Every GPU test prints the adapter it ran on, so a silent fallback shows.
//!
//! Golden sources are listed in suite/mod.rs (sde.json, hsic.json from tests/fixtures/golden).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../crate/tests/common/mod.rs"]
mod common;
mod suite;

use lethe::backend::{Backend, CpuBackend, Precision};
use lethe_gpu::{GpuBackend, GpuOptions};
use suite::Tolerances;

/// Sizes for the shuffle checks: tiny, odd (edges of the 64-wide gram tiles and the 256-wide workgroups; 257 also
/// has a middle row that pairs with itself), and the SDE half size.
const SCORE_SIZES: [usize; 6] = [2, 3, 17, 64, 257, 500];
/// Shapes `(n, d)` for the kernel checks: n across tile edges, d across the 16-column staging steps.
const KERNEL_SHAPES: [(usize, usize); 7] = [(2, 1), (3, 5), (17, 16), (33, 17), (64, 40), (65, 33), (257, 3)];

fn cpu_f64() -> CpuBackend {
    CpuBackend::new(Precision::F64)
}

fn cpu_f32() -> CpuBackend {
    CpuBackend::new(Precision::F32)
}

/// The GPU backend on the first adapter found (Vulkan unless `WGPU_BACKEND` says otherwise). Panics — failing
/// the test — when there is none.
fn gpu() -> GpuBackend {
    let options = GpuOptions {
        backends: lethe_gpu::wgpu::Backends::VULKAN,
        ..Default::default()
    };
    let gpu = pollster::block_on(GpuBackend::request(&options))
        .unwrap_or_else(|e| panic!("the GPU tests need an adapter (install mesa-vulkan-drivers for lavapipe): {e}"));
    println!("adapter: {:?}", gpu.adapter_info());
    println!("backend info: {:?}", gpu.info());
    gpu
}

macro_rules! backend_suite {
    ($name:ident, $make:expr, $tol:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn kernels_match_cpu_f64() {
                let mut b = $make;
                pollster::block_on(suite::kernels_match_cpu_f64(&mut b, &$tol, &KERNEL_SHAPES));
            }

            #[test]
            fn shuffle_scores_match_cpu_f64() {
                let mut b = $make;
                let mut rows = Vec::new();
                for n in SCORE_SIZES {
                    let shuffles = if n >= 257 { 24 } else { 40 };
                    rows.push((
                        n,
                        pollster::block_on(suite::shuffle_scores_match_cpu_f64(&mut b, &$tol, n, shuffles)),
                    ));
                }
                println!("n, max |Δ|/(u(1+log2 n²)κ), max |Δ|/|H|  [{}]", stringify!($name));
                for (n, (units, rel)) in rows {
                    println!("{n:>5}  {units:>8.4}  {rel:.3e}");
                }
            }

            #[test]
            fn hsic_test_p_values_match_cpu_f64() {
                let mut b = $make;
                pollster::block_on(suite::hsic_test_matches_cpu_f64(&mut b, &$tol, 60));
            }

            #[test]
            fn golden_sde_matches_reference() {
                let mut b = $make;
                pollster::block_on(suite::golden_sde_matches_reference(&mut b, &$tol));
            }

            #[test]
            fn golden_hsic_matches_reference() {
                let mut b = $make;
                pollster::block_on(suite::golden_hsic_matches_reference(&mut b, &$tol));
            }

            #[test]
            fn bad_inputs_are_errors() {
                let mut b = $make;
                pollster::block_on(suite::edge_cases(&mut b));
            }

            #[test]
            fn duplicate_rows_have_zero_distance() {
                let mut b = $make;
                pollster::block_on(suite::duplicate_rows_have_zero_distance(&mut b));
            }

            #[test]
            fn exact_moments_match_cpu_f64() {
                let mut b = $make;
                pollster::block_on(suite::exact_moments_match_cpu_f64(&mut b));
            }
        }
    };
}

backend_suite!(cpu_f64_backend, cpu_f64(), Tolerances::F64);
backend_suite!(cpu_f32_backend, cpu_f32(), Tolerances::F32);
backend_suite!(gpu_backend, gpu(), Tolerances::F32);

/// Checks that only make sense for the GPU: its own input validation (the CPU backend leaves that to its caller),
/// device limits, and pairs crossing backends.
mod gpu_only {
    use super::*;
    use lethe::kernel::Bandwidth;
    use lethe::permute::{Permutations, Stream};
    use lethe_gpu::wgpu;

    #[test]
    fn prepare_validates_its_inputs() {
        let mut b = gpu();
        let x = suite::seeded(4, 2, 1, -1.0, 1.0);
        let bw = Bandwidth::SqrtDim;
        let cases = [
            (
                "n = 1",
                suite::seeded(1, 2, 1, -1.0, 1.0),
                suite::seeded(1, 2, 1, -1.0, 1.0),
                bw,
            ),
            ("rows differ", x.clone(), suite::seeded(5, 2, 1, -1.0, 1.0), bw),
            ("empty", lethe::Matrix::zeros(0, 2), lethe::Matrix::zeros(0, 2), bw),
            ("no columns", lethe::Matrix::zeros(4, 0), x.clone(), bw),
            ("sigma 0", x.clone(), x.clone(), Bandwidth::Fixed(0.0)),
            ("sigma NaN", x.clone(), x.clone(), Bandwidth::Fixed(f64::NAN)),
        ];
        for (what, xa, ya, bw) in cases {
            let e = pollster::block_on(b.prepare(xa.view(), ya.view(), bw, bw)).unwrap_err();
            println!("{what}: {e}");
        }
        let mut nan = x.clone();
        nan.as_mut_slice()[5] = f64::NAN;
        let e = pollster::block_on(b.prepare(x.view(), nan.view(), bw, bw))
            .unwrap_err()
            .to_string();
        assert!(lethe::words::cli(&e).contains("`y`"), "{e}");
        // The backend still works after rejected inputs.
        pollster::block_on(b.prepare(x.view(), x.view(), bw, bw)).unwrap();
    }

    #[test]
    fn n_past_the_binding_limit_is_an_error_naming_the_largest_n() {
        let mut b = gpu();
        let max = b.max_n();
        println!(
            "max_storage_buffer_binding_size = {}, max n = {max}",
            b.limits().max_storage_buffer_binding_size
        );
        let x = lethe::Matrix::<f32>::zeros(max + 1, 1);
        let e = pollster::block_on(b.prepare(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim))
            .unwrap_err()
            .to_string();
        println!("{e}");
        assert!(e.contains(&format!("n ≤ {max}")), "{e}");
    }

    #[test]
    fn pairs_belong_to_their_backend() {
        let (mut a, mut b) = (gpu(), gpu());
        let x = suite::seeded(5, 2, 3, -1.0, 1.0);
        let pair = pollster::block_on(a.prepare(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim)).unwrap();
        let mut out = [0.0];
        let e = pollster::block_on(b.score(&pair, &[0, 1, 2, 3, 4], &mut out)).unwrap_err();
        assert!(e.to_string().contains("different GpuBackend"), "{e}");
        pollster::block_on(a.score(&pair, &[0, 1, 2, 3, 4], &mut out)).unwrap();
    }

    /// A device created by the caller with a 1 MiB binding limit: wide data is multiplied in column chunks,
    /// permutation batches are split into several dispatches, results still match the CPU, and n past the limit
    /// is refused with the largest n (512) named.
    #[test]
    fn small_binding_limit_chunks_columns_and_batches() {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN.with_env(),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = pollster::block_on(instance.request_adapter(&Default::default())).expect("an adapter");
        println!("adapter: {:?}", adapter.get_info());
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: 1 << 20,
            max_buffer_size: 1 << 20,
            ..wgpu::Limits::downlevel_defaults()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            required_limits: limits,
            ..Default::default()
        }))
        .expect("a device");
        let mut b = GpuBackend::new(device, queue).unwrap();
        assert_eq!(b.max_n(), 512);

        // 300 × 1000 f32 = 1.2 MB: two column chunks (873 + 127 columns).
        let (n, d) = (300, 1000);
        let (x, y) = suite::dependent_pair(n, d, 7, 5);
        let bw = (Bandwidth::Median, Bandwidth::SqrtDim);
        // 1000 permutations of 300 = 1.2 MB of indices: two dispatches (873 + 127 permutations).
        let shuffles = 1000;
        let mut perms = Vec::new();
        Permutations::new(1, Stream::Shuffles).extend(n, shuffles, &mut perms);
        let mut got = vec![0.0; shuffles];
        let pair = pollster::block_on(b.prepare(x.view(), y.view(), bw.0, bw.1)).unwrap();
        pollster::block_on(b.score(&pair, &perms, &mut got)).unwrap();
        let mut cpu = CpuBackend::new(Precision::F64);
        let rp = pollster::block_on(cpu.prepare(x.view(), y.view(), bw.0, bw.1)).unwrap();
        let mut want = vec![0.0; shuffles];
        pollster::block_on(cpu.score(&rp, &perms, &mut want)).unwrap();
        use lethe::backend::PreparedPair;
        let (gs, ws) = (pair.stats(), rp.stats());
        assert!(
            (gs.x.sigma - ws.x.sigma).abs() <= 1e-6 * ws.x.sigma,
            "{} vs {}",
            gs.x.sigma,
            ws.x.sigma
        );
        let mut worst = 0.0f64;
        for (g, w) in got.iter().zip(&want) {
            worst = worst.max((g - w).abs() / w.abs());
        }
        println!("chunked: max |Δ|/|H| = {worst:.3e} over {shuffles} shuffles");
        assert!(worst < 1e-4);

        let big = lethe::Matrix::<f32>::zeros(513, 1);
        let e = pollster::block_on(b.prepare(big.view(), big.view(), bw.0, bw.1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("n ≤ 512"), "{e}");
    }
}

/// A lost device (here destroyed on purpose) turns every later call into an `Error::Backend`, never a panic or a
/// hang.
#[test]
fn lost_device_is_an_error() {
    use lethe::kernel::Bandwidth;
    let mut b = gpu();
    let x = suite::seeded(6, 2, 1, -1.0, 1.0);
    let pair = pollster::block_on(b.prepare(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::Median)).unwrap();
    b.device().0.destroy();
    let e = pollster::block_on(b.prepare(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::Median)).unwrap_err();
    println!("prepare after destroy: {e}");
    assert!(matches!(e, lethe::Error::Backend(_)), "{e:?}");
    let mut out = [0.0];
    let e = pollster::block_on(b.score(&pair, &[0, 1, 2, 3, 4, 5], &mut out)).unwrap_err();
    println!("score after destroy: {e}");
    assert!(matches!(e, lethe::Error::Backend(_)), "{e:?}");
}
