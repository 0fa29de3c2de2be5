"""The look every chart script shares (plot.py, and any other that draws for `bench plot`):
the output format and resolution, the `paper` style, and one colour, marker and line style
per series across every chart of a run.

Interface:
    add_arguments(parser)          --format png|pdf|svg, --dpi N, --style default|paper
    configure(arguments)           applies them (matplotlib rcParams) before anything is drawn
    Series(names, bounds=())       a stable look per series name: colours by sorted name, so
                                   `lru` is the same colour in every chart of a run; names in
                                   `bounds` (offline bounds) are gray and dashed
        .look(name) -> dict        color, marker, linestyle for Axes.plot
        .colors() -> {name: hex}   the mapping (written as plot_colors.json by plot.py)
    save(figure, out, stem, written)  writes OUT/STEM.FORMAT (never through a link), closes it
    FIGURE_WIDTH                   inches: 12 by default, 3.5 (one column) in the paper style
"""
import os

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.colors import to_hex

FORMATS = ("png", "pdf", "svg")
STYLES = ("default", "paper")
FORMAT = "png"
DPI = 110
STYLE = "default"
FIGURE_WIDTH = 12.0

# Ten colours of tab10 (distinct in colour), then tab20's lighter ones; beyond 20 series the
# colours repeat but the marker and line style differ (they cycle with other periods).
PALETTE = [to_hex(c) for c in plt.get_cmap("tab10").colors] + [to_hex(c) for c in plt.get_cmap("tab20").colors[1::2]]
MARKERS = "osD^v<>pXh*P"
LINESTYLES = ["-", "--", "-.", ":"]
BOUND_GRAYS = ["#555555", "#8c8c8c", "#2b2b2b", "#b0b0b0"]
BOUND_DASHES = [(0, (5, 2)), (0, (2, 2)), (0, (6, 2, 1, 2)), (0, (1, 1))]


def add_arguments(parser):
    parser.add_argument("--format", choices=FORMATS, default="png")
    parser.add_argument("--dpi", type=int, default=None)
    parser.add_argument("--style", choices=STYLES, default="default")


def configure(arguments):
    """Sets the module's format, dpi and style, and matplotlib's rcParams for the style."""
    global FORMAT, DPI, STYLE, FIGURE_WIDTH
    FORMAT, STYLE = arguments.format, arguments.style
    DPI = arguments.dpi or (300 if STYLE == "paper" else 110)
    # Type 42 (TrueType) fonts embedded whole in PDF and PostScript: what publishers ask for
    # instead of Type 3 (matplotlib docs, rcParams "pdf.fonttype").
    matplotlib.rcParams["pdf.fonttype"] = 42
    matplotlib.rcParams["ps.fonttype"] = 42
    matplotlib.rcParams["svg.fonttype"] = "path"  # text as outlines: no font needed to view it
    matplotlib.rcParams["svg.hashsalt"] = "bench"  # the same SVG for the same input
    if STYLE == "paper":
        FIGURE_WIDTH = 3.5  # a single column of a two-column paper (IEEE, ACM: ~3.3–3.5 in)
        matplotlib.rcParams.update({
            "font.family": "serif", "font.serif": ["DejaVu Serif"], "font.size": 8, "axes.titlesize": 8,
            "axes.labelsize": 8, "legend.fontsize": 6.5, "xtick.labelsize": 7, "ytick.labelsize": 7,
            "lines.linewidth": 1.1, "lines.markersize": 3.5, "axes.linewidth": 0.6, "grid.linewidth": 0.4,
            "figure.titlesize": 9})


def size(width, height):
    """A figure size: as drawn by default, or scaled to one column in the paper style."""
    if STYLE != "paper":
        return (width, height)
    scale = FIGURE_WIDTH / max(width, 1e-9)
    return (FIGURE_WIDTH, max(2.0, height * scale * 1.6))


class Series:
    """One look per series name, the same in every chart: by position in the sorted names."""

    def __init__(self, names, bounds=()):
        self.bounds = set(bounds)
        ordered = sorted(set(names))
        self.online = [n for n in ordered if n not in self.bounds]
        self.offline = [n for n in ordered if n in self.bounds]

    def resolve(self, name):
        """`name`, or the series it is drawn as elsewhere: an experiment's `sqlite` is the run's
        `sqlite (encoded)` when the run's labels carry a cost model."""
        if name in self.online or name in self.offline:
            return name
        return next((n for n in self.online + self.offline if n.split(" (")[0] == name), name)

    def look(self, name):
        name = self.resolve(name)
        if name in self.offline:
            index = self.offline.index(name)
            return {"color": BOUND_GRAYS[index % len(BOUND_GRAYS)], "marker": None,
                    "linestyle": BOUND_DASHES[index % len(BOUND_DASHES)]}
        index = self.online.index(name) if name in self.online else len(self.online)
        return {"color": PALETTE[index % len(PALETTE)], "marker": MARKERS[index % len(MARKERS)],
                "linestyle": LINESTYLES[(index // len(MARKERS)) % len(LINESTYLES)] if STYLE != "paper" else LINESTYLES[index % len(LINESTYLES)]}

    def color(self, name):
        return self.look(name)["color"]

    def colors(self):
        return {name: self.color(name) for name in self.online + self.offline}


def create_without_links(path):
    """Opens `path` for writing, replacing a regular file but never following a link (O_NOFOLLOW)."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644), "wb")


def save(figure, out, stem, written, format=None):
    """Writes OUT/STEM.FORMAT and closes the figure; the path goes into `written`."""
    chosen = format or FORMAT
    path = os.path.join(out, f"{stem}.{chosen}")
    # No creation date in PDF/SVG metadata: the same input gives the same file.
    metadata = {"CreationDate": None} if chosen == "pdf" else {"Date": None} if chosen == "svg" else None
    with create_without_links(path) as file:
        figure.savefig(file, format=chosen, dpi=DPI, bbox_inches="tight", metadata=metadata)
    plt.close(figure)
    written.append(path)
