import 'lethe-eval';

// The page's own code: a button that removes the element (its worker stops) and puts it back.
const main = document.querySelector('main');
const make = () => Object.assign(document.createElement('lethe-eval'), { analysis: 'sde', example: true, shuffles: '100', seed: '0' });
let el = make();
main.append(el);
document.getElementById('toggle').addEventListener('click', () => {
  if (el.isConnected) el.remove();
  else main.append((el = make()));
});
