import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'lethe-eval';

function App() {
  const [shown, setShown] = useState(true);
  return (
    <main>
      <button id="toggle" onClick={() => setShown((s) => !s)}>{shown ? 'Unmount' : 'Mount'}</button>
      {shown && <lethe-eval analysis="sde" example shuffles="100" seed="0"></lethe-eval>}
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
