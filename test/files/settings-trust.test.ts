/**
 * Settings under an untrusted project (ADR 0073): a setting that narrows access can only be
 * narrowed further by an untrusted project, one that widens it is honoured only from the user's
 * settings or a trusted project, and the rest (budgets, pins, entries) merge as spec 01 says.
 */
import { describe, expect, it } from "vitest";
import { layout, where } from "./fixture.ts";

const user = (json: unknown) => ({ "agent/subagents.json": JSON.stringify(json) });
const projectSettings = (text: string) => ({ "project/.pi/subagents.json": text });

describe("childExtensions.exclude (narrows)", () => {
	it("keeps the user's exclusions when an untrusted project empties the list, with a warning at the key", () => {
		const r = layout({ ...user({ childExtensions: { exclude: ["x"] } }), ...projectSettings('{\n  "childExtensions": {"exclude": []}\n}\n') }).load();
		expect(r.settings.childExtensions.exclude).toEqual(["x"]);
		expect(where(r)).toEqual([".pi/subagents.json:2:23 untrusted-setting"]);
		expect(r.diagnostics[0]?.message).toContain("x");
		expect(r.diagnostics[0]).toMatchObject({ severity: "warning" });
	});

	it("adds an untrusted project's exclusions to the user's; silent when it only adds", () => {
		const dropped = layout({ ...user({ childExtensions: { exclude: ["x"] } }), ...projectSettings('{"childExtensions": {"exclude": ["y"]}}') }).load();
		expect(dropped.settings.childExtensions.exclude).toEqual(["x", "y"]);
		expect(dropped.diagnostics.map((d) => d.code)).toEqual(["untrusted-setting"]);
		const added = layout({ ...user({ childExtensions: { exclude: ["x"] } }), ...projectSettings('{"childExtensions": {"exclude": ["x", "y"]}}') }).load();
		expect(added.settings.childExtensions.exclude).toEqual(["x", "y"]);
		expect(added.diagnostics).toEqual([]);
	});

	it("lets a trusted project replace the list, like any array", () => {
		const r = layout({ ...user({ childExtensions: { exclude: ["x"] } }), ...projectSettings('{"childExtensions": {"exclude": []}}') }).load({ projectTrusted: true });
		expect(r.settings.childExtensions.exclude).toEqual([]);
		expect(r.diagnostics).toEqual([]);
	});
});

describe("toggle (false narrows, true widens)", () => {
	it("does not let an untrusted project re-enable a type the user's settings disable", () => {
		const r = layout({ ...user({ toggle: { plan: false } }), ...projectSettings('{\n  "toggle": {"Plan": true, "explore": false}\n}\n') }).load();
		expect(r.settings.toggle.plan?.value).toBe(false);
		expect(r.settings.toggle.explore?.value).toBe(false);
		expect(where(r)).toEqual([".pi/subagents.json:2:14 untrusted-setting"]);
	});

	it("honours an untrusted project's toggle when the user's settings disable nothing, and a trusted project's always", () => {
		expect(layout(projectSettings('{"toggle": {"plan": true}}')).load().settings.toggle.plan?.value).toBe(true);
		const trusted = layout({ ...user({ toggle: { plan: false } }), ...projectSettings('{"toggle": {"plan": true}}') }).load({ projectTrusted: true });
		expect(trusted.settings.toggle.plan?.value).toBe(true);
		expect(trusted.diagnostics).toEqual([]);
	});
});

describe("worktree.baseDir (widens: where cadre writes)", () => {
	it("is ignored from an untrusted project, honoured from the user or a trusted project", () => {
		const files = { ...user({ worktree: { baseDir: "/user-wt" } }), ...projectSettings('{"worktree": {"baseDir": "/tmp/elsewhere"}}') };
		const untrusted = layout(files).load();
		expect(untrusted.settings.worktree.baseDir).toBe("/user-wt");
		expect(untrusted.diagnostics.map((d) => d.code)).toEqual(["untrusted-setting"]);
		expect(layout(files).load({ projectTrusted: true }).settings.worktree.baseDir).toBe("/tmp/elsewhere");
	});
});

describe("settings that neither narrow nor widen access", () => {
	it("are honoured from an untrusted project without a diagnostic", () => {
		const r = layout({
			...user({ maxConcurrent: 2, defaultMaxTurns: 10, models: { plan: "u/m" }, thinking: { plan: "low" }, maxResultChars: 100, strict: true }),
			"project/.pi/agents/scout.md": "Scout.\n",
			...projectSettings(
				JSON.stringify({
					maxConcurrent: 8,
					defaultMaxTurns: 20,
					defaultBackground: true,
					models: { plan: "p/m" },
					thinking: { plan: "high" },
					maxResultChars: 200,
					strict: false,
					roles: { scout: { description: "Project role" } },
					personas: { terse: { instructions: "Be terse." } },
				}),
			),
		}).load();
		expect(r.diagnostics).toEqual([]);
		const s = r.settings;
		expect([s.maxConcurrent.value, s.defaultMaxTurns?.value, s.defaultBackground?.value, s.models.plan?.value, s.thinking.plan?.value, s.maxResultChars, s.strict]).toEqual([
			8,
			20,
			true,
			"p/m",
			"high",
			200,
			false,
		]);
		expect(r.roles.get("scout")?.scope).toBe("project-inline");
		expect(r.personas.get("terse")?.scope).toBe("project-inline");
	});
});
