# A real Sphinx site embedding <lethe-eval> as docs/embedding.md says ("Sphinx"): tests/embed/run.mjs copies Lethe's
# built site into _static/lethe/, builds this with sphinx-build, serves it under a sub-path and drives it.
project = 'Lethe embedded in Sphinx'
extensions = ['myst_parser']  # Markdown pages too (teaching.md)
html_static_path = ['_static']
html_js_files = [('lethe/src/lethe-eval.js', {'type': 'module'})]
html_css_files = ['lethe-embed.css']
