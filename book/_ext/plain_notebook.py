"""MyST markup in a notebook's Markdown cells, rewritten as plain Jupyter Markdown.

The book's notebooks are MyST notebooks: their Markdown uses roles (``{glue:text}`key```,
``{cite:p}`kusner2017```, ``{doc}`...```) and directives (``:::{admonition}``, ```` ```{glue} ````)
that only Jupyter Book understands; opened in plain Jupyter they show as literal markup. For the
``.ipynb`` a reader downloads, :func:`plain_markdown` turns each into what the book shows:

* ``{glue:text}`key``` / ``{glue}`key``` / ``{glue:md}`key``` → the value glued under ``key`` when
  the book was built (from ``_build/jupyter_execute/<page>.glue.json``), format specs
  (``key:.2f``) applied; a glued table is inserted as HTML, a glued figure as a cell attachment;
* ``:::{admonition} Title`` (and note, tip, warning, seealso, ...) → a quoted block with the
  title in bold, or ``<details>`` with the title as its summary when the box is a dropdown;
* ``{cite:p}`` / ``{cite:t}`` → "(Kusner et al. 2017)" / "Kusner et al. (2017)" from the book's
  bibliography; ``{doc}``, ``{ref}``, ``{numref}``, ``{term}`` → their text; ``{sub}`` → ``<sub>``,
  ``{math}`` → ``$…$``; ```` ```{literalinclude} ```` → the file as a code block;
* label lines ``(name)=`` and MyST comments ``% ...`` are dropped; roles that the build itself
  resolves (``{reading-time}``, ``{exercises}``) are given as ``roles``.

Fenced code blocks (```` ```python ````) are left alone. Pure functions; tested in
``tests/book/test_book_ext.py``.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: Directive names shown as a box, and the title a box without its own title gets.
BOXES = {"admonition": "", "note": "Note", "tip": "Tip", "hint": "Hint", "important": "Important",
         "warning": "Warning", "caution": "Caution", "attention": "Attention", "danger": "Danger",
         "error": "Error", "seealso": "See also", "dropdown": ""}

_FENCE_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\s*(?:\{(?P<name>[\w:-]+)\})?\s*(?P<arg>.*)$")
_ROLE = re.compile(r"\{(?P<role>[a-z-]+(?::[a-z-]+)?)\}`(?P<body>[^`]*)`")
_LABEL = re.compile(r"^\s*\([\w.:-]+\)=\s*$")
_OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")


class Glued:
    """The values glued on a page: ``{key: output}`` as myst-nb stores them (an output's ``data``
    maps mime types to content)."""

    def __init__(self, outputs: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.outputs = dict(outputs or {})
        self.attachments: dict[str, dict[str, str]] = {}

    def data(self, key: str) -> dict[str, Any]:
        out = self.outputs.get(key)
        if out is None:
            return {}
        data = out.get("data", out)
        return {mime.split("/", 2)[-1] if mime.startswith("application/papermill.record/") else mime: v
                for mime, v in data.items()}

    def text(self, spec: str) -> str:
        """The text of ``{glue:text}`key[:format]```."""
        key, _, fmt = spec.partition(":")
        plain = _joined(self.data(key.strip()).get("text/plain"))
        if plain is None:
            return f"`{key.strip()}` (computed when the notebook runs)"
        value: Any = plain
        with contextlib.suppress(ValueError, SyntaxError):
            value = ast.literal_eval(plain)
        if fmt:
            try:
                return format(value, fmt)
            except (TypeError, ValueError):
                pass
        return value if isinstance(value, str) else plain

    def block(self, key: str, *, inline: bool = False) -> str:
        """A glued value as Markdown: its Markdown, HTML, an attached image, or its text."""
        data = self.data(key)
        if "text/markdown" in data:
            return _joined(data["text/markdown"]) or ""
        if not inline and "text/html" in data:
            return "\n" + (_joined(data["text/html"]) or "").strip() + "\n"
        for mime in ("image/png", "image/jpeg", "image/svg+xml"):
            if mime in data and not inline:
                name = f"{key}.{mime.split('/')[1].split('+')[0]}"
                content = _joined(data[mime]) or ""
                if mime == "image/svg+xml":
                    content = base64.b64encode(content.encode("utf-8")).decode("ascii")
                self.attachments[name] = {mime: content.replace("\n", "")}
                return f"![{key}](attachment:{name})"
        return self.text(key)


def _joined(value: Any) -> str | None:
    if value is None:
        return None
    return "".join(value) if isinstance(value, list) else str(value)


def cite_text(keys: str, kind: str, entries: Mapping[str, tuple[str, str]]) -> str:
    """``{cite:p}`a,b``` as "(A et al. 2017; B and C 2019)", ``{cite:t}`` as "A et al. (2017)";
    ``entries`` maps a key to (authors as cited, year). Unknown keys show as themselves."""
    parts = []
    for key in (k.strip() for k in keys.split(",") if k.strip()):
        who, year = entries.get(key, (key, ""))
        parts.append((who, year))
    if kind == "t":
        return "; ".join(f"{who} ({year})" if year else who for who, year in parts)
    return "(" + "; ".join(f"{who} {year}".strip() for who, year in parts) + ")"


def bib_entries(bibfile: Path) -> dict[str, tuple[str, str]]:
    """Key → (authors as cited, year) for every entry of a BibTeX file (pybtex, which
    sphinxcontrib-bibtex brings): one author "Kusner", two "Yeh and Lien", more "Kusner et al."."""
    from pybtex.database import parse_file

    out = {}
    for key, entry in parse_file(str(bibfile)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
        if not names:
            who = re.sub(r"[{}]", "", entry.fields.get("organization", entry.fields.get("title", key)))
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        out[key] = (_latex_to_text(who), re.sub(r"[^0-9a-z]", "", entry.fields.get("year", "")))
    return out


def _latex_to_text(text: str) -> str:
    accents = {r"\'a": "á", r"\'e": "é", r'\"o': "ö", r'\"u': "ü", r'\"a': "ä", r"\'i": "í"}
    for latex, char in accents.items():
        text = text.replace("{" + latex + "}", char).replace(latex, char)
    return text.replace("{", "").replace("}", "")


#: Extra roles a build can resolve (name → function of the role's text), e.g. the teaching kit's
#: ``{reading-time}`` and ``{exercises}``; set by :func:`plain_notebook`'s ``roles``.
_EXTRA: dict[str, Callable[[str], str]] = {}


def _role(match: re.Match[str], glued: Glued, cite: Callable[[str, str], str]) -> str:
    role, body = match.group("role"), match.group("body")
    if role in _EXTRA:
        return _EXTRA[role](body.strip())
    if role in ("glue:text", "glue:any"):
        return glued.text(body)
    if role in ("glue", "glue:md"):
        return glued.block(body.strip(), inline=True)
    if role in ("cite:p", "cite:t", "cite", "cite:ps", "cite:ts"):
        return cite(body, "t" if role.startswith("cite:t") else "p")
    if role in ("doc", "ref", "numref", "term", "download", "abbr"):
        text = re.match(r"^(.*?)\s*<[^>]*>\s*$", body)
        label = text.group(1) if text else body
        return label.rsplit("/", 1)[-1].replace("_", " ") if role == "doc" and not text else label
    if role == "sub":
        return f"<sub>{body}</sub>"
    if role == "sup":
        return f"<sup>{body}</sup>"
    if role in ("math", "eq"):
        return f"${body}$"
    return body


def _inline(text: str, glued: Glued, cite: Callable[[str, str], str]) -> str:
    return _ROLE.sub(lambda m: _role(m, glued, cite), text)


def _directive(name: str, arg: str, body: list[str], source_dir: Path | None, glued: Glued,
               cite: Callable[[str, str], str]) -> list[str]:
    options: dict[str, str] = {}
    while body and _OPTION.match(body[0]):
        m = _OPTION.match(body[0])
        assert m is not None
        options[m.group("key")] = m.group("value").strip()
        body = body[1:]
    if name == "glue" or name.startswith("glue:"):
        return glued.block(arg.strip()).splitlines()
    if name == "literalinclude" and source_dir is not None:
        path = (source_dir / arg.strip()).resolve()
        code = path.read_text(encoding="utf-8").rstrip("\n") if path.is_file() else f"(file {arg.strip()})"
        return [f"```{options.get('language', '')}", *code.splitlines(), "```"]
    if name == "math":
        return ["$$", *body, "$$"]
    inner = _convert(body, source_dir, glued, cite)
    if name not in BOXES:
        return inner
    title = _inline(arg.strip(), glued, cite) or BOXES[name] or "Note"
    if "dropdown" in options.get("class", "").split() or name == "dropdown":
        return [f"<details><summary><b>{title}</b></summary>", "", *inner, "", "</details>"]
    return [f"> **{title}**", ">", *[f"> {line}".rstrip() for line in inner]]


def _convert(lines: list[str], source_dir: Path | None, glued: Glued, cite: Callable[[str, str], str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _FENCE_OPEN.match(line)
        if opened and (opened.group("name") or not opened.group("fence").startswith(":")):
            fence, name = opened.group("fence"), opened.group("name")
            close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            body = lines[i + 1:j]
            if name is None:  # a plain code block: as written
                out += lines[i:j + 1]
            else:
                out += _directive(name, opened.group("arg"), body, source_dir, glued, cite)
            i = j + 1
            continue
        if _LABEL.match(line) or re.match(r"^\s*%", line):
            i += 1
            continue
        out.append(_inline(line, glued, cite))
        i += 1
    return out


def plain_markdown(text: str, *, glued: Glued | None = None, cite: Callable[[str, str], str] | None = None,
                   source_dir: Path | None = None, roles: Mapping[str, Callable[[str], str]] | None = None) -> str:
    """A Markdown cell's MyST text as plain Jupyter Markdown (see the module's docstring).

    >>> plain_markdown(":::{admonition} Verdict\\n:class: important\\nIt {sub}`holds`.\\n:::")
    '> **Verdict**\\n>\\n> It <sub>holds</sub>.'
    """
    glued = glued or Glued()
    cite = cite or (lambda keys, kind: cite_text(keys, kind, {}))
    _EXTRA.clear()
    _EXTRA.update(roles or {})
    try:
        return "\n".join(_convert(text.split("\n"), source_dir, glued, cite))
    finally:
        _EXTRA.clear()


def plain_notebook(notebook: Any, *, glued: Glued | None = None, cite: Callable[[str, str], str] | None = None,
                   source_dir: Path | None = None, preface: str | None = None,
                   roles: Mapping[str, Callable[[str], str]] | None = None) -> Any:
    """A copy of an ``nbformat`` notebook with every Markdown cell made plain (:func:`plain_markdown`),
    the glued figures attached to the cells that show them, and ``preface`` (Markdown) as a first cell."""
    import copy

    import nbformat

    nb = copy.deepcopy(notebook)
    glued = glued or Glued()
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        glued.attachments = {}
        cell.source = plain_markdown(cell.source, glued=glued, cite=cite, source_dir=source_dir, roles=roles)
        if glued.attachments:
            cell["attachments"] = dict(glued.attachments)
    if preface:
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(preface))
    for cell in nb.cells:  # a fresh id for the preface; nbformat validates ids
        if "id" not in cell:
            cell["id"] = f"cell-{nb.cells.index(cell)}"
    return nb
