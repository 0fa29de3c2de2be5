#!/usr/bin/env python3
"""One self-contained HTML report of a run or sweep (`bench report` runs this in .venv).

usage: CWB_STAGING=DIR report.py --out=DIR/FILE.html [--timeline=TIMELINE.csv] -- CSV...

The page holds the configuration (command line, capacity units, warm-up, every backend's
parameters, pricing rules with their counts) and trace facts, the results table, every
chart `plot.py` can draw from the inputs (embedded as data: URLs), and the reading that
`reading.py` computes from the numbers (the ceiling, ties, like with like, knees, bounds,
disk writes, the counterfactual cost of memory warnings, merged notes).

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
import reading  # noqa: E402
import pandas as pd  # noqa: E402

e, percent, capacity_text = reading.e, reading.percent, reading.capacity_text


def distinct(values):
    return list(dict.fromkeys(str(v) for v in values if not pd.isna(v)))


def capacity_units(results):
    """--ignore-obj-size: capacities count objects, not bytes."""
    objects = (results["ignore_obj_size"].astype(str) == "yes").sum() if "ignore_obj_size" in results else 0
    if objects == 0:
        return "bytes"
    if objects == len(results):
        return "objects (--ignore-obj-size: every object counts 1, whatever its size)"
    return f"objects in {objects} rows (--ignore-obj-size), bytes in {len(results) - objects}"


def working_set(results):
    """The working set in the capacities' unit: a count of objects under --ignore-obj-size."""
    if "working_set_bytes" not in results:
        return "–"
    sets = results.dropna(subset=["working_set_bytes"])
    objects = sets["ignore_obj_size"].astype(str) == "yes" if "ignore_obj_size" in sets else pd.Series(False, index=sets.index)
    labels = {f"{int(v):,} objects" for v in sets[objects]["working_set_bytes"]}
    labels |= {plot.size_label(v) for v in sets[~objects]["working_set_bytes"]}
    return ", ".join(sorted(labels)) or "–"


def warmup(results):
    if "warmup_requests" not in results:
        return "not recorded in the results CSV"
    counts = sorted({int(v) for v in results["warmup_requests"].dropna()})
    if counts in ([], [0]):
        return "none: every request is measured"
    return ", ".join(f"{c:,}" for c in counts) + " requests replayed first and left out of the figures"


def parameters(results):
    """Each backend variant once: its options as the CSV records them (backend_options, variant)."""
    items = []
    for label, rows in results.groupby("label", sort=False):
        options = distinct(rows["backend_options"]) if "backend_options" in rows else []
        items.append(f"{label}: {' | '.join(o for o in options if o) or 'defaults'}")
    return "; ".join(items)


PRICE_RULES = (("cost_from_recorded", "at the app's recorded cost"), ("cost_from_dimensions", "from the trace's dimensions"), ("cost_from_url", "from URL rules"),
               ("cost_from_ratio", "by --decoded-ratio"), ("cost_from_estimate", "by the decoded-size estimate"), ("cost_from_encoded", "at their encoded size"))


def pricing(results):
    """Per cost model, the requests each pricing rule priced (the cost_from_* columns), each distinct count set once."""
    items = []
    for model, rows in results.groupby(results["cost_model"].astype(str), sort=True):
        # The recorded rule (app recordings only) is named when it priced something.
        present = [(c, n) for c, n in PRICE_RULES if c in rows and rows[c].notna().any()
                   and (c != "cost_from_recorded" or (pd.to_numeric(rows[c], errors="coerce").fillna(0) > 0).any())]
        if not present:
            items.append(f"{model}: " + ("the size column" if model == "encoded" else "no rule counts recorded"))
            continue
        counts = distinct(", ".join(f"{int(r[c]):,} {n}" for c, n in present if not pd.isna(r[c])) for _, r in rows.iterrows())
        rules = distinct(rows["pixel_rules"]) if "pixel_rules" in rows else []
        items.append(f"{model}: requests priced " + " | ".join(counts) + (f" (rules: {' | '.join(rules)})" if rules else ""))
    return "; ".join(items)


def http_rules(results):
    """--mode http: which layer of each backend followed which rules (the http_rules column);
    None (no line) for a CSV without the column."""
    if "http_rules" not in results:
        return None
    if results["http_rules"].isna().all():
        return "none: demand-fill (no row ran --mode http)"
    return "; ".join(f"{label}: {' | '.join(distinct(rows['http_rules'])) or '–'}" for label, rows in results.groupby("label", sort=False))


def facts(results):
    first = results.iloc[0]
    items = [
        ("trace", first["trace"]),
        ("trace SHA-256", first.get("trace_sha256", "")),
        ("requests replayed", f"{int(first['requests']):,}"),
        ("working set", working_set(results)),
        ("cost models", ", ".join(sorted(results["cost_model"].astype(str).unique()))),
        ("backends", ", ".join(dict.fromkeys(results["label"]))),
        ("capacities", ", ".join(capacity_text({"capacity_bytes": c, "ignore_obj_size": "yes" if plot.in_objects(results) else "no"})
                                 for c in sorted(results["capacity_bytes"].unique()))),
        ("timing", ", ".join(sorted(results["timing"].astype(str).unique()))),
        ("repeats per point", ", ".join(str(int(v)) for v in sorted(results["repeats"].dropna().unique())) if "repeats" in results else "1"),
        ("seed", ", ".join(str(v) for v in sorted(results["seed"].unique()))),
        ("command line", " | ".join(distinct(results["command"])) or "not recorded in the results CSV" if "command" in results else "not recorded in the results CSV"),
        ("capacities in", capacity_units(results)),
        ("warm-up", warmup(results)),
        ("backend parameters", parameters(results)),
        ("pricing", pricing(results)),
        ("HTTP rules by layer", http_rules(results)),
        ("workbench revision", first.get("git_rev", "")),
        ("Swift", first.get("swift_version", "")),
        ("allocator", first.get("allocator", "")),
    ]
    return "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in items if v is not None)


def duration_text(nanoseconds):
    """A latency as the table prints it (TableReport.nanoseconds): ns below 10 µs, whole µs
    below 10 ms, else whole ms; – when not measured."""
    if nanoseconds is None or pd.isna(nanoseconds):
        return "–"
    value = int(nanoseconds)
    return f"{value} ns" if value < 10_000 else f"{value // 1000} µs" if value < 10_000_000 else f"{value // 1_000_000} ms"


def swatch(looks, label):
    """The series' colour in every chart (plot_style's one mapping from the backend name), as a
    square before its name: the table reads with the charts. The colour is ours, never the CSV's."""
    return f"<span class='swatch' style='background:{looks.color(label)}'></span>"


def table(results):
    headers = ["backend", "capacity", "cost", "hit ratio", "byte hit", "get-hit p50", "set p50", "req/s", "evictions", "status"]
    rows = []
    looks = plot.series(list(results["label"].unique()))
    for _, row in results.iterrows():
        cells = [row["label"], capacity_text(row), row["cost_model"], percent(row["object_hit_ratio"]), percent(row["byte_hit_ratio"]),
                 duration_text(row.get("get_hit_p50_ns")), duration_text(row.get("set_p50_ns")),
                 "–" if pd.isna(row.get("throughput_rps")) else plot.count_label(row["throughput_rps"]),
                 "–" if pd.isna(row.get("evictions")) else f"{int(row['evictions']):,}", row.get("status", "ok")]
        rows.append("<tr>" + "".join(f"<td>{swatch(looks, row['label']) if i == 0 else ''}{e(c)}</td>" for i, c in enumerate(cells)) + "</tr>")
    return "<table class='results'><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in headers) + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"


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
.swatch {{ display: inline-block; width: .8em; height: .8em; margin-right: .4em; border: 1px solid #0003; vertical-align: -.05em; }}
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
        plot.miss_ratio_curves(curves, folder, written, skipped, plot.ceiling_marks(ok))
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
    page = PAGE.format(title=e(title), sources=sources, reading="".join(f"<li>{line}</li>" for line in reading.reading(ok)) or "<li>Nothing to compare: one row.</li>", facts=facts(results),
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
