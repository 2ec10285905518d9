#!/usr/bin/env python3
"""Every Rust block in docs/*.md (the guide under docs/guide includes its code instead) is a
verbatim quote of a region of a file the build compiles, so that none can drift from the code:

    <!-- quoted from crates/modelctx/examples/middleware.rs#layers -->
    ```rust
    …the lines between `// ANCHOR: layers` and `// ANCHOR_END: layers`, less their indent…
    ```

    scripts/quotes.py           # fail on a block with no such line, or one that differs
    scripts/quotes.py --write   # rewrite each block from its region

Run by scripts/guide.sh.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = re.compile(r"^<!-- quoted from (\S+)#(\S+) -->$")
ANCHOR_LINE = re.compile(r"^\s*// ANCHOR(_END)?: \S+\s*$")


def region(path: Path, anchor: str) -> str:
    """The lines of `anchor`'s region in `path`, without anchor lines, dedented."""
    lines = path.read_text().splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == f"// ANCHOR: {anchor}")
        end = next(i for i, line in enumerate(lines) if line.strip() == f"// ANCHOR_END: {anchor}")
    except StopIteration:
        raise SystemExit(f"quotes: {path.relative_to(ROOT)} has no anchor '{anchor}'")
    kept = [line for line in lines[start + 1 : end] if not ANCHOR_LINE.match(line)]
    return textwrap.dedent("\n".join(kept)).strip("\n")


def main(argv: list[str]) -> int:
    write = "--write" in argv
    failures = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        lines = page.read_text().splitlines()
        out, i, changed = [], 0, False
        while i < len(lines):
            line = lines[i]
            if line.strip() != "```rust":
                out.append(line)
                i += 1
                continue
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            body = "\n".join(lines[i + 1 : end])
            mark = MARK.match(out[-1]) if out else None
            where = f"{page.relative_to(ROOT)}:{i + 1}"
            if not mark:
                failures.append(f"{where}: a Rust block with no `<!-- quoted from FILE#ANCHOR -->` line above it")
                out.extend(lines[i : end + 1])
            else:
                quoted = region(ROOT / mark.group(1), mark.group(2))
                if quoted != body:
                    if write:
                        changed = True
                    else:
                        failures.append(f"{where}: the block differs from {mark.group(1)}#{mark.group(2)}")
                out.extend(["```rust", *quoted.splitlines(), "```"])
            i = end + 1
        if write and changed:
            page.write_text("\n".join(out) + "\n")
            print(f"quotes: rewrote {page.relative_to(ROOT)}")
    for failure in failures:
        print(f"quotes: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
