#!/usr/bin/env python3
"""One self-contained HTML report of a run or sweep (`bench report` runs this in .venv).

usage: CWB_STAGING=DIR report.py --out=DIR/FILE.html [--timeline=TIMELINE.csv] -- CSV...

The page holds the configuration and trace facts, the results table, every chart
`plot.py` can draw from the inputs (embedded as data: URLs), and a short reading computed
from the numbers: the best backend at each capacity, the knee of each curve, the distance
to the offline bound, disk write amplification, and what each memory warning cost.

Every value from a CSV, a trace or a file name enters the page through `e` (escaped, quotes
too): results from another machine are input like any other. The page is written only into
the staging folder `bench` named in CWB_STAGING (plot.py's rules), and bad input is one line.
"""
import argparse
import base64
import html
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402
import pandas as pd  # noqa: E402

OFFLINE = {"belady", "pfoo-l"}
KNEE_POINTS = 0.01  # "within 1 point of the plateau"


def e(value):
    """The one way a value reaches the page: text, with <, >, & and both quotes escaped."""
    return html.escape(str(value), quote=True)


def percent(value):
    return "–" if pd.isna(value) else f"{100 * value:.2f}%"


def capacity_text(row):
    if str(row.get("ignore_obj_size", "no")) == "yes":
        return f"{int(row['capacity_bytes'])} objects"
    return plot.size_label(row["capacity_bytes"])


def facts(results):
    first = results.iloc[0]
    items = [
        ("trace", first["trace"]),
        ("trace SHA-256", first.get("trace_sha256", "")),
        ("requests replayed", f"{int(first['requests']):,}"),
        ("working set", ", ".join(sorted({plot.size_label(v) for v in results["working_set_bytes"].dropna()})) or "–"),
        ("cost models", ", ".join(sorted(results["cost_model"].astype(str).unique()))),
        ("backends", ", ".join(dict.fromkeys(results["label"]))),
        ("capacities", ", ".join(plot.size_label(c) for c in sorted(results["capacity_bytes"].unique()))),
        ("timing", ", ".join(sorted(results["timing"].astype(str).unique()))),
        ("repeats per point", ", ".join(str(int(v)) for v in sorted(results["repeats"].dropna().unique())) if "repeats" in results else "1"),
        ("seed", ", ".join(str(v) for v in sorted(results["seed"].unique()))),
        ("workbench revision", first.get("git_rev", "")),
        ("Swift", first.get("swift_version", "")),
        ("allocator", first.get("allocator", "")),
    ]
    return "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in items)


def table(results):
    headers = ["backend", "capacity", "cost", "hit ratio", "byte hit", "get-hit p50", "set p50", "req/s", "evictions", "status"]
    rows = []
    for _, row in results.iterrows():
        cells = [row["label"], capacity_text(row), row["cost_model"], percent(row["object_hit_ratio"]), percent(row["byte_hit_ratio"]),
                 "–" if pd.isna(row.get("get_hit_p50_ns")) else f"{int(row['get_hit_p50_ns'])} ns",
                 "–" if pd.isna(row.get("set_p50_ns")) else f"{int(row['set_p50_ns'])} ns",
                 "–" if pd.isna(row.get("throughput_rps")) else plot.count_label(row["throughput_rps"]),
                 "–" if pd.isna(row.get("evictions")) else f"{int(row['evictions']):,}", row.get("status", "ok")]
        rows.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
    return "<table class='results'><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in headers) + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"


def reading(results, timeline):
    """Sentences computed from the numbers; each says what it rests on."""
    lines = []
    online = results[~results["backend"].isin(OFFLINE)]
    for model, by_model in online.groupby("cost_model"):
        for capacity, rows in by_model.groupby("capacity_bytes"):
            if len(rows) < 2:
                continue
            best = rows.loc[rows["object_hit_ratio"].idxmax()]
            best_bytes = rows.loc[rows["byte_hit_ratio"].idxmax()]
            worst = rows.loc[rows["object_hit_ratio"].idxmin()]
            text = (f"At {e(capacity_text(best))} ({e(model)} cost), <b>{e(best['label'])}</b> has the best hit ratio, "
                    f"{e(percent(best['object_hit_ratio']))} ({100 * (best['object_hit_ratio'] - worst['object_hit_ratio']):.1f} points above "
                    f"{e(worst['label'])})")
            text += (f"; by bytes, <b>{e(best_bytes['label'])}</b> with {e(percent(best_bytes['byte_hit_ratio']))}."
                     if best_bytes["label"] != best["label"] else f", and also the best byte hit ratio, {e(percent(best_bytes['byte_hit_ratio']))}.")
            lines.append(text)
    # Knees: the smallest capacity within 1 point of the curve's plateau (its best hit ratio).
    knees = []
    for label, rows in results.groupby("label", sort=False):
        if rows["capacity_bytes"].nunique() < 3:
            continue
        rows = rows.sort_values("capacity_bytes")
        plateau = rows["object_hit_ratio"].max()
        knee = rows[rows["object_hit_ratio"] >= plateau - KNEE_POINTS].iloc[0]
        knees.append(f"{e(label)}: {e(capacity_text(knee))} ({e(percent(knee['object_hit_ratio']))}, plateau {e(percent(plateau))})")
    if knees:
        lines.append("Knee of each curve — the smallest capacity measured within 1 point of the curve's best hit ratio "
                     "(the plateau is the best measured, so a sweep that stops early puts the knee at its end): " + "; ".join(knees) + ".")
    # Distance from the offline bounds at equal capacity.
    for bound, measure, name in (("belady", "object_hit_ratio", "Belady (the furthest next use goes first: an upper bound on hits for unit sizes only)"),
                                 ("pfoo-l", "byte_hit_ratio", "PFOO-L (a bound for variable sizes)")):
        # One bound per capacity, even when rows repeat (a file given twice, merged shards): the highest.
        reference = results[results["backend"] == bound].groupby("capacity_bytes")[measure].max()
        if reference.empty:
            continue
        gaps = []
        for label, rows in online.groupby("label", sort=False):
            common = rows[rows["capacity_bytes"].isin(reference.index)]
            if common.empty:
                continue
            gap = (reference.loc[common["capacity_bytes"]].values - common[measure].values) * 100
            gaps.append((gap.mean(), f"{e(label)} {gap.mean():.1f} points on average (at most {gap.max():.1f})"))
        if gaps:
            gaps.sort()
            kind = "hit ratio" if measure == "object_hit_ratio" else "byte hit ratio"
            lines.append(f"Distance from {name} in {kind}, closest first: " + "; ".join(text for _, text in gaps) + ".")
    disk = results[results["write_amplification"].notna()] if "write_amplification" in results else results.iloc[0:0]
    for _, row in disk.drop_duplicates("label").iterrows():
        lines.append(f"{e(row['label'])} at {e(capacity_text(row))} writes {row['write_amplification']:.2f}× the payload bytes it stores "
                     f"and keeps {row['space_amplification']:.2f}× the cached bytes on disk.")
    lines += warning_costs(results, timeline)
    return "".join(f"<li>{line}</li>" for line in lines) or "<li>Nothing to compare: one row.</li>"


def warning_costs(results, timeline):
    """Per warned run: hits lost after the warnings and the requests until the hit ratio recovered."""
    lines = []
    if timeline is None:
        for _, row in results[results["memory_warnings"].fillna(0) > 0].iterrows():
            before, after = row["hit_ratio_before_warnings"], row["hit_ratio_after_warnings"]
            lines.append(f"{e(row['label'])}: {int(row['memory_warnings'])} memory warnings; hit ratio {e(percent(before))} in the window before "
                         f"each and {e(percent(after))} after (give --timeline to measure recovery).")
        return lines
    for run, frame in timeline.groupby("run_id", sort=False):
        frame = frame.sort_values("request_index")
        warnings = frame[frame["memory_warning"] == 1]
        samples = frame[(frame["memory_warning"] == 0) & frame["window_hit_ratio"].notna()]
        if warnings.empty or samples.empty:
            continue
        lost, recoveries = 0.0, []
        for _, warning in warnings.iterrows():
            earlier = samples[samples["request_index"] <= warning["request_index"]]
            later = samples[samples["request_index"] > warning["request_index"]]
            if earlier.empty or later.empty:
                continue
            before = earlier.iloc[-1]["window_hit_ratio"]
            recovered = later[later["window_hit_ratio"] >= before - KNEE_POINTS]
            end = recovered.iloc[0]["request_index"] if not recovered.empty else later.iloc[-1]["request_index"]
            recoveries.append(end - warning["request_index"])
            previous = warning["request_index"]
            for _, sample in later[later["request_index"] <= end].iterrows():
                lost += max(0.0, before - sample["window_hit_ratio"]) * (sample["request_index"] - previous)
                previous = sample["request_index"]
        if recoveries:
            first = frame.iloc[0]
            lines.append(f"{e(first['backend'])} at {e(plot.size_label(first['capacity_bytes']))}: {len(warnings)} memory warnings cost about "
                         f"{lost / len(warnings):,.0f} hits each (the window hit ratio's shortfall after each, summed over the requests until it was back "
                         f"within 1 point); recovery took {min(recoveries):,.0f}–{max(recoveries):,.0f} requests (sampled every "
                         f"--sample-every requests, so to that resolution).")
    return lines


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; padding: 0 1em; }}
h1 {{ font-size: 1.6em; }} h2 {{ font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }}
table {{ border-collapse: collapse; font-size: .9em; }}
th, td {{ padding: .25em .7em; border-bottom: 1px solid #eee; text-align: left; }}
table.results td:nth-child(n+4) {{ text-align: right; font-variant-numeric: tabular-nums; }}
table.results th {{ background: #f4f4f4; position: sticky; top: 0; }}
figure {{ margin: 1em 0; }} img {{ max-width: 100%; border: 1px solid #eee; }}
li {{ margin: .35em 0; line-height: 1.4; }}
.note {{ color: #666; font-size: .9em; }}
</style></head><body>
<h1>{title}</h1>
<p class="note">Generated by <code>bench report</code> from {sources}. Hit ratios compare only within one cost model.</p>
<h2>Reading</h2><ul>{reading}</ul>
<h2>Configuration and trace</h2><table>{facts}</table>
<h2>Results</h2>{table}
<h2>Charts</h2>{charts}
</body></html>
"""


def main():
    arguments = plot.arguments_parser("One HTML report of a run or sweep.").parse_args()
    plot.refuse_outside(arguments.out, plot.staging_folder(), is_folder=False)
    plot.reporting_errors(arguments.csv + ([arguments.timeline] if arguments.timeline else []), lambda: write_page(arguments))


def write_page(arguments):
    frames = []
    for path in arguments.csv:
        kind, frame = plot.read(path, expected="results")
        if kind != "results":
            plot.fail(path, "bench report takes `bench run` or `bench sweep` results CSVs")
        frames.append(frame)
    timeline = None
    if arguments.timeline:
        kind, timeline = plot.read(arguments.timeline, expected="timeline")
        if kind != "timeline":
            plot.fail(arguments.timeline, "--timeline takes a `bench run --timeline` CSV")
    results = plot.labelled(pd.concat(frames, ignore_index=True))
    ok = plot.charted_rows(results)
    with tempfile.TemporaryDirectory() as folder:
        written, skipped, curves = [], [], []
        charted = ok.assign(object_miss=1 - ok["object_hit_ratio"], byte_miss=1 - ok["byte_hit_ratio"])
        for label, rows in charted.groupby("label", sort=False):
            curves.append((label, rows.drop_duplicates("capacity_bytes"), plot.in_objects(rows)))
        plot.miss_ratio_curves(curves, folder, written, skipped)
        plot.hit_ratio_bars(charted, folder, written, skipped)
        plot.latency(charted, folder, written, skipped)
        plot.disk(charted, folder, written, skipped)
        if timeline is not None:
            plot.memory_timeline(timeline, folder, written, skipped)
        charts = ""
        for path in written:
            with open(path, "rb") as image:
                data = base64.b64encode(image.read()).decode("ascii")
            charts += f"<figure><img alt='{e(os.path.basename(path))}' src='data:image/png;base64,{data}'></figure>"
    charts += "".join(f"<p class='note'>Not drawn: {e(reason)}</p>" for reason in skipped)
    title = f"Cache workbench report: {os.path.basename(str(results.iloc[0]['trace']))}"
    sources = ", ".join(e(os.path.basename(p)) for p in arguments.csv + ([arguments.timeline] if arguments.timeline else []))
    page = PAGE.format(title=e(title), sources=sources, reading=reading(ok, timeline), facts=facts(results),
                       table=table(results), charts=charts)
    # A new file in the staging folder, never through a link; bench renames the page into place.
    try:
        created = os.open(arguments.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as error:
        plot.fail(arguments.out, f"cannot create the page ({error.strerror}); it is made new, never through a link")
    with os.fdopen(created, "w", encoding="utf-8") as out:
        out.write(page)
    print(arguments.out)


if __name__ == "__main__":
    main()
