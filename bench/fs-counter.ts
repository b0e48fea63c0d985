/**
 * Counts this process's file-system calls (issue 28): while counting (from `fsCalls.reset()` to
 * `fsCalls.stop()`), every function of `node:fs` (sync, callback) and `node:fs/promises` is wrapped
 * in a counter, and `syncBuiltinESMExports` makes the modules' named imports see the wrappers;
 * `stop` puts the originals back, so a timing measured outside the counting pays no counter.
 * Streams and watchers are not wrapped; a call made inside another counted call (fs.promises inside
 * fs) counts once per entry point pi or cadre uses.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

let calls = 0;
const byName = new Map<string, number>();
let depth = 0;
/** `BENCH_FS_TRACE=<name>`: where calls of that name come from (printed by `fsCalls.stacks`). */
const trace = process.env.BENCH_FS_TRACE;
const stacks = new Map<string, number>();

type Fn = ((...args: unknown[]) => unknown) & { native?: Fn };

function counter(fn: Fn, name: string): Fn {
	const counted: Fn = function (this: unknown, ...args: unknown[]) {
		if (depth === 0) {
			calls++;
			byName.set(name, (byName.get(name) ?? 0) + 1);
			if (trace && name.includes(trace)) {
				const where = (new Error().stack ?? "").split("\n").slice(2, Number(process.env.BENCH_FS_DEPTH ?? 7)).join("\n");
				stacks.set(where, (stacks.get(where) ?? 0) + 1);
			}
		}
		depth++;
		try {
			return fn.apply(this, args);
		} finally {
			depth--;
		}
	};
	Object.assign(counted, fn);
	// `realpath.native` and `realpathSync.native` hang off the function.
	if (typeof fn.native === "function") counted.native = counter(fn.native, `${name}.native`);
	return counted;
}

/** The functions replaced while counting: their object, name, original and counter. */
const swaps: { target: Record<string, unknown>; name: string; original: unknown; counted: Fn }[] = [];

function wrap(target: Record<string, unknown>, prefix: string): void {
	for (const name of Object.keys(target)) {
		const original = target[name];
		if (typeof original !== "function" || /^[A-Z]/.test(name) || /watch|Stream|^promises$/.test(name)) continue;
		swaps.push({ target, name, original, counted: counter(original as Fn, prefix + name) });
	}
}

wrap(fs as unknown as Record<string, unknown>, "");
wrap(fs.promises as unknown as Record<string, unknown>, "promises.");

/** Puts the counters (true) or the originals (false) in place. */
function install(on: boolean): void {
	for (const swap of swaps) swap.target[swap.name] = on ? swap.counted : swap.original;
	syncBuiltinESMExports();
}

/** File calls since the last reset, and the most frequent ones. */
export const fsCalls = {
	/** Starts counting from zero. */
	reset(): void {
		calls = 0;
		byName.clear();
		stacks.clear();
		install(true);
	},
	/** Stops counting (the counts stay readable). */
	stop(): void {
		install(false);
	},
	count: (): number => calls,
	stacks: (): string =>
		[...stacks]
			.sort((a, b) => b[1] - a[1])
			.slice(0, 6)
			.map(([where, count]) => `${count}×\n${where}`)
			.join("\n"),
	top: (n = 8): string =>
		[...byName]
			.sort((a, b) => b[1] - a[1])
			.slice(0, n)
			.map(([name, count]) => `${name} ${count}`)
			.join(", "),
};
