//! `bounds` and `rouge`.

use super::*;

#[derive(Args, Serialize)]
pub struct BoundArgs {
    /// Significance level (two-sided unless --one-sided)
    #[arg(long, default_value_t = leakage::DEFAULT_ALPHA)]
    alpha: f64,
    /// Spend alpha one-sided for M_bin and M_gen (the paper's form; the default is conbo's two-sided)
    #[arg(long)]
    one_sided: bool,
    /// Points x for M_gen(x) (repeatable)
    #[arg(long = "x")]
    x: Vec<f64>,
    #[arg(long, default_value_t = leakage::DEFAULT_STEPSIZE)]
    stepsize: usize,
    #[arg(long, value_enum, default_value = "conbo")]
    sd_method: SdMethodArg,
    /// Count the mass at 0 in the first cell (perbin and lp)
    #[arg(long)]
    atom_at_zero: bool,
    #[arg(long, default_value_t = leakage::DEFAULT_RHO)]
    rho: f64,
    /// Half-width asked of the sample-size planner
    #[arg(long, default_value_t = 0.05)]
    plan_width: f64,
}

#[derive(Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum SdMethodArg {
    Conbo,
    Perbin,
    Lp,
}

impl BoundArgs {
    fn params(&self) -> LeakageParams {
        let method = match self.sd_method {
            SdMethodArg::Conbo => SdMethod::Conbo,
            SdMethodArg::Perbin => SdMethod::PerBin {
                atom_at_zero: self.atom_at_zero,
            },
            SdMethodArg::Lp => SdMethod::Lp {
                atom_at_zero: self.atom_at_zero,
            },
        };
        let d = LeakageParams::default();
        LeakageParams {
            alpha: self.alpha,
            sidedness: if self.one_sided {
                Sidedness::OneSided
            } else {
                Sidedness::TwoSided
            },
            x: if self.x.is_empty() { d.x } else { self.x.clone() },
            stepsize: self.stepsize,
            sd_method: method,
            rho: self.rho,
            plan_width: self.plan_width,
        }
    }
}

#[derive(Args, Serialize)]
pub struct BoundsArgs {
    /// Scores in [0, 1] (or 0/1 leak flags): a 1-D file
    scores: InputSpecArg,
    #[command(flatten)]
    bounds: BoundArgs,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
pub struct RougeArgs {
    /// Generations, one per line
    #[arg(long)]
    predictions: PathBuf,
    /// Reference file: one line per prediction, or a single line used for all
    #[arg(long, conflicts_with = "reference_text")]
    reference: Option<PathBuf>,
    /// Reference text used for every prediction
    #[arg(long)]
    reference_text: Option<String>,
    /// Porter-stem tokens (rouge-score's use_stemmer=True)
    #[arg(long)]
    stemmer: bool,
    /// Also compute the leakage bounds on the per-generation ROUGE-L F-measures
    #[arg(long)]
    bounds: bool,
    #[command(flatten)]
    bound_args: BoundArgs,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

pub(super) fn bounds_human(r: &leakage::LeakageReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "n = {} scores (alpha = {}, {:?})",
        r.n, r.params.alpha, r.params.sidedness
    );
    if let Some(b) = &r.binary {
        let _ = writeln!(
            s,
            "M_bin: {} leaks of {} → leak probability ≤ {}",
            b.leaks,
            b.n,
            fmt_num(b.upper)
        );
    }
    for (x, u) in r.general.x.iter().zip(&r.general.upper) {
        let _ = writeln!(s, "M_gen({x}): Pr(X > {x}) ≤ {}", fmt_num(*u));
    }
    let _ = writeln!(
        s,
        "E[X] in [{}, {}] (mean {})",
        fmt_num(r.expectation.lower),
        fmt_num(r.expectation.upper),
        fmt_num(r.expectation.mean)
    );
    let _ = writeln!(
        s,
        "SD(X) ≤ {} (sample sd {})",
        fmt_num(r.std.upper),
        fmt_num(r.std.sample_std)
    );
    let _ = writeln!(s, "ED score (mean + {}·sd) = {}", r.ed.rho, fmt_num(r.ed.score));
    let _ = writeln!(s, "samples for a ±{} band: {}", r.params.plan_width, r.plan.n);
    for w in &r.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    s
}

pub(super) fn bounds_cmd(a: BoundsArgs) -> Result<(), CliError> {
    let (scores, rec) = input::load_vector("scores", &spec(&a.scores)?)?;
    let r = leakage::report(&scores, &a.bounds.params())?;
    Report::new("bounds", &a, None, vec![rec], r).emit(a.out.json, bounds_human)
}

#[derive(Serialize)]
pub(super) struct RougeOutput {
    scores: rouge::RougeBatch,
    bounds: Option<leakage::LeakageReport>,
}

pub(super) fn rouge_cmd(a: RougeArgs) -> Result<(), CliError> {
    let (preds, pd) = input::read_lines("predictions", &a.predictions)?;
    let mut records = vec![file_record("predictions", pd, preds.len())];
    let refs: Vec<String> = match (&a.reference, &a.reference_text) {
        (Some(p), None) => {
            let (r, d) = input::read_lines("reference", p)?;
            records.push(file_record("reference", d, r.len()));
            r
        }
        (None, Some(t)) => vec![t.clone()],
        _ => return Err(CliError::usage("give --reference FILE or --reference-text TEXT")),
    };
    let scores = match refs.len() {
        1 => rouge::rouge_l_against(&refs[0], &preds, a.stemmer),
        n if n == preds.len() => rouge::rouge_l_pairs(&refs, &preds, a.stemmer)?,
        n => {
            return Err(CliError::msg(format!(
                "the reference file has {n} lines and the predictions {}: give one reference line per prediction, or one for all",
                preds.len()
            )));
        }
    };
    let bounds = if a.bounds {
        Some(leakage::report(&scores.fmeasure, &a.bound_args.params())?)
    } else {
        None
    };
    let out = RougeOutput { scores, bounds };
    Report::new("rouge", &a, None, records, out).emit(a.out.json, |o| {
        let f = &o.scores.fmeasure;
        let mean = f.iter().sum::<f64>() / f.len() as f64;
        let mut s = format!(
            "ROUGE-L F-measure: mean {} over {} generations (max {})\n",
            fmt_num(mean),
            f.len(),
            fmt_num(f.iter().copied().fold(0.0, f64::max))
        );
        if let Some(b) = &o.bounds {
            s.push_str(&bounds_human(b));
        }
        s
    })
}
