/**
 * `cadre explain` shows the OS sandbox a child would run in (issue 27, ADR 0185): its policy
 * (writes, denied reads, the environment's credential patterns, the network), whether a read-only
 * child keeps bash (sandboxed) or loses it (not sandboxed), and the extension tools outside it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { cadreInTree, cliTree, testModels } from "../support/cli.ts";

const tree = (files: Record<string, string> = {}) => cliTree("explain-sandbox-", testModels(), files);
const PARENT = ["--parent-model", "test/parent-model"];
const noSandbox = { isTty: false, env: { PATH: "/nonexistent" } };

describe.skipIf(!sandboxPlatform().available)("cadre explain, sandboxed here", () => {
	it("--json: the policy of a read-only explore, bash kept inside the sandbox", async () => {
		const root = tree();
		const { code, out } = await cadreInTree(root, ["explain", "explore", ...PARENT, "--json"]);
		expect(code).toBe(0);
		const json = JSON.parse(out);
		expect(json.config.tools).toContain("bash");
		expect(json.sandbox).toMatchObject({ sandboxed: true, reason: null, write: [], network: [], bash: "sandboxed", outside: [] });
		expect(json.sandbox.denyRead).toEqual(expect.arrayContaining([join(root, "home", ".ssh"), join(root, "agent"), join(root, "agent", "auth.json")]));
		expect(json.sandbox.env.deny).toContain("*_API_KEY");
	});

	it("human: the tools row marks bash sandboxed and extension tools outside; the policy follows the table", async () => {
		const root = tree({
			"project/.pi/agents/fetcher.md": "---\ndescription: fetches\ntools: read, bash, web_fetch\n---\nFetch.\n",
			"project/.pi/subagents.json": JSON.stringify({ sandbox: { denyRead: ["secrets"] } }),
		});
		const { out } = await cadreInTree(root, ["explain", "fetcher", ...PARENT, "--parent-tools", "read, bash, web_fetch"]);
		expect(out).toMatch(/^tools +read, bash \(sandboxed\), web_fetch \(outside the sandbox\) /m);
		expect(out).toContain("sandbox: sandboxed");
		expect(out).toMatch(new RegExp(`writes: ${join(root, "project")}, <its private temp dir>`));
		expect(out).toContain(join(root, "project", "secrets"));
		expect(out).toContain("network: none");
		expect(out).toMatch(/outside the sandbox: web_fetch/);
	});

	it("an isolated child writes only in its worktree", async () => {
		const root = tree({ "project/.pi/agents/builder.md": "---\ndescription: builds\ntools: read, bash, write\nisolation: worktree\n---\nBuild.\n" });
		const json = JSON.parse((await cadreInTree(root, ["explain", "builder", ...PARENT, "--json"])).out);
		expect(json.sandbox.write).toEqual(["<its worktree>", "<its private temp dir>"]);
	});
});

describe("cadre explain without a sandbox here", () => {
	it("a read-only explore loses bash, and the tools row and the sandbox lines say why", async () => {
		const root = tree();
		const json = JSON.parse((await cadreInTree(root, ["explain", "explore", ...PARENT, "--json"], noSandbox)).out);
		expect(json.config.tools).not.toContain("bash");
		expect(json.sandbox).toMatchObject({ sandboxed: false, bash: "dropped" });
		expect(json.sandbox.reason).toContain("not on PATH");
		const { out } = await cadreInTree(root, ["explain", "explore", ...PARENT], noSandbox);
		expect(out).toMatch(/^tools +read, grep, find, ls; no bash: not sandboxed /m);
		expect(out).toMatch(/sandbox: not sandboxed — .*not on PATH.*A read-only child keeps bash only in the sandbox: this one has none\./s);
	});
});
