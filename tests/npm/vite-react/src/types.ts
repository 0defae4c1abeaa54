// The package's types as a TypeScript user sees them (tests/npm/run.mjs runs `tsc --noEmit` on this file): the
// exports map gives index.d.ts, and document.createElement('lethe-eval') is a LetheEval.
import { type LetheEval, type Report, setBasePath, version } from 'lethe-eval';

const el: LetheEval = document.createElement('lethe-eval');
el.analysis = 'bounds';
el.data = { scores: { values: new Float64Array([0, 0.2, 0.9]), shape: [3, 1] } };
el.addEventListener('progress', (e) => console.log(e.detail.fraction));
// @ts-expect-error: not an analysis (fails to compile if the types were not found: `any` takes anything)
el.analysis = 'nope';
const report: Promise<Report | null> = el.run();
const v: string = version;
setBasePath(null);
export { report, v };
