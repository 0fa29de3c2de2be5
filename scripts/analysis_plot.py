#!/usr/bin/env python3
"""Charts of `bench analyze --csv DIR`, drawn by `bench plot DIR/summary.csv --out CHARTS`.

usage: CWB_STAGING=DIR analysis_plot.py --out=DIR [--format pdf|svg|png] [--dpi N]
                                         [--style default|paper] -- DIR/summary.csv...

Each input is the summary.csv of one analysis; the other tables are read from its folder
(columns in docs/analyze.md). Writes analysis_popularity, analysis_reuse, analysis_size,
analysis_rate and analysis_decay (one figure each, every analysis as its own series) and
prints their paths.
The staging rules are plot.py's (imported, not copied).
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import plot_style  # noqa: E402
from plot import refuse_outside, reporting_errors, staging_folder  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402
from workbench_csv import BadInput  # noqa: E402


def plain_log_labels(axis, which):
    """plot.py turns off math text, so log ticks are labelled as plain numbers."""
    for part in which:
        getattr(axis, part).set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        getattr(axis, part).set_minor_formatter(NullFormatter())

CHARTS = ("analysis_popularity", "analysis_reuse", "analysis_size", "analysis_rate", "analysis_decay")


def table(summary_path, name):
    path = os.path.join(os.path.dirname(summary_path), name + ".csv")
    try:
        return pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise BadInput(path, 1, f"cannot read a bench analyze table ({error})") from error


def summary_of(path):
    frame = table(path, "summary")
    if list(frame.columns) != ["figure", "value"]:
        raise BadInput(path, 1, "not a bench analyze summary.csv (columns figure,value)")
    return dict(zip(frame["figure"], frame["value"]))


def require(summary, path, names):
    missing = [name for name in names if name not in summary]
    if missing:
        raise BadInput(path, 1, f"bench analyze summary without {', '.join(missing)}")


def label_of(summary):
    return os.path.basename(str(summary.get("trace", "trace")))


# Each analysis's colour, set in draw(): {trace label: colour}.
COLORS = {}


def assign_colors(analyses):
    """plot_style's one mapping (every chart's and the report's), here from the trace's name, so
    a trace keeps its colour in every analysis chart; two traces whose names map to one colour
    (a hash: 1 in 20) take the palette's next free colour, in input order. O(n × palette)."""
    taken = set()
    for _, summary in analyses:
        label = label_of(summary)
        color = plot_style.backend_color(label)
        start = plot_style.PALETTE.index(color) if color in plot_style.PALETTE else 0
        for step in range(len(plot_style.PALETTE)):
            if color not in taken:
                break
            color = plot_style.PALETTE[(start + step + 1) % len(plot_style.PALETTE)]
        COLORS.setdefault(label, color)
        taken.add(COLORS[label])


def color_of(summary):
    return COLORS.get(label_of(summary)) or plot_style.backend_color(label_of(summary))


def popularity(analyses, axes):
    ranks, xhit = axes
    for path, summary in analyses:
        frequency = table(path, "frequency").sort_values("requests_per_object", ascending=False)
        # Rank r holds the r-th most requested object: repeat each frequency by its object count.
        counts = frequency["requests_per_object"].repeat(frequency["objects"]).reset_index(drop=True)
        alpha = summary.get("zipf_alpha")
        fit = f", Zipf α {float(alpha):.3f}" if pd.notna(alpha) and str(alpha) != "" else ""
        ranks.loglog(range(1, len(counts) + 1), counts, color=color_of(summary), label=label_of(summary) + fit)
        hits = table(path, "xhit")
        xhit.plot(hits["times_requested"], hits["objects"], marker="o", color=color_of(summary), label=label_of(summary))
    plain_log_labels(ranks, ("xaxis", "yaxis"))
    ranks.set(xlabel="object rank", ylabel="requests", title="popularity (rank vs requests)")
    xhit.set(xlabel="requested exactly X times", ylabel="objects", title="X-hit objects")
    ranks.legend()


def reuse(analyses, axes):
    for path, summary in analyses:
        seconds = table(path, "reuse_time")
        axes[0].step(seconds["from_seconds"], seconds["requests"], where="post", color=color_of(summary), label=label_of(summary))
        for axis, name, unit in ((axes[1], "reuse_requests", "from_requests"), (axes[2], "reuse_distance", "from_objects")):
            frame = table(path, name)
            frame = frame[frame[unit] > 0]
            axis.step(frame[unit], frame["requests"], where="post", color=color_of(summary), label=label_of(summary))
            axis.set_xscale("log")
            plain_log_labels(axis, ("xaxis",))
    axes[0].set_xscale("symlog", linthresh=5)
    plain_log_labels(axes[0], ("xaxis",))
    axes[0].set(xlabel="seconds since the previous request (5 s bins)", ylabel="re-requests", title="reuse time")
    axes[1].set(xlabel="requests since the previous request (log 1.5 bins)", title="reuse time in requests")
    axes[2].set(xlabel="distinct objects between (stack distance, log 1.5 bins)", title="reuse distance")
    axes[0].legend()


def sizes(analyses, axis):
    for path, summary in analyses:
        frame = table(path, "size").sort_values("size_bytes")
        for column, dash in (("requests", "-"), ("objects", "--")):
            share = frame[column].cumsum() / max(frame[column].sum(), 1)
            axis.step(frame["size_bytes"], share, dash, where="post", color=color_of(summary), label=f"{label_of(summary)} by {column}")
    axis.set_xscale("log")
    plain_log_labels(axis, ("xaxis",))
    axis.set(xlabel="object size (bytes)", ylabel="cumulative share", title="object size distribution")
    axis.legend()


def rates(analyses, axis):
    for path, summary in analyses:
        frame = table(path, "rate")
        window = float(summary["window_seconds"])
        axis.plot(frame["start_seconds"], frame["requests"] / window, color=color_of(summary), label=f"{label_of(summary)} requests/s")
        axis.plot(frame["start_seconds"], frame["objects"] / window, "--", color=color_of(summary), label=f"{label_of(summary)} objects/s")
    axis.set(xlabel="seconds since the first request", ylabel="per second", title="request and object rate per window")
    axis.legend()


def decay(analyses, axis):
    """Popularity decay: for objects first requested in one window (a cohort), how many are
    requested k windows later, over how many were requested in the window after their first
    (traceAnalyzer's F_k / F_1, its header's relative popularity), averaged over cohorts."""
    drawn = 0
    for path, summary in analyses:
        try:
            frame = table(path, "popularity_decay")
        except BadInput:
            continue  # a folder from before popularity decay
        if frame.empty:
            continue
        cells = {(int(r), int(c)): int(n) for r, c, n in zip(frame["row"], frame["created_window"], frame["objects"])}
        ages = {}
        for (row, cohort), count in cells.items():
            base = cells.get((cohort + 1, cohort), 0)
            if row > cohort and base > 0:
                ages.setdefault(row - cohort, []).append(count / base)
        if not ages:
            continue
        xs = sorted(ages)
        axis.plot(xs, [sum(ages[k]) / len(ages[k]) for k in xs], marker="o", markersize=3, color=color_of(summary), label=label_of(summary))
        drawn += 1
    window = analyses[0][1].get("window_seconds", "?")
    axis.set(xlabel=f"windows after the objects' first ({window} s each)", ylabel="relative popularity (F_k / F_1)",
             title="popularity decay (mean over cohorts)")
    if drawn:
        axis.set_yscale("log")
        plain_log_labels(axis, ("yaxis",))
        axis.legend()
    else:
        axis.text(0.5, 0.5, "no window ended\nafter the warm-up\n(bench analyze\n--decay-warmup)", ha="center", va="center", transform=axis.transAxes)


def draw(arguments):
    if arguments.style == "paper":
        plt.rcParams.update({"font.size": 9, "font.family": "serif", "lines.linewidth": 1.2})
    analyses = [(path, summary_of(path)) for path in arguments.csv]
    assign_colors(analyses)
    for path, summary in analyses:
        require(summary, path, ("trace", "window_seconds"))
    layouts = {"analysis_popularity": (1, 2, popularity), "analysis_reuse": (1, 3, reuse),
               "analysis_size": (1, 1, sizes), "analysis_rate": (1, 1, rates), "analysis_decay": (1, 1, decay)}
    for name in CHARTS:
        rows, columns, painter = layouts[name]
        figure, axes = plt.subplots(rows, columns, figsize=plot_style.size(5.5 * columns, 4), squeeze=False)
        painter(analyses, axes[0] if columns > 1 else axes[0][0])
        figure.tight_layout()
        written = []
        plot_style.save(figure, arguments.out, name, written)
        print(written[0])


def main():
    parser = argparse.ArgumentParser(description="Charts of bench analyze tables.", allow_abbrev=False)
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--out", required=True)
    plot_style.add_arguments(parser)
    # What bench plot passes every chart script: the offline bounds and the series to keep.
    # An analysis has no series, so --only cannot choose among them.
    parser.add_argument("--bounds", default="")
    parser.add_argument("--only", default=None)
    parser.add_argument("--ylim", default=None)
    arguments = parser.parse_args()
    if arguments.only:
        print("plot: error: --only: the charts of a bench analyze folder have no series to choose", file=sys.stderr)
        return 2
    if arguments.ylim is not None:
        print("plot: error: --ylim: the charts of a bench analyze folder have no ratio axis to limit", file=sys.stderr)
        return 2
    plot_style.configure(arguments)
    refuse_outside(arguments.out, staging_folder(), is_folder=True)
    reporting_errors(arguments.csv, lambda: draw(arguments))


if __name__ == "__main__":
    sys.exit(main())
