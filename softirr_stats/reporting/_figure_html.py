"""One figure of the HTML report: an inline PNG with its SVG and PDF downloads (every section's plots)."""

import base64
import html
import io
import re
from typing import Any

__all__ = ["figure_html"]


def figure_html(fig: Any, alt: str) -> str:
    """A matplotlib figure as an inline base64 PNG ``<img>``, with SVG and PDF downloads beside it.

    The vector files (for papers) are embedded too (data URIs, no network); the figure is closed.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> figure_html(fig, "an empty plot").startswith('<figure><img alt="an empty plot" src="data:image/png;base64,')
    True
    """
    import matplotlib.pyplot as plt

    def encoded(fmt: str, **kw: Any) -> str:
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, bbox_inches="tight", metadata={"Creator": None} if fmt == "svg" else
                    {"Creator": None, "Producer": None, "CreationDate": None} if fmt == "pdf" else
                    {"Software": None}, **kw)
        return base64.b64encode(buf.getvalue()).decode("ascii")

    png, svg, pdf = encoded("png", dpi=110), encoded("svg"), encoded("pdf")
    plt.close(fig)
    stem = re.sub(r"[^A-Za-z0-9]+", "_", alt).strip("_") or "figure"
    return (f'<figure><img alt="{html.escape(alt, quote=True)}" src="data:image/png;base64,{png}">'
            '<figcaption class="note">'
            f'Download: <a download="{stem}.svg" href="data:image/svg+xml;base64,{svg}">SVG</a> · '
            f'<a download="{stem}.pdf" href="data:application/pdf;base64,{pdf}">PDF</a></figcaption></figure>')
