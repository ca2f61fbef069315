"""Small Sphinx extension for the robolib book (offline, clean pages).

* Removes duplicate ``<script>``/``<link>`` entries: with Jupyter Book 1.x some
  extensions (sphinx-thebe, sphinx-togglebutton) register their inline scripts
  twice, which throws "Identifier ... has already been declared" in the browser.
* Loads ``vendor/mathjax_hub_shim.js`` after MathJax 3: the widget manager that
  renders saved widget state still calls the MathJax 2 API (``MathJax.Hub.Queue``).
"""

from __future__ import annotations


def _key(asset):
    attrs = getattr(asset, "attributes", {}) or {}
    name = getattr(asset, "filename", asset) if hasattr(asset, "attributes") else asset
    return (str(name or ""), tuple(sorted((k, str(v)) for k, v in attrs.items())))


def _dedup(app, pagename, templatename, context, doctree):
    for name in ("script_files", "css_files"):
        assets = context.get(name)
        if not assets:
            continue
        seen, unique = set(), []
        for asset in assets:
            k = _key(asset)
            if k not in seen:
                seen.add(k)
                unique.append(asset)
        assets[:] = unique


def setup(app):
    app.connect("html-page-context", _dedup, priority=900)
    # after MathJax (deferred scripts run in document order) and before the widgets render on 'load'
    app.add_js_file("../vendor/mathjax_hub_shim.js", priority=999, defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
