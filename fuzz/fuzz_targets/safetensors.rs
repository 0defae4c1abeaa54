#![no_main]
//! The safetensors reader over arbitrary bytes.

use lethe::data::safetensors;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    lethe_fuzz::exercise(
        "fuzz.safetensors",
        bytes,
        safetensors::load::<f64>,
        safetensors::load::<f32>,
        safetensors::inspect,
    );
});
