//! `lethe batch` and `lethe merge`: a manifest of analyses (one JSON line each), one shard of it per run (a Slurm
//! job array maps its task id onto `--shard`), and the shards' outputs merged into one table. Each cell is computed
//! by the analysis layer's `batch::run_cell` and the table by `batch::merge` — the same functions the Python
//! package maps over Dask — so the table is the same whatever the sharding. See docs/python.md.

use lethe_analysis::batch;
use lethe_analysis::words;

use super::*;

#[derive(Args)]
pub struct BatchArgs {
    /// The manifest: one JSON object a line, {"command", "id"?, "inputs", "rows", "options"} (blank lines and
    /// lines starting with # are skipped but counted)
    manifest: PathBuf,
    /// Run shard I of N (from 0): the cells whose line number modulo N is I, e.g.
    /// $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT [default: 0/1, every cell]
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    shard: String,
    /// Write the cells (JSON lines) to this file instead of stdout
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    threads: Threads,
}

#[derive(Args)]
pub struct MergeArgs {
    /// Outputs of lethe batch (JSON lines of cells), any number, in any order
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Table format: csv or json
    #[arg(long, value_parser = ["csv", "json"], default_value = "csv")]
    format: String,
    /// Write the table to this file instead of stdout
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Writes `text` to `output` or stdout, the layer's marked options and commands said as the command line says them.
fn write(output: Option<&std::path::Path>, text: &str) -> Result<(), CliError> {
    let text = &words::cli(text);
    match output {
        Some(p) => std::fs::write(p, text).map_err(|e| CliError::io(p, &e)),
        None => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(CliError::msg(format!("writing the output: {e}")))
                }
                _ => Ok(()),
            }
        }
    }
}

pub(super) fn batch_cmd(a: BatchArgs) -> Result<(), CliError> {
    let (i, n) = batch::parse_shard(&a.shard).map_err(|e| CliError::usage(format!("--shard: {}", e.message)))?;
    let text = std::fs::read_to_string(&a.manifest).map_err(|e| CliError::io(&a.manifest, &e))?;
    let threads = a.threads.count()?;
    let mut out = String::new();
    let mut failed = 0usize;
    for (number, line) in batch::cells(&text).into_iter().filter(|(k, _)| k % n == i) {
        let cell = batch::run_cell(number, line, threads);
        if let Some(e) = &cell.error {
            failed += 1;
            eprintln!("lethe batch: cell {number} ({}): {}", cell.id, words::cli(e));
        }
        out.push_str(&serde_json::to_string(&cell).map_err(|e| CliError::msg(format!("writing JSON: {e}")))?);
        out.push('\n');
    }
    write(a.output.as_deref(), &out)?;
    if failed > 0 {
        return Err(CliError::msg(format!(
            "{failed} cell(s) failed; the output holds their errors beside the other cells' reports, and lethe merge \
             puts them in the table's error column"
        )));
    }
    Ok(())
}

pub(super) fn merge_cmd(a: MergeArgs) -> Result<(), CliError> {
    let mut cells = Vec::new();
    for p in &a.reports {
        let text = std::fs::read_to_string(p).map_err(|e| CliError::io(p, &e))?;
        cells.extend(batch::read_cells(&p.display().to_string(), &text).map_err(|e| CliError::msg(e.message))?);
    }
    let format = if a.format == "json" {
        batch::Format::Json
    } else {
        batch::Format::Csv
    };
    let table = batch::merge(cells, format).map_err(|e| CliError::msg(e.message))?;
    write(a.output.as_deref(), &table)
}
