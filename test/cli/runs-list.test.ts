/**
 * `cadre runs list` (issue 19): the runs `cadre run` recorded, newest first, with id, type,
 * state, age and description, so a user can find the id `--resume` takes. Through the real bin.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { saveRunNow } from "../../src/runtime/run-store.ts";
import { record } from "../runtime/record.ts";
import { cliTree, runCli, runCliJson, testModels } from "../support/cli.ts";

describe("cadre runs list", () => {
	it("lists the recorded runs newest first, with their ages, and how to resume one", () => {
		const root = cliTree("cadre-runs-", testModels());
		const env = { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") };
		const dir = join(root, "agent", "cadre", "transcripts");
		const now = Date.now();
		expect(saveRunNow(dir, record({ id: "explore-aaa111", type: "explore", description: "map the parser", createdAt: now - 3 * 3600_000 }))).toBeNull();
		expect(saveRunNow(dir, record({ id: "worker-bbb222", type: "worker", state: "failed", description: "fix \u001b[2Jthe bug", createdAt: now - 5 * 60_000 }))).toBeNull();
		const run = runCli(["runs", "list"], { env });
		expect(run.code).toBe(0);
		const lines = run.stdout.trimEnd().split("\n");
		expect(lines[0]).toMatch(/^ID +TYPE +STATE +AGE +DESCRIPTION$/);
		expect(lines[1]).toMatch(/^worker-bbb222 +worker +failed +5m +fix \\x1b\[2Jthe bug$/);
		expect(lines[2]).toMatch(/^explore-aaa111 +explore +completed +3h +map the parser$/);
		expect(lines[3]).toContain('2 runs in ');
		expect(lines[3]).toContain('cadre run --resume ID "task"');
		const json = runCliJson<{ runs: { id: string; state: string }[] }>(["runs", "list"], { env });
		expect(json.json.runs.map((r) => `${r.id} ${r.state}`)).toEqual(["worker-bbb222 failed", "explore-aaa111 completed"]);
	});

	it("shows a tree of runs under the run that started it, indented (issue 21)", () => {
		const root = cliTree("cadre-runs-", testModels());
		const env = { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") };
		const dir = join(root, "agent", "cadre", "transcripts");
		const now = Date.now();
		const save = (id: string, minutes: number, parentId: string | null, depth: number) =>
			expect(saveRunNow(dir, record({ id, type: id.split("-")[0] as string, description: id, createdAt: now - minutes * 60_000, parentId, rootId: parentId ? "lead-aaa111" : id, depth }))).toBeNull();
		save("lead-aaa111", 10, null, 1);
		save("explore-bbb222", 9, "lead-aaa111", 2);
		save("worker-ccc333", 8, "explore-bbb222", 3);
		save("explore-ddd444", 7, "lead-aaa111", 2);
		save("plan-eee555", 1, null, 1);
		const lines = runCli(["runs", "list"], { env }).stdout.trimEnd().split("\n");
		expect(lines.slice(1, 6).map((line) => /^ *\S+/.exec(line)?.[0])).toEqual(["plan-eee555", "lead-aaa111", "  explore-bbb222", "    worker-ccc333", "  explore-ddd444"]);
	});

	it("says where it looked when there are none", () => {
		const root = cliTree("cadre-runs-", testModels());
		const run = runCli(["runs", "list"], { env: { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") } });
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^no runs recorded in .*agent\/cadre\/transcripts/);
	});
});
