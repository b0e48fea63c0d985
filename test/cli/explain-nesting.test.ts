/**
 * `cadre explain TYPE --parent TYPE` (issue 21) and budgets in explain (issue 22), in-process
 * through the CLI entry: a nested spawn resolved under its chain with the narrowing shown, the
 * refusals of a nested spawn, and a ceiling in user settings capping a request (an untrusted
 * project cannot raise it).
 */
import { describe, expect, it } from "vitest";
import { cadreInTree, cliTree, testModels } from "../support/cli.ts";

const LEAD = "---\ndescription: Lead\ntools: read, grep, subagent\ncapability: read-only\nsubagents: [worker, explore]\n---\nLead the work.\n";
const WORKER = "---\ndescription: Worker\ncapability: all\ntools: read, bash, edit, write\nbudget:\n  tokens: 20000\n---\nDo the work.\n";
const tree = (files: Record<string, string> = {}) =>
	cliTree("explain-nest-", testModels(), { "project/.pi/agents/lead.md": LEAD, "project/.pi/agents/worker.md": WORKER, ...files });
const PM = ["--parent-model", "test/parent-model"];

describe("cadre explain --parent", () => {
	it("shows a read-only lead's capability: all child as read-only, its tools listed, and the narrowing", async () => {
		const { code, out } = await cadreInTree(tree(), ["explain", "worker", "--parent", "lead", ...PM]);
		expect(code).toBe(0);
		expect(out).toMatch(/^worker: would spawn\nspawned by lead \(depth 1: read-only; read, grep, subagent, get_subagent_result, steer_subagent\)/);
		expect(out).toMatch(/capabilityMode +read-only +definition \.pi\/agents\/worker\.md:3 +capped by parent lead \(asked all\)/);
		expect(out).toMatch(/tools +read +definition \.pi\/agents\/worker\.md:4 +capped by parent lead \(asked read, bash, edit, write\)/);
		expect(out).toMatch(/depth +2 +parent lead/);
		expect(out).toMatch(/delegation +no: the tools of "worker" do not name subagent/);
	});

	it("prints the chain and the caps in --json", async () => {
		const { out } = await cadreInTree(tree(), ["explain", "worker", "--parent", "lead", ...PM, "--json"]);
		const json = JSON.parse(out);
		expect(json.parents).toEqual([expect.objectContaining({ type: "lead", depth: 1, refused: null, capabilityMode: "read-only" })]);
		expect(json.config).toMatchObject({ capabilityMode: "read-only", tools: ["read"], depth: 2 });
		expect(json.trace.capabilityMode.capped).toEqual({ by: "parent", source: "parent lead", asked: "all" });
	});

	it("refuses a type the lead may not spawn (type-not-allowed) and a chain past maxDepth (depth-exceeded), exit 1", async () => {
		const notAllowed = await cadreInTree(tree(), ["explain", "general-purpose", "--parent", "lead", ...PM]);
		expect(notAllowed.code).toBe(1);
		expect(notAllowed.out).toContain("general-purpose: refused: type-not-allowed");
		const deep = await cadreInTree(tree({ "project/.pi/agents/loop.md": "---\ndescription: Loop\ntools: read, subagent\n---\nLoop.\n" }), ["explain", "explore", "--parent", "loop", "--parent", "loop", ...PM, "--json"]);
		expect(deep.code).toBe(1);
		expect(JSON.parse(deep.out).refused.code).toBe("depth-exceeded");
	});

	it("refuses when a parent of the chain would be refused, with that parent's code", async () => {
		const { code, out } = await cadreInTree(tree(), ["explain", "worker", "--parent", "nope", ...PM, "--json"]);
		expect(code).toBe(1);
		expect(JSON.parse(out).refused).toMatchObject({ code: "unknown-type", message: expect.stringContaining('parent "nope"') });
	});

	it("leaves --json without parents when --parent is not given", async () => {
		const json = JSON.parse((await cadreInTree(tree(), ["explain", "lead", ...PM, "--json"])).out);
		expect(Object.keys(json)).toEqual(["type", "refused", "config", "trace", "diagnostics", "sandbox"]);
		expect(json.config.delegation).toMatchObject({ allowed: true, subagents: ["worker", "explore"] });
	});
});

describe("budgets in explain", () => {
	const ceiling = { "agent/subagents.json": '{\n  "budget": {\n    "ceiling": {"tokens": 10000}\n  }\n}\n' };

	it("caps a request asking for more than the user's ceiling, and shows what capped it", async () => {
		const root = tree(ceiling);
		const { code, out } = await cadreInTree(root, ["explain", "worker", "--request", '{"budget": {"tokens": 50000, "cost": 0.5}}', ...PM]);
		expect(code).toBe(0);
		expect(out).toMatch(/budget +10000 tokens, \$0\.5 +request/);
		expect(out).toMatch(/tokens +10000 tokens +request +capped by ceiling settings:.*agent\/subagents\.json:3 \(asked 50000\); definition 20000/);
		const json = JSON.parse((await cadreInTree(root, ["explain", "worker", "--request", '{"budget": {"tokens": 50000}}', ...PM, "--json"])).out);
		expect(json.config.budget).toEqual({ tokens: 10000, cost: null, time: null });
		expect(json.trace.budget.dimensions.tokens).toMatchObject({ value: 10000, layer: "request", capped: { by: "ceiling", asked: 50000 } });
	});

	it("does not let an untrusted project raise the user's ceiling (a trusted one may)", async () => {
		const root = tree({ ...ceiling, "project/.pi/subagents.json": '{"budget": {"ceiling": {"tokens": 900000}}}' });
		const args = ["explain", "worker", "--request", '{"budget": {"tokens": 50000}}', ...PM, "--json"];
		const untrusted = JSON.parse((await cadreInTree(root, args)).out);
		expect(untrusted.config.budget.tokens).toBe(10000);
		expect(untrusted.diagnostics.map((d: { code: string }) => d.code)).toContain("untrusted-setting");
		const trusted = JSON.parse((await cadreInTree(root, [...args, "--trust-project"])).out);
		expect(trusted.config.budget.tokens).toBe(50000);
	});

	it("refuses a bad request budget with the valid values", async () => {
		const { code, out } = await cadreInTree(tree(), ["explain", "worker", "--request", '{"budget": {"tokens": -1}}', ...PM, "--json"]);
		expect(code).toBe(1);
		expect(JSON.parse(out).refused).toMatchObject({ code: "bad-request", message: expect.stringContaining("budget") });
	});
});
