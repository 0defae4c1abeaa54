//! The pure parts of the `lethe` command line, as a library: the fuzz targets (`fuzz/`) and the tests reach them
//! here without running the binary. The commands themselves live in the binary (`src/main.rs`).

pub mod spec;
