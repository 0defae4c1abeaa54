// lethe.show(report): a report computed in the kernel, drawn with the page's own modules (report.js). The kernel
// sends the report's JSON text (trait `_report`) and the plot data the analysis layer counted for it (`_plots`);
// nothing is computed here, no wasm is loaded and no request is made.
// python/widget/build.py inlines the imports below into one ES module.
import { draw } from './report.js';

export default {
  render({ model, el }) {
    const redraw = () => draw(el, model.get('_report'), JSON.parse(model.get('_plots') || '{}'));
    model.on('change:_report', redraw);
    model.on('change:_plots', redraw);
    redraw();
    return () => {
      model.off('change:_report', redraw);
      model.off('change:_plots', redraw);
    };
  },
};
