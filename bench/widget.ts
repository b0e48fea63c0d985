/**
 * `npm run bench:widget` (issues 11, 24): what cadre's TUI costs. The widget's render time with 50 runs
 * (snapshot of the records + lines at 160 columns, styled, the running rows' spinner on), p50/p95 over 2 000 renders (and
 * over renders whose lines are all new, as while children work), against a
 * floor measured in the same run — the same lines ready-made, only measured and cut to the width,
 * the least any widget must do — and the 1 ms target; how many updates a second the throttled feed lets through
 * under a flood of changes (target ≤ 10); and what one change costs the run that reports it (the
 * spawn path's whole share of the UI).
 */
import { createLiveFeed } from "../src/hosts/pi/ui/live-feed.ts";
import { fitAll, type Style } from "../src/hosts/pi/ui/text.ts";
import { widgetLines, widgetSnapshot } from "../src/hosts/pi/ui/widget.ts";
import type { RunRecord } from "../src/runtime/runs.ts";
import { record } from "../test/runtime/record.ts";
import { now } from "./support.ts";

const WIDTH = 160;
const RUNS = 50;
const RENDERS = 2000;

const style: Style = { fg: (_tone, text) => `\x1b[36m${text}\x1b[39m`, bold: (text) => `\x1b[1m${text}\x1b[22m` };

const pct = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** 50 runs as a busy session has them: 40 running (with tools and context use), 6 queued, 4 just finished. */
function runs(at: number): RunRecord[] {
	return Array.from({ length: RUNS }, (_, i) => {
		const state = i < 40 ? "running" : i < 46 ? "queued" : "completed";
		const base = record();
		return record({
			id: `explore-${i.toString(36).padStart(6, "0")}`,
			description: `review module ${i} for correctness and style`,
			state,
			config: { ...base.config, maxTurns: 30 },
			createdAt: at - 90_000,
			startedAt: state === "queued" ? null : at - 80_000 + i * 100,
			endedAt: state === "completed" ? at - 1000 : null,
			currentTool: state === "running" ? { name: "read", args: { path: `src/module-${i}/index.ts` } } : null,
			context: { tokens: 20_000 + i * 100, window: 128_000, percent: 15 + i / 10 },
			turns: 7,
			toolUses: 12,
			usage: { input: 40_000, output: 3_000, cacheRead: 100_000, cacheWrite: 2_000, cost: 0.0421 },
		});
	});
}

/** `count` runs that ended an hour before `at` (a long session's history: none is shown). */
function ended(at: number, count: number): RunRecord[] {
	return Array.from({ length: count }, (_, i) =>
		record({ id: `old-${i.toString(36).padStart(6, "0")}`, description: `earlier task ${i}`, state: "completed", createdAt: at - 3_700_000 + i, startedAt: at - 3_700_000 + i, endedAt: at - 3_600_000 }),
	);
}

/** One update over the runs of the process as the registry lists them (`own`, ui/index.ts), after `history` ended runs. */
function renderTimes(history = 0, renders = RENDERS): number[] {
	const at = Date.now();
	const records = [...ended(at, history), ...runs(at)];
	const samples: number[] = [];
	for (let i = 0; i < renders; i++) {
		const start = now();
		// With the spinner: each running row picks its frame from the clock.
		widgetLines(widgetSnapshot(records, "background", at + i), WIDTH, style, at + i * 50);
		samples.push(now() - start);
	}
	return samples;
}

/**
 * One update whose lines are all new: the running rows' tokens go up between renders, as they do
 * while children work, so no line is one pi-tui measured before (its width cache does not help).
 */
function freshRenderTimes(renders = RENDERS): number[] {
	const at = Date.now();
	const base = runs(at);
	const samples: number[] = [];
	for (let i = 0; i < renders; i++) {
		const records = base.map((run) => (run.state === "running" ? { ...run, usage: { ...run.usage, input: run.usage.input + 1000 * (i + 1) } } : run));
		const start = now();
		widgetLines(widgetSnapshot(records, "background", at + i), WIDTH, style, at + i * 50);
		samples.push(now() - start);
	}
	return samples;
}

/** The floor: the widget's own output lines, ready-made, only measured and cut to the width. */
function floorTimes(): number[] {
	const at = Date.now();
	const lines = widgetLines(widgetSnapshot(runs(at), "background", at), WIDTH, style, at);
	const samples: number[] = [];
	for (let i = 0; i < RENDERS; i++) {
		const start = now();
		fitAll(lines, WIDTH);
		samples.push(now() - start);
	}
	return samples;
}

/** Updates a second the feed lets through while changes arrive as fast as the event loop allows. */
async function updatesPerSecond(): Promise<{ updates: number; changes: number; seconds: number }> {
	const feed = createLiveFeed();
	let updates = 0;
	feed.subscribe(() => updates++);
	let changes = 0;
	const start = now();
	while (now() - start < 2000) {
		for (let i = 0; i < 1000; i++) feed.changed();
		changes += 1000;
		await new Promise((resolve) => setImmediate(resolve));
	}
	const seconds = (now() - start) / 1000;
	feed.dispose();
	return { updates, changes, seconds };
}

function changeCost(): number {
	const feed = createLiveFeed();
	const count = 1_000_000;
	const start = now();
	for (let i = 0; i < count; i++) feed.changed();
	const elapsed = now() - start;
	feed.dispose();
	return (elapsed * 1e6) / count;
}

// Warm up both paths, then measure.
renderTimes();
floorTimes();
const render = renderTimes();
const floor = floorTimes();
freshRenderTimes(100);
const fresh = freshRenderTimes(500);
const HISTORY = 2000;
renderTimes(HISTORY, 50);
const long = renderTimes(HISTORY, 200);
const flood = await updatesPerSecond();
const perChange = changeCost();

const p50 = pct(render, 50);
const us = (value: number) => `${(value * 1000).toFixed(1)} µs`;
console.log(`widget render, ${RUNS} runs at ${WIDTH} columns: p50 ${us(p50)}, p95 ${us(pct(render, 95))} (target ≤ 1 ms: ${p50 <= 1 ? "met" : "MISSED"})`);
console.log(`floor (the same lines ready-made, measured and cut to the width): p50 ${us(pct(floor, 50))}; widget/floor ${(p50 / pct(floor, 50)).toFixed(1)}×`);
console.log(`the same ${RUNS} runs, their lines new at every render (tokens going up): p50 ${us(pct(fresh, 50))}, p95 ${us(pct(fresh, 95))} (target ≤ 1 ms: ${pct(fresh, 50) <= 1 ? "met" : "MISSED"})`);
console.log(`the same ${RUNS} runs after ${HISTORY} ended ones (a long session): p50 ${us(pct(long, 50))}; ×${(pct(long, 50) / p50).toFixed(2)} of ${RUNS} alone (target ≤ 1.5)`);
const rate = flood.updates / flood.seconds;
console.log(`updates under a flood of ${(flood.changes / flood.seconds).toFixed(0)} changes/s: ${rate.toFixed(1)}/s (target ≤ 10: ${rate <= 10.5 ? "met" : "MISSED"})`);
console.log(`one change reported by a run (the spawn path's share): ${perChange.toFixed(1)} ns`);
