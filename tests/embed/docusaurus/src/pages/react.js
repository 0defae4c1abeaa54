// A React 19 page that sets every attribute of <lethe-eval> as a property (React 19 does so for custom elements
// that have a property of that name), changes them, and remounts the element. window.letheReact drives it.
import React, { useEffect, useRef, useState } from 'react';
import Layout from '@theme/Layout';
import useBaseUrl from '@docusaurus/useBaseUrl';

const ATTRS = {
  analysis: 'bounds', layout: 'narrow', alpha: '0.05', rule: 'both', shuffles: '50', sigma: '1', seed: '0', bins: '20',
  split: '0.5', precision: '0.01', baselines: false, draw: '2', size: '50', refs: '4', margin: '0.1', 'it-pool': '0..10',
  'oot-pool': '10..20', backend: 'cpu', workers: '1', forget: '0..10', retain: '10..20', ties: 'average', fdr: '0.05',
  variant: 'standard', 'eps-max': '10', delta: '0.00001', accuracies: '0.9', 'one-sided': true, x: '0.5',
  stepsize: '100', 'sd-method': 'conbo', 'atom-at-zero': false, rho: '0.5', 'plan-width': '0.05', stemmer: false,
  inputs: false, autorun: false, example: false, mode: 'scores', topic: 'hsic',
};

export default function ReactPage() {
  const base = useBaseUrl('/lethe/');
  const [attrs, setAttrs] = useState(ATTRS);
  // Mounted on the client (after hydration), so that React creates the element and sets its props itself.
  const [shown, setShown] = useState(false);
  const ref = useRef(null);
  useEffect(() => {
    window.letheReact = { set: (a) => setAttrs((o) => ({ ...o, ...a })), show: setShown, el: () => ref.current };
    setShown(true);
  }, []);
  return (
    <Layout title="React 19">
      <main style={{ maxWidth: 688, margin: '0 auto', padding: 16 }}>
        <h1>React 19 sets every attribute as a property</h1>
        {shown ? <lethe-eval ref={ref} base={base} {...attrs}></lethe-eval> : <p>removed</p>}
      </main>
    </Layout>
  );
}
