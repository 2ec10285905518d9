#!/usr/bin/env python3
"""Traceability of spec/CHECKLIST.md §18: for every conformance row, the tests named after it
and the conformance-suite checks that prove it, per section.

    scripts/traceability.py           # print the coverage per section; fail on a gap (below)
    scripts/traceability.py --write   # also rewrite the coverage table in docs/conformance.md

A test covers a row when its function is named after the row: `base_03_…` covers BASE-03, and a
name may start with several rows (`http_19_21_…` covers HTTP-19 and HTTP-21, `stdio_02_page_01_…`
STDIO-02 and PAGE-01). A suite check covers a row when
docs/conformance.md lists it in its "Checklist rows the suite proves" table; a row no test can
prove (a rule for people, or one the spec states wrongly) is listed, with why, in its
"Checklist rows no test can prove" table. It fails when:
  - a section listed as complete in docs/conformance.md ("Sections covered in full: …") has a
    MUST or MUST NOT row with neither a test nor a suite check, or
  - the table in docs/conformance.md is not the one this script writes (run it with --write).
Run by scripts/test.sh.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKLIST = ROOT / "spec" / "CHECKLIST.md"
CONFORMANCE = ROOT / "docs" / "conformance.md"
SOURCES = ["crates", "conformance/client", "fuzz"]
START, END = "<!-- coverage:start -->", "<!-- coverage:end -->"

ROW = re.compile(r"^\| ([A-Z0-9]+)-(\d+) \| [^|]+ \| [^|]+ \| ([^|]+) \|")
FUNCTION = re.compile(r"\bfn ([a-z][a-z0-9_]*)")
ROW_PREFIX = re.compile(r"([a-z][a-z0-9]*)((?:_\d{2})+)_")
SUITE_ROW = re.compile(r"^\| ([A-Z0-9]+-\d+) \| `([^`]+)` \| ([^|]+) \|")
REASONED_ROW = re.compile(r"^\| ([A-Z0-9]+-\d+) \| ([^|]+) \|")
SUITE_HEADING = "### Checklist rows the suite proves"
UNTESTABLE_HEADING = "### Checklist rows no test can prove"
COMPLETE = re.compile(r"^Sections covered in full: (.*)$", re.M)


def checklist_rows() -> list[tuple[str, str, str]]:
    """(section, row id, level) for every row of §18, in order."""
    rows = []
    for line in CHECKLIST.read_text().splitlines():
        if m := ROW.match(line):
            rows.append((m[1], f"{m[1]}-{m[2]}", m[3].strip()))
    return rows


def tests_by_row() -> dict[str, list[str]]:
    """Row id -> the functions named after it."""
    found: dict[str, list[str]] = defaultdict(list)
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.rs")):
            for name in FUNCTION.findall(path.read_text()):
                rest = name + "_"
                while m := ROW_PREFIX.match(rest):
                    for number in m[2].split("_")[1:]:
                        found[f"{m[1].upper()}-{number}"].append(name)
                    rest = rest[m.end():]
    return found


def rows_under(text: str, heading: str, pattern: re.Pattern) -> dict[str, list[str]]:
    """Row id -> what the table under `heading` in docs/conformance.md says of it."""
    found: dict[str, list[str]] = defaultdict(list)
    if heading not in text:
        return found
    for line in text.split(heading, 1)[1].split("\n### ", 1)[0].splitlines():
        if m := pattern.match(line):
            found[m[1]].append(" ".join(m.groups()[1:]).strip())
    return found


def table(rows, tests, suite, untestable, complete: set[str]) -> tuple[str, list[str]]:
    """The coverage table (markdown) and the gaps of sections marked complete."""
    sections: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for section, row, level in rows:
        sections[section].append((row, level))
    lines = [
        "| Section | MUST rows | by a test | by the suite | no test can prove | by none | covered in full |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    gaps = []
    totals = [0, 0, 0, 0]
    for section, members in sections.items():
        # A row whose level names MUST at all (`MUST`, `MUST NOT`, `MUST / SHOULD`) is one.
        musts = [row for row, level in members if "MUST" in level]
        by_test = [row for row in musts if tests.get(row)]
        by_suite = [row for row in musts if suite.get(row) and not tests.get(row)]
        reasoned = [row for row in musts if untestable.get(row) and not tests.get(row) and not suite.get(row)]
        none = [row for row in musts if not (tests.get(row) or suite.get(row) or untestable.get(row))]
        for at, count in enumerate([len(musts), len(by_test), len(by_suite), len(reasoned)]):
            totals[at] += count
        marked = section in complete
        if marked and none:
            gaps.extend(none)
        shown = ", ".join(none) if none else "—"
        lines.append(
            f"| {section} | {len(musts)} | {len(by_test)} | {len(by_suite)} | {len(reasoned)} | {shown} "
            f"| {'yes' if marked else ''} |"
        )
    uncovered = totals[0] - sum(totals[1:])
    lines.append(f"| all | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} | {uncovered} rows | |")
    return "\n".join(lines), gaps


def main(argv: list[str]) -> int:
    text = CONFORMANCE.read_text()
    complete_line = COMPLETE.search(text)
    complete = set(re.findall(r"`([A-Z0-9]+)`", complete_line[1])) if complete_line else set()
    suite = rows_under(text, SUITE_HEADING, SUITE_ROW)
    untestable = rows_under(text, UNTESTABLE_HEADING, REASONED_ROW)
    rendered, gaps = table(checklist_rows(), tests_by_row(), suite, untestable, complete)
    print(rendered)
    if START not in text or END not in text:
        print(f"traceability: docs/conformance.md has no {START} … {END} block", file=sys.stderr)
        return 1
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    current = f"{before}{START}\n{rendered}\n{END}{after}"
    if "--write" in argv:
        CONFORMANCE.write_text(current)
    elif current != text:
        print("traceability: the table in docs/conformance.md is stale; run scripts/traceability.py --write",
              file=sys.stderr)
        return 1
    if gaps:
        print(f"traceability: MUST rows of sections marked complete have no test and no suite check: "
              f"{', '.join(gaps)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
