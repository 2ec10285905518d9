// Summarizes one revision's run of the MCP conformance suite, per scenario.
//
//   node summarize.mjs <rev> <scenarios.txt> <results-dir> <summary.json>
//
// <scenarios.txt>: the scenarios the run should have produced, one per line (from
// `conformance list --server --spec-version <rev>`, which is exactly what
// `conformance server --suite all --spec-version <rev>` runs).
// <results-dir>: the suite's --output-dir, holding one `server-<scenario>-<ISO time>/` folder
// per scenario run, with a `checks.json` array of {id, name, status, errorMessage?, ...},
// status one of SUCCESS, FAILURE, WARNING, SKIPPED, INFO.
//
// A scenario passes when it recorded no FAILURE and at least one SUCCESS that is not one of
// the suite's synthetic wire-schema checks (which every scenario that sent anything emits,
// even against a server that answers every request with an error). Everything else fails:
// a scenario that did not run, wrote no checks.json (it crashed or the run was cut short),
// or recorded only WARNING/SKIPPED/INFO or wire-schema checks ("no checks recorded").
//
// Prints each failing scenario with its reason, then `conformance <rev>: N passed, N failed`;
// writes every verdict to <summary.json>. Exits 1 when any scenario failed or none ran.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [rev, scenariosFile, resultsDir, summaryFile] = process.argv.slice(2);
if (!summaryFile) {
  console.error("usage: summarize.mjs <rev> <scenarios.txt> <results-dir> <summary.json>");
  process.exit(2);
}

const SYNTHETIC = new Set(["wire-schema-valid", "wire-schema-harness-error"]);
const DIR = /^server-(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$/;

const expected = readFileSync(scenariosFile, "utf8").split("\n").map((s) => s.trim()).filter(Boolean);

// scenario -> newest result folder
const dirs = new Map();
for (const entry of existsSync(resultsDir) ? readdirSync(resultsDir, { withFileTypes: true }) : []) {
  const m = entry.isDirectory() && DIR.exec(entry.name);
  if (!m) continue;
  const previous = dirs.get(m[1]);
  if (!previous || previous < entry.name) dirs.set(m[1], entry.name);
}
const scenarios = [...expected, ...[...dirs.keys()].filter((s) => !expected.includes(s)).sort()];

const oneLine = (text, max = 160) => {
  const flat = String(text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function judge(scenario) {
  const dir = dirs.get(scenario);
  if (!dir) return { passed: false, reason: "did not run (no result folder)" };
  const file = join(resultsDir, dir, "checks.json");
  const base = { dir: join(resultsDir, dir) };
  if (!existsSync(file)) {
    return { ...base, passed: false, reason: "no checks recorded (no checks.json: the scenario crashed or the run was cut short; see console.log)" };
  }
  let checks;
  try {
    checks = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return { ...base, passed: false, reason: `unreadable checks.json: ${e.message}` };
  }
  if (!Array.isArray(checks)) return { ...base, passed: false, reason: "checks.json is not an array" };
  const count = (pred) => checks.filter(pred).length;
  const stats = {
    success: count((c) => c.status === "SUCCESS"),
    failure: count((c) => c.status === "FAILURE"),
    warning: count((c) => c.status === "WARNING"),
    other: count((c) => !["SUCCESS", "FAILURE", "WARNING"].includes(c.status)),
  };
  const failures = checks.filter((c) => c.status === "FAILURE");
  if (failures.length > 0) {
    const first = failures[0];
    const unique = [...new Set(failures.map((c) => c.id))];
    const ids = unique.slice(0, 4).join(", ") + (unique.length > 4 ? `, +${unique.length - 4} more` : "");
    return {
      ...base,
      ...stats,
      passed: false,
      reason: `${failures.length} failed check${failures.length > 1 ? "s" : ""} (${ids}); ${first.id}: ${oneLine(first.errorMessage || first.description)}`,
    };
  }
  if (count((c) => c.status === "SUCCESS" && !SYNTHETIC.has(c.id)) === 0) {
    const seen = checks.map((c) => `${c.id} ${c.status}`).join(", ") || "nothing";
    return { ...base, ...stats, passed: false, reason: `no checks recorded (only: ${oneLine(seen)})` };
  }
  return { ...base, ...stats, passed: true, reason: "" };
}

const verdicts = scenarios.map((scenario) => ({ scenario, ...judge(scenario) }));
const passed = verdicts.filter((v) => v.passed).length;
const failed = verdicts.length - passed;

for (const v of verdicts) {
  if (!v.passed) console.log(`  ✗ ${v.scenario}: ${v.reason}`);
  else if (v.warning > 0) console.log(`  ✓ ${v.scenario} (${v.warning} warning${v.warning > 1 ? "s" : ""})`);
}
if (verdicts.length === 0) console.log(`  no scenario ran for ${rev}`);
writeFileSync(summaryFile, `${JSON.stringify({ revision: rev, passed, failed, scenarios: verdicts }, null, 2)}\n`);
console.log(`conformance ${rev}: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || verdicts.length === 0 ? 1 : 0);
