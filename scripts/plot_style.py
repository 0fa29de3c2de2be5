"""The look every chart script shares (plot.py, and any other that draws for `bench plot`):
the output format and resolution, the `paper` style, and one colour, marker and line style
per series across every chart of a run.

Interface:
    add_arguments(parser)          --format png|pdf|svg, --dpi N, --style default|paper, --columns 1|2
    configure(arguments)           applies them (matplotlib rcParams) before anything is drawn
    backend_color(label)           the one colour of a label's backend (`files`, `files (encoded)`,
                                   `files at 16MiB`: the same), from the name alone, so it is
                                   the same in every chart, run and report
    Series(names, bounds=())       a stable look per series label: its backend's colour and marker,
                                   variants by line style; names in `bounds` (offline bounds)
                                   are gray and dashed
        .look(name) -> dict        color, marker, linestyle for Axes.plot
        .colors() -> {name: hex}   the mapping (written as plot_colors.json by plot.py)
    save(figure, out, stem, written)  writes OUT/STEM.FORMAT (never through a link), closes it;
                                   in the paper style a figure wider than FIGURE_WIDTH is said
    fitted_legend(figure, handles, labels, y)
                                   the paper style's key under the panels, in as many columns as
                                   fit the figure's width (long labels wrapped)
    wrapped(text, axis)            a title wrapped to its axis's width in the paper style
    FIGURE_WIDTH                   inches: 12 by default; in the paper style 3.5 (one column)
                                   or 7.16 (both columns of the page, --columns 2)
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
COLUMNS = 1
# A paper's column and text widths (IEEE: 3.5 and 7.16 in; ACM's 3.33 and 7.0 fit inside).
PAPER_WIDTHS = {1: 3.5, 2: 7.16}
# Figures wider than FIGURE_WIDTH in the paper style, as (stem, inches): said by plot.py.
TOO_WIDE = []

# One colour per backend, a function of its name alone (never of which other backends a run
# has), so `files` is the same colour in every chart, every run and the report. The known
# backends: the iOS caches first (`bench list`'s order), then the policies most often compared,
# so those drawn together take distinct colours (the first twenty are all distinct). Twenty
# colours (tab10 without its red, kept for memory warnings, and its gray, kept for offline
# bounds; then tab20b/tab20's darker and lighter tones) and twelve markers cycle together: every known name has a (colour, marker) pair of its
# own (the pairs repeat only after lcm(20, 12) = 60 names).
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
           "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#e7ba52", "#6b6ecf", "#a55194",
           "#d6616b", "#9edae5", "#98df8a", "#c49c94"]
MARKERS = "osD^v<>pXh*P"
LINESTYLES = ["-", "--", "-.", ":"]
KNOWN_BACKENDS = (
    "lru", "nscache", "autopurge", "autopurge-o1", "files", "sqlite", "sdwebimage", "kingfisher", "nuke", "pincache",
    "afnetworking", "foundation-urlcache", "foundation-nscache",
    "fifo", "clock", "sieve", "s3fifo", "arc", "lfu", "2q", "slru", "wtinylfu", "lirs", "lfuda", "gdsf", "lruk", "mq",
    "clock2qplus", "sfifo", "s3lru", "qdlp", "car", "flashprob", "s3fifod", "fifomerge", "mru", "size", "random",
    "randomtwo", "lruprob", "hyperbolic", "lecar", "cacheus", "crlfu", "clockpro", "lhd", "randomlru", "fiforeinsertion",
    "glcache", "lrb", "3lcache")
# Offline bounds (and offline policies) are gray and dashed, each its own gray.
BOUND_LOOKS = {"belady": ("#555555", (0, (5, 2))), "pfoo-l": ("#8c8c8c", (0, (2, 2))), "beladysize": ("#2b2b2b", (0, (6, 2, 1, 2)))}
BOUND_GRAYS = ["#555555", "#8c8c8c", "#2b2b2b", "#b0b0b0"]
BOUND_DASHES = [(0, (5, 2)), (0, (2, 2)), (0, (6, 2, 1, 2)), (0, (1, 1))]
WARNING_COLOR = "#d62728"  # memory warnings: no backend has it


def backend_of(label):
    """The backend a series label names: `nscache[key-hash=cf]`, `sqlite (encoded)`, `lru (mattson)`
    and `files at 16MiB` are nscache, sqlite, lru and files."""
    return str(label).split("[")[0].split(" (")[0].split(" at ")[0].strip()


def backend_index(backend):
    """The backend's place in KNOWN_BACKENDS; another name (a tier:A+B, a custom backend, a trace)
    a place after them from a hash of its name (SHA-256, the same on every machine). O(1)."""
    if backend in KNOWN_BACKENDS:
        return KNOWN_BACKENDS.index(backend)
    import hashlib
    return len(KNOWN_BACKENDS) + int.from_bytes(hashlib.sha256(backend.encode()).digest()[:4], "big") % 60


def backend_color(label):
    """The colour of the backend a label names, in every chart and in the report."""
    backend = backend_of(label)
    if backend in BOUND_LOOKS:
        return BOUND_LOOKS[backend][0]
    return PALETTE[backend_index(backend) % len(PALETTE)]


def add_arguments(parser):
    parser.add_argument("--format", choices=FORMATS, default="png")
    parser.add_argument("--dpi", type=int, default=None)
    parser.add_argument("--style", choices=STYLES, default="default")
    parser.add_argument("--columns", type=int, choices=sorted(PAPER_WIDTHS), default=1)


def configure(arguments):
    """Sets the module's format, dpi and style, and matplotlib's rcParams for the style."""
    global FORMAT, DPI, STYLE, FIGURE_WIDTH, COLUMNS
    FORMAT, STYLE, COLUMNS = arguments.format, arguments.style, arguments.columns
    DPI = arguments.dpi or (300 if STYLE == "paper" else 110)
    # Type 42 (TrueType) fonts embedded whole in PDF and PostScript: what publishers ask for
    # instead of Type 3 (matplotlib docs, rcParams "pdf.fonttype").
    matplotlib.rcParams["pdf.fonttype"] = 42
    matplotlib.rcParams["ps.fonttype"] = 42
    matplotlib.rcParams["svg.fonttype"] = "path"  # text as outlines: no font needed to view it
    matplotlib.rcParams["svg.hashsalt"] = "bench"  # the same SVG for the same input
    if STYLE == "paper":
        FIGURE_WIDTH = PAPER_WIDTHS[COLUMNS]
        matplotlib.rcParams.update({
            "font.family": "serif", "font.serif": ["DejaVu Serif"], "font.size": 8, "axes.titlesize": 8,
            "axes.labelsize": 8, "legend.fontsize": 6.5, "xtick.labelsize": 7, "ytick.labelsize": 7,
            "lines.linewidth": 1.1, "lines.markersize": 3.5, "axes.linewidth": 0.6, "grid.linewidth": 0.4,
            "figure.titlesize": 9})


def size(width, height):
    """A figure size: as drawn by default, or scaled to the paper style's width (one column:
    taller than the scale gives, so the panels keep room for their text)."""
    if STYLE != "paper":
        return (width, height)
    scale = FIGURE_WIDTH / max(width, 1e-9)
    return (FIGURE_WIDTH, max(2.0, height * scale * (1.6 if COLUMNS == 1 else 1.0)))


def wrapped(text, axis, fontsize=None):
    """`text` wrapped to `axis`'s width in the paper style (a title no wider than its panel);
    unchanged otherwise. Characters per line from the font size (an average glyph ~0.55 em)."""
    if STYLE != "paper":
        return text
    import textwrap
    points = axis.get_position().width * axis.figure.get_figwidth() * 72
    size = fontsize or matplotlib.rcParams["axes.titlesize"]
    size = size if isinstance(size, (int, float)) else 8
    return "\n".join(textwrap.wrap(text, max(12, int(points / (0.55 * size))))) or text


def fitted_legend(figure, handles, labels, y=None, most=None):
    """The paper style's key, centred under the panels: its top at figure height fraction `y`,
    or (None) just under everything drawn (no gap above it); in as many columns (up to `most`:
    2 in one column, 4 across the page) as fit FIGURE_WIDTH; a label too long for one column
    wrapped. O(columns) draws of the legend."""
    import textwrap
    most = most or (2 if COLUMNS == 1 else 4)
    renderer = figure.canvas.get_renderer()
    if y is None:
        bottom = min(axis.get_tightbbox(renderer).y0 for axis in figure.axes if axis.get_visible())
        y = bottom / figure.bbox.height - 0.06 / figure.get_figheight()
    for columns in range(min(most, max(1, len(labels))), 0, -1):
        names = labels if columns > 1 else [textwrap.fill(l, 60) for l in labels]
        legend = figure.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, y), ncol=columns, frameon=False)
        if legend.get_window_extent(renderer).width / figure.dpi <= FIGURE_WIDTH or columns == 1:
            return legend
        legend.remove()


class Series:
    """One look per series label, the same in every chart and the report: the colour is its
    backend's (backend_color), the marker its backend's too; variants and cost models of one
    backend (`lru`, `lru[admission=tinylfu]`, `sqlite (encoded)`) differ by line style. Labels
    in `bounds` (offline bounds) are gray and dashed. O(n log n) to build, O(1) per look."""

    def __init__(self, names, bounds=()):
        self.bounds = set(bounds)
        ordered = sorted(set(names))
        self.online = [n for n in ordered if n not in self.bounds]
        self.offline = [n for n in ordered if n in self.bounds]
        # Each label's rank among the labels of its backend: its line style.
        self.rank = {}
        for group in (self.online, self.offline):
            seen = {}
            for name in group:
                backend = backend_of(name)
                self.rank[name] = seen.get(backend, 0)
                seen[backend] = self.rank[name] + 1

    def resolve(self, name):
        """`name`, or the series it is drawn as elsewhere: an experiment's `sqlite` is the run's
        `sqlite (encoded)` when the run's labels carry a cost model."""
        if name in self.online or name in self.offline:
            return name
        return next((n for n in self.online + self.offline if n.split(" (")[0] == name), name)

    def look(self, name):
        name = self.resolve(name)
        backend = backend_of(name)
        rank = self.rank.get(name, 0)
        if name in self.offline:
            color, dash = BOUND_LOOKS.get(backend, (BOUND_GRAYS[backend_index(backend) % len(BOUND_GRAYS)], BOUND_DASHES[0]))
            return {"color": color, "marker": None, "linestyle": dash if rank == 0 else BOUND_DASHES[rank % len(BOUND_DASHES)]}
        index = backend_index(backend)
        # Paper (grayscale): neighbours in the registry differ in line style as well as marker.
        style = LINESTYLES[(index + rank) % len(LINESTYLES)] if STYLE == "paper" else LINESTYLES[rank % len(LINESTYLES)]
        return {"color": backend_color(backend), "marker": MARKERS[index % len(MARKERS)], "linestyle": style}

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
    # The paper style pads by 0.02 in, not 0.1: the file's width is the figure's on the page.
    pad = 0.02 if STYLE == "paper" else 0.1
    if STYLE == "paper":  # the page has no room for more: say it, never shrink the text silently
        box = figure.get_tightbbox(figure.canvas.get_renderer())
        if box.width + 2 * pad > FIGURE_WIDTH + 0.05:
            TOO_WIDE.append((f"{stem}.{chosen}", box.width + 2 * pad))
    with create_without_links(path) as file:
        figure.savefig(file, format=chosen, dpi=DPI, bbox_inches="tight", pad_inches=pad, metadata=metadata)
    plt.close(figure)
    written.append(path)
