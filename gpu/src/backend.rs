//! The backend: a device, its pipelines (built once) and reusable buffers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use lethe::backend::{Backend, BackendInfo, PairStats, Precision, PreparedPair};
use lethe::data::{Columns, Scalar};
use lethe::kernel::Bandwidth;
use lethe::{Error, Result};

use crate::device::{Health, check_limits, describe};
use crate::readback::Slot;

/// Distinguishes backends so that a pair is only scored on the device that holds it.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A pair of kernels resident on one [`GpuBackend`]'s device: `Kc` (centred kernel of `X`) and `L` (kernel of
/// `Y`), `n × n` f32 each.
#[derive(Debug)]
pub struct GpuPair {
    pub(crate) backend: u64,
    pub(crate) n: usize,
    pub(crate) kc: wgpu::Buffer,
    pub(crate) l: wgpu::Buffer,
    pub(crate) stats: PairStats,
}

impl PreparedPair for GpuPair {
    fn stats(&self) -> PairStats {
        self.stats
    }
}

/// Compute pipelines and their bind-group layouts, built once per backend.
#[derive(Debug)]
pub(crate) struct Pipelines {
    pub kernel_layout: wgpu::BindGroupLayout,
    pub score_layout: wgpu::BindGroupLayout,
    pub select_layout: wgpu::BindGroupLayout,
    pub gram: wgpu::ComputePipeline,
    pub diag: wgpu::ComputePipeline,
    pub sqdist: wgpu::ComputePipeline,
    pub rbf_rows: wgpu::ComputePipeline,
    pub grand: wgpu::ComputePipeline,
    pub centre: wgpu::ComputePipeline,
    pub score: wgpu::ComputePipeline,
    pub hist_high: wgpu::ComputePipeline,
    pub hist_low: wgpu::ComputePipeline,
}

/// Buffers reused across `prepare` and `score` calls (grown when a call needs more).
#[derive(Debug)]
pub(crate) struct Scratch {
    /// Uniform parameters of the kernel stages (rewritten before each submission).
    pub kernel_params: Slot,
    /// A column chunk of the centred data.
    pub x: Slot,
    pub norms: Slot,
    pub sums: Slot,
    /// Kernels read back by `read_kernels` (tests, diagnostics).
    pub dist_read: Slot,
    /// Median heuristic: select.wgsl's parameters, histograms and their readback.
    pub select_params: Slot,
    pub hist: Slot,
    pub hist_read: Slot,
    /// Off-diagonal row sums of K and L, read back for the kernel statistics.
    pub stats_read: Slot,
    pub score_params: Slot,
    pub perms: Slot,
    pub partials: Slot,
    pub partials_read: Slot,
}

/// HSIC permutation-test backend on a wgpu device (f32 kernels, f64 totals).
///
/// Create it with [`GpuBackend::request`] (picks an adapter and a device) or [`GpuBackend::new`] (a device you
/// already have), then drive it through [`lethe::backend::Backend`] like the CPU backend, e.g. with
/// [`lethe::hsic::hsic_test_with`]. The examples need an adapter (natively lavapipe will do).
///
/// # Examples
/// ```
/// # pollster::block_on(async {
/// use lethe::{hsic::{hsic_test_with, HsicTestParams}, progress::Silent, Matrix};
/// let mut gpu = lethe_gpu::GpuBackend::request(&Default::default()).await?;
/// println!("{:?}, {} MiB per binding", gpu.adapter_info(), gpu.limits().max_storage_buffer_binding_size >> 20);
/// let x = Matrix::from_rows(&(0..30).map(|i| [i as f64]).collect::<Vec<_>>())?;
/// let y = Matrix::from_rows(&(0..30).map(|i| [(i as f64 * 0.2).sin()]).collect::<Vec<_>>())?;
/// let params = HsicTestParams { permutations: 99, ..Default::default() };
/// let r = hsic_test_with(&mut gpu, &mut Silent, x.view(), y.view(), &params).await?;
/// assert!(r.p_value <= 0.05 && r.backend.precision == lethe::backend::Precision::F32);
/// # Ok::<(), lethe::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct GpuBackend {
    pub(crate) id: u64,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) limits: wgpu::Limits,
    pub(crate) adapter: wgpu::AdapterInfo,
    /// One line naming the adapter (see `device::describe`), for reports and error messages.
    pub(crate) description: String,
    pub(crate) health: Arc<Health>,
    pub(crate) pipes: Pipelines,
    pub(crate) scratch: Scratch,
    /// Test hook: also read the distances back and check the radix-select median against
    /// `lethe::kernel::median_heuristic` on them, bit for bit.
    #[cfg(test)]
    pub(crate) check_median_by_readback: bool,
}

fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl Pipelines {
    fn new(device: &wgpu::Device) -> Self {
        // Stages 1 and 2 share one layout: params, x (read), the n×n matrix, norms / row means, row sums.
        let kernel_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lethe kernel stages"),
            entries: &[
                uniform(0),
                storage(1, true),
                storage(2, false),
                storage(3, false),
                storage(4, false),
            ],
        });
        let score_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lethe score"),
            entries: &[
                uniform(0),
                storage(1, true),
                storage(2, true),
                storage(3, true),
                storage(4, false),
            ],
        });
        let select_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lethe median select"),
            entries: &[uniform(0), storage(1, true), storage(2, false)],
        });
        let kernel_pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lethe kernel stages"),
            bind_group_layouts: &[Some(&kernel_layout)],
            immediate_size: 0,
        });
        let score_pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lethe score"),
            bind_group_layouts: &[Some(&score_layout)],
            immediate_size: 0,
        });
        let select_pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lethe median select"),
            bind_group_layouts: &[Some(&select_layout)],
            immediate_size: 0,
        });
        let module = |label: &'static str, src: &'static str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            })
        };
        let gram_wgsl = module("gram.wgsl", include_str!("gram.wgsl"));
        let kernel_wgsl = module("kernel.wgsl", include_str!("kernel.wgsl"));
        let score_wgsl = module("score.wgsl", include_str!("score.wgsl"));
        let select_wgsl = module("select.wgsl", include_str!("select.wgsl"));
        let pipeline = |layout: &wgpu::PipelineLayout, module: &wgpu::ShaderModule, entry: &'static str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(layout),
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self {
            gram: pipeline(&kernel_pl, &gram_wgsl, "gram"),
            diag: pipeline(&kernel_pl, &gram_wgsl, "diag"),
            sqdist: pipeline(&kernel_pl, &gram_wgsl, "sqdist"),
            rbf_rows: pipeline(&kernel_pl, &kernel_wgsl, "rbf_rows"),
            grand: pipeline(&kernel_pl, &kernel_wgsl, "grand"),
            centre: pipeline(&kernel_pl, &kernel_wgsl, "centre"),
            score: pipeline(&score_pl, &score_wgsl, "score"),
            hist_high: pipeline(&select_pl, &select_wgsl, "hist_high"),
            hist_low: pipeline(&select_pl, &select_wgsl, "hist_low"),
            kernel_layout,
            score_layout,
            select_layout,
        }
    }
}

impl GpuBackend {
    /// Builds the backend on a device you already have: checks its limits against what the shaders need and
    /// compiles the pipelines.
    ///
    /// The backend installs the device's device-lost and uncaptured-error callbacks (replacing any you set): wgpu's
    /// default handler panics, and this backend reports every GPU failure as an [`Error::Backend`] instead.
    ///
    /// # Errors
    /// [`Error::Backend`] when the device lacks a limit the shaders need (four storage buffers per stage, 256
    /// invocations per workgroup, 4 KiB of workgroup memory) or a pipeline fails to build.
    ///
    /// # Examples
    /// ```
    /// # pollster::block_on(async {
    /// use lethe_gpu::{wgpu, GpuBackend};
    /// let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    /// let adapter = instance.request_adapter(&Default::default()).await.expect("an adapter");
    /// let (device, queue) = adapter.request_device(&Default::default()).await.expect("a device");
    /// let gpu = GpuBackend::new(device, queue)?;
    /// # Ok::<(), lethe::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new(device: wgpu::Device, queue: wgpu::Queue) -> Result<Self> {
        let adapter = device.adapter_info();
        let description = describe(&adapter, &device);
        let limits = device.limits();
        check_limits(&limits, &description)?;
        let health = Health::watch(&device);
        let pipes = Pipelines::new(&device);
        health.check("building the GPU pipelines")?;
        use wgpu::BufferUsages as U;
        let scratch = Scratch {
            kernel_params: Slot::new("lethe kernel params", U::UNIFORM | U::COPY_DST),
            x: Slot::new("lethe x chunk", U::STORAGE | U::COPY_DST),
            norms: Slot::new("lethe norms", U::STORAGE),
            sums: Slot::new("lethe row sums", U::STORAGE | U::COPY_SRC),
            dist_read: Slot::new("lethe kernels readback", U::MAP_READ | U::COPY_DST),
            select_params: Slot::new("lethe select params", U::UNIFORM | U::COPY_DST),
            hist: Slot::new("lethe distance histogram", U::STORAGE | U::COPY_SRC | U::COPY_DST),
            hist_read: Slot::new("lethe histogram readback", U::MAP_READ | U::COPY_DST),
            stats_read: Slot::new("lethe stats readback", U::MAP_READ | U::COPY_DST),
            score_params: Slot::new("lethe score params", U::UNIFORM | U::COPY_DST),
            perms: Slot::new("lethe permutations", U::STORAGE | U::COPY_DST),
            partials: Slot::new("lethe partial sums", U::STORAGE | U::COPY_SRC),
            partials_read: Slot::new("lethe partial sums readback", U::MAP_READ | U::COPY_DST),
        };
        Ok(Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            device,
            queue,
            limits,
            adapter,
            description,
            health,
            pipes,
            scratch,
            #[cfg(test)]
            check_median_by_readback: false,
        })
    }

    /// The adapter the device belongs to (name, backend, device type: a software fallback shows here).
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.adapter
    }

    /// The limits the device was created with.
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// The device and queue, e.g. to share them with other work.
    pub fn device(&self) -> (&wgpu::Device, &wgpu::Queue) {
        (&self.device, &self.queue)
    }

    /// Largest bytes one storage binding (and buffer) may hold on this device.
    pub(crate) fn max_binding(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// The largest `n` whose `n × n` f32 kernel fits one storage binding on this device (5792 at WebGPU's default
    /// 128 MiB binding limit), capped where the shaders' 32-bit indices would overflow.
    ///
    /// # Examples
    /// ```
    /// # pollster::block_on(async {
    /// let gpu = lethe_gpu::GpuBackend::request(&Default::default()).await?;
    /// let bytes = gpu.limits().max_storage_buffer_binding_size.min(gpu.limits().max_buffer_size);
    /// assert!((gpu.max_n() as u64).pow(2) * 4 <= bytes);
    /// # Ok::<(), lethe::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn max_n(&self) -> usize {
        let entries = self.max_binding() / 4;
        let n = (entries as f64).sqrt() as u64;
        // Guard the float square root against rounding either way.
        let n = (n.saturating_sub(2)..=n + 2)
            .rev()
            .find(|m| m * m <= entries)
            .unwrap_or(0);
        n.min(u64::from(u16::MAX)) as usize
    }

    /// Fails with a message naming the largest supported `n` when `n × n` f32 does not fit one binding.
    pub(crate) fn check_n(&self, n: usize) -> Result<()> {
        let max = self.max_n();
        if n > max {
            return Err(Error::Backend(format!(
                "n = {n} rows need {:.0} MiB per n×n f32 kernel, but {} binds at most {} MiB per buffer, so n ≤ {max} \
                 on this device; use a smaller subset or the CPU backend",
                (n as f64) * (n as f64) * 4.0 / (1u64 << 20) as f64,
                self.description,
                self.max_binding() >> 20,
            )));
        }
        Ok(())
    }

    /// A device loss or uncaptured GPU error recorded meanwhile explains a failure better than its symptom (a
    /// failed mapping, say): prefer it.
    pub(crate) fn explain(&self, e: Error, what: &str) -> Error {
        match (&e, self.health.check(what)) {
            (Error::Backend(_), Err(cause)) => cause,
            _ => e,
        }
    }

    /// Fails if a pair belongs to another backend (its buffers live on another device).
    pub(crate) fn check_pair(&self, pair: &GpuPair) -> Result<()> {
        if pair.backend != self.id {
            return Err(Error::Backend(
                "this pair was prepared on a different GpuBackend; prepare it on the backend that scores it".into(),
            ));
        }
        Ok(())
    }
}

impl Backend for GpuBackend {
    type Pair = GpuPair;

    /// `name` is the wgpu backend (`vulkan`, `gl`, `webgpu`, ...), `device` the adapter's name, type and driver.
    fn info(&self) -> BackendInfo {
        BackendInfo {
            name: self.adapter.backend.to_str().into(),
            precision: Precision::F32,
            device: self.description.clone(),
        }
    }

    /// A whole SDE run (200 shuffles) per round trip: the readback, not the arithmetic, dominates small batches.
    fn preferred_batch(&self) -> usize {
        256
    }

    /// Builds `Kc` of `x` and `L` of `y` on the device (see the crate docs for the stages).
    ///
    /// # Errors
    /// Empty, single-row or non-finite inputs, differing row counts, a bad fixed bandwidth, `n` past
    /// [`GpuBackend::max_n`], and GPU failures ([`Error::Backend`]).
    async fn prepare_columns<S: Scalar>(
        &mut self,
        x: &mut dyn Columns<S>,
        y: &mut dyn Columns<S>,
        bw_x: Bandwidth,
        bw_y: Bandwidth,
    ) -> Result<GpuPair> {
        let r = crate::kernels::prepare(self, x, y, bw_x, bw_y).await;
        r.map_err(|e| self.explain(e, "preparing kernels"))
    }

    /// Scores `perms.len() / n` permutations of `pair`'s rows, writing `HSIC(X, Y[p])` for each into `out`.
    ///
    /// # Errors
    /// A buffer that is not `out.len()` whole permutations of `0..n` ([`Error::ShapeMismatch`],
    /// [`Error::IndexOutOfRange`]), a pair from another backend, and GPU failures ([`Error::Backend`]).
    async fn score(&mut self, pair: &GpuPair, perms: &[u32], out: &mut [f64]) -> Result<()> {
        let r = crate::score::score(self, pair, perms, out).await;
        r.map_err(|e| self.explain(e, "scoring permutations"))
    }
}
