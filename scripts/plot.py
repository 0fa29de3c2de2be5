#!/usr/bin/env python3
"""Charts from the workbench's CSVs (`bench plot` runs this in the bootstrap's .venv).

usage: CWB_STAGING=DIR plot.py --out=DIR [--timeline=TIMELINE.csv] [--ylim=LOW:HIGH] [--record=NAME.json] -- CSV...

Each CSV is recognized by its columns: `bench run`/`bench sweep` results, a `bench mrc`
curve, `bench experiment similar-keys` or `blob-size`. Every chart that the inputs allow is
written as a PNG into DIR; each one skipped, and each row, run or value a chart leaves out, is
named with the reason (a `plot: skipped` line and a "Not drawn" note in the chart). Prints one
line per chart written; --record writes what each chart drew and left out as JSON (for
tests). Exit 2 with one line `plot: error: FILE:LINE: reason` on bad input, and never a
traceback: every cell the charts use is checked before drawing, and anything still
unexpected is one line too.

DIR must be the staging folder `bench` made for this run and named in CWB_STAGING: the
scripts write nowhere else (an input named like an option cannot move them elsewhere).
"""
import argparse
import os
import stat
import sys

import matplotlib

matplotlib.use("Agg")
# Labels come from the CSVs: a "$…$" in a backend name stays text, never mathtext to parse.
matplotlib.rcParams["text.parse_math"] = False
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402
from workbench_csv import BadInput, fail, read  # noqa: E402,F401 (report.py uses plot.fail and plot.read)
import plot_style  # noqa: E402

# The run's series looks (plot_style.Series), made once in draw() from every series of the
# inputs so a name has one colour in every chart; None: each chart makes its own (report.py).
SERIES = None
# Backends the registry marks as offline bounds (bench passes --bounds): drawn gray and dashed.
BOUNDS = {"belady", "beladysize", "pfoo-l"}
# What each chart drew and left out, by chart ({"latency": {"drawn": [...], "left_out": [...],
# "coincide": [...]}}): `--record NAME` writes it beside the charts (the tests count it against
# the CSV's rows); every left-out entry is also a `plot: skipped` line and a note in the chart.
RECORD = {}
# --ylim LOW:HIGH for the ratio charts (mrc, hit_ratio, miss_ratio_time); None: fitted in the
# paper style, 0…1 otherwise.
YLIM = None


# Environment variable naming the folder `bench` made (mkdtemp) for this run's output.
STAGING_VARIABLE = "CWB_STAGING"


def end_with_parent():
    """Ends this script when `bench` ends (PR_SET_PDEATHSIG, Linux): a killed or interrupted
    `bench` must not leave a script writing into a staging folder nobody will rename."""
    try:
        import ctypes
        import signal
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the parent's own cleanup is all there is
    if os.getppid() == 1:  # bench ended before the request took effect
        sys.exit(1)


def staging_folder():
    """The staging folder `bench` named in CWB_STAGING: an absolute path to a real folder
    of ours (not a link). The scripts write only there; `bench` renames the result into place."""
    end_with_parent()
    folder = os.environ.get(STAGING_VARIABLE, "")
    if not os.path.isabs(folder):
        fail(STAGING_VARIABLE, "not set to an absolute folder (run this through bench plot or bench report)")
    try:
        info = os.lstat(folder)
    except OSError as error:
        fail(folder, f"the staging folder cannot be read ({error.strerror})")
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        fail(folder, "the staging folder is not a folder of ours (a link, a file, another user's)")
    return os.path.normpath(folder)


def refuse_outside(path, staging, *, is_folder):
    """--out must be the staging folder itself (charts) or a plain name directly in it (a page)."""
    path = os.path.normpath(path)
    inside = path == staging if is_folder else (os.path.dirname(path) == staging and os.path.basename(path) not in ("", ".", ".."))
    if not os.path.isabs(path) or not inside:
        fail(path, f"refused: the output must be inside the staging folder {staging}")


create_without_links = plot_style.create_without_links


def chart_file(stem):
    """A chart's file name in the run's format (disk.pdf under --format pdf)."""
    return f"{stem}.{plot_style.FORMAT}"


def series(names):
    """The run's looks, or (a script drawing one chart) looks for these names alone."""
    return SERIES or plot_style.Series(names, {n for n in names if bound_name(n)})


def bound_name(label):
    """Whether a series label (`belady`, `beladysize[n-sample=64]`, `belady (pixels)`) is an offline bound."""
    return label.split("[")[0].split(" ")[0] in BOUNDS


def trace_names(frame):
    """The traces' file names, for titles: `default.csv`, or `a.csv, b.csv`."""
    if frame is None or "trace" not in frame:
        return ""
    return ", ".join(sorted({os.path.basename(str(t)) for t in frame["trace"].dropna()}))


def size_label(value, _position=None):
    """Binary units, as the workbench prints them (MB means 2^20)."""
    value = float(value)
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            text = f"{value / scale:.1f}".rstrip("0").rstrip(".")
            return f"{text}{unit}"
    return f"{value:.0f}B"


def count_label(value, _position=None):
    value = float(value)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def labelled(results):
    """One label per backend variant and cost model (rows under different cost models never share a line)."""
    frame = results.copy()
    if "variant" in frame:
        frame["label"] = frame["backend"].astype(str) + frame["variant"].astype("string").fillna("").map(lambda v: f"[{v}]" if v else "")
    else:
        frame["label"] = frame["backend"].astype(str)
    if frame["cost_model"].nunique() > 1:
        frame["label"] = frame["label"] + " (" + frame["cost_model"].astype(str) + ")"
    return frame


def in_objects(frame):
    return "ignore_obj_size" in frame and (frame["ignore_obj_size"].astype(str) == "yes").all()


def capacity_axis(axis, objects, show_label=True):
    if objects:
        axis.set_xscale("log")
    else:
        axis.set_xscale("log", base=2)  # ticks at powers of two: 1MiB, 4MiB, …
        axis.xaxis.set_major_locator(LogLocator(base=4))
    axis.xaxis.set_major_formatter(FuncFormatter(count_label if objects else size_label))
    if show_label:
        # One column in the paper style: the shorter label keeps two panels' labels apart.
        scale = "log" if plot_style.STYLE == "paper" else "log scale"
        axis.set_xlabel(f"capacity (objects, {scale})" if objects else f"capacity (bytes, {scale})")


def save(figure, out, name, written):
    """Writes OUT/NAME in the chosen format (`mrc.png` becomes `mrc.pdf` under --format pdf)."""
    plot_style.save(figure, out, os.path.splitext(name)[0], written)


def record(stem, drawn=(), left_out=(), coincide=(), panel=None, **facts):
    """Adds to what chart `stem` drew (one entry per row or series, under its panel's title when
    it has panels), left out and drew over another; `facts` (title, ylim, legend) are set."""
    entry = RECORD.setdefault(stem, {"drawn": [], "left_out": [], "coincide": []})
    entry["drawn"] += list(drawn)
    entry["left_out"] += list(left_out)
    entry["coincide"] += list(coincide)
    if panel is not None:
        entry.setdefault("panels", {}).setdefault(panel, []).extend(drawn)
    entry.update(facts)


def leave_out(stem, skipped, reason):
    """A part of chart `stem` not drawn: a `plot: skipped` line (bench's note), the record, and
    (returned) the text the chart prints under itself."""
    skipped.append(f"{chart_file(stem)}: {reason}")
    record(stem, left_out=[reason])
    return reason


def rows_text(count):
    return f"{count} row" if count == 1 else f"{count} rows"


def rows_named(rows, most=8):
    """Rows by label, shortly: `lru at 16MiB`, `fifo at 6 capacities (11.6MiB…695.8MiB)`, the
    first `most` labels and how many more. O(n log n)."""
    parts = []
    for label, group in rows.groupby("label", sort=False):
        capacities = sorted(group["capacity_bytes"].unique())
        where = size_label(capacities[0]) if len(capacities) == 1 else (
            ", ".join(size_label(c) for c in capacities) if len(capacities) <= 3 else
            f"{len(capacities)} capacities ({size_label(capacities[0])}…{size_label(capacities[-1])})")
        parts.append(f"{label} at {where}")
    more = len(parts) - most
    return ", ".join(parts[:most]) + (f" and {more} more" if more > 0 else "")


def not_drawn_note(figure, reasons):
    """The chart says under itself what it left out: a reader of the PNG alone sees it too. Not
    in the paper style: a paper's figure carries no such text (its caption is the author's), and
    what it leaves out is said on the console and in --record all the same."""
    if reasons and plot_style.STYLE != "paper":
        # Under everything drawn so far (legends below the panels included).
        box = figure.get_tightbbox(figure.canvas.get_renderer())
        figure.text(0.01, box.y0 / figure.get_figheight() - 0.02, "\n".join(f"Not drawn: {r}" for r in reasons),
                    ha="left", va="top", fontsize=6 if plot_style.STYLE == "paper" else 8, color="#444444", wrap=True)


def parse_ylim(text):
    """--ylim LOW:HIGH, two plain decimals with 0 ≤ LOW < HIGH ≤ 1 (ratios): (low, high)."""
    import math
    parts = text.split(":")
    try:
        low, high = (float(part) for part in parts) if len(parts) == 2 and all(p.strip() for p in parts) else (None, None)
    except ValueError:
        low = high = None
    if low is None or not (math.isfinite(low) and math.isfinite(high)) or not 0 <= low < high <= 1:
        fail(f"--ylim {text}", "not LOW:HIGH with 0 ≤ LOW < HIGH ≤ 1 (a ratio's y-limits, e.g. 0.5:0.9)")
    return (low, high)


def ratio_limits(values):
    """A ratio chart's y-limits: --ylim when given; in the paper style fitted to the values drawn
    (lowest to highest, 5% of the range, at least 0.01, beyond each, within 0…1); else 0…1.02. O(n)."""
    if YLIM is not None:
        return YLIM
    values = [float(v) for v in values if not pd.isna(v)]
    if plot_style.STYLE != "paper" or not values:
        return (0, 1.02)
    low, high = min(values), max(values)
    pad = max(0.05 * (high - low), 0.01)
    return (max(0.0, low - pad), min(1.02, high + pad))


def outside(stem, skipped, values, limits):
    """A note (a list of one) when values lie beyond the y-limits (--ylim cuts them off). O(n)."""
    values = [float(v) for v in values if not pd.isna(v)]
    beyond = sum(1 for v in values if v < limits[0] or v > limits[1])
    if not beyond:
        return []
    return [leave_out(stem, skipped, f"{beyond} of {len(values)} values outside the y-limits {limits[0]:g}…{limits[1]:g} (--ylim), cut off at the axis")]


def coinciding(keyed):
    """keyed: [(label, points)] in draw order → {label: the earlier label with the same points}
    (a series drawn exactly over another). O(n) over the points, a dict keyed by them."""
    first, same = {}, {}
    for label, points in keyed:
        if points in first:
            same[label] = first[points]
        else:
            first[points] = label
    return same


def widths(keyed, same, base):
    """Line widths that keep coinciding series visible: a series with k identical ones drawn
    after it is k × 2.2 pt wider, so each shows as a band around the next (drawn over it). O(n)."""
    later, result = {}, {}
    for label, _ in reversed(keyed):
        root = same.get(label, label)
        result[label] = base + 2.2 * later.get(root, 0)
        later[root] = later.get(root, 0) + 1
    return result


def bound_note(label, objects):
    """What an offline series is, true for the panels it is drawn in (docs/policies.md): PFOO-L
    bounds hits and byte hits; Belady is the bound only with unit sizes (--ignore-obj-size), with
    sizes it ignores them and bounds nothing; BeladySize is a sampled heuristic, no bound."""
    backend = plot_style.backend_of(label)
    if backend == "belady":
        return "offline bound" if objects else "offline, no bound with sizes"
    if backend == "beladysize":
        return "offline, no bound"
    return "offline bound"


def ceiling_marks(results):
    """[(trace, best possible hit ratio or None)] per trace and requests replayed (reading.ceilings:
    a run that evicted nothing shows the compulsory misses)."""
    import reading  # here: reading imports plot
    known = reading.ceilings(results)
    marks = []
    for key in dict.fromkeys(reading.ceiling_key(row) for _, row in results.iterrows()):
        found = known.get(key)
        marks.append((os.path.basename(key[0]), found[0] / found[1] if found else None))
    return marks


def draw_ceilings(axis, marks, as_miss, limits=(0, 1.02), label=True):
    """Each trace's ceiling as a dashed line (hit ratio, or its compulsory miss ratio), named in
    the legend; an unknown one is named too, so no chart is silent about it, and one outside the
    y-limits is named as such."""
    for index, (trace, ceiling) in enumerate(marks):
        name = trace if len(marks) > 1 else "the trace"
        if ceiling is None:
            axis.plot([], [], " ", label=f"ceiling of {name} not known (every run evicted, refused or released something)" if label else None)
            continue
        value = 1 - ceiling if as_miss else ceiling
        text = f"compulsory misses of {name}: {100 * (1 - ceiling):.1f}%" if as_miss else f"ceiling of {name}: {100 * ceiling:.1f}%"
        if value < limits[0] or value > limits[1]:
            axis.plot([], [], " ", label=(text + f" ({'below' if value < limits[0] else 'above'} the y-axis, not drawn)") if label else None)
            continue
        axis.axhline(value, color="black", linestyle=(0, (4, 2 + index)), linewidth=1, label=text if label else None)


def miss_ratio_curves(curves, out, written, skipped, marks=(), trace=""):
    """curves: list of (label, frame with capacity_bytes, object_miss, byte_miss, objects);
    marks: ceiling_marks of the results (the object miss ratio can go no lower). Offline series
    gray and dashed, named for what they are; a curve drawn exactly over another is said so and
    drawn thinner on top of it; under --ignore-obj-size one panel (objects), no byte panel."""
    single = [c[0] for c in curves if len(c[1]) < 2]
    curves = [c for c in curves if len(c[1]) >= 2]
    if not curves:
        skipped.append(f"{chart_file('mrc')}: no backend has two or more capacities (run a sweep or bench mrc)")
        return
    notes = [leave_out("mrc", skipped, f"{', '.join(single)}: one capacity each, no curve (hit_ratio.png draws them)")] if single else []
    objects = all(c[2] for c in curves)
    looks = series([label for label, _, _ in curves])
    curves = sorted(curves, key=lambda c: (bound_name(c[0]), c[0]))  # the legend by name, bounds last
    panels = (("object_miss", "object miss ratio"),) if objects else (("object_miss", "object miss ratio"), ("byte_miss", "byte miss ratio"))
    paper = plot_style.STYLE == "paper"
    values = [v for _, frame, _ in curves for column, _ in panels for v in frame[column]]
    limits = ratio_limits(values)
    notes += outside("mrc", skipped, values, limits)
    figure, axes = plt.subplots(1, len(panels), figsize=plot_style.size(5.6 * len(panels) - 0.8, 4.6), sharey=True, squeeze=False)
    axes = axes[0]
    frames = {label: frame.sort_values("capacity_bytes") for label, frame, _ in curves}
    overlaps = {}
    for axis, (column, _) in zip(axes, panels):
        keyed = [(label, tuple(zip(frames[label]["capacity_bytes"], frames[label][column]))) for label, _, _ in curves]
        same = coinciding(keyed)
        lines = widths(keyed, same, 1.5 if not paper else 1.1)
        for label, _ in keyed:
            if label in same:
                overlaps.setdefault(label, []).append((same[label], column))
        for order, (label, _) in enumerate(keyed):
            frame = frames[label]
            look = dict(looks.look(label))
            if len(frame) > 30:
                look["marker"] = None
            if label in same:
                look["markerfacecolor"] = "none"  # hollow over the series it coincides with
            axis.plot(frame["capacity_bytes"], frame[column], linewidth=lines[label], zorder=2 + order, label=label, **look)
    for label, pairs in overlaps.items():
        record("mrc", coincide=[f"{label} = {pairs[0][0]}" + ("" if len(pairs) == len(panels) else f" ({pairs[0][1]})")])
    # Legend names: what an offline series is, and a curve drawn over another.
    def legend_name(label):
        name = label + (f" ({bound_note(label, objects)})" if bound_name(label) else "")
        pairs = overlaps.get(label, [])
        if pairs:
            where = "" if len(pairs) == len(panels) else " in the " + ", ".join(dict(panels)[c] for _, c in pairs)
            name += f" (= {pairs[0][0]}{where}, drawn over it)"
        return name
    record("mrc", drawn=[f"{label}: {len(frames[label])} capacities" for label, _, _ in curves])
    for axis, (_, title) in zip(axes, panels):
        capacity_axis(axis, objects)
        axis.set_title(title)
        axis.set_ylim(*limits)
        axis.grid(True, which="both", alpha=0.3)
    draw_ceilings(axes[0], marks, as_miss=True, limits=limits)
    axes[0].set_ylabel("miss ratio (lower is better)")
    handles, labels = axes[0].get_legend_handles_labels()
    labels = [legend_name(name) if name in frames else name for name in labels]
    record("mrc", ylim=list(limits), legend=labels, title="" if paper else
           f"Miss-ratio curves{': ' + trace if trace else ''}" + (" (capacity in objects)" if objects else ""))
    if paper:  # the panels fill the width; the legend under them, in as many columns as fit it
        figure.tight_layout()
        plot_style.fitted_legend(figure, handles, labels, most=None if len(panels) > 1 or plot_style.COLUMNS > 1 else 1)
    else:
        axes[-1].legend(handles, labels, loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, frameon=False)
        # The paper style has no title: a caption names the trace (no file name in a figure).
        figure.suptitle(RECORD["mrc"]["title"], y=0.98)
    not_drawn_note(figure, notes)
    save(figure, out, "mrc.png", written)


def capacity_name(capacity, objects):
    """A capacity as the charts write it: `16MiB`, or `1.2k objects` under --ignore-obj-size."""
    return count_label(capacity) + " objects" if objects else size_label(capacity)


def panel_grid(count, paper, width, height, paper_height):
    """Panels one per row in the paper style (one column, `paper_height` in each), else two
    across (`height` in each): (figure, axes list)."""
    columns = 1 if paper else min(count, 2)
    rows = -(-count // columns)
    size = (plot_style.FIGURE_WIDTH, paper_height * rows) if paper else (width, height * rows)
    figure, axes = plt.subplots(rows, columns, figsize=size, squeeze=False)
    for axis in axes.flat[count:]:
        axis.set_visible(False)
    return figure, list(axes.flat[:count])


# A hit-ratio panel draws every capacity when up to 4 capacities' rows fit this many bars (8 in
# the paper style's one column), else the capacity where its rows differ most.
HIT_RATIO_BARS = 24
HIT_RATIO_BARS_PAPER = 8
CLASS_ORDER = ("memory caches", "two-tier caches", "disk caches")
NOT_RANKED = "offline bounds, comparisons (never ranked)"


def hit_ratio_bars(results, out, written, skipped):
    """One panel per class of cache (reading.cache_class: memory caches, two-tier caches and
    presets, disk caches; offline bounds and comparisons apart) and cost model, so a two-tier
    preset never stands beside a memory-only cache and hit ratios compare only within a panel.
    Each panel draws every capacity when its bars fit (HIT_RATIO_BARS), else the capacity where
    its backends differ most, the smallest such (the others named as left out: mrc.png draws
    them); the ceiling drawn. O(n log n) in the rows."""
    if results.empty:
        skipped.append(f"{chart_file('hit_ratio')}: no row with status ok and a hit ratio")
        return
    import reading  # here: reading imports plot
    # The registry's offline bounds (--bounds: beladysize too) are never ranked, whatever reading.cache_class says.
    classes = results.apply(lambda row: NOT_RANKED if bound_name(row["label"]) else reading.cache_class(row), axis=1)
    frame = results.assign(cache_class=classes.fillna(NOT_RANKED), model=results["cost_model"].astype(str))
    order = {name: index for index, name in enumerate(CLASS_ORDER)}
    keys = sorted({(c, m) for c, m in zip(frame["cache_class"], frame["model"])},
                  key=lambda k: (order.get(k[0], len(order) + (k[0] == NOT_RANKED)), k[0], k[1]))
    notes, panels = [], []
    for cache_class, model in keys:
        rows = frame[(frame["cache_class"] == cache_class) & (frame["model"] == model)]
        unique = rows.drop_duplicates(["label", "capacity_bytes"])
        name = f"{cache_class} ({model} cost)"
        if len(unique) < len(rows):
            notes.append(leave_out("hit_ratio", skipped, f"{name}: {rows_text(len(rows) - len(unique))} repeating a backend and capacity already drawn (another trace or a repeat)"))
        capacities = sorted(unique["capacity_bytes"].unique())
        if len(unique) > (HIT_RATIO_BARS_PAPER if plot_style.STYLE == "paper" else HIT_RATIO_BARS) or len(capacities) > 4:
            spread = unique.groupby("capacity_bytes")["object_hit_ratio"].agg(lambda v: v.max() - v.min())
            counts = unique.groupby("capacity_bytes")["label"].nunique()
            spread = spread[counts == counts.max()]
            # Panels side by side compare best at one capacity: an earlier panel's, when this one has it.
            earlier = [c for _, _, drawn in panels if len(drawn) == 1 for c in drawn if c in set(spread.index)]
            chosen = earlier[0] if earlier else spread.idxmax()  # capacities ascending: the smallest of equal spreads
            left = unique[unique["capacity_bytes"] != chosen]
            why = "as the panel before" if earlier else "where they differ most"
            notes.append(leave_out("hit_ratio", skipped, f"{name}: {rows_text(len(left))} at {len(capacities) - 1} other capacities "
                                   f"(drawn: {capacity_name(chosen, in_objects(unique))}, {why}; {chart_file('mrc')} draws every capacity)"))
            unique, capacities = unique[unique["capacity_bytes"] == chosen], [chosen]
        panels.append((name, unique, capacities))
    paper = plot_style.STYLE == "paper"
    objects = in_objects(frame)
    looks = series(list(results["label"].unique()))
    values = [v for _, rows, _ in panels for column in ("object_hit_ratio", "byte_hit_ratio") for v in rows[column]]
    # Fitted to the ceilings too: the bars start at 0, so the line above them costs little room.
    ceilings = [c for _, rows, _ in panels for _, c in ceiling_marks(rows) if c is not None]
    low, high = ratio_limits(values + ([] if YLIM is not None else ceilings)) if (YLIM is not None or paper) else (0, 1)
    low = low if YLIM is not None else 0  # bars start at 0 unless --ylim says otherwise
    notes += outside("hit_ratio", skipped, values, (low, high))
    bars = [len(rows) for _, rows, _ in panels]
    extents = [len(rows) + 0.5 * (len(capacities) - 1) for _, rows, capacities in panels]  # x units: a bar 1, a gap 0.5
    # One row of panels, widths by their bars, when they fit 12 in (1320 px at 110 dpi, legible
    # at 1280 px); else one panel per row.
    # Across both columns of a page (--columns 2): one row when the bars fit 7.16 in.
    across = sum(bars) + 2 * len(panels) <= (26 if not paper else 0 if plot_style.COLUMNS == 1 else 22)
    if across:
        wide = (min(12, max(7, 0.42 * sum(bars) + 1.0 * len(panels) + 1.5)), 4.8) if not paper else (plot_style.FIGURE_WIDTH, 2.6)
        figure, axes = plt.subplots(1, len(panels), figsize=wide, squeeze=False,
                                    gridspec_kw={"width_ratios": [b + 1 for b in bars]}, sharey=True)
        axes = list(axes[0])
    else:
        size = (plot_style.FIGURE_WIDTH, 2.3 * len(panels) + 0.4) if paper else (min(12, max(7, 0.5 * max(bars) + 3)), 4.2 * len(panels))
        figure, axes = plt.subplots(len(panels), 1, figsize=size, squeeze=False)
        axes = list(axes[:, 0])
    from matplotlib.patches import Patch
    from matplotlib.transforms import blended_transform_factory
    for index, (axis, (name, rows, capacities)) in enumerate(zip(axes, panels)):
        positions, labels, position = [], [], 0.0
        for capacity in capacities:
            group = rows[rows["capacity_bytes"] == capacity].sort_values("object_hit_ratio", ascending=False)
            start = position
            for _, row in group.iterrows():
                colour = looks.color(row["label"])
                if objects:  # counts, not bytes: the byte hit ratio says nothing new (every object is one unit)
                    axis.bar(position, row["object_hit_ratio"], 0.6, color=colour, edgecolor="black", linewidth=0.4)
                else:
                    axis.bar(position - 0.2, row["object_hit_ratio"], 0.4, color=colour, edgecolor="black", linewidth=0.4)
                    axis.bar(position + 0.2, row["byte_hit_ratio"], 0.4, color=colour, edgecolor="black", linewidth=0.4, hatch="////", alpha=0.55)
                positions.append(position)
                labels.append(row["label"])
                record("hit_ratio", drawn=[f"{row['label']} at {capacity_name(capacity, objects)}"], panel=name)
                position += 1
            if len(capacities) > 1:  # which capacity each group of bars is at
                axis.text((start + position - 1) / 2, 1.0, f"at {capacity_name(capacity, objects)}", transform=blended_transform_factory(axis.transData, axis.transAxes),
                          ha="center", va="bottom", fontsize=8)
                if capacity != capacities[-1]:
                    axis.axvline(position - 0.5 + 0.25, color="#999999", linewidth=0.6)
            position += 0.5
        draw_ceilings(axis, ceiling_marks(rows), as_miss=False, limits=(low, high), label=index == 0)
        axis.set_xticks(positions)
        axis.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        axis.set_ylim(low, high)
        if not across:  # stacked: one bar width in every panel
            axis.set_xlim(-0.6, max(extent - 0.4 for extent in extents))
        if paper:  # short: the cost model only when the figure has several, "offline" for the bounds
            model = str(rows["model"].iloc[0])
            base = name[:-len(f" ({model} cost)")]
            name = ("offline (never ranked)" if base == NOT_RANKED else base) + (f" ({model} cost)" if frame["model"].nunique() > 1 else "")
        title = name if len(capacities) > 1 else f"{name} at {capacity_name(capacities[0], objects)}"
        axis.set_title(plot_style.wrapped(title, axis), fontsize=None if paper else 9, pad=14 if len(capacities) > 1 else 6)
        axis.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("hit ratio (higher is better)")
    handles, labels = axes[0].get_legend_handles_labels()
    keys = [Patch(facecolor="white", edgecolor="black", label="object hit ratio (bars)")] if objects else [
        Patch(facecolor="white", edgecolor="black", label="object hit ratio (solid)"),
        Patch(facecolor="white", edgecolor="black", hatch="////", label="byte hit ratio (hatched)")]
    handles, labels = keys + handles, [k.get_label() for k in keys] + labels
    trace = trace_names(results)
    record("hit_ratio", ylim=[low, high], legend=labels,
           title="" if paper else f"Hit ratio{' on ' + trace if trace else ''}: each kind of cache and cost model in its own panel")
    if paper:  # the key under the panels; no title (a caption names the trace)
        figure.tight_layout()
        plot_style.fitted_legend(figure, handles, labels)
    else:
        figure.suptitle(RECORD["hit_ratio"]["title"], y=0.995)
        figure.legend(handles, labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.3 / figure.get_figheight()), ncol=3, frameon=False)
        figure.tight_layout(rect=(0, 0, 1, 1 - 0.55 / figure.get_figheight()))
    not_drawn_note(figure, notes)
    save(figure, out, "hit_ratio.png", written)


def durability_title(rows):
    """What disk figures rest on: the durability column's values, or that it was not recorded."""
    if "durability" not in rows:
        return "durability not recorded"
    values = sorted({str(v) for v in rows["durability"] if not pd.isna(v) and str(v) != ""})
    return f"durability {', '.join(values)}" if values else "durability not recorded"


# Latency panels (one per capacity) in one image: beyond 8 the rest are named, not drawn.
LATENCY_CAPACITIES = 8


def latency(results, out, written, skipped):
    """Every timed row: one panel per capacity (stacked, one log axis each), get-hit, get-miss and
    set p50 and p99 per backend, bars in the backend's colour, each percentile its own hatching.
    Rows without any latency (untimed) are named as left out. O(n log n)."""
    figures = [("get_hit_p50_ns", "get hit p50"), ("get_hit_p99_ns", "get hit p99"), ("get_miss_p50_ns", "get miss p50"),
               ("get_miss_p99_ns", "get miss p99"), ("set_p50_ns", "set p50"), ("set_p99_ns", "set p99")]
    present = [(c, n) for c, n in figures if c in results and results[c].notna().any()]
    if not present:
        skipped.append(f"{chart_file('latency')}: no latency columns (the run had --no-timing)")
        return
    timed = results[results[[c for c, _ in present]].notna().any(axis=1)]
    notes = []
    if len(timed) < len(results):
        untimed = results.drop(timed.index)
        notes.append(leave_out("latency", skipped, f"{rows_text(len(untimed))} without timing: {rows_named(untimed)}"))
    unique = timed.drop_duplicates(["label", "capacity_bytes"])
    if len(unique) < len(timed):
        notes.append(leave_out("latency", skipped, f"{rows_text(len(timed) - len(unique))} repeating a backend and capacity already drawn (another trace or a repeat)"))
    capacities = sorted(unique["capacity_bytes"].unique())
    if len(capacities) > LATENCY_CAPACITIES:
        left = capacities[LATENCY_CAPACITIES:]
        notes.append(leave_out("latency", skipped, f"{rows_text(int(unique['capacity_bytes'].isin(left).sum()))} at {len(left)} capacities beyond the first "
                               f"{LATENCY_CAPACITIES}: " + ", ".join(size_label(c) for c in left)))
        capacities = capacities[:LATENCY_CAPACITIES]
    most = unique.groupby("capacity_bytes")["label"].nunique().max()
    paper = plot_style.STYLE == "paper"
    size = (plot_style.FIGURE_WIDTH, 2.2 * len(capacities) + 0.3) if paper else (min(12, max(9, 1.3 * most + 3)), 3.6 * len(capacities))
    figure, axes = plt.subplots(len(capacities), 1, figsize=size, squeeze=False, sharey=True)
    axes = list(axes[:, 0])
    width = 0.8 / len(present)
    looks = series(list(results["label"].unique()))
    hatches = ["", "////", "..", "xx", "\\\\", "oo"]
    from matplotlib.patches import Patch
    for axis, capacity in zip(axes, capacities):
        rows = unique[unique["capacity_bytes"] == capacity]
        colors = [looks.color(label) for label in rows["label"]]
        for index, (column, name) in enumerate(present):
            offsets = [p - 0.4 + width * (index + 0.5) for p in range(len(rows))]
            axis.bar(offsets, rows[column].fillna(0), width, color=colors, edgecolor="black", linewidth=0.4, hatch=hatches[index % len(hatches)])
        record("latency", drawn=[f"{label} at {size_label(capacity)}" for label in rows["label"]], panel=f"at {size_label(capacity)}")
        axis.set_yscale("log")
        axis.yaxis.set_major_formatter(FuncFormatter(count_label))  # plain text: mathtext is off (names from CSVs)
        axis.set_ylabel("ns (log scale)")
        axis.set_xticks(list(range(len(rows))))
        axis.set_xticklabels(rows["label"], rotation=30 if paper else 20, ha="right", fontsize=6.5 if paper else 9)
        axis.set_xlim(-0.6, max(most, 2) - 0.4)
        disks = rows[rows["write_amplification"].notna()] if "write_amplification" in rows else rows.iloc[0:0]
        on_disk = f" (disk backends: {durability_title(disks)})" if len(disks) else ""
        axis.set_title(f"at {size_label(capacity)}{on_disk}", fontsize=8 if paper else 10)
        axis.grid(True, axis="y", which="both", alpha=0.3)
    keys = [Patch(facecolor="white", edgecolor="black", hatch=hatches[i % len(hatches)], label=name) for i, (_, name) in enumerate(present)]
    if plot_style.STYLE == "paper":
        figure.tight_layout()
        figure.legend(handles=keys, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
    else:
        figure.suptitle("Latency percentiles, every timed row: one panel per capacity", y=1.0)
        figure.legend(handles=keys, fontsize=9, ncol=6, loc="upper center", bbox_to_anchor=(0.5, 0.985), frameon=False)
        figure.tight_layout(rect=(0, 0, 1, 0.96))
    not_drawn_note(figure, notes)
    save(figure, out, "latency.png", written)


def disk(results, out, written, skipped):
    """Every disk row (sqlite, files, and the two-tier presets' disk tiers: rows with a write
    amplification), every capacity: write and space amplification per backend and capacity, in
    each backend's colour. O(n log n)."""
    if "write_amplification" not in results or results["write_amplification"].isna().all():
        skipped.append(f"{chart_file('disk')}: no disk backend rows (sqlite, files)")
        return
    rows = results[results["write_amplification"].notna()]
    notes = []
    unique = rows.drop_duplicates(["label", "capacity_bytes"])
    if len(unique) < len(rows):
        notes.append(leave_out("disk", skipped, f"{rows_text(len(rows) - len(unique))} repeating a backend and capacity already drawn (another trace or a repeat)"))
    unique = unique.sort_values(["capacity_bytes", "label"], kind="stable")
    # Side by side; stacked in one column for the paper style.
    paper = plot_style.STYLE == "paper"
    figure, axes = plt.subplots(2 if paper else 1, 1 if paper else 2, figsize=plot_style.size(max(10, 0.9 * len(unique) + 3), 6.5 if paper else 4.6))
    looks = series(list(results["label"].unique()))
    colors = [looks.color(label) for label in unique["label"]]
    names = [f"{label} at {size_label(c)}" for label, c in zip(unique["label"], unique["capacity_bytes"])]
    record("disk", drawn=names)
    # A gap between capacities: positions step 1 within one, 1.5 across.
    positions, position, previous = [], 0.0, None
    for capacity in unique["capacity_bytes"]:
        position += 0 if previous is None else (1 if capacity == previous else 1.5)
        positions.append(position)
        previous = capacity
    axes[0].bar(positions, unique["write_amplification"], color=colors, edgecolor="black", linewidth=0.4)
    axes[0].set_title("write amplification\n(bytes written / body bytes stored)")
    space = unique["space_amplification"] if "space_amplification" in unique else pd.Series(0.0, index=unique.index)  # absent: drawn as 0
    axes[1].bar(positions, space.fillna(0), color=colors, edgecolor="black", linewidth=0.4, hatch="////")
    axes[1].set_title("space amplification\n(bytes on disk / bytes cached)")
    for axis in axes:
        axis.axhline(1, color="gray", linewidth=0.8, linestyle="--")
        if paper and axis is axes[0]:  # stacked: the names once, under the lower panel
            axis.tick_params(labelbottom=False)
        # Long labels (tiers with options) slant from their bar's right edge, as the other bar charts'.
        axis.set_xticks(positions)
        axis.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        axis.grid(True, axis="y", alpha=0.3)
        axis.set_ylabel("×")
    capacities = sorted(unique["capacity_bytes"].unique())
    where = size_label(capacities[0]) if len(capacities) == 1 else ", ".join(size_label(c) for c in capacities)
    figure.suptitle(f"Disk backends at {where} ({durability_title(unique)})", y=1.06 if not paper else 1.0)
    if paper:
        figure.tight_layout()
    not_drawn_note(figure, notes)
    save(figure, out, "disk.png", written)


MEMORY_RUNS = 30  # small multiples in one image: beyond 30 runs the rest are named, not drawn
# The measures are black, each its line style, so no line reads as a backend; the window hit
# ratio is in the run's backend colour (and line style: an offline bound's is gray and dashed).
MEMORY_LINES = (("accounted_bytes", "accounted", "#000000", "-"), ("allocated_bytes", "allocated", "#000000", "-."),
                ("rss_bytes", "RSS (process)", "#000000", ":"))


def memory_timeline(timeline, out, written, skipped):
    runs = list(dict.fromkeys(timeline["run_id"]))
    if not runs:
        skipped.append(f"{chart_file('memory')}: the timeline has no samples")
        return
    notes = []
    if len(runs) > MEMORY_RUNS:
        left = runs[MEMORY_RUNS:]
        notes.append(leave_out("memory", skipped, f"{len(left)} of {len(runs)} runs left out (it draws the first {MEMORY_RUNS}): " + ", ".join(map(str, left))))
        runs = runs[:MEMORY_RUNS]
    paper = plot_style.STYLE == "paper"
    # Small multiples two across (legible at 1280 px: 12 in at 110 dpi is 1320 px, fonts 9–10 pt);
    # one column in the paper style.
    columns = 1 if len(runs) <= 1 or paper else 2
    rows_count = -(-len(runs) // columns)
    figure, axes = plt.subplots(rows_count, columns, figsize=plot_style.size(12, 3.1 * rows_count), squeeze=False)
    for axis in axes.flat[len(runs):]:
        axis.set_visible(False)
    looks = series(list(timeline["backend"].astype(str).unique()))
    small = 7 if paper else 9
    key = ([], [])
    for axis, run in zip(axes.flat, runs):
        frame = timeline[timeline["run_id"] == run].sort_values("request_index")
        first = frame.iloc[0]
        # Samples and warnings alike: a warning's row is the memory right after it released.
        for column, name, colour, dash in MEMORY_LINES:
            if frame[column].notna().any():
                axis.plot(frame["request_index"], frame[column] / 2**20, label=name, color=colour, linestyle=dash, linewidth=1.3)
        axis.set_ylabel("MiB", fontsize=small)
        axis.set_ylim(bottom=0)
        axis.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 4, 5, 8, 10]))
        axis.tick_params(labelsize=small)
        samples = frame[frame["memory_warning"] == 0]
        warnings = frame[frame["memory_warning"] == 1]
        for index, (_, warning) in enumerate(warnings.iterrows()):
            axis.axvline(warning["request_index"], color=plot_style.WARNING_COLOR, linestyle="--", linewidth=0.9,
                         label="memory warning" if index == 0 else None)
        ratio = axis.twinx()
        if samples["window_hit_ratio"].notna().any():
            look = looks.look(str(first["backend"]))
            ratio.plot(samples["request_index"], samples["window_hit_ratio"], color=look["color"], linestyle=look["linestyle"], alpha=0.9,
                       linewidth=1.1, label="hit ratio (window, the backend's colour)")
            # At each warning: the window hit ratio at the sample before it → the one after.
            for _, warning in warnings.iterrows():
                before = samples[samples["request_index"] <= warning["request_index"]]["window_hit_ratio"].dropna()
                after = samples[samples["request_index"] > warning["request_index"]]["window_hit_ratio"].dropna()
                if len(before) and len(after):
                    ratio.annotate(f"hit {100 * before.iloc[-1]:.0f}→{100 * after.iloc[0]:.0f}%", (warning["request_index"], 0.86),
                                   xytext=(3, 0), textcoords="offset points", fontsize=small - 1, color=plot_style.WARNING_COLOR,
                                   bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.5, "pad": 1})  # the line shows through
        ratio.set_ylim(0, 1)
        ratio.set_ylabel("hit ratio", fontsize=small)
        ratio.tick_params(labelsize=small)
        axis.set_title(f"{first['backend']} at {size_label(first['capacity_bytes'])}", fontsize=small + 1)
        axis.set_xlabel("requests", fontsize=small)
        axis.xaxis.set_major_formatter(FuncFormatter(count_label))
        axis.grid(True, alpha=0.3)
        record("memory", drawn=[f"{first['backend']} at {size_label(first['capacity_bytes'])}"])
        lines, names = axis.get_legend_handles_labels()
        more, more_names = ratio.get_legend_handles_labels()
        if len(lines) + len(more) > len(key[0]):  # one key for every panel: the fullest panel's lines
            key = (lines + more, names + more_names)
    if paper:
        figure.tight_layout()
        figure.legend(*key, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    else:
        figure.suptitle("Memory over the replay, one panel per run", fontsize=12, y=1.0)
        figure.legend(*key, loc="upper center", bbox_to_anchor=(0.5, 1.0 - 0.32 / figure.get_figheight()), ncol=5, fontsize=9, frameon=False)
        figure.tight_layout(rect=(0, 0, 1, 1 - 0.6 / figure.get_figheight()))
    not_drawn_note(figure, notes)
    save(figure, out, "memory.png", written)


# Miss ratio over time: one panel per capacity; beyond 12 the rest are named, not drawn.
TIME_PANELS = 12


def miss_ratio_over_time(timeline, out, written, skipped, results=None):
    """Each run's miss ratio per timeline window (1 − window_hit_ratio: the object hit ratio
    since the previous sample) against requests replayed: one panel per capacity, one series
    per run (backend × capacity) in its backend's colour, offline series gray and dashed; a run
    drawn exactly over another is said so in the key and drawn thinner on top. O(n log n)."""
    samples = timeline[timeline["memory_warning"] == 0].dropna(subset=["window_hit_ratio"])
    if samples.empty:
        skipped.append(f"{chart_file('miss_ratio_time')}: the timeline has no window hit ratio")
        return
    notes = []
    runs = list(dict.fromkeys(samples["run_id"]))
    empty = [r for r in dict.fromkeys(timeline["run_id"]) if r not in set(runs)]
    if empty:
        notes.append(leave_out("miss_ratio_time", skipped, f"{len(empty)} runs without a window hit ratio: " + ", ".join(map(str, empty))))
    capacities = sorted(set(samples["capacity_bytes"]))
    if len(capacities) > TIME_PANELS:
        left = capacities[TIME_PANELS:]
        notes.append(leave_out("miss_ratio_time", skipped, f"runs at {len(left)} capacities beyond the first {TIME_PANELS}: " + ", ".join(size_label(c) for c in left)))
        capacities = capacities[:TIME_PANELS]
    paper = plot_style.STYLE == "paper"
    looks = series(list(samples["backend"].astype(str).unique()))
    values = list(1 - samples[samples["capacity_bytes"].isin(capacities)]["window_hit_ratio"])
    limits = ratio_limits(values)
    notes += outside("miss_ratio_time", skipped, values, limits)
    figure, axes = panel_grid(len(capacities), paper, 12, 4.8, paper_height=3.2)
    for axis, capacity in zip(axes, capacities):
        keyed, frames = [], {}
        for run in runs:
            frame = samples[samples["run_id"] == run].sort_values("request_index")
            if frame["capacity_bytes"].iloc[0] != capacity:
                continue
            backend = str(frame["backend"].iloc[0])
            label = f"{backend} at {size_label(capacity)}"
            if label in frames:  # two runs of one backend at one capacity (two traces): numbered
                label += f" (run {run})"
            frames[label] = (backend, frame)
            keyed.append((label, tuple(zip(frame["request_index"], frame["window_hit_ratio"]))))
        same = coinciding(keyed)
        base = 1.0 if paper else 1.3
        lines = widths(keyed, same, base)
        for order, (label, _) in enumerate(keyed):
            backend, frame = frames[label]
            look = dict(looks.look(backend))
            look["marker"] = look["marker"] if len(frame) <= 30 else None
            if lines[label] > base:
                look["linestyle"] = "-"  # a band under a coinciding series: unbroken
            name = label + (f" ({bound_note(backend, False)})" if bound_name(backend) else "")
            if label in same:
                name += f" (= {same[label]}, drawn over it)"
                record("miss_ratio_time", coincide=[f"{label} = {same[label]}"])
            axis.plot(frame["request_index"], 1 - frame["window_hit_ratio"], linewidth=lines[label], zorder=2 + order, label=name, **look)
            record("miss_ratio_time", drawn=[label], panel=f"at {size_label(capacity)}")
        axis.set_ylim(*limits)
        axis.set_xlim(left=0)
        axis.xaxis.set_major_formatter(FuncFormatter(count_label))
        axis.set_xlabel("requests replayed")
        axis.set_ylabel("miss ratio (window)" if paper else "miss ratio per window (objects)")
        axis.set_title(f"at {size_label(capacity)}", fontsize=8 if paper else 10)
        axis.grid(True, alpha=0.3)
        # Under its panel: the key never covers a line.
        axis.legend(fontsize=8 if not paper else 6, loc="upper center", bbox_to_anchor=(0.5, -0.3 if paper else -0.2), ncol=1 if paper else 2, frameon=False)
    trace = trace_names(results[results["run_id"].isin(runs)]) if results is not None and "run_id" in results else ""
    record("miss_ratio_time", ylim=list(limits),
           title="" if paper else f"Miss ratio over time{': ' + trace if trace else ''}: one panel per capacity, one line per run")
    if not paper:
        figure.suptitle(RECORD["miss_ratio_time"]["title"], y=1.0)
    figure.tight_layout()
    not_drawn_note(figure, notes)
    save(figure, out, "miss_ratio_time.png", written)


def similar_keys(frame, out, written, skipped):
    figure, axis = plt.subplots(figsize=plot_style.size(8, 4.8))
    groups = frame.groupby(["backend", "key_hash", "key_set"], dropna=False)
    looks = series(similar_labels(frame))
    for (backend, key_hash, key_set), rows in groups:
        rows = rows.sort_values("n")
        # The variant's colour of every chart (nscache[key-hash=cf]); control keys solid, similar dashed.
        look = dict(looks.look(similar_label(backend, key_hash)))
        look["linestyle"] = "--" if str(key_set) == "similar" else "-"
        axis.plot(rows["n"], rows["get_p50_ns"], markersize=3.5, label=f"{backend} {key_hash} · {key_set} keys", **look)
    axis.set_xscale("log")
    axis.set_yscale("log")
    for part in (axis.xaxis, axis.yaxis):  # plain numbers: mathtext is off (names come from CSVs)
        part.set_major_formatter(FuncFormatter(count_label))
        part.set_minor_formatter(NullFormatter())
    axis.set_xlabel("keys in the cache (N, log scale)")
    axis.set_ylabel("get p50, ns (log scale)")
    axis.set_title("Similar keys: lookup latency against N")
    if plot_style.STYLE == "paper":
        axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1, frameon=False)
    else:
        axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1), frameon=False)
    axis.grid(True, which="both", alpha=0.3)
    save(figure, out, "similar_keys.png", written)


def similar_label(backend, key_hash):
    """A similar-keys series as a backend label (`nscache[key-hash=cf]`), so it takes that
    variant's colour in every chart."""
    return f"{backend}[key-hash={str(key_hash).split()[0]}]"


def similar_labels(frame):
    return list(dict.fromkeys(similar_label(b, h) for b, h in zip(frame["backend"], frame["key_hash"])))


def blob_size(frame, out, written, skipped):
    # Side by side; stacked in one column for the paper style.
    paper = plot_style.STYLE == "paper"
    figure, axes = plt.subplots(2 if paper else 1, 1 if paper else 2, figsize=plot_style.size(12, 7.5 if paper else 4.4))
    looks = series(list(frame["backend"].astype(str).unique()))
    for backend, rows in frame.groupby("backend"):
        rows = rows.sort_values("blob_bytes")
        look = looks.look(str(backend))
        axes[0].plot(rows["blob_bytes"], rows["write_us"], markersize=3, label=backend, **look)
        axes[1].plot(rows["blob_bytes"], rows["read_us"], markersize=3, label=backend, **look)
    for axis, title in zip(axes, ("write", "read")):
        axis.set_xscale("log", base=2)
        axis.xaxis.set_major_locator(LogLocator(base=4))
        axis.set_yscale("log")
        axis.yaxis.set_major_formatter(FuncFormatter(count_label))
        axis.xaxis.set_major_formatter(FuncFormatter(size_label))
        axis.set_xlabel("blob size (log scale)")
        axis.set_ylabel("µs per blob (log scale)")
        axis.set_title(f"{title} time by blob size")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle("Blob-size crossover: SQLite inline against files")
    if paper:
        figure.tight_layout()
    save(figure, out, "blob_size.png", written)


def charted_rows(results):
    """The rows the charts and the reading use: status ok and both hit ratios measured."""
    ok = results[results["status"] == "ok"] if "status" in results else results
    return ok.dropna(subset=["object_hit_ratio", "byte_hit_ratio"])


def reporting_errors(inputs, body):
    """Runs body(); a bad CSV (BadInput) and anything unexpected end in one line
    `plot: error: …` and exit 2, never a traceback (the inputs are all a user gave)."""
    try:
        body()
    except BadInput as error:
        print(f"plot: error: {error}", file=sys.stderr)
        sys.exit(2)
    except Exception as error:  # noqa: BLE001 — a crafted CSV that passed the checks must still be one line
        detail = (str(error).splitlines() or [""])[0][:200]
        print(f"plot: error: {', '.join(inputs)}: not a workbench CSV the charts can be drawn from "
              f"({type(error).__name__}: {detail})", file=sys.stderr)
        sys.exit(2)


def arguments_parser(description):
    """--out and --timeline as options; every input after `--` (bench passes them so)."""
    parser = argparse.ArgumentParser(description=description, allow_abbrev=False)
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--timeline")
    parser.add_argument("--out", required=True)
    return parser


def main():
    parser = arguments_parser("Charts from workbench CSVs.")
    plot_style.add_arguments(parser)
    parser.add_argument("--only", help="comma-separated series (backends, policies, labels) to draw")
    parser.add_argument("--bounds", help="comma-separated backends that are offline bounds (bench passes the registry's)")
    parser.add_argument("--ylim", help="LOW:HIGH, the y-limits of the ratio charts (mrc, hit_ratio, miss_ratio_time)")
    parser.add_argument("--record", help="a file name: writes what each chart drew and left out there, as JSON, inside --out")
    arguments = parser.parse_args()
    plot_style.configure(arguments)
    global YLIM
    YLIM = parse_ylim(arguments.ylim) if arguments.ylim is not None else None
    if arguments.record is not None and (os.path.basename(arguments.record) != arguments.record or not arguments.record.endswith(".json")):
        fail(f"--record {arguments.record}", "a plain file name ending in .json, written inside --out")
    if arguments.bounds is not None:
        BOUNDS.clear()
        BOUNDS.update(n for n in arguments.bounds.split(",") if n)
    refuse_outside(arguments.out, staging_folder(), is_folder=True)
    reporting_errors(arguments.csv + ([arguments.timeline] if arguments.timeline else []), lambda: draw(arguments))


def chosen(arguments, inputs):
    """The inputs kept to the --only series: a row is kept when its backend or its label is
    named. A name no input has is an error naming the ones they have."""
    if not arguments.only:
        return inputs
    wanted = {n.strip() for n in arguments.only.split(",") if n.strip()}
    known = set()
    for kind, frame in inputs:
        if kind == "results":
            known |= set(frame["backend"].astype(str)) | set(labelled(frame)["label"])
        elif kind in ("timeline", "similar", "blob"):
            known |= set(frame["backend"].astype(str))
        elif kind == "mrc":
            known |= set(frame["policy"].astype(str)) if "policy" in frame else {"lru"}
    unknown = sorted(wanted - known)
    if unknown:
        fail("--only", f"no series named {', '.join(unknown)} in the inputs; they have: {', '.join(sorted(known))}")
    kept = []
    for kind, frame in inputs:
        if kind == "results":
            frame = frame[frame["backend"].astype(str).isin(wanted) | labelled(frame)["label"].isin(wanted)]
        elif kind in ("timeline", "similar", "blob"):
            frame = frame[frame["backend"].astype(str).isin(wanted)]
        elif kind == "mrc":
            frame = frame[(frame["policy"].astype(str) if "policy" in frame else pd.Series("lru", index=frame.index)).isin(wanted)]
        if len(frame):
            kept.append((kind, frame))
    return kept


def draw(arguments):
    global SERIES
    RECORD.clear()
    written, skipped, curves = [], [], []
    inputs = [read(path) for path in arguments.csv]
    if arguments.timeline:
        kind, frame = read(arguments.timeline)
        if kind != "timeline":
            fail(arguments.timeline, "--timeline takes a `bench run --timeline` CSV")
        inputs.append((kind, frame))
    inputs = chosen(arguments, inputs)
    # A curves file of several policies (`bench mrc --policy lru,s3fifo`) is a series per policy.
    inputs = [(kind, part) for kind, frame in inputs
              for part in ([group for _, group in frame.groupby("policy", sort=False)] if kind == "mrc" and "policy" in frame else [frame])]
    kinds = {kind for kind, _ in inputs}
    # All results files make one set of charts (a sweep and a run side by side).
    frames = [frame for kind, frame in inputs if kind == "results"]
    results = None
    names = []
    if frames:
        results = labelled(charted_rows(pd.concat(frames, ignore_index=True)))
        results = results.assign(object_miss=1 - results["object_hit_ratio"], byte_miss=1 - results["byte_hit_ratio"])
        names += list(results["label"].unique())
    mrc_label = {}
    for kind, frame in inputs:
        if kind == "mrc":
            policy = str(frame["policy"].iloc[0]) if "policy" in frame else "lru"
            # The policy and the method that made the curve (mattson, replay, shards, minisim).
            mrc_label[id(frame)] = f"{policy} ({frame['method'].iloc[0]})"
            names.append(mrc_label[id(frame)])
        elif kind in ("timeline", "blob", "similar"):
            own = similar_labels(frame) if kind == "similar" else list(frame["backend"].astype(str).unique())
            # A backend the results already name (as `sqlite (encoded)`) keeps that series' look.
            names += [n for n in own if not any(str(m).split(" (")[0] == n for m in names)]
    # One look per series for the whole run: lru is the same colour in every chart.
    SERIES = plot_style.Series(names, {n for n in names if bound_name(n)})
    if frames:
        for label, rows in results.groupby("label", sort=False):
            curves.append((label, rows.drop_duplicates("capacity_bytes"), in_objects(rows)))
        hit_ratio_bars(results, arguments.out, written, skipped)
        latency(results, arguments.out, written, skipped)
        disk(results, arguments.out, written, skipped)
    for kind, frame in inputs:
        if kind == "mrc":
            rows = frame.rename(columns={"object_miss_ratio": "object_miss", "byte_miss_ratio": "byte_miss"})
            objects = (rows["ignore_obj_size"].astype(str) == "true").all()
            curves.append((mrc_label[id(frame)], rows, objects))
        elif kind == "timeline":
            memory_timeline(frame, arguments.out, written, skipped)
            miss_ratio_over_time(frame, arguments.out, written, skipped, results)
        elif kind == "similar":
            similar_keys(frame, arguments.out, written, skipped)
        elif kind == "blob":
            blob_size(frame, arguments.out, written, skipped)
    if kinds & {"results", "mrc"}:
        trace = trace_names(pd.concat([f for k, f in inputs if k in ("results", "mrc")], ignore_index=True))
        miss_ratio_curves(curves, arguments.out, written, skipped, ceiling_marks(results) if frames else (), trace=trace)
    # Said, never shrunk: a figure wider than the page.
    for name, inches in plot_style.TOO_WIDE:
        record(os.path.splitext(name)[0], too_wide=[round(inches, 2)])
        print(f"plot: note {name} is {inches:.2f} in wide, wider than the paper style's {plot_style.FIGURE_WIDTH:g} in "
              f"(--columns {plot_style.COLUMNS}): draw fewer series (--only) or use --columns 2", file=sys.stderr)
    import json
    if written:
        # The colour of each series, as drawn (a check that every chart used one mapping).
        path = os.path.join(arguments.out, "plot_colors.json")
        with create_without_links(path) as file:
            file.write((json.dumps(SERIES.colors(), indent=1, sort_keys=True) + "\n").encode())
        written.append(path)
    if arguments.record:
        # Not printed: bench moves only the charts; the tests read it from the staging folder.
        with create_without_links(os.path.join(arguments.out, arguments.record)) as file:
            file.write((json.dumps(RECORD, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode())
    for path in written:
        print(path)
    for reason in skipped:
        print(f"plot: skipped {reason}", file=sys.stderr)


if __name__ == "__main__":
    main()
