"""The book's rules for a figure, checked on a drawn matplotlib figure (used by every figure test).

Resolution, the displayed size of the smallest text (at a 1280-px window and at a 390-px one), at
most two panels per row, no legend over a panel, and only colours of the colour-blind palette
(:mod:`cffair.reporting._style`).
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

from matplotlib.colors import to_hex
from matplotlib.text import Text
from PIL import Image

from cffair.reporting import _style as style

PALETTE = set(style.palette(10))


def data_panels(fig) -> list:
    return [ax for ax in fig.axes if ax.get_visible() and ax.has_data()]


def _saved_width_px(fig) -> int:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")  # as the notebook's inline backend saves it
    buf.seek(0)
    return Image.open(buf).size[0]


def check_book_rules(fig, *, series_colours: list[str] | None = None) -> None:
    assert fig.dpi == style.DPI
    natural = _saved_width_px(fig)
    shown = min(natural, style.COLUMN_PX)
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert texts
    smallest = min(t.get_fontsize() for t in texts)
    displayed_px = smallest * style.DPI / 72 * shown / natural
    assert displayed_px >= style.BODY_PX - 0.05, (
        f"smallest text {smallest} pt shows at {displayed_px:.1f} px (< {style.BODY_PX})"
    )
    phone_px = smallest * style.DPI / 72 * min(natural, style.PHONE_FIGURE_PX) / natural
    assert phone_px >= style.MIN_PHONE_TEXT_PX - 0.05, (
        f"smallest text {smallest} pt shows at {phone_px:.1f} px at a 390-px window, drawn {natural} px wide "
        f"(< {style.MIN_PHONE_TEXT_PX}); at most {style.MAX_WIDTH_IN} inches wide keeps it readable"
    )
    rows: dict[float, int] = {}
    for ax in data_panels(fig):
        y = round(ax.get_position().y0, 3)
        rows[y] = rows.get(y, 0) + 1
    assert max(rows.values(), default=0) <= 2, f"panels per row: {rows}"
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in data_panels(fig):
            assert not box.overlaps(ax.get_window_extent(renderer)), "a legend lies over a panel"
    for c in series_colours or []:
        assert to_hex(c) in PALETTE, f"colour {c} is not in the colour-blind palette"
