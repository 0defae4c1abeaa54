//! Getting a device: adapter choice, limits, and turning every wgpu failure into a [`lethe::Error::Backend`].

use std::sync::{Arc, Mutex};

use lethe::{Error, Result};

use crate::GpuBackend;

/// How [`GpuBackend::request`] picks an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Prefer the discrete GPU (default) or the integrated one.
    pub power_preference: wgpu::PowerPreference,
    /// Only accept a software adapter (lavapipe, SwiftShader): reproducible test runs on machines with a GPU.
    pub force_fallback_adapter: bool,
    /// Native backends to search (default: all compiled in, i.e. Vulkan and GL). `WGPU_BACKEND` (e.g. `vulkan`),
    /// when set, takes precedence. Ignored in browsers, where WebGPU is the only backend.
    pub backends: wgpu::Backends,
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            backends: wgpu::Backends::all(),
        }
    }
}

/// What the shaders need from a device; checked in [`GpuBackend::new`] so a weak device fails with a message
/// instead of a validation error later.
pub(crate) struct Needs;

impl Needs {
    /// Storage buffers bound at once by one pipeline (gram/kernel: x, G, norms, sums; score: Kc, L, perms, partials).
    pub const STORAGE_BUFFERS: u32 = 4;
    /// Invocations per workgroup (all shaders use 256).
    pub const INVOCATIONS: u32 = 256;
    /// Workgroup memory: the score shader's 4 × 256 f32 reduction buffer (gram.wgsl uses as much).
    pub const WORKGROUP_BYTES: u32 = 4096;
}

/// Checks a device's limits against [`Needs`].
pub(crate) fn check_limits(limits: &wgpu::Limits, adapter: &str) -> Result<()> {
    let short = |what: &str, have: u64, need: u64| {
        Err(Error::Backend(format!(
            "the GPU adapter {adapter} allows {what} = {have}, but Lethe's shaders need at least {need}; \
             use the CPU backend on this machine"
        )))
    };
    if limits.max_storage_buffers_per_shader_stage < Needs::STORAGE_BUFFERS {
        return short(
            "max_storage_buffers_per_shader_stage",
            limits.max_storage_buffers_per_shader_stage.into(),
            Needs::STORAGE_BUFFERS.into(),
        );
    }
    if limits.max_compute_invocations_per_workgroup < Needs::INVOCATIONS
        || limits.max_compute_workgroup_size_x < Needs::INVOCATIONS
    {
        return short(
            "max_compute_invocations_per_workgroup",
            limits
                .max_compute_invocations_per_workgroup
                .min(limits.max_compute_workgroup_size_x)
                .into(),
            Needs::INVOCATIONS.into(),
        );
    }
    if limits.max_compute_workgroup_size_y < 16 {
        return short(
            "max_compute_workgroup_size_y",
            limits.max_compute_workgroup_size_y.into(),
            16,
        );
    }
    if limits.max_compute_workgroup_storage_size < Needs::WORKGROUP_BYTES {
        return short(
            "max_compute_workgroup_storage_size",
            limits.max_compute_workgroup_storage_size.into(),
            Needs::WORKGROUP_BYTES.into(),
        );
    }
    if limits.max_compute_workgroups_per_dimension == 0 {
        return short("max_compute_workgroups_per_dimension", 0, 1);
    }
    Ok(())
}

/// The limits requested from `adapter`: `downlevel_defaults()`, lowered to the adapter's values where it has
/// less (the shaders' real needs are checked separately), with the buffer-size limits raised to the adapter's
/// maximum so that larger `n` fit one binding.
pub(crate) fn required_limits(adapter: &wgpu::Limits) -> wgpu::Limits {
    let mut limits = wgpu::Limits::downlevel_defaults().or_worse_values_from(adapter);
    limits.max_storage_buffer_binding_size = adapter.max_storage_buffer_binding_size;
    limits.max_buffer_size = adapter.max_buffer_size;
    limits
}

/// One line describing an adapter, for reports: name, device type, backend, driver. In browsers wgpu fills only
/// the (often empty) description, so the vendor and architecture of WebGPU's `GPUAdapterInfo` are added
/// (Chromium without a GPU: `google swiftshader`).
pub(crate) fn describe(info: &wgpu::AdapterInfo, device: &wgpu::Device) -> String {
    let mut name = info.name.clone();
    #[cfg(target_arch = "wasm32")]
    if let Some(d) = device.as_webgpu() {
        let web = d.adapter_info();
        let parts: Vec<String> = [web.vendor(), web.architecture(), web.device()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        if !parts.is_empty() {
            name = if name.is_empty() {
                parts.join(" ")
            } else {
                format!("{name} [{}]", parts.join(" "))
            };
        }
        if web.is_fallback_adapter() {
            name.push_str(" (fallback adapter)");
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = device;
    if name.is_empty() {
        name = "unnamed adapter".into();
    }
    let mut s = format!("{name} ({:?}, {}", info.device_type, info.backend.to_str());
    let driver = format!("{} {}", info.driver, info.driver_info);
    if !driver.trim().is_empty() {
        s.push_str(", driver ");
        s.push_str(driver.trim());
    }
    s.push(')');
    s
}

/// Failures wgpu reports through callbacks: device loss and errors outside an error scope.
#[derive(Debug, Default)]
pub(crate) struct Health {
    lost: Mutex<Option<String>>,
    errors: Mutex<Vec<String>>,
}

impl Health {
    /// Installs the device-lost and uncaptured-error callbacks. wgpu's default uncaptured-error handler panics;
    /// this one records the message so that the next operation returns it as an error.
    pub(crate) fn watch(device: &wgpu::Device) -> Arc<Self> {
        let health = Arc::new(Self::default());
        let h = Arc::clone(&health);
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut lost) = h.lost.lock() {
                lost.get_or_insert_with(|| {
                    if message.is_empty() {
                        format!("{reason:?}")
                    } else {
                        format!("{reason:?}: {message}")
                    }
                });
            }
        });
        let h = Arc::clone(&health);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut errors) = h.errors.lock() {
                errors.push(e.to_string());
            }
        }));
        health
    }

    /// The first recorded failure, if any, as an error for `what`.
    pub(crate) fn check(&self, what: &str) -> Result<()> {
        if let Some(reason) = self.lost.lock().ok().and_then(|l| l.clone()) {
            return Err(Error::Backend(format!(
                "the GPU device was lost ({reason}) during {what}; request a new GpuBackend or use the CPU backend"
            )));
        }
        let errors = self
            .errors
            .lock()
            .map(|mut e| std::mem::take(&mut *e))
            .unwrap_or_default();
        if let Some(first) = errors.first() {
            return Err(Error::Backend(format!(
                "the GPU reported an error during {what}: {first}"
            )));
        }
        Ok(())
    }
}

/// Validation and out-of-memory error scopes around one operation. Fields drop in declaration order, which pops
/// the inner (validation) scope before the outer one, as wgpu requires.
pub(crate) struct Scopes {
    validation: wgpu::ErrorScopeGuard,
    memory: wgpu::ErrorScopeGuard,
}

impl Scopes {
    pub(crate) fn push(device: &wgpu::Device) -> Self {
        let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        Self { validation, memory }
    }

    /// Pops both scopes; an error caught in either fails `what`.
    pub(crate) async fn finish(self, what: &str) -> Result<()> {
        let Self { validation, memory } = self;
        let v = validation.pop().await;
        let m = memory.pop().await;
        match (m, v) {
            (Some(e), _) => Err(Error::Backend(format!(
                "the GPU ran out of memory during {what} ({e}); try a smaller n or the CPU backend"
            ))),
            (None, Some(e)) => Err(Error::Backend(format!("the GPU rejected {what}: {e}"))),
            (None, None) => Ok(()),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
async fn instance(options: &GpuOptions) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    // WGPU_BACKEND wins over the caller's choice, as everywhere in wgpu.
    desc.backends = options.backends.with_env();
    wgpu::Instance::new(desc)
}

#[cfg(target_arch = "wasm32")]
async fn instance(_: &GpuOptions) -> wgpu::Instance {
    wgpu::util::new_instance_with_webgpu_detection(wgpu::InstanceDescriptor::new_without_display_handle()).await
}

impl GpuBackend {
    /// Picks an adapter, requests a device with the limits described in the crate docs, and builds the backend
    /// on it ([`GpuBackend::new`]).
    ///
    /// Natively the adapter comes from `options.backends` (or the ones named in `WGPU_BACKEND`); in a browser from
    /// WebGPU (`navigator.gpu`, also inside a Web Worker).
    ///
    /// # Errors
    /// [`Error::Backend`] when no adapter is found (no GPU, no driver, a browser without WebGPU), the adapter
    /// cannot run compute shaders or lacks the limits the shaders need, or the device request fails.
    ///
    /// # Examples
    /// ```
    /// # pollster::block_on(async {
    /// use lethe::backend::Backend;
    /// let gpu = lethe_gpu::GpuBackend::request(&Default::default()).await?;
    /// println!("{}", gpu.info().device);
    /// # Ok::<(), lethe::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn request(options: &GpuOptions) -> Result<Self> {
        let instance = instance(options).await;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: options.power_preference,
                force_fallback_adapter: options.force_fallback_adapter,
                ..Default::default()
            })
            .await
            .map_err(|e| {
                Error::Backend(format!(
                    "no GPU adapter found ({e}); natively install a Vulkan driver (e.g. mesa-vulkan-drivers), in a \
                     browser enable WebGPU, or use the CPU backend"
                ))
            })?;
        let info = adapter.get_info();
        let name = format!("{} ({:?}, {})", info.name, info.device_type, info.backend.to_str());
        let caps = adapter.get_downlevel_capabilities();
        if !caps.flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS) {
            return Err(Error::Backend(format!(
                "the GPU adapter {name} cannot run compute shaders; use the CPU backend"
            )));
        }
        let limits = required_limits(&adapter.limits());
        check_limits(&limits, &name)?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("lethe-gpu"),
                required_limits: limits,
                ..Default::default()
            })
            .await
            .map_err(|e| Error::Backend(format!("requesting a device from the GPU adapter {name} failed: {e}")))?;
        Self::new(device, queue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_limits_keep_downlevel_defaults_and_raise_buffer_sizes() {
        let adapter = wgpu::Limits {
            max_storage_buffer_binding_size: 1 << 31,
            max_buffer_size: 1 << 32,
            ..wgpu::Limits::defaults()
        };
        let l = required_limits(&adapter);
        assert_eq!(l.max_storage_buffer_binding_size, 1 << 31);
        assert_eq!(l.max_buffer_size, 1 << 32);
        assert_eq!(l.max_storage_buffers_per_shader_stage, 4);
        assert!(check_limits(&l, "test").is_ok());
    }

    #[test]
    fn weak_adapters_are_errors_naming_the_limit() {
        let weak = wgpu::Limits::downlevel_webgl2_defaults();
        let e = check_limits(&required_limits(&weak), "webgl2").unwrap_err().to_string();
        assert!(
            e.contains("max_storage_buffers_per_shader_stage") && e.contains("webgl2"),
            "{e}"
        );
    }
}
