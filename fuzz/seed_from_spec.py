#!/usr/bin/env python3
"""Seeds the envelope and era-router corpora with every JSON-RPC message the MCP
specification shows: its `examples/*/*.json` files and the fenced JSON blocks of its pages.

    fuzz/seed_from_spec.py SPEC_DIR   # a checkout of the specification, one folder per revision

Files are named after their content's hash, so a second run adds nothing twice.
"""
import hashlib
import json
import pathlib
import re
import sys

FENCE = re.compile(r"```json[^\n]*\n(.*?)```", re.S)


def messages(spec: pathlib.Path):
    for path in sorted(spec.rglob("*.json")):
        if path.parent.parent.name == "examples":
            yield path.read_text()
    for path in sorted(spec.rglob("*.md*")):
        yield from FENCE.findall(path.read_text())


def main() -> None:
    spec = pathlib.Path(sys.argv[1])
    corpus = pathlib.Path(__file__).parent / "corpus"
    added = 0
    for text in messages(spec):
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if not (isinstance(value, dict) and value.get("jsonrpc") == "2.0"):
            continue
        data = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
        name = hashlib.sha1(data).hexdigest()[:16] + ".json"
        for target in ("envelope", "era_router"):
            path = corpus / target / name
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                added += 1
    print(f"{added} seed files added under {corpus}")


if __name__ == "__main__":
    main()
