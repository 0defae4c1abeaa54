// Types of the Lethe widget's public surface: the factory (src/widget.js), the custom element
// (src/lethe-eval.js) and the iframe messages (src/frame.js). Plain ES modules; no build step needed.

export type PanelId = 'sde' | 'ruler' | 'epsilon' | 'bounds' | 'mia' | 'compare';

/** Rows of an input: the CLI's @ROWS text ('0..100', '3,1,4'), or a structured choice. */
export type Rows =
  | string
  | { kind: 'all' }
  | { kind: 'text'; text: string }
  | { kind: 'file'; source: number }
  | { kind: 'split'; source: number; value: string };

/** A matrix handed over directly (row-major). */
export interface MatrixData {
  values: Float32Array | Float64Array | number[];
  shape: [rows: number, cols?: number];
}

/** One input: a file, its bytes, CSV/JSON text, a matrix, or one of those with rows/tensor/name. */
export type InputData =
  | Blob
  | ArrayBuffer
  | Uint8Array
  | string
  | MatrixData
  | { data: Blob | ArrayBuffer | Uint8Array | string | MatrixData; rows?: Rows; tensor?: string; name?: string };

/**
 * Rows given as data (RULER's forget/retain, SDE's it_pool/oot_pool): '0..144' or '3,1,4'; an index file (its
 * Blob/bytes/text, or {data, name}); {data, split} — the rows whose split-column entry equals `split`.
 */
export type RowsData = Rows | Blob | ArrayBuffer | Uint8Array | { data: Blob | ArrayBuffer | Uint8Array | string; name?: string; split?: string };

/**
 * Inputs by role. SDE: in_training, out_of_training, target, draw-from, draw-in, draw-out (+ rows it_pool,
 * oot_pool). RULER: unlearned, oracle, original (+ rows forget, retain). Epsilon: retrained, unlearned,
 * retrained_logits, unlearned_logits, labels. Bounds: scores, predictions, reference (strings are taken as text).
 * The roles given set the panel's mode (draw-* → many, logits/labels → logits, predictions/reference →
 * generations) unless a mode was set with setParams.
 */
export type PanelData = Record<string, InputData | RowsData>;

export interface WidgetOptions {
  /** Panels to show, in order. Default: all four. */
  panels?: PanelId[];
  /** Load the built-in digits example into SDE and RULER and run them (the stand-alone page does). Default false. */
  example?: boolean;
  /** Where the example data lives (default: ../data/digits/ next to src/). */
  exampleBase?: string | null;
  /** Show the Inputs section (drop zone, picker, paste box, input cards). Default true. */
  showInputs?: boolean;
  /** Show the title and privacy header (a compact privacy line otherwise). Default true. */
  header?: boolean;
  /** Parameters per panel, e.g. {sde: {shuffles: 500, seed: 1}}. Names as the CLI's options (snake_case). */
  params?: Partial<Record<PanelId, Record<string, unknown>>>;
  /** Receives every event (progress, result, error, ready, example). */
  onEvent?: (type: string, detail: unknown) => void;
  /** Workers of a pooled SDE run on the CPU, the page's worker included (default min(hardwareConcurrency, 4), at
   * most 4). The page's first widget sets it. */
  workers?: number | null;
}

export interface Progress {
  panel?: string;
  fraction: number;
  phase: string;
  eta_s: number;
}

/** The JSON report, as "Download JSON report": the CLI's envelope plus how it was computed. */
export interface Report {
  lethe_version: string;
  command: 'sde' | 'calibrate' | 'ruler' | 'epsilon' | 'bounds' | 'rouge' | 'mia';
  parameters: Record<string, unknown>;
  seed: number | null;
  inputs: Array<{ role: string; spec: string; path: string; sha256: string; format: string; dtype: string; shape: number[]; tensor: string | null; rows_used: number; row_file: { path: string; sha256: string } | null }>;
  /**
   * The one call of the analysis, as the CLI prints it first: a stable `call` code ("inconclusive" means the data
   * support no call, and `reason` says why), one sentence, and the reason when inconclusive or when rules disagree.
   */
  headline: { call: string; text: string; reason: string | null } | null;
  /** What a person should know before trusting the result: stable code, the input (the request's role), the fix. */
  warnings: Array<{ code: string; input: string | null; message: string; fix: string | null }>;
  /** Exactly what `lethe <command> --json` prints under `result` (non-finite floats as "inf"/"-inf"/"nan"). */
  result: unknown;
  /** The core's BackendInfo of the run (`name`: "cpu" or "webgpu", `precision`, `device`: the adapter), or null. */
  computed_by: { widget: string; backend: { name: string; precision: 'f64' | 'f32'; device: string } | null; user_agent: string | null; at: string };
  cli_equivalent: string;
  /**
   * SDE only: the calibrated verdict computed beside the paper rule — `lethe calibrate --json`'s envelope (command
   * "calibrate"), or `{skipped: reason}`, or null with the paper rule only. With the calibrated verdict only
   * (`rule: 'calibrated'`), that envelope is the report itself.
   */
  calibrated?: Report | { skipped: string } | null;
  /**
   * A stopped SDE run (`result.complete` false): what its shuffles support, computed by the core — per subset the
   * shuffles done and exact moments, the reference separation and each unfinished target's paper rule and
   * Mann–Whitney test on the shuffles so far, and those targets' values.
   */
  partial?: {
    subsets: Array<{ name: string; shuffles_done: number; shuffles_planned: number; complete: boolean; moments: { mean: number; variance: number; sd: number } }>;
    reference_separation: unknown | null;
    targets: Array<{ name: string; label: boolean | null; shuffles_done: number; complete: boolean; verdict: unknown; mann_whitney_target_vs_oot: unknown }>;
    p_value_interval: null;
    unfinished_targets: Array<{ name: string; label: boolean | null; complete: boolean; values: number[] }>;
  };
  /** Calibrated envelope: reference classes drawn from fewer than 2 × |S| rows (the verdict is marked unreliable). */
  thin_pools?: Array<{ class: 'in_training' | 'out_of_training'; rows: number; size: number; references: number; shared: number; message: string }>;
}

export interface Widget {
  /** `webgpu`: what the worker found — `{available: true, adapter}` or `{available: false, reason}`. */
  ready: Promise<{ version: string; maxBytes: number; webgpu: { available: boolean; adapter?: string; reason?: string } }>;
  /** Resolves when the first view that stays is built: a panel loaded later (epsilon, bounds, membership audit) in place and, with the example, its audit run; else as `ready`. <lethe-eval> holds its room until then. */
  built: Promise<unknown>;
  /** Resolves once every panel's module is in (epsilon and bounds are fetched after the first results). */
  panelsReady(): Promise<void>;
  setData(panel: PanelId, data: PanelData): Promise<void>;
  setParams(panel: PanelId, params: Record<string, unknown>): void;
  /** Runs a panel; resolves to its report, or null if cancelled before anything was computed. */
  run(panel: PanelId, opts?: { signal?: AbortSignal }): Promise<Report | null>;
  loadExample(): Promise<void>;
  on(type: 'progress' | 'result' | 'error' | 'ready' | 'example', fn: (detail: any) => void): Widget;
  off(type: string, fn: (detail: any) => void): Widget;
  destroy(): void;
}

export function create(el: Element, opts?: WidgetOptions): Widget;

/** A teaching topic (docs/teaching.md). */
export type TeachTopic = 'hsic' | 'sde' | 'ranks' | 'epsilon' | 'bounds' | 'mia' | 'seeds' | 'forget-quality';

/**
 * <lethe-eval analysis="sde" shuffles="200" seed="0" [inputs] [example] [autorun]>, or a teaching topic:
 * <lethe-eval mode="teach" topic="hsic"> (no data, no run(); fires `ready` when the first figure is drawn).
 */
export class LetheEval extends HTMLElement {
  /** Every attribute has a property of that name (kebab-case ones also in camelCase: `itPool`); setting it sets the attribute. */
  analysis: PanelId;
  topic: TeachTopic | null;
  /** The URL of the directory holding Lethe's site (src/, pkg/, widget.css, data/); see setBasePath. */
  base: string | null;
  /** 'narrow' forces one column, 'wide' two; default (null): by the element's own width. */
  layout: 'narrow' | 'wide' | null;
  inputs: boolean;
  example: boolean;
  autorun: boolean;
  /** True for mode="teach". */
  readonly teaching: boolean;
  /** Lethe's version: `lethe --version`'s, and every report's `lethe_version` (known before the wasm loads). */
  readonly version: string;
  /** Resolves once the worker and wasm have started; rejects with what failed. */
  readonly ready: Promise<{ version: string }>;
  data: PanelData | null;
  run(opts?: { signal?: AbortSignal }): Promise<Report | null>;
  addEventListener(type: 'progress', fn: (e: CustomEvent<Progress>) => void): void;
  addEventListener(type: 'result', fn: (e: CustomEvent<{ panel: PanelId; output: unknown; report: Report }>) => void): void;
  addEventListener(type: 'error', fn: (e: CustomEvent<{ panel: PanelId; message: string; input?: string }>) => void): void;
  addEventListener(type: string, fn: EventListenerOrEventListenerObject): void;
}

/** Lethe's version, as the element's `version` (lethe-eval.js exports it). */
export const VERSION: string;

/** The base URL of Lethe's files for every element of the page (lethe-eval.js and base.js export it). */
export function setBasePath(url: string | null): void;

/** Messages of the iframe mode (frame.html). */
export type FrameMessage =
  | { type: 'lethe:ready'; version: string; analysis: PanelId }
  | { type: 'lethe:load-data'; data: PanelData; params?: Record<string, unknown>; run?: boolean }
  | { type: 'lethe:run' }
  | { type: 'lethe:cancel' }
  | { type: 'lethe:progress'; fraction: number; phase: string; eta_s: number }
  | { type: 'lethe:result'; report: Report }
  | { type: 'lethe:error'; message: string; input: string | null }
  /** The frame's content height in CSS px, posted whenever it changes: set the iframe's height to it. */
  | { type: 'lethe:resize'; height: number };
