"""The reading of `bench report`: sentences computed from a results CSV's numbers, each a
claim that says what it rests on (issue 21 §4).

- Ties are ties, tested paired: rows replayed over the same requests (same trace, checksum,
  mode, requests and warm-up) whose `outcome_bits` hold every request's outcome are compared
  with McNemar's test on b (requests the first hit and the second missed) and c (the
  reverse): exact two-sided binomial when b + c < 25, else χ² with continuity correction,
  different at 95% (p < 0.05). A pair without both rows' outcomes (an older CSV, a trace over
  2^20 requests, a `mattson` point) falls back to the unpaired rule: the difference must exceed
  1.96 standard errors of a difference of two proportions. The rule sentence says which
  comparisons used which; a tie says how many requests would tell the difference apart.
- The ceiling: the best possible hit ratio of the trace is re-requests / requests, where
  re-requests = requests − compulsory_misses (each row carries the replay's compulsory misses
  and the trace's unique_objects). A CSV written before those columns falls back to a run that
  evicted, refused and expired nothing in demand-fill mode (every miss was then a first
  request); without either the ceiling is said to be unknown.
- Like with like: rows are ranked only within one cost model and one class: two-tier
  caches (memory_hits filled) with tiers, disk caches (write_amplification filled) with disk
  caches, memory caches with memory caches, and policy simulators (`model_of` policy, as the
  workbench's BackendRegistry classes them) only with each other, never among iOS caches.
  The offline bounds and the Linux corelibs objects (`model_of` linux-corelibs) are never
  ranked. A CSV without `model_of` falls back to the backend names (foundation-nscache
  unranked) and the rule sentence says policy simulators could not be told apart.
- Memory warnings cost what the counterfactual replay measured (warning_hits_lost …); a CSV
  without those columns says "not measured", never an estimate from the timeline.
- Repeated notes are merged: one line per distinct note with the rows it covers.

Every value from a CSV enters a sentence through `e` (escaped). All of it is O(rows log rows).
"""
import base64
import html
import math

import pandas as pd

import plot

OFFLINE = {"belady", "pfoo-l"}
# swift-corelibs-foundation's NSCache (BackendRegistry: "the real Foundation.NSCache of
# swift-corelibs-foundation"): a Linux implementation, shown but never an iOS candidate.
NOT_IOS = {"foundation-nscache"}
KNEE_POINTS = 0.01  # "within 1 point of the plateau"
Z95 = 1.96  # two-sided 95% normal quantile
UNPAIRED_RULE = ("two hit ratios differ only when the difference is larger than 1.96 standard errors of "
                 "a difference of two proportions, √(p₁(1−p₁)/n₁ + p₂(1−p₂)/n₂) over the requests replayed (95%); a smaller difference is a tie")
PAIRED_RULE = ("rows replayed over the same requests are paired, and two hit ratios differ only when McNemar's test on b (requests the "
               "first hit and the second missed) and c (the reverse) gives p < 0.05: exact two-sided binomial, p = min(1, 2·P(X ≤ min(b, c))) "
               "with X ~ Binomial(b + c, ½), when b + c < 25, else the χ² form with continuity correction, (|b − c| − 1)²/(b + c) against "
               "χ²₁ (above 3.84); otherwise they are a tie")
CLASSES = "Rows are compared only within one cost model and one class (memory caches, two-tier caches, disk caches, policy simulators)."


# The bidirectional controls (embeddings, overrides, isolates and marks, Unicode UAX #9):
# raw in a page, a U+202E in a trace name reverses the rest of its sentence.
BIDI_CONTROLS = str.maketrans({chr(c): f"\\u{{{c:x}}}" for c in [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]})


def e(value):
    """The one way a value reaches the page: text, with <, >, & and both quotes escaped, and
    every bidi control shown as its code (`\\u{202e}`, as the terminal table shows it)."""
    return html.escape(str(value), quote=True).translate(BIDI_CONTROLS)


def percent(value):
    return "–" if pd.isna(value) else f"{100 * value:.2f}%"


def capacity_text(row):
    if str(row.get("ignore_obj_size", "no")) == "yes":
        return f"{int(row['capacity_bytes'])} objects"
    return plot.size_label(row["capacity_bytes"])


def row_name(row):
    return f"{row['label']} at {capacity_text(row)}"


def filled(row, column):
    return column in row and not pd.isna(row[column])


def zero_or_empty(row, column):
    return column not in row or pd.isna(row[column]) or row[column] == 0


def hits(row):
    """The row's hits: the column when present, else its hit ratio × requests."""
    return int(row["hits"]) if filled(row, "hits") else round(row["object_hit_ratio"] * row["requests"])


def cache_class(row):
    """memory, tier or disk, from the columns each kind of backend fills; policy simulators
    apart, from `model_of` (what BackendRegistry says the backend models); None: never ranked."""
    if row["backend"] in OFFLINE:
        return None
    family = str(row["model_of"]) if filled(row, "model_of") else None
    if family == "linux-corelibs" or (family is None and row["backend"] in NOT_IOS):
        return None
    if family == "policy":
        return "policy simulators"
    if filled(row, "memory_hits") or filled(row, "disk_hits"):
        return "two-tier caches"
    if filled(row, "write_amplification"):
        return "disk caches"
    return "memory caches"


# MARK: the ceiling

def ceiling_key(row):
    """Rows of one trace replayed over the same requests share a ceiling."""
    return (str(row["trace"]), int(row["requests"]))


def ceilings(results):
    """{(trace, requests): (re-requests, requests, row)}: from a row's compulsory_misses, else
    (an older CSV) from a run whose every miss was compulsory: demand-fill, nothing evicted (an
    empty evictions cell does not count), refused, too large, expired or released by a warning.
    Several such runs: the most hits (they should agree)."""
    found = {}
    for _, row in results[results["requests"] > 0].iterrows():
        key = ceiling_key(row)
        if filled(row, "compulsory_misses"):
            found[key] = (int(row["requests"]) - int(row["compulsory_misses"]), int(row["requests"]), row)
            continue
        if key in found and filled(found[key][2], "compulsory_misses"):
            continue
        if str(row.get("mode", "demand-fill")) not in ("demand-fill", "", "nan") or not filled(row, "evictions") or row["evictions"] != 0:
            continue
        if not all(zero_or_empty(row, c) for c in ("too_large", "disk_evictions", "memory_expired", "memory_refused", "memory_warnings")):
            continue
        if key not in found or hits(row) > found[key][0]:
            found[key] = (hits(row), int(row["requests"]), row)
    return found


def ceiling_source(row):
    """What the ceiling rests on: the row's own columns, or the run that evicted nothing."""
    if filled(row, "compulsory_misses"):
        unique = f"; {int(row['unique_objects']):,} unique objects in the trace" if filled(row, "unique_objects") else ""
        return f"the replay's compulsory_misses{unique}"
    return f"measured by {e(row_name(row))}, which evicted nothing"


def ceiling_lines(results, known):
    lines = []
    for (trace, requests), _ in results.groupby([results["trace"].astype(str), results["requests"]], sort=False):
        if (trace, requests) not in known:
            lines.append(f"The ceiling of {e(trace)} ({requests:,} requests) is not known: no row records its compulsory misses and every run "
                         f"evicted, refused or released something, so none shows which misses were compulsory (replay one capacity above the "
                         f"working set, or with a bench that writes compulsory_misses, to measure it).")
            continue
        reuse, _, row = known[(trace, requests)]
        if reuse == 0:
            lines.append(f"No reuse in {e(trace)}: every one of its {requests:,} requests asks for an object for the first time "
                         f"({ceiling_source(row)}), so no cache can hit: nothing to size.")
        else:
            lines.append(f"Ceiling of {e(trace)}: at most {e(percent(reuse / requests))} of its {requests:,} requests can hit "
                         f"({reuse:,} re-requests; {requests - reuse:,} compulsory misses, first requests of their objects), "
                         f"{ceiling_source(row)}.")
    return lines


# MARK: ties

def margin(a, b):
    """The 95% half-width of a difference of two hit ratios (unpooled two-proportion)."""
    p, q = a["object_hit_ratio"], b["object_hit_ratio"]
    return Z95 * math.sqrt(p * (1 - p) / a["requests"] + q * (1 - q) / b["requests"])


def needed_requests(a, b):
    """Requests each (equal n) for the difference a − b to exceed its 95% margin."""
    p, q = a["object_hit_ratio"], b["object_hit_ratio"]
    return math.floor(Z95**2 * (p * (1 - p) + q * (1 - q)) / (p - q) ** 2) + 1


def requests_text(rows):
    counts = sorted({int(n) for n in rows["requests"]})
    return f"{counts[0]:,} requests" if len(counts) == 1 else f"{counts[0]:,}–{counts[-1]:,} requests"


def names(rows):
    labels = [f"<b>{e(label)}</b>" for label in rows["label"]]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


# MARK: the paired test (McNemar) over per-request outcomes

EXACT_BELOW = 25  # b + c below this: the exact binomial form; from it on, χ² with continuity correction


def outcome_bits(row):
    """The row's per-request outcomes as an integer (bit i: request i hit), or None: no
    outcome_bits cell, or one that does not decode to exactly `requests` bits with `hits` set
    (never trusted when it disagrees with the row). O(requests)."""
    if not filled(row, "outcome_bits") or str(row["outcome_bits"]) == "":
        return None
    text = str(row["outcome_bits"]).lstrip("'")  # a cell starting with + carries the CSV's formula guard '
    try:
        data = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    count = int(row["requests"])
    if len(data) != (count + 7) // 8:
        return None
    bits = int.from_bytes(data, "little")
    return bits if bits >> count == 0 and bits.bit_count() == hits(row) else None


def same_requests(a, b):
    """Rows replayed over the same requests, in the same order: one trace (and checksum), mode,
    count and warm-up."""
    return all(str(a.get(c, "")) == str(b.get(c, "")) for c in ("trace", "trace_sha256", "mode", "requests", "warmup_requests"))


def discordant(a, b):
    """(b, c): requests `a` hit and `b` missed, and the reverse; None when the two cannot be
    paired (other requests, or a row without its outcomes). O(requests / 64)."""
    if not same_requests(a, b):
        return None
    x, y = outcome_bits(a), outcome_bits(b)
    if x is None or y is None:
        return None
    return (x & ~y).bit_count(), (y & ~x).bit_count()


def mcnemar(b, c):
    """(two-sided p, form): exact binomial below EXACT_BELOW discordant requests, else χ²₁ with
    continuity correction (its survival function is erfc(√(x/2)))."""
    n = b + c
    if n < EXACT_BELOW:
        tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
        return min(1.0, 2 * tail), "exact"
    return math.erfc(math.sqrt((abs(b - c) - 1) ** 2 / n / 2)), "χ²"


def p_text(p):
    return "p < 0.0001" if p < 0.0001 else f"p = {p:.4f}"


class Difference:
    """`best` against `other` (other's hit ratio no higher): paired when both carry their
    outcomes over the same requests, else unpaired; `tied` when the rule cannot tell them apart."""

    def __init__(self, best, other):
        self.best, self.other = best, other
        self.gap = best["object_hit_ratio"] - other["object_hit_ratio"]
        pair = discordant(best, other)
        self.paired = pair is not None
        if self.paired:
            self.b, self.c = pair
            self.p, self.form = mcnemar(self.b, self.c)
            self.tied = self.p >= 0.05
        else:
            self.tied = self.gap == 0 or self.gap <= margin(best, other)

    def evidence(self):
        """b, c and p, for a sentence (paired only)."""
        return (f"paired over the same {int(self.best['requests']):,} requests: {self.b:,} only {e(self.best['label'])} hit, {self.c:,} only "
                f"{e(self.other['label'])}; McNemar {self.form} {p_text(self.p)}")

    def needed(self):
        """Requests at these discordance rates for a normal-approximation z of 1.96 (paired)."""
        n = int(self.best["requests"])
        return math.floor(n * Z95**2 * (self.b + self.c) / (self.b - self.c) ** 2) + 1

    def beyond(self, rows):
        if not self.paired:
            return (f"{100 * self.gap:.2f} points above {e(self.other['label'])}, more than the uncertainty (±{100 * margin(self.best, self.other):.2f} "
                    f"points over {requests_text(rows)})")
        return f"{100 * self.gap:.2f} points above {e(self.other['label'])}, a difference significant at 95% ({self.evidence()})"


def comparison(capacity_rows, model, kind, tests):
    """One sentence: the best of a group, or the tie, with the rule's numbers. Each test made
    (best against another row) is appended to `tests`, paired or not."""
    rows = capacity_rows.sort_values(["object_hit_ratio", "label"], ascending=[False, True]).drop_duplicates("label")
    if len(rows) < 2:
        return None
    best = rows.iloc[0]
    differences = [Difference(best, rows.iloc[i]) for i in range(1, len(rows))]
    tests += differences
    # The leaders: the best and every row down to the first the rule tells apart (paired, a
    # lower row can still be a tie with the best: said apart, below).
    told = next((i for i, d in enumerate(differences) if not d.tied), len(differences))
    tied = rows.iloc[: told + 1]
    stragglers = [d for d in differences[told:] if d.tied]
    where = f"At {e(capacity_text(best))} ({e(model)} cost), among {kind}"
    if len(tied) == len(rows):
        worst, last = rows.iloc[-1], differences[-1]
        gap = last.gap
        if gap == 0:
            return f"{where}: {names(rows)} are indistinguishable on this trace: the same hit ratio, {e(percent(best['object_hit_ratio']))}."
        spread = f"{where}: {names(rows)} are indistinguishable on this trace: hit ratios {e(percent(worst['object_hit_ratio']))}–{e(percent(best['object_hit_ratio']))}; "
        if last.paired:
            return (spread + f"the largest difference, {100 * gap:.2f} points, is not significant at 95% ({last.evidence()}): too few requests to "
                    f"tell them apart (about {last.needed():,} at these rates would be needed).")
        return (spread + f"the largest difference, {100 * gap:.2f} points, is within its uncertainty "
                f"(±{100 * margin(best, worst):.2f} points over {requests_text(rows)}): too few requests to tell them apart "
                f"(about {needed_requests(best, worst):,} each would be needed).")
    below = differences[told]  # the closest one the rule tells apart
    still = "".join(f" {e(d.other['label'])}, lower still, is not told apart from {e(best['label'])} ({d.evidence() if d.paired else f'within ±{100 * margin(best, d.other):.2f} points'})." for d in stragglers)
    if len(tied) == 1:
        return f"{where}: <b>{e(best['label'])}</b> has the best hit ratio, {e(percent(best['object_hit_ratio']))}, {below.beyond(rows)}.{still}"
    low, lowest = tied.iloc[-1], differences[len(tied) - 2]
    within = (f"not significant at 95%: {lowest.evidence()}" if lowest.paired else f"within ±{100 * margin(best, low):.2f} points")
    return (f"{where}: {names(tied)} lead with {e(percent(low['object_hit_ratio']))}–{e(percent(best['object_hit_ratio']))}, "
            f"indistinguishable from each other on this trace ({within}); the best, "
            f"{e(best['label'])}, is {below.beyond(rows)}.{still}")


def comparison_lines(results, known, tests):
    lines = []
    classes = results.apply(cache_class, axis=1) if len(results) else pd.Series(dtype=object)
    ranked = results.assign(cache_class=classes)
    traces = ranked["trace"].astype(str)
    several = traces.nunique() > 1
    groups = ranked.assign(trace_name=traces).dropna(subset=["cache_class"]).groupby(["trace_name", "cost_model", "cache_class", "capacity_bytes"], sort=True)
    for (trace, model, kind, capacity), rows in groups:
        if all(known.get(ceiling_key(row), (None,))[0] == 0 for _, row in rows.iterrows()):
            continue  # no reuse: the ceiling's line says there is nothing to compare or size
        sentence = comparison(rows, model, kind, tests)
        if sentence:
            # Rows of different traces are never compared; with several, each sentence names its trace.
            lines.append(f"On {e(trace)}: {sentence}" if several else sentence)
    return lines


def rule_line(results, tests):
    """The rule the comparisons used: paired where both rows carry their outcomes, the
    unpaired fallback elsewhere, with how many of each and why."""
    paired = sum(1 for t in tests if t.paired)
    unpaired = len(tests) - paired
    if unpaired == 0:
        text = f"Rule for every comparison below: {PAIRED_RULE}. {CLASSES}"
    elif paired == 0:
        why = ("this CSV has no per-request outcomes (no outcome_bits column: written before it)" if "outcome_bits" not in results else
               "no two rows compared below both carry their per-request outcomes over the same requests (outcome_bits is empty above "
               "2^20 requests, for a mattson point and a failed row)")
        text = f"Rule for every comparison below: {why}, so rows are not paired: {UNPAIRED_RULE}. {CLASSES}"
    else:
        text = (f"Rule for the comparisons below ({paired} of {len(tests)} paired): {PAIRED_RULE}. The other {unpaired}, whose rows do "
                f"not both carry their per-request outcomes over the same requests (outcome_bits), use the unpaired rule: {UNPAIRED_RULE}. {CLASSES}")
    if "model_of" not in results:
        text += " This CSV has no model_of column (written before it): policy simulators cannot be told from memory caches, so both are ranked as memory caches."
    return text


# MARK: knees, bounds, disks

def knee_lines(results, known):
    knees, flat = [], []
    for label, rows in results.groupby("label", sort=False):
        if rows["capacity_bytes"].nunique() < 3:
            continue
        rows = rows.sort_values("capacity_bytes")
        ceiling = known.get(ceiling_key(rows.iloc[0]))
        if ceiling is not None and ceiling[0] == 0:
            continue  # no reuse: the ceiling's line says there is nothing to size
        if rows["object_hit_ratio"].max() == 0:
            flat.append(label)  # no hit measured, ceiling unknown: no knee to report
            continue
        plateau = rows["object_hit_ratio"].max()
        knee = rows[rows["object_hit_ratio"] >= plateau - KNEE_POINTS].iloc[0]
        top = f", ceiling {e(percent(ceiling[0] / ceiling[1]))}" if ceiling is not None else ""
        knees.append(f"{e(label)}: {e(capacity_text(knee))} ({e(percent(knee['object_hit_ratio']))}, plateau {e(percent(plateau))}{top})")
    lines = []
    if knees:
        lines.append("Knee of each curve — the smallest capacity measured within 1 point of the curve's best hit ratio "
                     "(the plateau is the best measured, so a sweep that stops early puts the knee at its end): " + "; ".join(knees) + ".")
    if flat:
        lines.append("No knee for " + ", ".join(e(label) for label in flat) + ": no hit at any capacity measured.")
    return lines


# MARK: estimated prices (issue 43 §2)

# DecodedSizeEstimate.rangeFactor and .scaleFreeBackends (Swift): the estimate's range is its
# central decoded size ÷ and × 2, and these backends decide by cost ÷ capacity alone.
ESTIMATE_FACTOR = 2
SCALE_FREE = {"lru", "nscache"}
PRICE_COLUMNS = ("cost_from_recorded", "cost_from_dimensions", "cost_from_url", "cost_from_ratio", "cost_from_estimate", "cost_from_encoded")


def priced_requests(row):
    """Requests the pixel rules priced (the sum of the cost_from_* columns present)."""
    return sum(int(row[c]) for c in PRICE_COLUMNS if filled(row, c))


def estimate_lines(results):
    """One sentence per backend whose pixel-cost rows rest mostly on the decoded-size estimate
    (it priced more than half of the priced requests), and the knee as a range over the
    estimate's range. The range is exact by scale invariance only when the estimate priced
    every request at its central value (one common factor, 2) and the backend is scale-free:
    prices × 2 at capacity × 2 replay identically, so the curve at the high end is this curve
    at half the capacity and the knee moves from K to 2K (K/2 at the low end). Otherwise no
    range is computed and the sentence says how to get one. O(rows)."""
    if "cost_from_estimate" not in results:
        return []
    lines = []
    for label, rows in results.groupby("label", sort=False):
        rows = rows[rows["cost_model"].astype(str) == "pixels"].sort_values("capacity_bytes")
        mostly = [(int(r["cost_from_estimate"]), priced_requests(r)) for _, r in rows.iterrows()
                  if filled(r, "cost_from_estimate") and 2 * int(r["cost_from_estimate"]) > priced_requests(r)]
        if not mostly:
            continue
        estimated, priced = mostly[0]
        counts = f"{estimated:,} of {priced:,} priced requests" if len(set(mostly)) == 1 else "most priced requests in each row"
        text = (f"{e(label)}: this answer rests mostly on estimates — {counts} were priced by the decoded-size estimate "
                f"(encoded bytes at the format\u2019s median bits per pixel, HTTP Archive 2024), whose decoded sizes could be half to twice those replayed.")
        central = all("estimate=central" in str(r.get("pixel_rules", "")) for _, r in rows.iterrows())
        every = len(mostly) == len(rows) and all(est == total for est, total in mostly)
        if rows["capacity_bytes"].nunique() >= 3 and rows["object_hit_ratio"].max() > 0:
            plateau = rows["object_hit_ratio"].max()
            knee = rows[rows["object_hit_ratio"] >= plateau - KNEE_POINTS].iloc[0]
            if every and central and rows.iloc[0]["backend"] in SCALE_FREE and str(knee.get("ignore_obj_size", "no")) != "yes":
                size = knee["capacity_bytes"]
                text += (f" Its knee, {e(capacity_text(knee))} at the estimate\u2019s central value, is {e(plot.size_label(size / ESTIMATE_FACTOR))} "
                         f"at its low end and {e(plot.size_label(size * ESTIMATE_FACTOR))} at its high end (exact: every request was estimated, "
                         f"and prices \u00d7 2 at capacity \u00d7 2 replay identically).")
            else:
                why = ("not every priced request was estimated" if not every else "the replay was not at the estimate\u2019s central value" if not central
                       else f"{rows.iloc[0]['backend']} does not decide by cost \u00f7 capacity alone")
                text += (f" No size range is computed for its knee, {e(capacity_text(knee))} ({e(why)}): replay with --estimate low and "
                         f"--estimate high to see it move.")
        lines.append(text)
    return lines


def bound_lines(results, online):
    lines = []
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
    return lines


def durability_text(row):
    value = row.get("durability")
    return f"durability {value}" if value is not None and not pd.isna(value) and str(value) != "" else "durability not recorded"


def disk_lines(results):
    disk = results[results["write_amplification"].notna()] if "write_amplification" in results else results.iloc[0:0]
    lines = []
    for _, row in disk.drop_duplicates("label").iterrows():
        space = "" if pd.isna(row.get("space_amplification")) else f" and keeps {row['space_amplification']:.2f}× the cached bytes on disk"
        lines.append(f"{e(row['label'])} at {e(capacity_text(row))} writes {row['write_amplification']:.2f}× the payload bytes it stores"
                     f"{space} ({e(durability_text(row))}).")
    return lines


# MARK: memory warnings and notes

def warning_notes(results):
    """(note, row name) per warned row: the counterfactual cost, or "not measured"."""
    notes = []
    for _, row in results[results["memory_warnings"].fillna(0) > 0].iterrows():
        count = int(row["memory_warnings"])
        warned = f"{count:,} memory warning{'s' if count != 1 else ''}"
        if not filled(row, "warning_hits_lost"):
            reason = "this CSV has no warning_hits_lost column" if "warning_hits_lost" not in results else "warning_hits_lost is empty"
            notes.append(("memory warnings: what they cost in hits was not measured "
                          f"({reason}: no replay without warnings to compare with).", row_name(row)))
            continue
        lost = int(row["warning_hits_lost"])
        moved = int(row["warning_memory_hits_lost"]) if filled(row, "warning_memory_hits_lost") else None
        recovery = (f"; recovery took {int(row['warning_recovery_requests']):,} requests (against the replay without warnings)"
                    if filled(row, "warning_recovery_requests") else "")
        per = row["warning_hits_lost_per_warning"] if filled(row, "warning_hits_lost_per_warning") else lost / count
        if lost == 0 and not moved:
            text = (f"unaffected by {warned}: the same hits as the same replay without warnings"
                    + (", and no memory hit moved to disk" if moved == 0 else "") + ".")
        elif lost == 0:
            text = (f"{warned} cost no hits, but {moved:,} memory hits became disk hits (decodes), "
                    f"against the same replay without warnings{recovery}.")
        else:
            change = f"cost {lost:,} hits ({per:,.1f} per warning)" if lost > 0 else f"gained {-lost:,} hits ({-per:,.1f} per warning)"
            moved_text = f"; besides, {moved:,} memory hits became disk hits (decodes)" if moved else ""
            text = f"{warned} {change} against the same replay without warnings{moved_text}{recovery}."
        notes.append((text, row_name(row)))
    return notes


def merged(notes):
    """One line per distinct note (HTML-safe text) with the rows it covers, in first-seen order."""
    covered = {}
    for text, row in notes:
        rows = covered.setdefault(text, [])
        if row not in rows:
            rows.append(row)
    lines = []
    for text, rows in covered.items():
        shown = ", ".join(e(r) for r in rows)
        lines.append(f"{shown}: {text}" if len(rows) == 1 else f"{len(rows)} rows — {shown}: {text}")
    return lines


def remark_notes(results):
    """backend_remarks cells ("N text; M text"): the text is the note, the count goes with its row."""
    notes = []
    if "backend_remarks" not in results:
        return notes
    for _, row in results.iterrows():
        cell = row["backend_remarks"]
        if pd.isna(cell) or str(cell) == "":
            continue
        for part in str(cell).split("; "):
            count, _, text = part.partition(" ")
            counted = count.isdigit() and text != ""
            notes.append((e(text if counted else part) + ".", f"{row_name(row)} ({count})" if counted else row_name(row)))
    return notes


def model_notes(results, known):
    """What a ranked model is not: `nscache` is an LRU with a hard cost limit, while Apple's
    NSCache treats countLimit/totalCostLimit as "not a strict limit" (Apple's NSCache
    documentation) and documents no eviction order (issue 21 §8)."""
    ranked = results[(results["backend"] == "nscache") & results.apply(cache_class, axis=1).notna()] if len(results) else results
    return [("nscache is modeled as an LRU with a hard cost limit; Apple's NSCache treats its limits as hints (\u201cnot a strict limit\u201d) "
             "and does not document its eviction order, so its ranking is the model's, not a measurement of NSCache.", row_name(row))
            for _, row in ranked.iterrows() if known.get(ceiling_key(row), (None,))[0] != 0]  # no reuse: nothing was ranked


def not_ranked_notes(results):
    return [("the Linux swift-corelibs-foundation NSCache, not Apple's: shown in the table, never ranked as an iOS candidate.", row_name(row))
            for _, row in results[results["backend"].isin(NOT_IOS)].iterrows()]


def contention_notes(results):
    """Timed rows replayed beside other points (points_at_once > 1: `sweep --jobs N`): their
    latency, throughput and memory figures include the others in flight; hit ratios are exact."""
    if "points_at_once" not in results:
        return []
    contended = results[(results["points_at_once"].fillna(1) > 1) & (results["timing"].astype(str) == "on")]
    return [(f"{int(row['points_at_once'])} points ran at once (sweep --jobs): latency, throughput and memory figures are contended "
             "by the others in flight; hit ratios are exact. A timed sweep without --jobs runs one point at a time.", row_name(row))
            for _, row in contended.iterrows()]


def reading(results):
    """The reading's lines (HTML-safe), each computed from the rows with status ok."""
    results = results[results["requests"] > 0]  # a row that replayed nothing has no ratio to read
    known = ceilings(results)
    online = results[~results["backend"].isin(OFFLINE)]
    tests = []
    comparisons = comparison_lines(results, known, tests)
    lines = ceiling_lines(results, known)
    lines += ([rule_line(results, tests)] + comparisons) if comparisons else []
    lines += knee_lines(results, known)
    lines += estimate_lines(results)
    lines += bound_lines(results, online)
    lines += disk_lines(results)
    lines += merged(contention_notes(results) + warning_notes(results) + model_notes(results, known) + not_ranked_notes(results)
                    + remark_notes(results))
    return lines
