/**
 * Loads a layout in a child process with a data-size limit (`ulimit -d`) and a timeout. Reading
 * `/dev/zero`, blocking on a FIFO or buffering a 2 GB file then fails the test (the child is
 * killed or runs out of memory) instead of stalling the suite or the machine.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "../../../src/core/diagnostics.ts";
import type { LoadOptions } from "../../../src/files/types.ts";
import { nodeBinary } from "../../support/cli.ts";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "load-child.ts");

export interface IsolatedLoad {
	diagnostics: Diagnostic[];
	entries: { name: string; kind: string; description: string }[];
	reads: { written: string; read: { ok: boolean; code?: string; message?: string; text?: string } }[];
}

/** Runs the load; throws with what happened when the child did not finish within the limits. */
export function loadIsolated(options: LoadOptions, limits: { timeoutMs?: number; dataKiB?: number } = {}): IsolatedLoad {
	const kib = limits.dataKiB ?? 512 * 1024;
	const run = spawnSync("sh", ["-c", `ulimit -d ${kib} && exec "$0" "$@"`, nodeBinary(), CHILD, JSON.stringify(options)], {
		encoding: "utf8",
		timeout: limits.timeoutMs ?? 20_000,
		killSignal: "SIGKILL",
		maxBuffer: 16 * 1024 * 1024,
	});
	if (run.status !== 0) {
		const how = run.signal ? `was killed (${run.signal}; timed out or out of memory)` : `exited ${run.status}`;
		throw new Error(`the isolated load ${how}: ${run.stderr.slice(-2000)}`);
	}
	return JSON.parse(run.stdout) as IsolatedLoad;
}
