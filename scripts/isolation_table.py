#!/usr/bin/env python3
"""Formats the isolation-table campaign (scripts/isolation_table.sh): reads the run records txprop wrote
(TXPROP_SUMMARY_FILE, one JSON object per line, preceded by the script's {"type":"cell"} markers) and writes the
table as Markdown and HTML.

  isolation_table.py kinds   runs.jsonl  <cell>          kinds that occurred in the cell's run (one per line)
  isolation_table.py report  hunts.jsonl <cell> <kind>   the report folder of the cell's hunt for <kind>
  isolation_table.py table   <out> <cases> <seconds>     writes <out>/isolation-table.md and .html
"""
import html
import json
import os
import sys

# Adya's classes and the kinds the checker reports in each (properties/adya/levels.cpp, classes_of), in table order.
ROWS = [
    ("G0", ["G0"], "dirty write"),
    ("G1a", ["G1a"], "aborted read"),
    ("G1b", ["G1b"], "intermediate read"),
    ("G1c", ["G1c"], "circular information flow"),
    ("G-single", ["G-single", "lost-update", "read-skew", "G-single-predicate"], "one anti-dependency"),
    ("G2-item", ["G2-item", "write-skew"], "item anti-dependency cycle"),
    ("G2", ["G2"], "predicate anti-dependencies only (phantoms)"),
    ("G-SIa", ["G-SIa"], "interference"),
    ("G-SIb", ["G-SIb"], "missed effects"),
    ("impossible", ["impossible-history"], "no level allows it"),
]
KINDS = [k for _, ks, _ in ROWS for k in ks]


def records(path):
    cell, kind = None, None
    if not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("type") == "cell":
                cell, kind = r["cell"], r.get("kind")
                continue
            r["_cell"], r["_kind"] = cell, kind
            yield r


def cell_runs(path):
    """cell -> {"kinds": {kind: (cases, standing, source)}, "cases", "seconds", "wall", "finding", "status", "tags"}"""
    out = {}
    for r in records(path):
        c = out.setdefault(r["_cell"], {"kinds": {}, "cases": 0, "seconds": 0, "wall": None, "status": "?",
                                        "finding": None, "tags": {}, "report": None})
        if r.get("type") == "cell-end":
            c["wall"] = r.get("wall_seconds")
            continue
        if r.get("type") != "property":
            continue
        c["cases"] = r.get("cases", 0)
        c["seconds"] = r.get("seconds", 0)
        c["status"] = r.get("status", "?")
        c["finding"] = r.get("finding")
        c["report"] = r.get("report")
        for d in r.get("documented", []):
            c["kinds"][d["kind"]] = (d["cases"], "documented", d.get("source", ""))
        for d in r.get("allowed", []):
            c["kinds"][d["kind"]] = (d["cases"], "allowed", d.get("source", ""))
        for t in r.get("tags", []):
            c["tags"][t["tag"]] = t["cases"]
        f = r.get("finding")
        if f and c["status"] != "passed" and not f.startswith(("documented ", "allowed ")) and f != "ok":
            n, _, _ = c["kinds"].get(f, (0, "", ""))
            c["kinds"][f] = (n + 1, "PROSCRIBED", "fails the engine's promise")
    return out


def main():
    cmd = sys.argv[1]
    if cmd == "kinds":
        runs = cell_runs(sys.argv[2])
        for k in sorted(runs.get(sys.argv[3], {}).get("kinds", {})):
            print(k)
    elif cmd == "report":
        # The latest try's report: an earlier try of the same hunt may have reported another kind.
        last = None
        for r in records(sys.argv[2]):
            if r["_cell"] == sys.argv[3] and r["_kind"] == sys.argv[4] and r.get("type") == "property":
                last = r.get("report")
        if last:
            print(last)
    elif cmd == "table":
        table(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))


def table(out, cases, seconds):
    runs = cell_runs(os.path.join(out, "runs.jsonl"))
    hunts = {}
    for r in records(os.path.join(out, "hunts.jsonl")):
        if r.get("type") == "cell-end":
            hunts.setdefault((r["_cell"], r["_kind"]), {})["wall"] = r.get("wall_seconds")
        elif r.get("type") == "property":
            hunts.setdefault((r["_cell"], r["_kind"]), {})["report"] = r.get("report")
        elif r.get("type") == "hunt":
            hunts.setdefault((r["_cell"], r["_kind"]), {})["tries"] = r.get("tries")
    cells = list(runs)
    examples = set(os.listdir(os.path.join(out, "examples"))) if os.path.isdir(os.path.join(out, "examples")) else set()

    def cell_text(cell, kinds, markdown):
        parts = []
        for k in kinds:
            if k not in runs[cell]["kinds"]:
                continue
            n, standing, _ = runs[cell]["kinds"][k]
            ex = f"{cell}_{k}.txn"
            link = f"examples/{ex}" if ex in examples else None
            word = {"allowed": "allowed", "documented": "documented", "PROSCRIBED": "PROSCRIBED"}[standing]
            label = f"{k} {n}/{runs[cell]['cases']} ({word})"
            if markdown:
                parts.append(f"[{label}]({link})" if link else label)
            else:
                cls = {"allowed": "allowed", "documented": "documented", "PROSCRIBED": "proscribed"}[standing]
                a = f'<a href="{html.escape(link)}">{html.escape(label)}</a>' if link else html.escape(label)
                parts.append(f'<span class="{cls}">{a}</span>')
        if not parts:
            return "no" if markdown else '<span class="none">no</span>'
        return "<br>".join(parts)

    head = ["class"] + cells
    md = [f"# Isolation table (generated by scripts/isolation_table.sh)\n",
          f"{cases} generated cases per cell (AdyaDocumented, every phenomenon looked for, predicate dependencies on); "
          f"total wall time {seconds} s including the hunts that shrink each phenomenon's first occurrence to a "
          f"scenario file (linked). Each entry: kind, cases in which it occurred / cases run, and its standing: "
          f"PROSCRIBED (the engine promises to prevent it: the run fails and stops there), documented (the engine's "
          f"documentation allows it), allowed (the claimed level itself allows it).\n",
          "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for cls, kinds, words in ROWS:
        md.append("| " + " | ".join([f"**{cls}** {words}"] + [cell_text(c, kinds, True) for c in cells]) + " |")
    md.append("| cases run | " + " | ".join(str(runs[c]["cases"]) for c in cells) + " |")
    md.append("| wall time (s) | " + " | ".join(str(runs[c]["wall"]) for c in cells) + " |")
    md.append("| contended cases | " + " | ".join(str(runs[c]["tags"].get("contended", 0)) for c in cells) + " |")
    md.append("| cases with predicate edges | " +
              " | ".join(str(runs[c]["tags"].get("predicate-edges", 0)) for c in cells) + " |")
    md.append("""
Notes. "no" means not observed in these cases, not prevented. Counts are cases with at least one finding of that
kind; a finding is reported under its most specific kind (a lost update is not counted again as G-single). Predicate
dependencies need a version-set read before each predicate read: there is none where the engine's plain reads lock
(MariaDB SERIALIZABLE: LOCK IN SHARE MODE, so an extra read would change the schedule) and none before MariaDB's
UPDATE/DELETE (they read the latest committed versions, not the snapshot), hence no predicate edges in those cells
and predicate phenomena there are not observable by this table. Contended cases: concurrent transactions touched the
same row or a row of a predicate's version set, at least one writing it. G-SIa and G-SIb are snapshot isolation's
phenomena; at other levels they are reported as allowed. Each hunt first re-runs the cell's seed (the same
generated cases), then fresh seeds with twice the cases; an entry without a link was not found again by any try.""")
    md.append("\nSources of the documented and allowed entries:\n")
    for c in cells:
        for k, (n, standing, source) in sorted(runs[c]["kinds"].items()):
            md.append(f"- {c} {k} ({standing}): {source}")
    md.append("\nHunts (first occurrence shrunk):\n")
    for (c, k), h in sorted(hunts.items()):
        tries = h.get("tries")
        md.append(f"- {c} {k}: {h.get('wall')} s, {tries} tr{'y' if tries == 1 else 'ies'}, " +
                  (f"examples/{c}_{k}.txn" if f"{c}_{k}.txn" in examples
                   else "no shrunk example (not found again by the hunt)"))
    replay = os.path.join(out, "replay.txt")
    if os.path.exists(replay):
        md.append("\nReplay of every example (scripts/replay_examples.sh):\n")
        with open(replay) as f:
            md.extend("    " + line.rstrip() for line in f if line.strip())
    with open(os.path.join(out, "isolation-table.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    rows = []
    for cls, kinds, words in ROWS:
        rows.append("<tr><th>" + html.escape(cls) + "<div class=\"words\">" + html.escape(words) + "</div></th>" +
                    "".join(f"<td>{cell_text(c, kinds, False)}</td>" for c in cells) + "</tr>")
    foot = "".join(
        f"<tr><th>{html.escape(name)}</th>" + "".join(f"<td>{html.escape(str(v(c)))}</td>" for c in cells) + "</tr>"
        for name, v in [("cases run", lambda c: runs[c]["cases"]), ("wall time (s)", lambda c: runs[c]["wall"]),
                        ("contended cases", lambda c: runs[c]["tags"].get("contended", 0)),
                        ("cases with predicate edges", lambda c: runs[c]["tags"].get("predicate-edges", 0))])
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Isolation table</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 1px solid #ccc; padding: 0.4em 0.6em; vertical-align: top; font-size: 90%; }}
th {{ background: #f4f4f4; text-align: left; }}
.words {{ font-weight: normal; color: #666; font-size: 85%; }}
.none {{ color: #999; }}
.allowed {{ background: #e8f0ff; display: block; margin: 1px 0; }}
.documented {{ background: #fff3cd; display: block; margin: 1px 0; }}
.proscribed {{ background: #f8d7da; display: block; margin: 1px 0; font-weight: bold; }}
</style></head><body>
<h1>Isolation table</h1>
<p>{cases} generated cases per cell; total wall time {seconds} s. Colours: <span class="proscribed">proscribed
(the engine promises to prevent it)</span> <span class="documented">documented by the engine</span>
<span class="allowed">allowed by the level</span>. Each entry links to its first occurrence, shrunk, as a scenario
file.</p>
<table><tr><th>class</th>{''.join(f'<th>{html.escape(c)}</th>' for c in cells)}</tr>
{''.join(rows)}{foot}</table></body></html>
"""
    with open(os.path.join(out, "isolation-table.html"), "w") as f:
        f.write(page)


if __name__ == "__main__":
    main()
