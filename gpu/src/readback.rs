//! Reusable buffers and reading results back.
//!
//! Readback is `map_async` + a oneshot channel + `poll` + `await`: natively `poll` blocks until the GPU is done
//! and runs the callback, so the channel is already filled when awaited; on the web `poll` does nothing and the
//! await yields to the browser until the mapping promise resolves. The same code serves both.

use lethe::{Error, Result};

/// A buffer that is reused across calls and grown when a call needs more room.
#[derive(Debug)]
pub(crate) struct Slot {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: Option<wgpu::Buffer>,
}

impl Slot {
    pub(crate) fn new(label: &'static str, usage: wgpu::BufferUsages) -> Self {
        Self {
            label,
            usage,
            buffer: None,
        }
    }

    /// A buffer of at least `bytes` bytes (a multiple of 4, > 0: callers pass sizes of f32/u32 arrays).
    pub(crate) fn get(&mut self, device: &wgpu::Device, bytes: u64) -> &wgpu::Buffer {
        debug_assert!(bytes > 0 && bytes.is_multiple_of(4));
        if self.buffer.as_ref().is_some_and(|b| b.size() < bytes) {
            self.buffer = None;
        }
        self.buffer.get_or_insert_with(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size: bytes,
                usage: self.usage,
                mapped_at_creation: false,
            })
        })
    }
}

/// The first `count` values (f32 or u32) of a `MAP_READ` buffer, once the GPU has written them.
pub(crate) async fn read<T: bytemuck::Pod>(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    count: usize,
) -> Result<Vec<T>> {
    let bytes = (count * std::mem::size_of::<T>()) as u64;
    let slice = buffer.slice(..bytes);
    let (tx, rx) = futures_channel::oneshot::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        // The receiver only goes away if the caller's future was dropped; then nobody needs the result.
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Backend(format!("waiting for the GPU failed: {e}")))?;
    rx.await
        .map_err(|_| Error::Backend("the GPU dropped a readback before it completed (device lost?)".into()))?
        .map_err(|e| Error::Backend(format!("reading results back from the GPU failed: {e}")))?;
    let out = {
        let view = slice
            .get_mapped_range()
            .map_err(|e| Error::Backend(format!("reading results back from the GPU failed: {e}")))?;
        bytemuck::pod_collect_to_vec::<u8, T>(&view)
    };
    buffer.unmap();
    Ok(out)
}

/// A 1-D count of workgroups laid out on a grid whose dimensions stay within `max_per_dim`.
pub(crate) fn grid(groups: u32, max_per_dim: u32) -> (u32, u32) {
    let max = max_per_dim.max(1);
    if groups <= max {
        (groups.max(1), 1)
    } else {
        (max, groups.div_ceil(max))
    }
}

#[cfg(test)]
mod tests {
    use super::grid;

    #[test]
    fn grids_cover_the_count_within_the_limit() {
        assert_eq!(grid(0, 65535), (1, 1));
        assert_eq!(grid(65535, 65535), (65535, 1));
        assert_eq!(grid(65536, 65535), (65535, 2));
        let (x, y) = grid(130_000, 65535);
        assert!(x * y >= 130_000 && x <= 65535 && y <= 65535);
    }
}
