r"""Row-selection expressions (``--where``): a small language of their own, never Python.

``cffair query cf --where`` and ``cffair recourse --where`` select rows of a dataset with an
expression a user may have copied from someone else. pandas' ``DataFrame.query``/``eval``
evaluate attribute chains and method calls (``__import__('os').system(...)``, ``@pd.io...``),
so cffair parses these expressions itself, with the grammar below, and evaluates the parsed
tree with numpy comparisons only: nothing in the text is ever executed.

Grammar (EBNF; keywords are case-sensitive, as in Python)::

    expression  = disjunction ;
    disjunction = conjunction , { "or" , conjunction } ;
    conjunction = negation , { "and" , negation } ;
    negation    = "not" , negation | primary ;
    primary     = "(" , expression , ")" | comparison ;
    comparison  = operand , op , operand
                | column , [ "not" ] , "in" , list ;
    op          = "==" | "!=" | "<" | "<=" | ">" | ">=" ;
    operand     = column | literal ;          (* at least one side is a column *)
    list        = ( "[" | "(" ) , [ literal , { "," , literal } , [ "," ] ] , ( "]" | ")" ) ;
    column      = name | "`" , any character but "`" , { ... } , "`" ;
    name        = letter or "_" , { letter, digit or "_" } ;   (* not a keyword *)
    literal     = number | string | "True" | "False" ;
    number      = [ "-" | "+" ] , digits , [ "." , digits ] , [ ( "e" | "E" ) , [ "-" | "+" ] , digits ] ;
    string      = "'" , ... , "'" | '"' , ... , '"' ;    (* \\ escapes the quote and itself *)

Column names with other characters (``hours-per-week``, ``Unnamed: 0``) go in backticks, as
in pandas: ```hours-per-week` >= 40``. ``and`` binds tighter than ``or``; ``not`` tighter
than both.

Semantics, as pandas' ``query`` for the same text where both accept it:

* a numeric column compares with numbers (a string is an error);
* a categorical column compares with its values as strings (``sex == 'Female'``; a number
  literal is matched against the labels, so ``flag == 1`` finds the label ``"1"``); ``<``,
  ``<=``, ``>``, ``>=`` need an ordered (``ordinal``) column and follow its order;
* a value that is not one of a categorical column's labels is an error listing the labels,
  except that a case-insensitive match to exactly one label is taken (``sex == 'female'``).

Errors (:class:`~cffair.errors.ExpressionError`, a ``ValueError``) are one line naming the
character position (1-based) and what was expected there, or the unknown column together with
the available ones. Parentheses and ``not`` nest at most :data:`MAX_DEPTH` deep (the parser and
the evaluator recurse once per level).

>>> import pandas as pd
>>> frame = pd.DataFrame({"age": [25, 40, 61], "sex": pd.Categorical(["Female", "Male", "Female"])})
>>> select(frame, "age > 30 and sex == 'female'").tolist()
[False, False, True]
"""

from __future__ import annotations

__all__ = ["MAX_DEPTH", "Comparison", "Expression", "Logical", "Membership", "Not", "parse", "select", "selected_rows"]

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import ExpressionError

_KEYWORDS = frozenset({"and", "or", "not", "in", "True", "False"})
_OPS = ("==", "!=", "<=", ">=", "<", ">")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: How deep parentheses and ``not`` may nest (each level is a few frames of Python's recursion).
MAX_DEPTH = 100


# ---------------------------------------------------------------------------- tokens
@dataclass(frozen=True)
class _Token:
    kind: str  # "name", "column" (backticked), "number", "string", "op", "keyword", "punct", "end"
    value: Any
    pos: int  # 0-based offset in the text
    text: str  # the token as written


def _describe(tok: _Token) -> str:
    return "the end of the expression" if tok.kind == "end" else repr(tok.text)


def _fail(text: str, pos: int, message: str) -> ExpressionError:
    shown = text if len(text) <= 120 else text[:100] + f"... ({len(text):,} characters)"
    return ExpressionError(f"{shown!r}, character {pos + 1}: {message}")


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == "`":
            j = text.find("`", i + 1)
            if j < 0:
                raise _fail(text, i, "unclosed backtick: a column name in backticks needs a closing `")
            if j == i + 1:
                raise _fail(text, i, "empty column name ``")
            out.append(_Token("column", text[i + 1 : j], i, text[i : j + 1]))
            i = j + 1
            continue
        if c in "'\"":
            j, chars = i + 1, []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n and text[j + 1] in (c, "\\"):
                    j += 1
                chars.append(text[j])
                j += 1
            if j >= n:
                raise _fail(text, i, f"unclosed string: add the closing {c}")
            out.append(_Token("string", "".join(chars), i, text[i : j + 1]))
            i = j + 1
            continue
        m = _NUMBER.match(text, i)
        if m and (c.isdigit() or c == "."):
            end = m.end()
            if end < n and (text[end].isalpha() or text[end] == "_" or text[end] == "."):
                raise _fail(
                    text,
                    end,
                    f"unexpected {text[end]!r} after the number {m.group()!r} "
                    "(attributes and methods are not part of the grammar)",
                )
            out.append(_Token("number", float(m.group()), i, m.group()))
            i = end
            continue
        m = _NAME.match(text, i)
        if m:
            word = m.group()
            out.append(_Token("keyword" if word in _KEYWORDS else "name", word, i, word))
            i = m.end()
            continue
        op = next((o for o in _OPS if text.startswith(o, i)), None)
        if op:
            out.append(_Token("op", op, i, op))
            i += len(op)
            continue
        if c in "()[],+-":
            out.append(_Token("punct", c, i, c))
            i += 1
            continue
        hint = {
            "@": " (local variables, @name, are not part of the grammar)",
            ".": " (attributes and methods, x.attr or x.f(), are not part of the grammar)",
            "=": " (compare with ==)",
            "&": " (write and)",
            "|": " (write or)",
            "~": " (write not)",
            "!": " (write not, or !=)",
        }.get(c, "")
        raise _fail(
            text, i, f"unexpected character {c!r}{hint}; expected a comparison such as age <= 30 or sex == 'Female'"
        )
    out.append(_Token("end", None, n, ""))
    return out


# ---------------------------------------------------------------------------- the tree
@dataclass(frozen=True)
class Column:
    """A column reference (``name`` or ```odd name```) at ``pos``."""

    name: str
    pos: int


@dataclass(frozen=True)
class Literal:
    """A number, string or boolean literal at ``pos``."""

    value: float | str | bool
    pos: int


@dataclass(frozen=True)
class Comparison:
    """``left op right``; at least one side is a :class:`Column`."""

    left: Column | Literal
    op: str
    right: Column | Literal


@dataclass(frozen=True)
class Membership:
    """``column in [values]`` (``negated``: ``not in``)."""

    column: Column
    values: tuple[Literal, ...]
    negated: bool


@dataclass(frozen=True)
class Not:
    """``not operand``."""

    operand: Expression


@dataclass(frozen=True)
class Logical:
    """``operands[0] op operands[1] op ...`` with ``op`` ``"and"`` or ``"or"``."""

    op: str
    operands: tuple[Expression, ...]


#: A parsed expression.
Expression = Comparison | Membership | Not | Logical

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    def deeper(self) -> None:
        """Enter one more level of parentheses or ``not``; refuse the one beyond :data:`MAX_DEPTH`."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _fail(
                self.text,
                self.tok.pos,
                f"parentheses and 'not' nest more than {MAX_DEPTH} deep here; write the condition with fewer levels "
                "(not not x is x; (x) is x)",
            )

    @property
    def tok(self) -> _Token:
        return self.toks[self.i]

    def take(self) -> _Token:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expected(self, what: str) -> ExpressionError:
        tok = self.tok
        extra = ""
        if tok.kind == "punct" and tok.value == "(" and self.i and self.toks[self.i - 1].kind in ("name", "column"):
            extra = " (function and method calls are not part of the grammar)"
        return _fail(self.text, tok.pos, f"expected {what}, found {_describe(tok)}{extra}")

    def is_kw(self, word: str) -> bool:
        return self.tok.kind == "keyword" and self.tok.value == word

    def parse(self) -> Expression:
        if self.tok.kind == "end":
            raise _fail(self.text, 0, "empty expression: expected a comparison such as age <= 30")
        node = self.disjunction()
        if self.tok.kind != "end":
            raise self.expected("'and', 'or' or the end of the expression")
        return node

    def disjunction(self) -> Expression:
        parts = [self.conjunction()]
        while self.is_kw("or"):
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else Logical("or", tuple(parts))

    def conjunction(self) -> Expression:
        parts = [self.negation()]
        while self.is_kw("and"):
            self.take()
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else Logical("and", tuple(parts))

    def negation(self) -> Expression:
        if self.is_kw("not"):
            self.deeper()
            self.take()
            node = Not(self.negation())
            self.depth -= 1
            return node
        return self.primary()

    def primary(self) -> Expression:
        if self.tok.kind == "punct" and self.tok.value == "(":
            self.deeper()
            self.take()
            node = self.disjunction()
            if not (self.tok.kind == "punct" and self.tok.value == ")"):
                raise self.expected("')'")
            self.take()
            self.depth -= 1
            return node
        return self.comparison()

    def operand(self) -> Column | Literal:
        tok = self.tok
        if tok.kind in ("name", "column"):
            self.take()
            return Column(tok.value, tok.pos)
        lit = self.literal(required=False)
        if lit is None:
            raise self.expected("a column name or a value (a number or a 'string')")
        return lit

    def literal(self, required: bool = True) -> Literal | None:
        tok = self.tok
        if tok.kind == "punct" and tok.value in "+-" and self.toks[self.i + 1].kind == "number":
            self.take()
            num = self.take()
            return Literal(-num.value if tok.value == "-" else num.value, tok.pos)
        if tok.kind in ("number", "string"):
            self.take()
            return Literal(tok.value, tok.pos)
        if tok.kind == "keyword" and tok.value in ("True", "False"):
            self.take()
            return Literal(tok.value == "True", tok.pos)
        if required:
            raise self.expected("a value (a number, a 'string', True or False)")
        return None

    def comparison(self) -> Expression:
        start = self.tok
        left = self.operand()
        if isinstance(left, Column) and (self.is_kw("in") or self.is_kw("not")):
            negated = self.is_kw("not")
            self.take()
            if negated:
                if not self.is_kw("in"):
                    raise self.expected("'in' after 'not'")
                self.take()
            return Membership(left, self.values(), negated)
        if self.tok.kind != "op":
            raise self.expected("a comparison operator (==, !=, <, <=, >, >=) or 'in'")
        op = self.take().value
        right = self.operand()
        if isinstance(left, Literal) and isinstance(right, Literal):
            raise _fail(self.text, start.pos, "a comparison of two values; one side must be a column")
        if self.tok.kind == "op":
            raise _fail(
                self.text,
                self.tok.pos,
                "chained comparisons (a < x < b) are not part of the grammar; write a < x and x < b",
            )
        return Comparison(left, op, right)

    def values(self) -> tuple[Literal, ...]:
        if not (self.tok.kind == "punct" and self.tok.value in "(["):
            raise self.expected("a list of values such as ['a', 'b'] after 'in'")
        close = "]" if self.take().value == "[" else ")"
        out: list[Literal] = []
        while not (self.tok.kind == "punct" and self.tok.value == close):
            lit = self.literal()
            assert lit is not None
            out.append(lit)
            if self.tok.kind == "punct" and self.tok.value == ",":
                self.take()
            elif not (self.tok.kind == "punct" and self.tok.value == close):
                raise self.expected(f"',' or {close!r}")
        self.take()
        return tuple(out)


def parse(text: str) -> Expression:
    """Parse ``text`` with the grammar of this module.

    Raises:
        ExpressionError: naming the character position and what was expected there.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, got {type(text).__name__} {text!r}")
    return _Parser(text).parse()


# ---------------------------------------------------------------------------- evaluation
def _columns(node: Expression) -> list[Column]:
    if isinstance(node, Comparison):
        return [s for s in (node.left, node.right) if isinstance(s, Column)]
    if isinstance(node, Membership):
        return [node.column]
    if isinstance(node, Not):
        return _columns(node.operand)
    return [c for part in node.operands for c in _columns(part)]


class _Evaluator:
    def __init__(self, frame: pd.DataFrame, text: str):
        self.frame = frame
        self.text = text

    def column(self, col: Column) -> pd.Series:
        return self.frame[col.name]

    def label(self, col: Column, lit: Literal) -> str:
        """The category label ``lit`` stands for in categorical column ``col``."""
        s = self.column(col)
        labels = [
            str(c) for c in (s.cat.categories if isinstance(s.dtype, pd.CategoricalDtype) else pd.unique(s.astype(str)))
        ]
        value = lit.value
        if isinstance(value, bool):
            text = str(value)
        elif isinstance(value, float):
            text = str(int(value)) if value.is_integer() else repr(value)
            if text not in labels and repr(value) in labels:
                text = repr(value)
        else:
            text = value
        if text in labels:
            return text
        folded = [c for c in labels if c.casefold() == text.casefold()]
        if len(folded) == 1:
            return folded[0]
        shown = labels if len(labels) <= 20 else [*labels[:20], f"... ({len(labels) - 20} more)"]
        why = (
            f"matches {folded} when case is ignored; write one of them exactly" if folded else f"its values are {shown}"
        )
        raise _fail(self.text, lit.pos, f"{text!r} is not a value of column {col.name!r}: {why}")

    def is_categorical(self, col: Column) -> bool:
        s = self.column(col)
        return (
            not pd.api.types.is_numeric_dtype(s)
            or pd.api.types.is_bool_dtype(s)
            or isinstance(s.dtype, pd.CategoricalDtype)
        )

    def codes(self, col: Column) -> tuple[np.ndarray, list[str]]:
        s = self.column(col)
        if isinstance(s.dtype, pd.CategoricalDtype):
            return s.cat.codes.to_numpy(), [str(c) for c in s.cat.categories]
        labels = sorted(pd.unique(s.astype(str)))
        return pd.Categorical(s.astype(str), categories=labels).codes, labels

    def compare_literal(self, col: Column, op: str, lit: Literal) -> np.ndarray:
        s = self.column(col)
        if self.is_categorical(col):
            label = self.label(col, lit)
            values = s.astype(str).to_numpy()
            if op == "==":
                return values == label
            if op == "!=":
                return values != label
            if not (isinstance(s.dtype, pd.CategoricalDtype) and s.cat.ordered):
                raise _fail(
                    self.text,
                    lit.pos,
                    f"column {col.name!r} is categorical without an order, so {op} has no "
                    "meaning; use ==, != or in [...] (or declare the column ordinal)",
                )
            codes, labels = self.codes(col)
            return _apply(op, codes, labels.index(label))
        if isinstance(lit.value, str):
            raise _fail(
                self.text,
                lit.pos,
                f"column {col.name!r} is numeric but is compared with the string {lit.value!r}; "
                "compare it with a number, e.g. age <= 30",
            )
        return _apply(op, s.to_numpy(dtype=float), float(lit.value))

    def node(self, node: Expression) -> np.ndarray:
        if isinstance(node, Logical):
            parts = [self.node(p) for p in node.operands]
            return np.logical_and.reduce(parts) if node.op == "and" else np.logical_or.reduce(parts)
        if isinstance(node, Not):
            return ~self.node(node.operand)
        if isinstance(node, Membership):
            mask = np.zeros(len(self.frame), dtype=bool)
            for lit in node.values:
                mask |= self.compare_literal(node.column, "==", lit)
            return ~mask if node.negated else mask
        left, op, right = node.left, node.op, node.right
        if isinstance(left, Literal):
            left, op, right = right, _FLIP[op], left
        assert isinstance(left, Column)
        if isinstance(right, Literal):
            return self.compare_literal(left, op, right)
        a, b = self.column(left), self.column(right)
        if self.is_categorical(left) != self.is_categorical(right):
            raise _fail(
                self.text,
                right.pos,
                f"columns {left.name!r} and {right.name!r} are of different kinds "
                "(one numeric, one categorical) and cannot be compared",
            )
        if self.is_categorical(left):
            if op not in ("==", "!="):
                raise _fail(
                    self.text,
                    right.pos,
                    f"categorical columns {left.name!r} and {right.name!r} compare with == or != only",
                )
            return _apply(op, a.astype(str).to_numpy(), b.astype(str).to_numpy())
        return _apply(op, a.to_numpy(dtype=float), b.to_numpy(dtype=float))


def _apply(op: str, a: Any, b: Any) -> np.ndarray:
    if op == "==":
        return np.asarray(a == b, dtype=bool)
    if op == "!=":
        return np.asarray(a != b, dtype=bool)
    if op == "<":
        return np.asarray(a < b, dtype=bool)
    if op == "<=":
        return np.asarray(a <= b, dtype=bool)
    if op == ">":
        return np.asarray(a > b, dtype=bool)
    return np.asarray(a >= b, dtype=bool)


def select(frame: pd.DataFrame, text: str | Expression) -> np.ndarray:
    """The boolean mask of the rows of ``frame`` that ``text`` selects (one value per row).

    Raises:
        ExpressionError: for a syntax error (with its position), an unknown column (listing
            the available ones), or a value or comparison that does not fit a column.
    """
    source = text if isinstance(text, str) else "<parsed expression>"
    node = parse(text) if isinstance(text, str) else text
    unknown = [c for c in _columns(node) if c.name not in frame.columns]
    if unknown:
        c = unknown[0]
        hint = " (write names with other characters than letters, digits and _ in backticks, e.g. `hours-per-week`)"
        raise _fail(
            source,
            c.pos,
            f"unknown column {c.name!r}; the columns are {list(map(str, frame.columns))}"
            + (hint if any(not _NAME.fullmatch(str(n)) for n in frame.columns) else ""),
        )
    mask = _Evaluator(frame, source).node(node)
    if mask.shape != (len(frame),):  # a scalar comparison cannot occur (one side is a column); guard anyway
        mask = np.broadcast_to(mask, (len(frame),)).copy()
    return mask


def selected_rows(frame: pd.DataFrame, text: str, *, option: str = "--where") -> np.ndarray:
    """Positions (0-based) of the rows ``text`` selects, for a command-line option.

    Raises:
        ExpressionError: as :func:`select`, the message starting with ``option``; also when
            the expression selects no row.
    """
    try:
        mask = select(frame, text)
    except ExpressionError as exc:
        raise ExpressionError(f"{option}: {exc}") from None
    rows = np.flatnonzero(mask)
    if len(rows) == 0:
        raise ExpressionError(f"{option} {text!r} selects no row (of {len(frame):,}).")
    return rows
