"""The book's figure style: size, resolution, fonts, a colour-blind-safe palette and markers.

Every figure of the book is drawn for one text column, at both widths a reader has: the
book's column is about :data:`COLUMN_PX` CSS pixels wide at a 1280-px window, and a figure is
shown :data:`PHONE_FIGURE_PX` pixels wide at a 390-px (phone) window. Text of :data:`FONT_PT`
points in a figure at most :data:`MAX_WIDTH_IN` inches wide then shows at :data:`BODY_PX`
pixels or more at 1280 px, the size of the body text, and at :data:`MIN_PHONE_TEXT_PX` or more
at 390 px (the displayed size of a text is its size in points × :data:`DPI` / 72 × the shown
width / the natural width, which is ``FONT_PT / 72 × shown / width in inches``: the
resolution cancels out, only the width in inches counts). Figures are rendered at :data:`DPI`
dots per inch, so they are shown at between half and all of their natural width at 1280 px. Colours come from seaborn's ``colorblind`` palette (Okabe–Ito-like, safe for
the common colour-vision deficiencies), and every line or point series also has its own
marker, so that no information rests on colour alone.

seaborn and matplotlib are imported inside the functions, so that importing
:mod:`cffair.reporting` does not load them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from cffair.experiments import _registry as registry

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure
    from matplotlib.typing import LineStyleType, RcKeyType

__all__ = [
    "BODY_PX",
    "COLUMN_PX",
    "DPI",
    "FONT_PT",
    "MARKERS",
    "MAX_WIDTH_IN",
    "MIN_PHONE_TEXT_PX",
    "PHONE_FIGURE_PX",
    "book_style",
    "finish",
    "legend_below",
    "line_handles",
    "palette",
    "patch_handles",
    "series_colours",
    "setting_colours",
    "setting_markers",
]

#: Resolution of every figure (dots per inch).
DPI = 150
#: Size of every text of a figure (points): tick labels, axis labels, legends, titles.
FONT_PT = 12.0
#: Width of the book's text column at a 1280-px window (CSS pixels), measured in Chromium.
COLUMN_PX = 688
#: Size of the body text (CSS pixels).
BODY_PX = 16
#: The width a figure is shown at in a 390-px window (CSS pixels), measured in Chromium.
PHONE_FIGURE_PX = 342
#: The smallest size a figure's text may show at in a 390-px window (CSS pixels).
MIN_PHONE_TEXT_PX = 9.0
#: The widest figure (inches): FONT_PT / 72 × PHONE_FIGURE_PX / MIN_PHONE_TEXT_PX = 6.33 inches keeps
#: text of FONT_PT at 9 px or more on a phone, less a margin for the tight bounding box.
MAX_WIDTH_IN = 6.0
#: Markers, one per series, in order (filled shapes that differ in outline, not only in size).
MARKERS: tuple[str, ...] = ("o", "s", "D", "^", "v", "P", "X", "*", "h", "<")

#: Preferred palette position of each method, so a method keeps its colour across figures: the
#: method registry's :attr:`~cffair.experiments._registry.Method.colour`.
_PREFERRED: Mapping[str, int] = registry.View(
    lambda: {k: m.colour for k, m in registry.METHODS.items() if m.colour is not None}
)


def palette(n: int = 10) -> list[str]:
    """The first ``n`` colours (hex) of seaborn's colour-blind palette (it has 10; more repeat)."""
    import seaborn as sns

    base = sns.color_palette("colorblind").as_hex()
    return [base[i % len(base)] for i in range(n)]


def series_colours(labels: Sequence[str]) -> dict[str, str]:
    """A colour per label, in order (distinct for up to 10 labels)."""
    colours = palette(len(labels))
    return dict(zip(labels, colours))


def setting_colours(settings: Sequence[str]) -> list[str]:
    """A colour per method or axiom setting: each keeps its colour across figures where it can,
    and the colours of one call are distinct (for up to 10 settings)."""
    base = palette(10)
    taken: set[int] = set()
    out: list[str] = []
    for s in settings:
        i = _PREFERRED.get(s, 0)
        for step in range(10):
            if (i + step) % 10 not in taken:
                i = (i + step) % 10
                break
        taken.add(i)
        out.append(base[i])
    return out


def setting_markers(settings: Sequence[str]) -> list[str]:
    """A marker per method, distinct within the call (for up to 10 methods), stable where it can be."""
    taken: set[int] = set()
    out = []
    for s in settings:
        i = _PREFERRED.get(s, 0)
        for step in range(len(MARKERS)):
            if (i + step) % len(MARKERS) not in taken:
                i = (i + step) % len(MARKERS)
                break
        taken.add(i)
        out.append(MARKERS[i])
    return out


def _rc() -> dict[RcKeyType, Any]:
    return {
        "figure.dpi": DPI,
        "savefig.dpi": DPI,
        "font.size": FONT_PT,
        "axes.titlesize": FONT_PT,
        "axes.labelsize": FONT_PT,
        "xtick.labelsize": FONT_PT,
        "ytick.labelsize": FONT_PT,
        "legend.fontsize": FONT_PT,
        "legend.title_fontsize": FONT_PT,
        "figure.titlesize": FONT_PT + 1,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }


@contextmanager
def book_style() -> Iterator[None]:
    """Draw inside this context: seaborn's white grid with the book's fonts and resolution.

    >>> with book_style():                      # doctest: +SKIP
    ...     fig, ax = plt.subplots(figsize=(MAX_WIDTH_IN, 3))
    """
    import matplotlib
    import matplotlib.pyplot as plt
    import seaborn as sns

    interactive = matplotlib.is_interactive()
    try:
        with sns.axes_style("whitegrid", {"grid.color": "#e3e3e3"}), plt.rc_context(_rc()):
            try:
                yield
            finally:
                # The first figure of an IPython session switches interactive mode on (that is how
                # the inline backend shows figures); leaving the context must not switch it off.
                interactive = matplotlib.is_interactive()
    finally:
        matplotlib.interactive(interactive)


def legend_below(
    fig: Figure,
    handles: Sequence[Any],
    labels: Sequence[str],
    *,
    ncol: int = 3,
    title: str | None = None,
    gap: Any = None,
) -> None:
    """One legend for the whole figure, off the data: centred below the panels, or, given the
    last panel of a grid whose last row has an empty slot to its right (``gap``), in that slot.
    Labels too long for the legend to fit within the figure's width are wrapped onto more lines
    (``_fit_legend``), so that the saved figure stays as wide as it was drawn."""
    kw = dict(frameon=False, title=title, fontsize=FONT_PT, title_fontsize=FONT_PT, handlelength=2.2)
    if gap is not None:
        box = gap.get_position()
        legend = fig.legend(
            list(handles),
            list(labels),
            loc="center left",
            bbox_to_anchor=(box.x1 + 0.1, (box.y0 + box.y1) / 2),
            ncol=1,
            **kw,
        )
    else:
        legend = fig.legend(
            list(handles),
            list(labels),
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=max(1, min(ncol, len(labels))),
            **kw,
        )
    _fit_legend(fig, legend)


def _fit_legend(fig: Figure, legend: Any, *, shortest: int = 10) -> None:
    """Wrap ``legend``'s labels at ever fewer characters a line until the legend lies within the
    figure's width (a legend wider than the figure widens the saved image, which a narrow window
    then shrinks, text and all), down to ``shortest`` characters a line."""
    import textwrap

    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # Agg's canvas has it; the stubs do not
    texts = legend.get_texts()
    originals = [t.get_text() for t in texts]
    limit = fig.bbox.width

    def sticks_out() -> bool:
        box = legend.get_window_extent(renderer)
        return bool(box.x0 < -0.5 or box.x1 > limit + 0.5)

    width = max((len(s) for s in originals), default=0)
    while sticks_out() and width > shortest:
        width -= 2
        for t, s in zip(texts, originals):
            t.set_text(textwrap.fill(s, max(width, shortest), break_on_hyphens=False))


def patch_handles(colours: Sequence[str], *, hatches: Sequence[str | None] | None = None) -> list[Any]:
    """Legend handles for bars: one filled square per colour (hatched where given)."""
    from matplotlib.patches import Patch

    hatches = list(hatches) if hatches is not None else [None] * len(colours)
    return [Patch(facecolor=c, hatch=h, edgecolor="white" if h else c) for c, h in zip(colours, hatches)]


def line_handles(colours: Sequence[str], markers: Sequence[str], linestyles: Sequence[str] | None = None) -> list[Any]:
    """Legend handles for lines with markers, one per colour."""
    from matplotlib.lines import Line2D

    linestyles = list(linestyles) if linestyles is not None else ["-"] * len(colours)
    return [
        Line2D([], [], color=c, marker=m, linestyle=cast("LineStyleType", ls), markersize=8, linewidth=1.8)
        for c, m, ls in zip(colours, markers, linestyles)
    ]


def finish(fig: Figure) -> Figure:
    """Fix what may be created later at draw time: tick-label sizes (new ticks copy the axis's
    settings, not the style context) and the resolution."""
    for ax in fig.axes:
        ax.tick_params(labelsize=FONT_PT)
    fig.set_dpi(DPI)
    return fig
