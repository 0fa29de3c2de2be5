#!/usr/bin/env python3
"""Charts from the workbench's CSVs (`bench plot` runs this in the bootstrap's .venv).

usage: CWB_STAGING=DIR plot.py --out=DIR [--timeline=TIMELINE.csv] -- CSV...

Each CSV is recognized by its columns: `bench run`/`bench sweep` results, a `bench mrc`
curve, `bench experiment similar-keys` or `blob-size`. Every chart that the inputs allow is
written as a PNG into DIR; each one skipped is named with the reason. Prints one line per
chart written. Exit 2 with one line `plot: error: FILE:LINE: reason` on bad input, and
never a traceback: every cell the charts use is checked before drawing, and anything
still unexpected is one line too.

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
# Up to 20 distinguishable lines: tab20's colours, each pair with its own marker.
COLORS = plt.get_cmap("tab20").colors
MARKERS = "osD^v<>pXh*"


def style(index):
    return {"color": COLORS[(index * 2) % 20 if index < 10 else (index * 2 + 1) % 20], "marker": MARKERS[index % len(MARKERS)],
            "linestyle": "-" if index < 10 else "--"}


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


def draw_ceilings(axis, marks, as_miss):
    """Each trace's ceiling as a dashed line (hit ratio, or its compulsory miss ratio), named in
    the legend; an unknown one is named too, so no chart is silent about it."""
    for index, (trace, ceiling) in enumerate(marks):
        name = trace if len(marks) > 1 else "the trace"
        if ceiling is None:
            axis.plot([], [], " ", label=f"ceiling of {name} not known (every run evicted, refused or released something)")
            continue
        value = 1 - ceiling if as_miss else ceiling
        text = f"compulsory misses of {name}: {100 * (1 - ceiling):.1f}%" if as_miss else f"ceiling of {name}: {100 * ceiling:.1f}%"
        axis.axhline(value, color="black", linestyle=(0, (4, 2 + index)), linewidth=1, label=text)


def miss_ratio_curves(curves, out, written, skipped, marks=(), trace=""):
    """curves: list of (label, frame with capacity_bytes, object_miss, byte_miss, objects);
    marks: ceiling_marks of the results (the object miss ratio can go no lower). Offline
    bounds gray and dashed; under --ignore-obj-size one panel (objects), no byte panel."""
    curves = [c for c in curves if len(c[1]) >= 2]
    if not curves:
        skipped.append(f"{chart_file('mrc')}: no backend has two or more capacities (run a sweep or bench mrc)")
        return
    objects = all(c[2] for c in curves)
    looks = series([label for label, _, _ in curves])
    curves = sorted(curves, key=lambda c: (bound_name(c[0]), c[0]))  # the legend by name, bounds last
    panels = (("object_miss", "object miss ratio"),) if objects else (("object_miss", "object miss ratio"), ("byte_miss", "byte miss ratio"))
    figure, axes = plt.subplots(1, len(panels), figsize=plot_style.size(6.5 * len(panels) - 1, 4.6), sharey=True, squeeze=False)
    axes = axes[0]
    for label, frame, _ in curves:
        frame = frame.sort_values("capacity_bytes")
        look = dict(looks.look(label))
        if len(frame) > 30:
            look["marker"] = None
        for axis, (column, _) in zip(axes, panels):
            axis.plot(frame["capacity_bytes"], frame[column], label=label + (" (offline bound)" if bound_name(label) else ""),
                      zorder=1 if bound_name(label) else 2, **look)
    draw_ceilings(axes[0], marks, as_miss=True)
    for axis, (_, title) in zip(axes, panels):
        capacity_axis(axis, objects)
        axis.set_title(title)
        axis.set_ylim(0, 1.02)
        axis.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("miss ratio (lower is better)")
    handles, labels = axes[0].get_legend_handles_labels()
    paper = plot_style.STYLE == "paper"
    if paper:  # one column: the legend under the plot, in columns
        figure.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.04), ncol=2 if len(panels) > 1 else 1, frameon=False)
    else:
        axes[-1].legend(handles, labels, loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, frameon=False)
    figure.suptitle(f"Miss-ratio curves{': ' + trace if trace else ''}" + (" (capacity in objects)" if objects else ""),
                    y=1.03 if paper else 0.98)
    save(figure, out, "mrc.png", written)


def hit_ratio_bars(results, out, written, skipped):
    """One cost model (the one with the most rows; the others named as left out), at the
    capacity where its backends differ most, the smallest such (below the ceiling, where
    they can differ), with the ceiling drawn."""
    if results.empty:
        skipped.append(f"{chart_file('hit_ratio')}: no row with status ok and a hit ratio")
        return
    models = results["cost_model"].astype(str).value_counts(sort=False)
    model = models[models == models.max()].index[0]
    if len(models) > 1:
        others = ", ".join(m for m in models.index if m != model)
        skipped.append(f"{chart_file('hit_ratio')}: rows under the {others} cost model left out (hit ratios compare only within one cost model; drawn: {model})")
    results = results[results["cost_model"].astype(str) == model]
    import reading  # here: reading imports plot
    counts = results.groupby("capacity_bytes")["label"].nunique()
    candidates = results[results["capacity_bytes"].isin(counts[counts == counts.max()].index)]
    # Like with like: the spread within each class (memory, tiers, disk), so tiers at the ceiling
    # over memory caches far below it do not make a "difference"; rows at the ceiling spread nothing.
    classes = candidates.apply(reading.cache_class, axis=1).fillna("unranked")
    within = candidates.assign(cache_class=classes).groupby(["capacity_bytes", "cache_class"])["object_hit_ratio"].agg(lambda v: v.max() - v.min())
    spread = within.groupby(level=0).max()
    capacity = spread.idxmax()  # capacities ascending: the smallest of equal spreads
    rows = results[results["capacity_bytes"] == capacity].drop_duplicates("label")
    rows = rows.sort_values("object_hit_ratio", ascending=False)
    figure, axis = plt.subplots(figsize=plot_style.size(max(6, 0.7 * len(rows) + 3), 4.6))
    positions = list(range(len(rows)))
    objects = in_objects(rows)
    looks = series(list(results["label"].unique()))
    colors = [looks.color(label) for label in rows["label"]]
    from matplotlib.patches import Patch
    if objects:  # counts, not bytes: the byte hit ratio says nothing new (every object is one unit)
        axis.bar(positions, rows["object_hit_ratio"], 0.6, color=colors, edgecolor="black", linewidth=0.4)
        axis.plot([], [], " ", label="object hit ratio (bars)")
    else:
        width = 0.4
        axis.bar([p - width / 2 for p in positions], rows["object_hit_ratio"], width, color=colors, edgecolor="black", linewidth=0.4)
        axis.bar([p + width / 2 for p in positions], rows["byte_hit_ratio"], width, color=colors, edgecolor="black", linewidth=0.4,
                 hatch="////", alpha=0.55)
    draw_ceilings(axis, ceiling_marks(results), as_miss=False)
    axis.set_xticks(list(positions))
    axis.set_xticklabels(rows["label"], rotation=30, ha="right", fontsize=8)
    axis.set_ylim(0, 1)
    axis.set_ylabel("hit ratio (higher is better)")
    where = count_label(capacity) + " objects" if objects else size_label(capacity)
    trace = trace_names(rows)
    title = f"Hit ratio{' on ' + trace if trace else ''} at {where} ({model} cost)"
    axis.set_title(title + ("" if plot_style.STYLE == "paper" else ": the capacity where backends of one kind differ most"))
    handles, labels = axis.get_legend_handles_labels()
    if not objects:
        handles = [Patch(facecolor="white", edgecolor="black", label="object hit ratio (solid)"),
                   Patch(facecolor="white", edgecolor="black", hatch="////", label="byte hit ratio (hatched)")] + handles
        labels = [h.get_label() for h in handles]
    if plot_style.STYLE == "paper":  # one column: the key goes under the slanted names, not beside
        axis.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.42), ncol=1, frameon=False)
    else:
        axis.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1), frameon=False)
    axis.grid(True, axis="y", alpha=0.3)
    save(figure, out, "hit_ratio.png", written)


def durability_title(rows):
    """What disk figures rest on: the durability column's values, or that it was not recorded."""
    if "durability" not in rows:
        return "durability not recorded"
    values = sorted({str(v) for v in rows["durability"] if not pd.isna(v) and str(v) != ""})
    return f"durability {', '.join(values)}" if values else "durability not recorded"


def latency(results, out, written, skipped):
    figures = [("get_hit_p50_ns", "get hit p50"), ("get_hit_p99_ns", "get hit p99"), ("get_miss_p50_ns", "get miss p50"),
               ("get_miss_p99_ns", "get miss p99"), ("set_p50_ns", "set p50"), ("set_p99_ns", "set p99")]
    present = [(c, n) for c, n in figures if c in results and results[c].notna().any()]
    if not present:
        skipped.append(f"{chart_file('latency')}: no latency columns (the run had --no-timing)")
        return
    timed = results[results[[c for c, _ in present]].notna().any(axis=1)]
    counts = timed.groupby("capacity_bytes")["label"].nunique()
    capacity = counts[counts == counts.max()].index.min()
    rows = timed[timed["capacity_bytes"] == capacity].drop_duplicates("label")
    figure, axis = plt.subplots(figsize=plot_style.size(max(7, 1.1 * len(rows) + 3), 4.8))
    width = 0.8 / len(present)
    # Each backend in its colour of every chart; the percentile by hatching (a key below).
    looks = series(list(results["label"].unique()))
    colors = [looks.color(label) for label in rows["label"]]
    hatches = ["", "////", "..", "xx", "\\\\", "oo"]
    from matplotlib.patches import Patch
    for index, (column, name) in enumerate(present):
        offsets = [p - 0.4 + width * (index + 0.5) for p in range(len(rows))]
        axis.bar(offsets, rows[column].fillna(0), width, color=colors, edgecolor="black", linewidth=0.4, hatch=hatches[index % len(hatches)])
    keys = [Patch(facecolor="white", edgecolor="black", hatch=hatches[i % len(hatches)], label=name) for i, (_, name) in enumerate(present)]
    axis.set_yscale("log")
    axis.yaxis.set_major_formatter(FuncFormatter(count_label))  # plain text: mathtext is off (names from CSVs)
    axis.set_ylabel("nanoseconds (log scale)")
    axis.set_xticks(list(range(len(rows))))
    axis.set_xticklabels(rows["label"], rotation=30, ha="right", fontsize=8)
    disks = rows[rows["write_amplification"].notna()] if "write_amplification" in rows else rows.iloc[0:0]
    on_disk = f" (disk backends: {durability_title(disks)})" if len(disks) else ""
    axis.set_title(f"Latency percentiles at {size_label(capacity)}{on_disk}")
    if plot_style.STYLE == "paper":
        axis.legend(handles=keys, loc="upper center", bbox_to_anchor=(0.5, -0.42), ncol=3, frameon=False)
    else:
        axis.legend(handles=keys, fontsize=8, ncol=3)
    axis.grid(True, axis="y", which="both", alpha=0.3)
    save(figure, out, "latency.png", written)


def disk(results, out, written, skipped):
    if "write_amplification" not in results or results["write_amplification"].isna().all():
        skipped.append(f"{chart_file('disk')}: no disk backend rows (sqlite, files)")
        return
    rows = results[results["write_amplification"].notna()]
    capacity = rows["capacity_bytes"].min()
    rows = rows[rows["capacity_bytes"] == capacity].drop_duplicates("label")
    # Side by side; stacked in one column for the paper style.
    paper = plot_style.STYLE == "paper"
    figure, axes = plt.subplots(2 if paper else 1, 1 if paper else 2, figsize=plot_style.size(10, 6.5 if paper else 4.2))
    looks = series(list(results["label"].unique()))
    colors = [looks.color(label) for label in rows["label"]]
    axes[0].bar(rows["label"], rows["write_amplification"], color=colors, edgecolor="black", linewidth=0.4)
    axes[0].set_title("write amplification\n(bytes written / body bytes stored)")
    space = rows["space_amplification"] if "space_amplification" in rows else pd.Series(0.0, index=rows.index)  # absent: drawn as 0
    axes[1].bar(rows["label"], space.fillna(0), color=colors, edgecolor="black", linewidth=0.4, hatch="////")
    axes[1].set_title("space amplification\n(bytes on disk / bytes cached)")
    for axis in axes:
        axis.axhline(1, color="gray", linewidth=0.8, linestyle="--")
        if paper and axis is axes[0]:  # stacked: the names once, under the lower panel
            axis.tick_params(labelbottom=False)
        # Long labels (tiers with options) slant from their bar's right edge, as the other bar charts'.
        axis.set_xticks(range(len(rows)))
        axis.set_xticklabels(rows["label"], rotation=30, ha="right", fontsize=8)
        axis.grid(True, axis="y", alpha=0.3)
        axis.set_ylabel("×")
    figure.suptitle(f"Disk backends at {size_label(capacity)} ({durability_title(rows)})", y=1.06)
    if paper:
        figure.tight_layout()
    save(figure, out, "disk.png", written)


MEMORY_RUNS = 30  # small multiples in one image: beyond 30 runs the rest are named, not drawn


def memory_timeline(timeline, out, written, skipped):
    runs = list(dict.fromkeys(timeline["run_id"]))
    if not runs:
        skipped.append(f"{chart_file('memory')}: the timeline has no samples")
        return
    if len(runs) > MEMORY_RUNS:
        left = runs[MEMORY_RUNS:]
        skipped.append(f"{chart_file('memory')}: {len(left)} of {len(runs)} runs left out (it draws the first {MEMORY_RUNS}): " + ", ".join(map(str, left)))
        runs = runs[:MEMORY_RUNS]
    # Small multiples: three across beyond three runs (one column in the paper style).
    columns = 1 if len(runs) <= 3 or plot_style.STYLE == "paper" else 3
    rows_count = -(-len(runs) // columns)
    figure, axes = plt.subplots(rows_count, columns, figsize=plot_style.size(11 if columns == 1 else 21, 3.0 * rows_count), squeeze=False)
    for axis in axes.flat[len(runs):]:
        axis.set_visible(False)
    for axis, run in zip(axes.flat, runs):
        frame = timeline[timeline["run_id"] == run].sort_values("request_index")
        # Samples and warnings alike: a warning's row is the memory right after it released.
        for column, name in (("accounted_bytes", "accounted"), ("allocated_bytes", "allocated"), ("rss_bytes", "RSS (process)")):
            if frame[column].notna().any():
                axis.plot(frame["request_index"], frame[column] / 2**20, label=name)
        axis.set_ylabel("MiB")
        axis.set_ylim(bottom=0)
        axis.yaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 4, 5, 8, 10]))
        samples = frame[frame["memory_warning"] == 0]
        warnings = frame[frame["memory_warning"] == 1]
        for index, (_, warning) in enumerate(warnings.iterrows()):
            axis.axvline(warning["request_index"], color="tab:red", linestyle="--", linewidth=0.9,
                         label="memory warning" if index == 0 else None)
        ratio = axis.twinx()
        if samples["window_hit_ratio"].notna().any():
            ratio.plot(samples["request_index"], samples["window_hit_ratio"], color="tab:gray", alpha=0.6, linewidth=0.9, label="hit ratio (window)")
            # At each warning: the window hit ratio at the sample before it → the one after.
            for _, warning in warnings.iterrows():
                before = samples[samples["request_index"] <= warning["request_index"]]["window_hit_ratio"].dropna()
                after = samples[samples["request_index"] > warning["request_index"]]["window_hit_ratio"].dropna()
                if len(before) and len(after):
                    ratio.annotate(f"hit {100 * before.iloc[-1]:.0f}→{100 * after.iloc[0]:.0f}%", (warning["request_index"], 0.8),
                                   xytext=(3, 0), textcoords="offset points", fontsize=7, color="tab:red",
                                   bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1})
        ratio.set_ylim(0, 1)
        ratio.set_ylabel("hit ratio")
        first = frame.iloc[0]
        axis.set_title(f"{first['backend']} at {size_label(first['capacity_bytes'])}: memory over the replay", fontsize=9 if columns > 1 else None)
        axis.set_xlabel("requests")
        axis.xaxis.set_major_formatter(FuncFormatter(count_label))
        lines, names = axis.get_legend_handles_labels()
        more, more_names = ratio.get_legend_handles_labels()
        if plot_style.STYLE == "paper":  # one column: one key, under the last panel (below)
            key = (lines + more, names + more_names)
        elif columns == 1:
            axis.legend(lines + more, names + more_names, fontsize=8, loc="upper left", bbox_to_anchor=(1.07, 1), frameon=False)
        elif axis is axes.flat[0]:  # small multiples: one legend, the same lines in every panel
            axis.legend(lines + more, names + more_names, fontsize=7, loc="lower left", framealpha=0.85)
        axis.grid(True, alpha=0.3)
    figure.tight_layout()
    if plot_style.STYLE == "paper":
        figure.legend(*key, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    save(figure, out, "memory.png", written)


def miss_ratio_over_time(timeline, out, written, skipped, results=None):
    """Each run's miss ratio per timeline window (1 − window_hit_ratio: the object hit ratio
    since the previous sample) against requests replayed; one line per run, coloured by its
    backend as in the other charts, offline bounds gray and dashed."""
    samples = timeline[timeline["memory_warning"] == 0].dropna(subset=["window_hit_ratio"])
    if samples.empty:
        skipped.append(f"{chart_file('miss_ratio_time')}: the timeline has no window hit ratio")
        return
    runs = list(dict.fromkeys(samples["run_id"]))
    several = samples.groupby("backend")["capacity_bytes"].nunique().max() > 1
    looks = series(list(samples["backend"].astype(str).unique()))
    figure, axis = plt.subplots(figsize=plot_style.size(9, 4.4))
    for run in runs:
        frame = samples[samples["run_id"] == run].sort_values("request_index")
        backend = str(frame["backend"].iloc[0])
        label = backend + (f" at {size_label(frame['capacity_bytes'].iloc[0])}" if several else "")
        look = dict(looks.look(backend))
        look["marker"] = look["marker"] if len(frame) <= 30 else None
        axis.plot(frame["request_index"], 1 - frame["window_hit_ratio"], label=label + (" (offline bound)" if bound_name(backend) else ""), **look)
    axis.set_ylim(0, 1.02)
    axis.set_xlim(left=0)
    axis.xaxis.set_major_formatter(FuncFormatter(count_label))
    axis.set_xlabel("requests replayed")
    axis.set_ylabel("miss ratio per window (objects)")
    trace = trace_names(results[results["run_id"].isin(runs)]) if results is not None and "run_id" in results else ""
    capacities = sorted(set(samples["capacity_bytes"]))
    at = f" at {size_label(capacities[0])}" if len(capacities) == 1 else ""
    axis.set_title(f"Miss ratio over time{': ' + trace if trace else ''}{at}")
    axis.grid(True, alpha=0.3)
    if plot_style.STYLE == "paper":
        axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, frameon=False)
    else:
        axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1), frameon=False)
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
    arguments = parser.parse_args()
    plot_style.configure(arguments)
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
    if written:
        # The colour of each series, as drawn (a check that every chart used one mapping).
        import json
        path = os.path.join(arguments.out, "plot_colors.json")
        with create_without_links(path) as file:
            file.write((json.dumps(SERIES.colors(), indent=1, sort_keys=True) + "\n").encode())
        written.append(path)
    for path in written:
        print(path)
    for reason in skipped:
        print(f"plot: skipped {reason}", file=sys.stderr)


if __name__ == "__main__":
    main()
