/**
 * `npm run bench:registry` (issue 28): what a run costs the registry as a session's runs pile up.
 * A long parent session keeps every run of its process in its registry; a run's spawn and end
 * must not scan them (a run's end totals its subtree). Times spawn → end of a run with an
 * instant scripted child (no pi, no files: the registry alone) among the first runs of a
 * session, and again after `--runs` runs (default 3,000), in the same process: the ratio must
 * stay near 1 (target ≤ 1.5).
 */
import { createRunRegistry } from "../src/runtime/runs.ts";
import { scriptedChild, scriptedPlan } from "../test/runtime/support/scripted-child.ts";
import { now } from "./support.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3000;
const SAMPLE = 200;

const plan = scriptedPlan(scriptedChild("done"));

const us = (value: number) => `${(value * 1000).toFixed(1)} µs`;
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? Number.NaN;

// No isolation and no repository (the receipt would ask git): the registry's own work only.
const isolation = { prepare: async () => ({ cwd: null, report: null }), finish: async () => null, repoRoot: async () => null };
const registry = createRunRegistry({ maxConcurrent: 4, emit: () => {}, isolation });

/** Spawn → end of `count` runs, one after another: their times (ms). */
async function cycles(count: number): Promise<number[]> {
	const times: number[] = [];
	for (let i = 0; i < count; i++) {
		const started = now();
		const { done } = await registry.spawn(plan, { background: false });
		await done;
		times.push(now() - started);
	}
	return times;
}

await cycles(50);
const early = await cycles(SAMPLE);
await cycles(RUNS - SAMPLE - 50);
const late = await cycles(SAMPLE);
console.log(`run spawn → end with an instant child, registry only (${SAMPLE} runs each)`);
console.log(`  among the first runs of the session: p50 ${us(pct(early, 50))}`);
console.log(`  after ${RUNS} runs:                  p50 ${us(pct(late, 50))}`);
console.log(`  ×${(pct(late, 50) / pct(early, 50)).toFixed(2)}  (target ≤ 1.5: the registry's size costs a run nothing)`);
