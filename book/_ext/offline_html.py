"""A small Sphinx extension that keeps the book's HTML clean and offline.

An extension that adds its inline script once per read phase (as ``sphinx_thebe`` does with
``const THEBE_JS_URL = ...``, which Jupyter Book 1 always loaded) ends up twice on every page, and
a second ``const`` declaration is a JavaScript SyntaxError in the browser console. The book's
``conf.py`` no longer loads thebe; this extension still guards every page:

* it drops duplicate ``<script>`` / stylesheet entries from every page, and
* it drops thebe's scripts and stylesheet altogether while thebe is switched off
  (``launch_buttons.thebe`` false in ``conf.py``'s theme options), so no page names a CDN script.

It touches only the HTML page context; the book's content is unchanged.
"""

from __future__ import annotations

from typing import Any


def _is_thebe(asset: Any) -> bool:
    filename = str(getattr(asset, "filename", "") or "")
    body = str(getattr(asset, "attributes", {}).get("body", ""))
    return "thebe" in filename or "THEBE_JS_URL" in body


def _thebe_enabled(app: Any) -> bool:
    launch = (app.config.html_theme_options or {}).get("launch_buttons") or {}
    thebe_config = getattr(app.config, "thebe_config", None) or {}
    always = isinstance(thebe_config, dict) and thebe_config.get("always_load") is True
    return bool(launch.get("thebe")) or always


def _clean_assets(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    drop_thebe = not _thebe_enabled(app)
    for key in ("script_files", "css_files"):
        assets = context.get(key)
        if not assets:
            continue
        seen: set[Any] = set()
        kept = []
        for asset in assets:
            if drop_thebe and _is_thebe(asset):
                continue
            if asset in seen:
                continue
            seen.add(asset)
            kept.append(asset)
        context[key] = kept


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _clean_assets, priority=900)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
