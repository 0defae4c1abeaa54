use super::*;

#[test]
fn attribute_maps_core_names_to_page_roles() {
    let e = lethe::Error::TooSmall {
        input: "target[0]".into(),
        got: 3,
        need: 4,
        unit: "rows",
        procedure: "x",
    };
    assert_eq!(attribute(e, &SDE_ROLES).input.as_deref(), Some("target"));
    let e = lethe::Error::IndexOutOfRange {
        input: "unlearned (forget rows)".into(),
        index: 9,
        len: 3,
    };
    assert_eq!(attribute(e, &RULER_ROLES).input.as_deref(), Some("forget"));
    let e = lethe::Error::Empty {
        input: "oracle_retain".into(),
        fix: String::new(),
    };
    assert_eq!(attribute(e, &RULER_ROLES).input.as_deref(), Some("oracle"));
    let e = lethe::Error::param("sigma", "x", "y");
    assert_eq!(attribute(e, &SDE_ROLES).input, None);
}

/// Drives a future that never waits (the CPU backend's), as the core's `backend::now`.
fn now<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("the CPU backend never waits"),
    }
}

fn demo_workspace() -> Workspace {
    let mut ws = Workspace::new();
    let act = include_bytes!("../../../examples/data/digits/act_unlearned.npy");
    ws.add(1, "act_unlearned.npy", Arc::new(act.to_vec()));
    let forget = include_bytes!("../../../examples/data/digits/forget.txt");
    ws.add(2, "forget.txt", Arc::new(forget.to_vec()));
    ws
}

fn text(t: &str) -> Rows {
    Rows::Text { text: t.into() }
}

/// Rows `t` (a range text) of the demo workspace's one source.
fn demo_rows(t: &str) -> InputRef {
    InputRef {
        source: 1,
        tensor: None,
        rows: text(t),
    }
}

#[test]
fn a_pooled_run_assembles_the_single_run_report_bit_for_bit() {
    let mut ws = demo_workspace();
    let r = demo_rows;
    let req = SdeRequest {
        in_training: Some(r("144..244")),
        out_of_training: Some(r("544..644")),
        draw_in: Some(r("244..544")),
        draw_out: Some(r("644..744")),
        draw: 4,
        size: Some(100),
        shuffles: 30,
        seed: 9,
        split: "random".into(),
        baselines: true,
        ..SdeRequest::default()
    };
    let single = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
    for workers in [1, 2, 3, 4, 20] {
        let plan = prepare_sde(&mut ws, &req).unwrap().plan(workers);
        assert_eq!(plan.len(), workers.min(10));
        assert_eq!(
            plan.concat(),
            (0..10).collect::<Vec<u64>>(),
            "every subset once, in order"
        );
        let mut parts = Vec::new();
        for subsets in &plan {
            let job = prepare_sde(&mut ws, &req).unwrap();
            let mut cpu = CpuBackend::new(Precision::F64);
            let part = now(job.run_part_on(&mut cpu, &mut lethe::progress::Silent, subsets)).unwrap();
            assert!(part.complete);
            // Parts cross workers as JavaScript values; serde_json is a stand-in that also reads them back.
            let back: SdePart = serde_json::from_str(&serde_json::to_string(&part).unwrap()).unwrap();
            parts.extend(back.subsets);
        }
        let info = CpuBackend::new(Precision::F64).info();
        let pooled = prepare_sde(&mut ws, &req).unwrap().assemble(parts, info).unwrap();
        assert_eq!(pooled.result, single.result, "{workers} workers");
        assert_eq!(pooled.histograms, single.histograms);
    }
}

/// Stops at its second checkpoint.
struct StopSoon(usize);
impl Monitor for StopSoon {
    async fn checkpoint(&mut self, _: &Progress) -> bool {
        self.0 += 1;
        self.0 < 2
    }
}

#[test]
fn a_stopped_part_keeps_what_it_finished_and_the_report_is_partial() {
    let mut ws = demo_workspace();
    let r = demo_rows;
    let req = SdeRequest {
        in_training: Some(r("144..244")),
        out_of_training: Some(r("544..644")),
        draw_from: Some(r("0..144")),
        draw: 6,
        size: Some(100),
        shuffles: 20,
        ..SdeRequest::default()
    };
    let plan = prepare_sde(&mut ws, &req).unwrap().plan(2);
    let mut cpu = CpuBackend::new(Precision::F64);
    let first = now(prepare_sde(&mut ws, &req)
        .unwrap()
        .run_part_on(&mut cpu, &mut lethe::progress::Silent, &plan[0]))
    .unwrap();
    let second = now(prepare_sde(&mut ws, &req)
        .unwrap()
        .run_part_on(&mut cpu, &mut StopSoon(0), &plan[1]))
    .unwrap();
    assert!(!second.complete && second.subsets.len() < plan[1].len());
    let parts: Vec<PartSubset> = first.subsets.into_iter().chain(second.subsets).collect();
    let out = prepare_sde(&mut ws, &req).unwrap().assemble(parts, cpu.info()).unwrap();
    assert!(!out.result.complete);
    assert!(out.result.targets.len() < 6);
}

/// A pooled run stopped while one worker was still inside the in-training reference and another had finished the
/// out-of-training one: the report cannot hold the finished reference, but its histogram is still drawn.
#[test]
fn a_finished_out_of_training_reference_is_plotted_when_the_in_training_one_stopped() {
    let mut ws = demo_workspace();
    let r = demo_rows;
    let req = SdeRequest {
        in_training: Some(r("144..244")),
        out_of_training: Some(r("544..644")),
        target: vec![r("0..100")],
        shuffles: 3000,
        ..SdeRequest::default()
    };
    let mut cpu = CpuBackend::new(Precision::F64);
    // Subset 0 (in-training) stopped after its first checkpoint; subset 1 (out-of-training) done by another worker.
    let it = now(prepare_sde(&mut ws, &req)
        .unwrap()
        .run_part_on(&mut cpu, &mut StopAt(0.1), &[0]))
    .unwrap();
    assert!(!it.complete && !it.subsets[0].distribution.values.is_empty());
    let oot = now(prepare_sde(&mut ws, &req)
        .unwrap()
        .run_part_on(&mut cpu, &mut lethe::progress::Silent, &[1]))
    .unwrap();
    assert!(oot.complete);
    let parts: Vec<PartSubset> = it.subsets.into_iter().chain(oot.subsets).collect();
    let out = prepare_sde(&mut ws, &req).unwrap().assemble(parts, cpu.info()).unwrap();
    assert!(!out.result.complete);
    assert!(out.result.out_of_training_reference.is_none());
    let h = out.histograms.expect("histograms of what was computed");
    let oot_series: Vec<_> = h.series.iter().filter(|s| s.role == "oot").collect();
    assert_eq!(
        oot_series.len(),
        1,
        "{:?}",
        h.series.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    assert_eq!(oot_series[0].name, "out-of-training reference");
    assert_eq!(oot_series[0].n, 3000);
}

/// Stops the first time progress passes `at` (a fraction of the whole run).
struct StopAt(f64);
impl Monitor for StopAt {
    async fn checkpoint(&mut self, p: &Progress) -> bool {
        p.fraction < self.0
    }
}

/// Issue 24: a run stopped early calls no target, so it computes no placebo check (80 exact means, seconds on a
/// large file, which delayed the partial result after a Cancel); the complete run of the same request has one.
#[test]
fn a_stopped_run_computes_no_placebo_check() {
    let mut ws = demo_workspace();
    let r = demo_rows;
    let req = SdeRequest {
        in_training: Some(r("144..544")),
        out_of_training: Some(r("544..744")),
        target: vec![r("0..40"), r("40..80")],
        shuffles: 20,
        seed: 3,
        bins: 20,
        equal_size: true,
        ..SdeRequest::default()
    };
    let full = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
    assert!(
        full.result.complete && full.result.placebos.is_some(),
        "a complete run has its placebo check"
    );
    // Stopped at the checkpoint after the first target: the references and that target are finished.
    let mut stop = |p: &Progress| !p.phase.starts_with("target[0] (");
    let stopped = now(prepare_sde(&mut ws, &req).unwrap().run(&mut stop)).unwrap();
    assert!(
        !stopped.result.complete && stopped.result.targets.len() == 1,
        "stopped after one target: {} {}",
        stopped.result.complete,
        stopped.result.targets.len()
    );
    assert!(stopped.result.placebos.is_none());
}

/// The request of the placebo check's tests: two targets whose complete run has its placebo check.
fn placebo_request() -> SdeRequest {
    let r = demo_rows;
    SdeRequest {
        in_training: Some(r("144..544")),
        out_of_training: Some(r("544..744")),
        target: vec![r("0..40"), r("40..80")],
        shuffles: 20,
        seed: 3,
        bins: 20,
        equal_size: true,
        ..SdeRequest::default()
    }
}

/// Issue 24: a Cancel during the placebo check (seconds on a large file after the paper rule's subsets) ends the
/// run at the check's first progress report — the page's run, a pooled run's assembly, the threaded run — with the
/// paper rule's complete result, no placebo check, no target called, and a warning and headline saying why.
#[test]
fn a_run_stopped_in_its_placebo_check_calls_no_target_and_says_why() {
    let mut ws = demo_workspace();
    let req = placebo_request();
    let full = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
    assert!(full.result.complete && full.result.placebos.is_some());
    let check = |out: &SdeOutput, reports: usize, how: &str| {
        assert_eq!(reports, 1, "{how}: stopped at the check's first progress report");
        assert!(out.result.complete, "{how}: the paper rule's result is complete");
        assert_eq!(out.result.targets, full.result.targets, "{how}");
        assert!(out.result.placebos.is_none(), "{how}");
        assert!(out.partial.is_none(), "{how}");
        assert!(
            out.calls.len() == 2 && out.calls.iter().all(|c| c.call == crate::Headline::INCONCLUSIVE),
            "{how}: {:?}",
            out.calls
        );
        let w = out.warnings.iter().find(|w| w.code == "placebo_stopped");
        assert!(
            w.is_some_and(|w| w.message.contains("stopped during the placebo check")),
            "{how}: {:?}",
            out.warnings
        );
        assert_eq!(out.headline.call, crate::Headline::INCONCLUSIVE, "{how}");
        assert!(
            out.headline.text.contains("stopped")
                && out
                    .headline
                    .reason
                    .as_deref()
                    .is_some_and(|r| r.contains("placebo check")),
            "{how}: {:?}",
            out.headline
        );
    };
    // Stops at the first report of the placebo check, counting them.
    let mut reports = 0;
    let mut stop = |p: &Progress| {
        let inside = p.phase.starts_with("placebo check");
        reports += usize::from(inside);
        !inside
    };
    let out = now(prepare_sde(&mut ws, &req).unwrap().run(&mut stop)).unwrap();
    check(&out, reports, "one worker");
    for threads in [1, 2] {
        let mut reports = 0;
        let out = prepare_sde(&mut ws, &req)
            .unwrap()
            .run_threaded_with(threads, &mut |p: &Progress| {
                let inside = p.phase.starts_with("placebo check");
                reports += usize::from(inside);
                !inside
            })
            .unwrap();
        check(&out, reports, &format!("{threads} threads"));
    }
    // A pooled run: the parts finished, the check stopped while the report is assembled.
    let mut parts = Vec::new();
    for subsets in prepare_sde(&mut ws, &req).unwrap().plan(2) {
        let mut cpu = CpuBackend::new(Precision::F64);
        let part =
            now(prepare_sde(&mut ws, &req)
                .unwrap()
                .run_part_on(&mut cpu, &mut lethe::progress::Silent, &subsets))
            .unwrap();
        parts.extend(part.subsets);
    }
    let mut reports = 0;
    let mut stop = |p: &Progress| {
        let inside = p.phase.starts_with("placebo check");
        reports += usize::from(inside);
        !inside
    };
    let info = CpuBackend::new(Precision::F64).info();
    let out = now(prepare_sde(&mut ws, &req)
        .unwrap()
        .assemble_with(parts, info, &mut stop))
    .unwrap();
    check(&out, reports, "pooled");
}

/// Issue 24: the bar moves during the placebo check, one step per exact mean, and never goes back; it is full at
/// the end (the page's run and the threaded one).
#[test]
fn progress_moves_on_through_the_placebo_check() {
    let mut ws = demo_workspace();
    let req = placebo_request();
    let check = |seen: &[(f64, bool)], how: &str| {
        assert!(
            seen.windows(2).all(|w| w[0].0 <= w[1].0),
            "{how}: progress went back: {seen:?}"
        );
        let inside: Vec<f64> = seen.iter().filter(|s| s.1).map(|s| s.0).collect();
        assert_eq!(
            inside.len(),
            81,
            "{how}: a report before each of the 80 exact means and one at the end"
        );
        assert!(inside.windows(2).all(|w| w[0] < w[1]), "{how}: {inside:?}");
        let before = seen.iter().filter(|s| !s.1).map(|s| s.0).fold(0.0, f64::max);
        assert!(
            before < 1.0 && before <= inside[0],
            "{how}: the shuffles end at {before}"
        );
        assert_eq!(*inside.last().unwrap(), 1.0, "{how}");
    };
    let mut seen = Vec::new();
    let mut record = |p: &Progress| {
        seen.push((p.fraction, p.phase.starts_with("placebo check")));
        true
    };
    let out = now(prepare_sde(&mut ws, &req).unwrap().run(&mut record)).unwrap();
    assert!(out.result.placebos.is_some());
    check(&seen, "one worker");
    let mut seen = Vec::new();
    prepare_sde(&mut ws, &req)
        .unwrap()
        .run_threaded_with(2, &mut |p: &Progress| {
            seen.push((p.fraction, p.phase.starts_with("placebo check")));
            true
        })
        .unwrap();
    check(&seen, "2 threads");
}

fn one_target_request(shuffles: usize) -> SdeRequest {
    let r = demo_rows;
    SdeRequest {
        in_training: Some(r("144..184")),
        out_of_training: Some(r("544..584")),
        target: vec![r("0..40")],
        shuffles,
        seed: 3,
        bins: 20,
        ..SdeRequest::default()
    }
}

#[test]
fn a_single_worker_run_is_the_cores_sde_report_bit_for_bit() {
    let mut ws = demo_workspace();
    let req = SdeRequest {
        baselines: true,
        split: "random".into(),
        ..one_target_request(60)
    };
    let out = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
    let mut m = |t: &str| {
        ws.load(
            "x",
            &InputRef {
                source: 1,
                tensor: None,
                rows: text(t),
            },
        )
        .unwrap()
        .matrix
        .clone()
    };
    let (it, oot, target) = (m("144..184"), m("544..584"), m("0..40"));
    let params = SdeParams {
        shuffles: 60,
        seed: 3,
        bins: 20,
        split: Split::Random,
        baselines: true,
        ..SdeParams::default()
    };
    let direct = sde::sde(
        it.view(),
        oot.view(),
        &[sde::Target {
            name: "target[0]",
            data: target.view(),
            label: None,
        }],
        &params,
    )
    .unwrap();
    assert_eq!(
        SdeReport {
            placebos: None,
            ..out.result.clone()
        },
        direct
    );
    assert!(out.result.complete && out.partial.is_none());
}

#[test]
fn a_run_stopped_inside_its_target_keeps_the_shuffles_so_far_and_the_partial_verdict() {
    let mut ws = demo_workspace();
    let full = now(prepare_sde(&mut ws, &one_target_request(3000))
        .unwrap()
        .run(&mut lethe::progress::Silent))
    .unwrap();
    // Three subsets of 40 rows: the target is the last third of the progress.
    let out = now(prepare_sde(&mut ws, &one_target_request(3000))
        .unwrap()
        .run(&mut StopAt(0.8)))
    .unwrap();
    assert!(!out.result.complete);
    assert!(
        out.result.targets.is_empty(),
        "the unfinished target is not in the report"
    );
    let p = out.partial.as_ref().expect("a partial summary");
    assert_eq!(p.subsets.len(), 3);
    assert!(p.subsets[0].complete && p.subsets[1].complete && !p.subsets[2].complete);
    let t = &p.targets[0];
    assert!(t.shuffles_done > 0 && t.shuffles_done < 3000, "{}", t.shuffles_done);
    assert_eq!(p.subsets[2].shuffles_done, t.shuffles_done);
    // The shuffles done are a prefix of the full run's stream, and the exact moments are the full run's.
    let all = &full.result.targets[0].distribution;
    let so_far = &all.values[..t.shuffles_done];
    assert_eq!(p.subsets[2].moments, all.moments);
    let it = &out.result.in_training_reference.values;
    let oot = &out.result.out_of_training_reference.as_ref().unwrap().values;
    assert_eq!(t.verdict, sde::paper_verdict(so_far, it, oot, 20).unwrap());
    let mw = lethe::mann_whitney::mann_whitney_u(
        so_far,
        oot,
        lethe::Alternative::Greater,
        lethe::PValueMethod::Auto,
        true,
    )
    .unwrap();
    assert_eq!(t.mann_whitney_target_vs_oot, mw);
    assert_eq!(p.reference_separation, out.result.reference_separation);
    assert_eq!(p.p_value_interval, None);
    assert_eq!(p.unfinished_targets[0].values, so_far);
    let h = out.histograms.as_ref().unwrap();
    let last = h.series.last().unwrap();
    assert_eq!(
        (last.name.as_str(), last.role.as_str(), last.n),
        ("target[0] (partial)", "target", t.shuffles_done)
    );
}

#[test]
fn a_run_stopped_inside_a_reference_reports_what_it_did() {
    let mut ws = demo_workspace();
    let out = now(prepare_sde(&mut ws, &one_target_request(3000))
        .unwrap()
        .run(&mut StopAt(0.1)))
    .unwrap();
    let p = out.partial.unwrap();
    assert!(!p.subsets[0].complete && p.subsets[0].shuffles_done > 0);
    assert_eq!((p.subsets[1].shuffles_done, p.subsets[2].shuffles_done), (0, 0));
    assert!(
        p.subsets[1].moments.mean.is_nan(),
        "a subset not started has no moments yet"
    );
    assert!(p.targets.is_empty() && p.reference_separation.is_none());
}

#[test]
fn ruler_records_the_index_files_of_its_rows() {
    let mut ws = demo_workspace();
    let req = RulerRequest {
        runs: vec![RulerRun {
            unlearned: InputRef {
                source: 1,
                tensor: None,
                rows: Rows::All,
            },
            oracle: None,
            original: None,
        }],
        forget: Rows::File { source: 2 },
        retain: text("144..544"),
        ..RulerRequest::default()
    };
    let out = ruler(&mut ws, &req).unwrap();
    assert_eq!(out.inputs.len(), 2, "the model file and the forget index file");
    let f = &out.inputs[1];
    assert_eq!(
        (f.role.as_str(), f.path.as_str(), f.rows_used),
        ("forget", "forget.txt", 144)
    );
    assert_eq!(
        f.sha256,
        "d87de47a33cd2753cda6fe8d4051c360487fa4f036bab2ac000113a7c25df783"
    );
}

#[test]
fn pasted_generations_are_recorded_with_the_digest_of_the_text() {
    let mut ws = Workspace::new();
    let req = BoundsRequest {
        predictions: Some(TextInput::Text {
            text: "the code is amber\nno idea\n".into(),
        }),
        reference: Some(TextInput::Text {
            text: "the code is amber".into(),
        }),
        ..BoundsRequest::default()
    };
    let out = bounds(&mut ws, &req).unwrap();
    let p = &out.inputs[0];
    assert_eq!(
        (p.role.as_str(), p.path.as_str(), p.shape.as_slice()),
        ("predictions", PASTED, &[2u64][..])
    );
    assert_eq!(
        p.sha256,
        "f8f696c4edb0a2d1817b080b8d79149d54081b57fc925b45815008f27ed0281a"
    );
    assert_eq!(out.inputs[1].role, "reference");
}

#[test]
fn references_drawn_from_too_few_rows_are_flagged() {
    let mut ws = demo_workspace();
    let req = |it: &str, oot: &str| CalibrateRequest {
        data: Some(DataRef {
            source: 1,
            tensor: None,
            rows: Rows::All,
        }),
        it_pool: Some(text(it)),
        oot_pool: Some(text(oot)),
        target: vec![text("0..100")],
        refs: 5,
        paper_shuffles: 0,
        ..CalibrateRequest::default()
    };
    // The page's defaults without pools: the references' own 100 rows, |S| = 100.
    let out = now(prepare_calibrate(&mut ws, &req("144..244", "544..694"))
        .unwrap()
        .run(&mut lethe::progress::Silent))
    .unwrap();
    assert_eq!(out.thin_pools.len(), 2);
    let (a, b) = (&out.thin_pools[0], &out.thin_pools[1]);
    assert_eq!((a.class, a.rows, a.shared), ("in_training", 100, 100));
    assert!(a.message.contains("all the same 100 rows"), "{}", a.message);
    assert_eq!((b.class, b.rows, b.shared), ("out_of_training", 150, 50));
    assert!(b.message.contains("share at least 50 rows"), "{}", b.message);
    let ok = now(prepare_calibrate(&mut ws, &req("144..544", "544..744"))
        .unwrap()
        .run(&mut lethe::progress::Silent))
    .unwrap();
    assert!(ok.thin_pools.is_empty());
    // One reference per class is the nearest-mean rule: nothing to flag.
    let one = CalibrateRequest {
        refs: 1,
        ..req("144..244", "544..644")
    };
    assert!(
        now(prepare_calibrate(&mut ws, &one)
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap()
        .thin_pools
        .is_empty()
    );
}

#[test]
fn calibrate_resolves_rows_as_the_cli_and_returns_the_cores_report() {
    let mut ws = demo_workspace();
    let req = CalibrateRequest {
        data: Some(DataRef {
            source: 1,
            tensor: None,
            rows: Rows::All,
        }),
        it_pool: Some(text("144..544")),
        oot_pool: Some(Rows::All),
        target: vec![text("0..100")],
        draw_in: Some(Rows::File { source: 2 }),
        draw: 3,
        refs: 4,
        paper_shuffles: 0,
        seed: 5,
        ..CalibrateRequest::default()
    };
    let job = prepare_calibrate(&mut ws, &req).unwrap();
    let p = &job.parameters;
    assert_eq!(
        (p.data.as_str(), p.it_pool.as_str(), p.oot_pool.as_str()),
        ("act_unlearned.npy", "144..544", "0..744")
    );
    assert_eq!(
        (p.target.clone(), p.draw_in.as_deref(), p.size),
        (vec!["0..100".to_string()], Some("forget.txt"), 100)
    );
    let out = now(job.run(&mut lethe::progress::Silent)).unwrap();
    // The same call the CLI makes (calibrate_cmd), on the same rows.
    let data = lethe::data::load_bytes::<f64>(
        "act_unlearned.npy",
        include_bytes!("../../../examples/data/digits/act_unlearned.npy"),
        &Default::default(),
    )
    .unwrap()
    .matrix;
    let mut targets = vec![TargetRows {
        name: "target[0]".into(),
        rows: (0..100).collect(),
        label: None,
    }];
    for (k, pos) in sde::draw_targets(Some(true), 144, 3, 100, 5)
        .unwrap()
        .into_iter()
        .enumerate()
    {
        targets.push(TargetRows {
            name: format!("draw-in[{k}]"),
            rows: pos,
            label: Some(true),
        });
    }
    let params = CalibratedParams {
        subset_size: 100,
        references: 4,
        paper_shuffles: 0,
        seed: 5,
        margin: DEFAULT_MARGIN,
        ..Default::default()
    };
    let pool: Vec<usize> = (144..544).collect();
    let all: Vec<usize> = (0..744).collect();
    let mut direct = lethe::sde::calibrated::calibrated(data.view(), &pool, &all, &targets, &params).unwrap();
    // The core's report, with the layer's calls in place of the midpoint calls (with 4 references per class the
    // false-call rate cannot be measured: no call) and the calibrated rule's rates over them.
    for t in &mut direct.targets {
        t.calibrated = lethe::sde::calibrated::Call::Inconclusive;
    }
    direct.summaries[0] =
        lethe::sde::calibrated::summary("calibrated", &direct.targets, |t| t.calibrated.in_training()).unwrap();
    assert_eq!(out.result, direct);
    // The data, then the index file the draw-in pool came from (as `lethe calibrate --json` records it).
    assert_eq!(out.inputs.len(), 2);
    assert_eq!(out.inputs[0].role, "data");
    let f = &out.inputs[1];
    assert_eq!(
        (f.role.as_str(), f.spec.as_str(), f.rows_used),
        ("draw_in", "forget.txt", 144)
    );
}

#[test]
fn calibrate_errors_name_the_control() {
    let mut ws = demo_workspace();
    let req = CalibrateRequest {
        data: Some(DataRef {
            source: 1,
            tensor: None,
            rows: Rows::All,
        }),
        it_pool: Some(text("144..544")),
        oot_pool: Some(text("544..744")),
        target: vec![text("700..800")],
        ..CalibrateRequest::default()
    };
    // A range past the data is refused as the request is checked, before any work.
    let e = prepare_calibrate(&mut ws, &req).err().unwrap();
    assert_eq!(e.input.as_deref(), Some("target"), "{}", e.message);
    let req = CalibrateRequest {
        target: vec![text("0..100")],
        oot_pool: Some(text("600..650")),
        ..req
    };
    let e = now(prepare_calibrate(&mut ws, &req)
        .unwrap()
        .run(&mut lethe::progress::Silent))
    .err()
    .unwrap();
    assert_eq!(e.input.as_deref(), Some("oot_pool"), "{}", e.message);
    let e = prepare_calibrate(&mut ws, &CalibrateRequest { data: None, ..req })
        .err()
        .unwrap();
    assert_eq!(e.input.as_deref(), Some("in_training"));
}

#[test]
fn backends_are_parsed_and_backend_failures_marked() {
    assert_eq!(backend_choice("cpu").unwrap(), BackendChoice::Cpu);
    assert_eq!(backend_choice("webgpu").unwrap(), BackendChoice::WebGpu);
    assert!(backend_choice("auto").unwrap_err().message.contains("resolves"));
    let e = attribute(lethe::Error::Backend("device lost".into()), &SDE_ROLES);
    assert!(e.backend && e.input.is_none());
}

#[test]
fn a_label_column_left_out_of_the_features_is_warned_as_label_column() {
    // The code comes from the reader that raised the note, whatever its wording.
    let csv = "x,label\n0.5,1\n1.5,0\n2.5,1\n";
    let loaded = lethe::data::load::<f64>("s.csv", &csv.as_bytes(), &lethe::data::LoadOptions::default()).unwrap();
    let codes: Vec<String> = loaded
        .warnings
        .iter()
        .map(|n| file_warning(Some("unlearned"), n).code)
        .collect();
    assert!(codes.iter().any(|c| c == "label_column"), "{codes:?}");
    let w = file_warning(
        Some("unlearned"),
        &Note::new(NoteKind::LabelColumn, "reworded: the labels were dropped"),
    );
    assert_eq!(
        (w.code.as_str(), w.input.as_deref()),
        ("label_column", Some("unlearned"))
    );
    for (kind, code) in [
        (NoteKind::TrailingBytes, "trailing_bytes"),
        (NoteKind::HeaderRow, "header_row"),
        (NoteKind::FileNameNotUtf8, "file_name_not_utf8"),
        (NoteKind::IgnoredKeys, "file_reader"),
        (NoteKind::Reader, "file_reader"),
    ] {
        assert_eq!(file_warning(None, &Note::new(kind, "something odd")).code, code);
    }
}
