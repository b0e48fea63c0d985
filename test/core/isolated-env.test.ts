/**
 * The per-file test environment (test/support/isolated-env.ts) removes its temporary folder when
 * the file's tests end: `npm test` used to leave ~90 `cadre-test-*` folders (~80 MB) per run.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.ts";

describe("the isolated test environment", () => {
	it("leaves no cadre-test-* folder behind after a test file runs", () => {
		const tmp = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "isolated-env-"));
		const vitest = join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs");
		const run = spawnSync(process.execPath, [vitest, "run", "test/core/terminal-text.test.ts"], { cwd: REPO_ROOT, env: { ...process.env, TMPDIR: tmp }, encoding: "utf8" });
		expect(run.status, run.stderr + run.stdout).toBe(0);
		expect(readdirSync(tmp).filter((name) => name.startsWith("cadre-test-"))).toEqual([]);
	});
});
