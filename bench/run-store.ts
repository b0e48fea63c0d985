/**
 * `npm run bench:run-store` (ADR 0068): what persisting runs costs. Times `saveRun` (one atomic
 * record write, what a run does 4 times plus once per 2 s of turns) and `listRuns` over N records
 * (what a resumed or restarted session does once, at start), each against a floor in the same
 * run: a plain `writeFile` of the same bytes, and `readFileSync` + `JSON.parse` of the same
 * files. Prints p50 / p95 per record and the ratios.
 *
 * Run: npm run bench:run-store [-- --records 500]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listRuns } from "../src/runtime/run-reader.ts";
import { saveRun, storedRecord } from "../src/runtime/run-store.ts";
import { record as runRecord } from "../test/runtime/record.ts";

const recordsArg = process.argv.indexOf("--records");
const RECORDS = recordsArg > 0 ? Number(process.argv[recordsArg + 1]) : 500;
const RUNS = 15;

const now = () => performance.now();
const pct = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const us = (value: number) => `${(value * 1000).toFixed(1)} µs`;

/** A record the size of a real one: a role prompt, a few paragraphs of answer, a full trace. */
function realistic(i: number) {
	const run = runRecord({ id: `explore-${i.toString(36).padStart(6, "0")}`, text: "The change is correct. ".repeat(200), prompt: "Review the diff of src/ and report. ".repeat(30) });
	run.config = { ...run.config, rolePrompt: "Act as a careful reviewer. ".repeat(80), standingInstructions: "Keep answers short. ".repeat(20) };
	for (const field of Object.keys(run.config)) {
		run.trace[field as keyof typeof run.trace] = { value: null, layer: "definition", source: "/p/.pi/agents/explore.md", candidates: [{ layer: "request", value: null, source: null, outcome: "not-named" }] };
	}
	return run;
}

const root = mkdtempSync(join(tmpdir(), "cadre-bench-records-"));
const runs = Array.from({ length: RECORDS }, (_, i) => realistic(i));
const bytes = Buffer.byteLength(JSON.stringify(storedRecord(runs[0] as never)));

const saves: number[] = [];
const plainWrites: number[] = [];
const lists: number[] = [];
const plainReads: number[] = [];
for (let round = 0; round < RUNS; round++) {
	const dir = join(root, `r${round}`);
	const plain = join(root, `p${round}`);
	let t = now();
	for (const run of runs) if ((await saveRun(dir, run)) !== null) throw new Error("save failed");
	saves.push((now() - t) / RECORDS);
	await saveRun(plain, runs[0] as never);
	t = now();
	for (const run of runs) await writeFile(join(plain, `${run.id}.json`), JSON.stringify(storedRecord(run)));
	plainWrites.push((now() - t) / RECORDS);
	t = now();
	const listed = listRuns(dir);
	lists.push((now() - t) / RECORDS);
	if (listed.runs.length !== RECORDS || listed.diagnostics.length > 0) throw new Error("list lost records");
	t = now();
	for (const name of readdirSync(plain)) JSON.parse(readFileSync(join(plain, name), "utf8"));
	plainReads.push((now() - t) / RECORDS);
	rmSync(dir, { recursive: true });
	rmSync(plain, { recursive: true });
}
rmSync(root, { recursive: true, force: true });

console.log(`run records: ${RECORDS} records of ${(bytes / 1024).toFixed(1)} KiB, ${RUNS} rounds`);
console.log(`save (temp + rename)     p50 ${us(pct(saves, 50))}  p95 ${us(pct(saves, 95))} per record; floor writeFile p50 ${us(pct(plainWrites, 50))}; ratio ${(pct(saves, 50) / pct(plainWrites, 50)).toFixed(2)}`);
console.log(`list (read + validate)   p50 ${us(pct(lists, 50))}  p95 ${us(pct(lists, 95))} per record; floor read + JSON.parse p50 ${us(pct(plainReads, 50))}; ratio ${(pct(lists, 50) / pct(plainReads, 50)).toFixed(2)}`);
console.log(`session start with ${RECORDS} earlier runs: ~${(pct(lists, 50) * RECORDS).toFixed(1)} ms`);
