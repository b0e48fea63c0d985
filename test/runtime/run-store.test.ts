/**
 * Run records on disk (ADR 0068): written atomically and read back as untrusted-ish input — a
 * regular file, bounded in size, its shape validated, skipped with a diagnostic otherwise; a
 * record left queued or running by a process that is gone loads as `interrupted`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { currentOwner, formatOwner } from "../../src/runtime/owner.ts";
import { runResult } from "../../src/runtime/result.ts";
import { listRuns, loadRun } from "../../src/runtime/run-reader.ts";
import { MAX_RECORD_BYTES, MAX_STORED_TEXT, recordPath, saveRun } from "../../src/runtime/run-store.ts";
import { record as runRecord } from "./record.ts";

const tempDir = () => mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "records-"));

/** Save `run`, then rewrite its file with `change` applied to the stored JSON. */
async function rewrite(dir: string, change: (stored: Record<string, unknown>) => unknown, id = "explore-abc123"): Promise<string> {
	expect(await saveRun(dir, runRecord({ id }))).toBeNull();
	const file = recordPath(dir, id);
	writeFileSync(file, JSON.stringify(change(JSON.parse(readFileSync(file, "utf8")))));
	return file;
}

function deadPid(): number {
	return spawnSync(process.execPath, ["-e", ""]).pid as number;
}

describe("saving a run record", () => {
	it("round-trips: the loaded run gives the same result as the run that was saved", async () => {
		const dir = tempDir();
		const run = runRecord({ diagnostics: [{ severity: "warning", file: null, line: null, column: null, code: "tool-dropped", message: "bash dropped" }] });
		expect(await saveRun(dir, run)).toBeNull();
		const { runs, diagnostics } = listRuns(dir);
		expect(diagnostics).toEqual([]);
		expect(runs).toHaveLength(1);
		const loaded = runs[0];
		expect(runResult(loaded as never, 1000)).toEqual(runResult(run, 1000));
		expect(loaded).toMatchObject({ id: run.id, owner: run.owner, parentSession: "parent-session-1", config: run.config, trace: run.trace, ignored: run.ignored, notified: true });
	});

	it("keeps a run's contract, structured result, inputs, outputs and schema; a record written before them loads with none", async () => {
		const dir = tempDir();
		const contract = { ok: false, outputs: [{ name: "report", ok: false, path: "/w/out/report.md", reason: "out/report.md does not exist" }], repair: { steered: true, worked: false, skipped: null } };
		const config = {
			...runRecord().config,
			inputs: [{ name: "target", ioType: "file" as const, required: true, description: null, status: "ok" as const, text: "src/a.ts", note: null }],
			outputs: [{ name: "report", io_type: "file" as const, required: true, description: null, path: "out/report.md" }],
			outputSchema: { type: "object" },
		};
		const run = runRecord({ config, contract, structured: { score: 3 } });
		expect(await saveRun(dir, run)).toBeNull();
		const loaded = loadRun(recordPath(dir, run.id));
		expect(loaded.ok && { contract: loaded.run.contract, structured: loaded.run.structured, config: loaded.run.config }).toEqual({ contract, structured: { score: 3 }, config });
		const old = await rewrite(tempDir(), (stored) => {
			const { contract: _c, structured: _s, ...rest } = stored as { contract: unknown; structured: unknown; config: Record<string, unknown> };
			const { inputs: _i, outputs: _o, outputSchema: _x, ...oldConfig } = rest.config;
			return { ...rest, config: oldConfig };
		});
		const before = loadRun(old);
		expect(before.ok && [before.run.contract, before.run.structured, before.run.config.inputs, before.run.config.outputs, before.run.config.outputSchema]).toEqual([null, null, [], [], null]);
	});

	it("keeps a nested run's parentId, rootId, depth, treeUsage and descendants; a record written before nesting loads at depth 1 with no parent", async () => {
		const dir = tempDir();
		const treeUsage = { input: 30, output: 15, cacheRead: 0, cacheWrite: 0, cost: 0.003 };
		const run = runRecord({ id: "explore-kid", parentId: "lead-abc", rootId: "lead-abc", depth: 2, spawnerCwd: "/w/lead", treeUsage, descendants: 2 });
		expect(await saveRun(dir, run)).toBeNull();
		const loaded = loadRun(recordPath(dir, run.id));
		expect(loaded.ok && loaded.run).toMatchObject({ parentId: "lead-abc", rootId: "lead-abc", depth: 2, spawnerCwd: "/w/lead", treeUsage, descendants: 2 });
		expect(loaded.ok && runResult(loaded.run, 1000)).toMatchObject({ parentId: "lead-abc", depth: 2, treeUsage, descendants: 2 });
		const old = await rewrite(tempDir(), (stored) => {
			const { parentId: _p, rootId: _r, depth: _d, spawnerCwd: _s, ...rest } = stored as Record<string, unknown>;
			return rest;
		});
		const before = loadRun(old);
		expect(before.ok && { parentId: before.run.parentId, rootId: before.run.rootId, depth: before.run.depth }).toEqual({ parentId: null, rootId: "explore-abc123", depth: 1 });
	});

	it("keeps a run's budget and stop reason (issue 22); a record written before budgets loads with none", async () => {
		const dir = tempDir();
		const budget = { limit: { tokens: 5000, cost: null, time: null }, reserved: { tokens: 4000, cost: null, time: null }, used: { tokens: 6000, cost: 0.06, time: 2.5 }, source: "request", clamped: ["tokens" as const], stoppedBy: "tokens" as const, warned: true };
		const run = runRecord({ state: "stopped", stopReason: "budget", budget });
		expect(await saveRun(dir, run)).toBeNull();
		const loaded = loadRun(recordPath(dir, run.id));
		expect(loaded.ok && { stopReason: loaded.run.stopReason, budget: loaded.run.budget }).toEqual({ stopReason: "budget", budget });
		const old = await rewrite(tempDir(), (stored) => {
			const { budget: _b, stopReason: _s, ...rest } = stored as Record<string, unknown>;
			return rest;
		});
		const before = loadRun(old);
		expect(before.ok && [before.run.budget, before.run.stopReason]).toEqual([null, null]);
		const bad = loadRun(await rewrite(tempDir(), (stored) => ({ ...(stored as object), budget: { limit: 5 } })));
		expect(bad.ok).toBe(false);
	});

	it("writes through a temp file and a rename: only the record is left, readable by its owner only", async () => {
		const dir = join(tempDir(), "not-yet-made");
		expect(await saveRun(dir, runRecord())).toBeNull();
		expect(await saveRun(dir, runRecord({ turns: 9 }))).toBeNull();
		expect(readdirSync(dir)).toEqual(["explore-abc123.run.json"]);
		expect(statSync(recordPath(dir, "explore-abc123")).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(recordPath(dir, "explore-abc123"), "utf8")).turns).toBe(9);
	});

	it("a directory that cannot be written: says why, never throws", async () => {
		const root = tempDir();
		writeFileSync(join(root, "file"), "x");
		const message = await saveRun(join(root, "file", "dir"), runRecord());
		expect(message).toMatch(/could not be saved to .*file\/dir: ENOTDIR/);
	});

	it("stores a long final text up to its cap, with a pointer to the transcript", async () => {
		const dir = tempDir();
		expect(await saveRun(dir, runRecord({ text: "z".repeat(MAX_STORED_TEXT + 10) }))).toBeNull();
		const text = listRuns(dir).runs[0]?.text ?? "";
		expect(text.startsWith("z".repeat(MAX_STORED_TEXT))).toBe(true);
		expect(text).toContain("10 more characters; the full text is in the transcript /t/run.jsonl");
	});

	it("refuses to write a record larger than a reader accepts", async () => {
		const run = runRecord();
		run.config = { ...run.config, rolePrompt: "r".repeat(MAX_RECORD_BYTES) };
		expect(await saveRun(tempDir(), run)).toMatch(/over the 4194304 a record may have/);
	});
});

describe("loading run records", () => {
	it("skips what is not a regular, bounded, well-formed record, with a positioned diagnostic each, and loads the rest", async () => {
		const dir = tempDir();
		expect(await saveRun(dir, runRecord({ id: "explore-good01" }))).toBeNull();
		expect(spawnSync("mkfifo", [join(dir, "explore-fifo01.run.json")]).status).toBe(0);
		const elsewhere = tempDir();
		expect(await saveRun(elsewhere, runRecord({ id: "explore-link01" }))).toBeNull();
		symlinkSync(recordPath(elsewhere, "explore-link01"), join(dir, "explore-link01.run.json"));
		writeFileSync(join(dir, "explore-huge01.run.json"), "");
		truncateSync(join(dir, "explore-huge01.run.json"), MAX_RECORD_BYTES + 1);
		for (const [name, text] of [
			["explore-null01", "null"],
			["explore-array1", "[]"],
			["explore-numb01", "42"],
		]) {
			writeFileSync(join(dir, `${name}.run.json`), text as string);
		}
		await rewrite(dir, (s) => ({ ...s, version: 2 }), "explore-vers01");
		await rewrite(dir, (s) => ({ ...s, id: "explore-other1" }), "explore-name01");
		await rewrite(dir, (s) => ({ ...s, owner: "pid 12" }), "explore-ownr01");
		await rewrite(dir, (s) => ({ ...s, config: { ...(s.config as object), tools: "read" } }), "explore-conf01");
		await rewrite(dir, (s) => ({ ...s, id: "../../etc" }), "explore-path01");
		writeFileSync(join(dir, ".explore-x.run.json.123.tmp"), "{");
		const { runs, diagnostics } = listRuns(dir);
		expect(runs.map((run) => run.id)).toEqual(["explore-good01"]);
		const reasons = Object.fromEntries(diagnostics.map((d) => [/([a-z0-9-]+)\.run\.json$/.exec(d.file ?? "")?.[1], d.message]));
		expect(reasons).toEqual({
			"explore-fifo01": expect.stringContaining("not a regular file"),
			"explore-link01": expect.stringContaining(`outside ${dir}`),
			"explore-huge01": expect.stringContaining("over the 4.0 MiB limit"),
			"explore-null01": expect.stringContaining("/ must be object"),
			"explore-array1": expect.stringContaining("/ must be object"),
			"explore-numb01": expect.stringContaining("/ must be object"),
			"explore-vers01": expect.stringContaining("format version 2"),
			"explore-name01": expect.stringContaining(`id "explore-other1" does not match its file name`),
			"explore-ownr01": expect.stringContaining("/owner"),
			"explore-conf01": expect.stringContaining("/config/tools"),
			"explore-path01": expect.stringContaining("/id"),
		});
		for (const d of diagnostics) expect(d).toMatchObject({ severity: "warning", code: "run-record-invalid", line: 1, column: 1 });
	});

	it("a run that was running when its owner process died loads as interrupted", async () => {
		const dir = tempDir();
		const pid = deadPid();
		const file = await rewrite(dir, (s) => ({ ...s, state: "running", endedAt: null, savedAt: 5000, owner: formatOwner({ pid, start: "7", host: hostname() }) }));
		const loaded = loadRun(file);
		if (!loaded.ok) throw new Error(loaded.diagnostic.message);
		expect(loaded.run).toMatchObject({ state: "interrupted", endedAt: 5000, activity: "interrupted" });
		expect(loaded.run.error).toContain(`its parent pi process (pid ${pid}) ended while the run was running`);
		expect(runResult(loaded.run, 100).status).toBe("interrupted");
	});

	it("a queued or running record whose owner still runs (or runs on another host) keeps its state, shown as another process's", async () => {
		const dir = tempDir();
		const alive = await rewrite(dir, (s) => ({ ...s, state: "queued", endedAt: null, owner: formatOwner(currentOwner()) }), "explore-alive1");
		const remote = await rewrite(dir, (s) => ({ ...s, state: "running", endedAt: null, owner: formatOwner({ pid: 1, start: null, host: "elsewhere" }) }), "explore-remot1");
		const [a, r] = [loadRun(alive), loadRun(remote)];
		expect(a.ok && a.run).toMatchObject({ state: "queued", endedAt: null, activity: `queued in another pi process (pid ${process.pid})` });
		expect(r.ok && r.run).toMatchObject({ state: "running", activity: "running in another pi process (pid 1 on host elsewhere)" });
	});

	it("filters by parent session and creation time; a missing directory holds no runs", async () => {
		const dir = tempDir();
		expect(await saveRun(dir, runRecord({ id: "explore-mine01", createdAt: 10 }))).toBeNull();
		expect(await saveRun(dir, runRecord({ id: "explore-late01", createdAt: 30 }))).toBeNull();
		expect(await saveRun(dir, runRecord({ id: "explore-them01", parentSession: "other", createdAt: 5 }))).toBeNull();
		expect(listRuns(dir).runs.map((run) => run.id)).toEqual(["explore-them01", "explore-mine01", "explore-late01"]);
		expect(listRuns(dir, { parentSession: "parent-session-1", createdBefore: 20 }).runs.map((run) => run.id)).toEqual(["explore-mine01"]);
		expect(listRuns(join(dir, "nope"))).toEqual({ runs: [], diagnostics: [] });
		mkdirSync(join(dir, "sub"));
		expect(listRuns(join(dir, "sub")).runs).toEqual([]);
	});
});
