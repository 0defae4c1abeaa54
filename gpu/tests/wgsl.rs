//! Every `.wgsl` file beside the Rust that dispatches it parses and validates with naga (the shader translator wgpu
//! uses), with no GPU: a broken shader fails a plain `cargo test` instead of only on a machine with an adapter.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

fn shaders() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("gpu/src is readable")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_wgsl_file_validates_with_naga() {
    let files = shaders();
    assert_eq!(
        files.len(),
        4,
        "expected gram.wgsl, kernel.wgsl, score.wgsl, select.wgsl: {files:?}"
    );
    for path in files {
        let src = std::fs::read_to_string(&path).expect("shader is readable");
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(&src, &path.display().to_string())));
        // Capabilities::empty(): nothing beyond core WebGPU (no f64, no subgroups), as on the web.
        let mut validator =
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty());
        validator
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(&src, &path.display().to_string())));
        let entries: Vec<&str> = module.entry_points.iter().map(|e| e.name.as_str()).collect();
        println!("{}: entry points {entries:?}", path.display());
    }
}
