"""The workbench's CSVs as plot.py and report.py read them: each kind recognized by its
columns, and every cell the charts or the reading use checked before anything is drawn.

A file that is not a workbench CSV is BadInput, one line `FILE:LINE: not a workbench
results CSV (reason)` (the kind its columns name), never a traceback later: empty, a header
and no rows, a required column missing or twice, a number that is not a plain finite
decimal within its range, a row of another width, bytes that are not UTF-8 text. Reading
is one pass over the file's rows, O(rows × columns).
"""
import csv
import io
import math
import re
import sys

import pandas as pd

# A results row's outcome_bits cell holds up to 2^20 requests' outcomes, 174,764 base64
# characters (docs/columns.md); the csv module's default limit is 131,072.
csv.field_size_limit(1 << 18)


def fail(path, reason):
    """The scripts' one error line (bench shows what follows `plot: error: `) and exit 2."""
    print(f"plot: error: {path}: {reason}", file=sys.stderr)
    sys.exit(2)


class BadInput(Exception):
    """A CSV the charts cannot rest on, reported as one line `FILE:LINE: reason`."""

    def __init__(self, path, line, reason):
        super().__init__(f"{path}:{line}: {reason}")


class Number:
    """A numeric column's rule: finite, within [low, high], and whether a cell may be empty
    (the workbench's "not applicable")."""

    def __init__(self, low, high, may_be_empty=True):
        self.low, self.high, self.may_be_empty = low, high, may_be_empty


TEXT = None  # a text column: any value (it is escaped wherever it is shown)
LARGEST = 2**63 - 1  # the workbench writes no number above it (docs/promises.md, "Never a crash")
CAPACITY = Number(0, 2**60, may_be_empty=False)  # a capacity is at most 1 EiB
RATIO = Number(0, 1)
COUNT = Number(0, LARGEST)
SIGNED = Number(-LARGEST, LARGEST)

# Each kind of CSV: the column that names it (checked in this order: a timeline has run_id
# too), the columns it must have with their rules, and optional columns checked if present.
KINDS = [
    ("timeline", "request_index", {
        "run_id": TEXT, "backend": TEXT, "capacity_bytes": CAPACITY, "request_index": Number(0, LARGEST, False),
        "accounted_bytes": COUNT, "allocated_bytes": COUNT, "rss_bytes": COUNT, "window_hit_ratio": RATIO,
        "memory_warning": Number(0, 1, may_be_empty=False)}, {}),
    ("results", "run_id", {
        "run_id": TEXT, "trace": TEXT, "backend": TEXT, "cost_model": TEXT, "timing": TEXT, "seed": TEXT, "status": TEXT,
        "capacity_bytes": CAPACITY, "requests": Number(0, LARGEST, False), "object_hit_ratio": RATIO, "byte_hit_ratio": RATIO,
        "working_set_bytes": COUNT, "memory_warnings": COUNT, "hit_ratio_before_warnings": RATIO, "hit_ratio_after_warnings": RATIO}, {
        "repeats": COUNT, "evictions": COUNT, "throughput_rps": Number(0, LARGEST), "write_amplification": Number(0, LARGEST),
        "space_amplification": Number(0, LARGEST), "get_hit_p50_ns": COUNT, "get_hit_p99_ns": COUNT, "get_miss_p50_ns": COUNT,
        "get_miss_p99_ns": COUNT, "set_p50_ns": COUNT, "set_p99_ns": COUNT,
        # The reading's ceiling, classes, configuration and warning cost (issue 21 §4).
        "hits": COUNT, "trace_requests": COUNT, "warmup_requests": COUNT, "too_large": COUNT, "memory_hits": COUNT,
        "disk_hits": COUNT, "disk_evictions": COUNT, "memory_expired": COUNT, "memory_refused": COUNT,
        "cost_from_recorded": COUNT, "cost_from_dimensions": COUNT, "cost_from_url": COUNT, "cost_from_ratio": COUNT, "cost_from_encoded": COUNT,
        "cost_from_estimate": COUNT,
        # Counterfactual warning cost (a replay without warnings): may be negative (a warning that helped).
        "warning_hits_lost": SIGNED, "warning_memory_hits_lost": SIGNED, "warning_hits_lost_per_warning": SIGNED,
        "warning_recovery_requests": COUNT,
        # The ceiling from the row itself (issue 21 §4): the trace's objects, the replay's first requests.
        "unique_objects": COUNT, "compulsory_misses": COUNT,
        # Points replayed at once (sweep --jobs, issue 24 §5): above 1, timing was contended.
        "points_at_once": Number(1, LARGEST)}),
    ("mrc", "object_miss_ratio", {
        "method": TEXT, "ignore_obj_size": TEXT, "capacity_bytes": CAPACITY, "object_miss_ratio": RATIO, "byte_miss_ratio": RATIO}, {}),
    ("similar", "key_set", {
        "n": Number(0, LARGEST, False), "key_set": TEXT, "backend": TEXT, "key_hash": TEXT, "distinct_cf_hashes": COUNT,
        "get_p50_ns": COUNT}, {}),
    ("blob", "blob_bytes", {
        "backend": TEXT, "blob_bytes": CAPACITY, "write_us": Number(0, LARGEST), "read_us": Number(0, LARGEST)}, {}),
]
KIND_NAMES = {"results": "results", "timeline": "timeline", "mrc": "mrc", "similar": "similar-keys", "blob": "blob-size"}
# A plain decimal number: Python's float() would also take "nan", "inf", "1_000" and spaces.
DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
INTEGER = re.compile(r"[+-]?\d+")


def number(text, rule, where):
    """The cell's value under `rule`, or BadInput naming the line and column."""
    path, line, column, kind = where
    if text == "":
        if rule.may_be_empty:
            return None
        raise BadInput(path, line, f"not a workbench {kind} CSV ({column} is empty)")
    if not DECIMAL.fullmatch(text):
        raise BadInput(path, line, f"not a workbench {kind} CSV ({column} {shown(text)} is not a number)")
    # An integer is read exactly (a float would round above 2^53); the bounds are checked on it.
    # 40 characters bound int()'s work (and Python's own digit limit); no workbench number is longer.
    value = (int(text) if INTEGER.fullmatch(text) else float(text)) if len(text) <= 40 else math.inf
    if isinstance(value, float) and not math.isfinite(value) or not rule.low <= value <= rule.high:
        raise BadInput(path, line, f"not a workbench {kind} CSV ({column} {shown(text)} is outside {rule.low}…{rule.high})")
    return value


def shown(text):
    """A cell quoted for an error line: short, and one line whatever it holds."""
    text = text if len(text) <= 40 else text[:40] + "…"
    return repr(text)


def read(path, expected=None):
    """(kind, frame) of one workbench CSV, every cell the charts use checked first: a bad
    file is BadInput `FILE:LINE: not a workbench … CSV (reason)`, never a traceback later.
    With `expected` (a kind), another kind is returned as (kind, None) unchecked."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        fail(path, f"cannot read it ({error.strerror})")
    wanted = f"{KIND_NAMES[expected]} " if expected else ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(path, data.count(b"\n", 0, error.start) + 1, f"not a workbench {wanted}CSV (not UTF-8 text)")
    if "\0" in text:
        raise BadInput(path, text.count("\n", 0, text.index("\0")) + 1, f"not a workbench {wanted}CSV (a NUL byte: binary data)")
    # newline="": rows end at \n, \r\n or \r only (a U+2028 inside a name is not a line break).
    lines = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(lines, None)
        if not header or header == [""]:
            raise BadInput(path, 1, f"not a workbench {wanted}CSV (empty file)")
        found = [(kind, required, optional) for kind, key, required, optional in KINDS if key in header]
        if not found:
            raise BadInput(path, 1, f"not a workbench {wanted}CSV (its columns match none of results, mrc, similar-keys, blob-size, timeline)")
        kind, required, optional = found[0]
        if expected and kind != expected:
            return kind, None
        name = KIND_NAMES[kind]
        wanted = f"{name} "
        for column in header:
            if header.count(column) > 1:
                raise BadInput(path, 1, f"not a workbench {name} CSV (column {shown(column)} twice)")
        missing = [column for column in required if column not in header]
        if missing:
            raise BadInput(path, 1, f"not a workbench {name} CSV (no {', '.join(missing)} column)")
        rules = {**{c: r for c, r in optional.items() if c in header}, **required}
        numeric = [(header.index(c), c, r) for c, r in rules.items() if r is not TEXT]
        rows, values = [], {c: [] for _, c, _ in numeric}
        for row in lines:
            if row == [] or row == [""] and len(header) > 1:
                continue  # a blank line, as pandas skips it
            if len(row) != len(header):
                raise BadInput(path, lines.line_num, f"not a workbench {name} CSV (a row of {len(row)} fields under a header of {len(header)})")
            for index, column, rule in numeric:
                values[column].append(number(row[index], rule, (path, lines.line_num, column, name)))
            rows.append(row)
    except csv.Error as error:
        raise BadInput(path, lines.line_num, f"not a workbench {wanted}CSV ({error})")
    if not rows:
        raise BadInput(path, 1, f"not a workbench {name} CSV (a header and no rows)")
    frame = pd.DataFrame(rows, columns=header)
    for column, column_values in values.items():
        # Whole numbers with no empty cell stay integers (as pandas reads them); else floats, NaN for empty.
        exact = all(isinstance(v, int) for v in column_values)
        frame[column] = pd.Series(column_values, dtype="int64" if exact else "float64")
    return kind, frame
