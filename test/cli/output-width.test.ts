/**
 * What a person reads fits the terminal (issue 19 item 10, ADR 0108): explain's rows and a refusal
 * wrap to the width; counts say "1 role"; a misspelt type gets a did-you-mean; `--help` lists the
 * exit codes; a run's warnings say "warning" once.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../src/runtime/result.ts";
import { endNotes } from "../../src/hosts/cli/run-session.ts";
import { cadreInTree, cliTree, runCli, testModels } from "../support/cli.ts";

const LONG_TOOLS = Array.from({ length: 40 }, (_, i) => `tool_${i}`).join(", ");
const tree = () =>
	cliTree("width-", testModels(), {
		"agent/subagents.json": JSON.stringify({ toolKinds: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`tool_${i}`, "read"])) }),
		"project/.pi/agents/wide.md": `---\ndescription: Wide\ntools: read, ${LONG_TOOLS}\n---\nWork.\n`,
		"project/.pi/roles/solo.md": "---\ndescription: Solo\n---\nBe brief.\n",
	});

describe("output width", () => {
	it("explain's rows wrap to the terminal's width; without a terminal they stay one line each", async () => {
		const root = tree();
		const wide = await cadreInTree(root, ["explain", "wide", "--parent-model", "test/parent-model"], { isTty: false, env: { COLUMNS: "80" } });
		expect(wide.code, wide.err).toBe(0);
		const lines = wide.out.split("\n");
		expect(lines.filter((line) => line.length > 80)).toEqual([]);
		expect(wide.out).toContain("tool_39");
		const piped = await cadreInTree(root, ["explain", "wide", "--parent-model", "test/parent-model"], { isTty: false, env: { COLUMNS: "" } });
		expect(piped.out.split("\n").some((line) => line.length > 80)).toBe(true);
	});

	it("a refusal is wrapped, not one long line, and a misspelt type gets a did-you-mean", async () => {
		const root = tree();
		const run = await cadreInTree(root, ["explain", "wdie", "--parent-model", "test/parent-model"], { isTty: false, env: { COLUMNS: "60" } });
		expect(run.code).toBe(1);
		const lines = run.out.trimEnd().split("\n");
		expect(lines[0]).toMatch(/^wdie: refused: unknown-type — unknown type "wdie" — did you/);
		expect(lines.filter((line) => line.length > 60)).toEqual([]);
		expect(lines[1]).toMatch(/^ {2}\S/);
	});

	it("counts say 1 role, not 1 roles", () => {
		const root = tree();
		const run = runCli(["check", "--cwd", `${root}/project`], { env: { PI_CODING_AGENT_DIR: `${root}/agent`, HOME: `${root}/home` } });
		expect(run.stdout).toMatch(/\b1 role,/);
		expect(run.stdout).not.toMatch(/\b1 roles\b/);
	});

	it("--help lists the exit codes", () => {
		const run = runCli(["--help"]);
		expect(run.stdout).toMatch(/Exit codes:\n {2}0 +success[^\n]*\n {2}1 +[^\n]*refused[^\n]*\n {2}2 +usage[^\n]*\n {2}130 +interrupted/);
	});

	it("a run's warnings say warning once", () => {
		const notes = endNotes({ warnings: ["warning tool-dropped bash is not among the parent's tools"], isolation: null, persistError: null } as unknown as RunResult);
		expect(notes).toEqual(["cadre: warning tool-dropped bash is not among the parent's tools\n"]);
	});
});
