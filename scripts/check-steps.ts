/**
 * The step helpers `check:package` and `check:install` share: a failing step says where, what, and
 * the command's output, and leaves its work folder for inspection; a passing one prints its time.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** A finished command. */
export interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** The helpers of one check (`name` heads its failures; `work` is its folder). */
export function checkSteps(name: string, work: () => string) {
	function fail(step: string, message: string, run?: Run): never {
		process.stderr.write(`${name} FAILED at ${step}: ${message}\n`);
		if (run) process.stderr.write(`--- exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}\n`);
		process.stderr.write(`(left for inspection: ${work()})\n`);
		process.exit(1);
	}
	function expectMatch(step: string, text: string, pattern: RegExp, run: Run): void {
		if (!pattern.test(text)) fail(step, `output does not match ${pattern}`, run);
	}
	function step(title: string, body: () => void): void {
		const at = Date.now();
		body();
		process.stdout.write(`ok  ${title} (${((Date.now() - at) / 1000).toFixed(1)} s)\n`);
	}
	return { fail, expectMatch, step };
}

/** A `node` on PATH, outside node_modules, older than 22.19 (CI machines have Node 20), or null. */
export function olderNode(): string | null {
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		if (!dir || dir.includes("node_modules") || !existsSync(join(dir, "node"))) continue;
		const version = spawnSync(join(dir, "node"), ["--version"], { encoding: "utf8" }).stdout.trim().slice(1);
		const [major = 0, minor = 0] = version.split(".").map(Number);
		if (major < 22 || (major === 22 && minor < 19)) return join(dir, "node");
	}
	return null;
}
