/**
 * The per-parent cache of the loaded files (issue 28, ADR 0160): a hit stats only the inputs that
 * exist and those whose parent folder is not an input (ADR 0194) — a kind folder, a settings file
 * or a project `.pi` that appears is still seen by the next `get`, through its parent's change.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../src/files/types.ts";
import { createLoadCache, type LoadInputs } from "../../src/hosts/spawn/load-cache.ts";
import { coveredKey } from "../../src/runtime/stat-key.ts";

const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, 150));

function world() {
	const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "load-cache-"));
	const agentDir = join(root, "agent");
	const cwd = join(root, "project");
	mkdirSync(agentDir);
	mkdirSync(cwd);
	let loads = 0;
	const cache = createLoadCache(() => {
		loads++;
		return { projectDir: null } as unknown as LoadResult;
	});
	const inputs: LoadInputs = { cwd, agentDir, homeDir: root, projectTrusted: false };
	return { root, agentDir, cwd, cache, inputs, loads: () => loads };
}

describe("the files' cache", () => {
	it("leaves a missing path out of the key when its parent folder is in it, and keeps the rest", async () => {
		const { agentDir, cwd } = world();
		await pastRacyWindow();
		const paths = [cwd, agentDir, join(agentDir, "subagents.json"), join(agentDir, "agents"), join(agentDir, "agents", "scout.md"), "/nonexistent-cadre/x"];
		const { key, paths: kept } = await coveredKey(paths);
		expect(kept).toEqual([cwd, agentDir, "/nonexistent-cadre/x"]);
		expect(key?.split("|")).toHaveLength(3);
	});

	it("sees a kind folder with a file, and a settings file, created where none was", async () => {
		const { agentDir, cache, inputs, loads } = world();
		await pastRacyWindow();
		await cache.get(inputs);
		await cache.get(inputs);
		expect(loads()).toBe(1);
		mkdirSync(join(agentDir, "agents"));
		writeFileSync(join(agentDir, "agents", "scout.md"), "---\ndescription: s\n---\n");
		await cache.get(inputs);
		expect(loads()).toBe(2);
		await pastRacyWindow();
		await cache.get(inputs);
		const settled = loads();
		await cache.get(inputs);
		expect(loads()).toBe(settled);
		writeFileSync(join(agentDir, "subagents.json"), "{}");
		await cache.get(inputs);
		expect(loads()).toBe(settled + 1);
	});

	it("sees a project .pi folder that appears in the cwd", async () => {
		const { cwd, cache, inputs, loads } = world();
		await pastRacyWindow();
		await cache.get(inputs);
		await cache.get(inputs);
		expect(loads()).toBe(1);
		mkdirSync(join(cwd, ".pi"));
		await cache.get(inputs);
		expect(loads()).toBe(2);
	});
});
