"""YAML files read safely: a key given twice, or an unquoted ``no``/``on``/``null`` where a name
belongs, is refused with its line and the fix, and a syntax error names its line and column.

Spec files (:mod:`cffair.datasets._spec`) and graph files (:mod:`cffair.datasets._graph`) are read with
:func:`load_yaml`; the checks were first written for them (:mod:`cffair.datasets._checks` still
offers them by name) and live here, in the support part, so that every part can read a YAML file
without importing a part above its own. Reading a file changes no number: ``FINGERPRINT_EXEMPT``.
"""

from __future__ import annotations

__all__ = [
    "DuplicateKeyError",
    "PlainWordError",
    "YamlContentError",
    "check_plain_words",
    "load_yaml",
    "safe_load_unique",
]

from pathlib import Path
from typing import Any

from cffair.errors import CffairError, DuplicateKeyError, PlainWordError, YamlContentError

FINGERPRINT_EXEMPT = True  # parses files and words its errors: changes no number


# ---------------------------------------------------------------------------- YAML
def _key_text(node: Any) -> str:
    return str(node.value)


def _check_unique(node: Any, path: tuple[str, ...]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        seen: dict[tuple[str, str], Any] = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                ident = (key.tag, key.value)
                if ident in seen:
                    raise DuplicateKeyError(_duplicate_message(path, key, seen[ident], value))
                seen[ident] = (key, value)
            _check_unique(value, (*path, _key_text(key) if isinstance(key, yaml.ScalarNode) else "?"))
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_unique(item, path)


def _duplicate_message(path: tuple[str, ...], key: Any, first: tuple[Any, Any], value: Any) -> str:
    import yaml

    name = _key_text(key)
    line, first_line = key.start_mark.line + 1, first[0].start_mark.line + 1
    where = f"line {line}, column {key.start_mark.column + 1}"

    def shown(v: Any) -> str:
        return (
            repr(v.value)
            if isinstance(v, yaml.ScalarNode)
            else "a " + ("list" if isinstance(v, yaml.SequenceNode) else "mapping")
        )

    if path and path[-1] == "features":
        kinds = f" as {shown(first[1])} and as {shown(value)}" if shown(first[1]) != shown(value) else ""
        return (
            f"{where}: the feature {name!r} is listed twice under 'features' (lines {first_line} and {line}){kinds}; "
            "YAML would keep only the last silently. List each feature once, with one kind."
        )
    if path and path[-1] == "edges":
        return (
            f"{where}: the parent {name!r} is given twice under 'edges' (lines {first_line} and {line}); YAML would keep "
            f"only the last list of children silently. Merge them into one entry, {name}: [child, ...]."
        )
    inside = f" in '{'.'.join(path)}'" if path else ""
    return (
        f"{where}: the key {name!r} is given twice{inside} (lines {first_line} and {line}, values {shown(first[1])} and "
        f"{shown(value)}); YAML would keep only the last silently. Keep one of them."
    )


def safe_load_unique(text: str) -> Any:
    """``yaml.safe_load(text)``, refusing a mapping that names a key twice.

    Raises:
        DuplicateKeyError: naming the key, both lines and the fix (``features`` and
            ``edges`` get their own wording).
        yaml.YAMLError: for text that is not YAML, as ``yaml.safe_load``.
    """
    import yaml

    for document in yaml.compose_all(text, Loader=yaml.SafeLoader):
        if document is not None:
            _check_unique(document, ())
    return yaml.safe_load(text)


# ---------------------------------------------------------------------------- YAML words
#: Unquoted words that YAML 1.1 (PyYAML) reads as booleans: no spec or graph key takes one.
_WORD_BOOLEANS = frozenset(w for word in ("yes", "no", "on", "off") for w in (word, word.capitalize(), word.upper()))


def check_plain_words(text: str, what: str = "YAML file") -> None:
    """Refuse unquoted ``yes``/``no``/``on``/``off`` anywhere, and ``null``/``~``/nothing as a
    mapping key or list item, in a spec or graph file: YAML turns them into ``True``/``False``
    and ``None``, where the file means a column or a value named so.

    Raises:
        PlainWordError: (a ``ValueError``) naming the line, the word, what YAML made of it and the fix.
    """
    import yaml

    def visit(node: Any, role: str) -> None:
        if isinstance(node, yaml.ScalarNode):
            if node.style is not None and node.style != "":
                return  # quoted or a block scalar: text
            read = None
            if node.tag == "tag:yaml.org,2002:bool" and node.value in _WORD_BOOLEANS:
                read = f"the boolean {node.value.lower() in ('yes', 'on')}"
            elif node.tag == "tag:yaml.org,2002:null" and role in ("key", "item"):
                read = "nothing (null)"
            if read is not None:
                mark = node.start_mark
                shown = node.value or "an empty entry"
                raise PlainWordError(
                    f"line {mark.line + 1}, column {mark.column + 1}: the unquoted {shown!r} is read by YAML as {read}, "
                    f"not as a name; if it names a column or a value, put it in quotes ('{node.value}')."
                    if node.value
                    else f"line {mark.line + 1}, column {mark.column + 1}: an empty {role} is read by YAML as nothing "
                    "(null); give the name, in quotes if it is a YAML word such as 'null'."
                )
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                visit(key, "key")
                visit(value, "value")
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                visit(item, "item")

    for document in yaml.compose_all(text, Loader=yaml.SafeLoader):
        if document is not None:
            visit(document, "value")


def load_yaml(path: str | Path, *, what: str, error: type[CffairError]) -> Any:
    """Parse a YAML file, turning syntax and encoding errors into ``error`` with file and line.

    Args:
        path: the file.
        what: what the file is, for the message (``"spec file"``, ``"graph file"``).
        error: the :class:`~cffair.errors.CffairError` subclass to raise.

    Raises:
        CffairError: ``error`` (a :class:`~cffair.errors.CffairError` subclass) if the file is missing, not UTF-8, not valid YAML (with the line and column
            of the problem, 1-based, as an editor shows them), or names a key twice in one
            mapping (YAML would keep the last silently; :func:`safe_load_unique`), or
            holds an unquoted ``no``/``on``/``null`` where a name belongs (:func:`check_plain_words`).
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise error(f"{what} {path} does not exist.")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise error(
            f"{what} {path} is not UTF-8 text: byte 0x{raw[exc.start]:02x} on line {line}. Save it as UTF-8."
        ) from None
    try:
        data = safe_load_unique(text)
        check_plain_words(text)  # a spec or graph file has no yes/no setting: `no` is a name there
        return data
    except YamlContentError as exc:
        raise error(f"{what} {path}, {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "somewhere"
        detail = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and context_mark is not None and context_mark is not mark:
            detail += f" ({context} that starts on line {context_mark.line + 1})"
        elif context:
            detail += f" ({context})"
        raise error(
            f"{what} {path} is not valid YAML at {where}: {detail}. "
            "Check the indentation and the 'key: value' / [a, b] syntax around that line."
        ) from None
