/**
 * The keys of nesting (issue 21) and budgets (issue 22) at load: a definition's or role's
 * `subagents` and `budget`, settings `maxDepth` and `budget.default` / `ceiling` / `session`, with a
 * positioned diagnostic for every bad value, and the trust rule of `budget.ceiling` and
 * `budget.session` (an untrusted project may only lower them, ADR 0073).
 */
import { describe, expect, it } from "vitest";
import { layout, where } from "./fixture.ts";

const definition = (keys: string) => `---\ndescription: D\n${keys}---\nDo.\n`;

describe("subagents", () => {
	it.each([
		["subagents: [explore, Plan]\n", ["explore", "Plan"]],
		["subagents: explore, plan\n", ["explore", "plan"]],
		['subagents: "*"\n', "*"],
		["subagents: none\n", []],
	])("%s loads as %j", (keys, value) => {
		const loaded = layout({ "project/.pi/agents/lead.md": definition(keys) }).load();
		expect(loaded.diagnostics).toEqual([]);
		expect(loaded.definitions.get("lead")?.keys.subagents?.value).toEqual(value);
	});

	it("is a role key too", () => {
		const loaded = layout({ "project/.pi/agents/lead.md": definition(""), "project/.pi/roles/lead.md": "---\nsubagents: [explore]\n---\n" }).load();
		expect(loaded.roles.get("lead")?.keys.subagents?.value).toEqual(["explore"]);
	});

	it.each([["subagents: []\n"], ["subagents: [explore, '*']\n"], ["subagents: 3\n"]])("%s is a bad value at its line, kept as rejected", (keys) => {
		const loaded = layout({ "project/.pi/agents/lead.md": definition(keys) }).load();
		expect(where(loaded)).toEqual([expect.stringMatching(/^\.pi\/agents\/lead\.md:3:\d+ bad-value$/)]);
		expect(loaded.definitions.get("lead")?.invalid.subagents).toBeDefined();
	});
});

describe("budget key", () => {
	it("loads the dimensions written", () => {
		const loaded = layout({ "project/.pi/agents/w.md": definition("budget:\n  tokens: 5000\n  cost: 0.05\n  time: 90\n") }).load();
		expect(loaded.diagnostics).toEqual([]);
		expect(loaded.definitions.get("w")?.keys.budget?.value).toEqual({ tokens: 5000, cost: 0.05, time: 90 });
	});

	it.each([
		["budget:\n  tokens: 5000\n  cost: -1\n", "5:9", "cost expects"],
		["budget:\n  tokens: 12.5\n", "4:11", "tokens expects a whole number"],
		["budget:\n  tokens: 10\n  dollars: 1\n", "5:3", "dollars is not a budget dimension"],
		["budget: 5000\n", "3:9", "expects a mapping"],
	])("%j is a bad value at file:line:col of the wrong part", (keys, at, message) => {
		const loaded = layout({ "project/.pi/agents/w.md": definition(""), "project/.pi/roles/w.md": `---\n${"description: R\n"}${keys}---\n` }).load();
		expect(where(loaded)).toEqual([`.pi/roles/w.md:${at} bad-value`]);
		expect(loaded.diagnostics[0]?.message).toContain(message);
		expect(loaded.roles.get("w")?.invalid.budget).toBeDefined();
	});
});

const user = (json: unknown) => ({ "agent/subagents.json": JSON.stringify(json) });
const project = (text: string) => ({ "project/.pi/subagents.json": text });

describe("settings maxDepth", () => {
	it("defaults to 2 and takes a whole number from 1", () => {
		expect(layout().load().settings.maxDepth).toEqual({ value: 2, source: "default" });
		const r = layout(project('{\n  "maxDepth": 1\n}\n')).load();
		expect(r.settings.maxDepth).toMatchObject({ value: 1, source: "settings:.pi/subagents.json:2" });
	});

	it("reports a bad value at its position and keeps the default", () => {
		const r = layout(project('{\n  "maxDepth": 0\n}\n')).load();
		expect(where(r)).toEqual([".pi/subagents.json:2:15 bad-value"]);
		expect(r.settings.maxDepth.value).toBe(2);
	});
});

describe("settings budget", () => {
	it("merges default, ceiling and session per dimension, each sourced at its key", () => {
		const r = layout({
			...user({ budget: { default: { tokens: 100000, cost: 1 }, ceiling: { cost: 5 } } }),
			...project('{\n  "budget": {\n    "default": {"tokens": 20000},\n    "session": {"time": 600}\n  }\n}\n'),
		}).load({ projectTrusted: true });
		expect(r.diagnostics).toEqual([]);
		expect(r.settings.budget.default.tokens).toMatchObject({ value: 20000, source: "settings:.pi/subagents.json:3" });
		expect(r.settings.budget.default.cost?.value).toBe(1);
		expect(r.settings.budget.ceiling.cost?.value).toBe(5);
		expect(r.settings.budget.session.time?.value).toBe(600);
	});

	it("positions every bad value: an unknown budget key, an unknown dimension, a bad amount", () => {
		const r = layout(project('{\n  "budget": {\n    "max": {"tokens": 1},\n    "ceiling": {"tokens": 0, "money": 2}\n  }\n}\n')).load();
		expect(where(r)).toEqual([".pi/subagents.json:3:5 unknown-key", ".pi/subagents.json:4:27 bad-value", ".pi/subagents.json:4:30 unknown-key"]);
		expect(r.settings.budget.ceiling).toEqual({});
	});

	it("lets an untrusted project lower the user's ceiling and set one the user has not, never raise it", () => {
		const r = layout({
			...user({ budget: { ceiling: { tokens: 50000, cost: 1 } } }),
			...project('{\n  "budget": {\n    "ceiling": {"tokens": 900000, "cost": 0.5, "time": 60}\n  }\n}\n'),
		}).load();
		expect(r.settings.budget.ceiling.tokens).toMatchObject({ value: 50000, source: expect.stringMatching(/agent\/subagents\.json:1$/) });
		expect(r.settings.budget.ceiling.cost).toMatchObject({ value: 0.5, source: "settings:.pi/subagents.json:3" });
		expect(r.settings.budget.ceiling.time?.value).toBe(60);
		expect(where(r)).toEqual([".pi/subagents.json:3:17 untrusted-setting"]);
		expect(r.diagnostics[0]?.message).toContain("budget.ceiling.tokens");
	});

	it("lets a trusted project raise the ceiling; session follows the same rule", () => {
		const files = { ...user({ budget: { ceiling: { tokens: 50000 }, session: { cost: 2 } } }), ...project('{"budget": {"ceiling": {"tokens": 900000}, "session": {"cost": 9}}}') };
		const trusted = layout(files).load({ projectTrusted: true });
		expect(trusted.settings.budget.ceiling.tokens?.value).toBe(900000);
		expect(trusted.settings.budget.session.cost?.value).toBe(9);
		const untrusted = layout(files).load();
		expect(untrusted.settings.budget.session.cost?.value).toBe(2);
		expect(untrusted.diagnostics.map((d) => d.code)).toEqual(["untrusted-setting", "untrusted-setting"]);
	});
});

describe("subagent in tools", () => {
	it("is a known tool name at load (the delegation opt-in), not an unknown-tool warning", () => {
		const loaded = layout({ "project/.pi/agents/lead.md": definition("tools: read, subagent\nsubagents: [explore]\n") }).load();
		expect(loaded.diagnostics).toEqual([]);
		expect(loaded.definitions.get("lead")?.keys.tools?.value).toEqual(["read", "subagent"]);
	});
});
