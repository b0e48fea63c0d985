/**
 * Deeply nested collections (found while fuzzing, test/fuzz): `yaml` composes collections
 * recursively, and a `subagents.json` nested a few thousand levels made V8 abort the whole process
 * ("RegExpCompiler Allocation failed") — `cadre check`, `list` and pi with it. Nesting past
 * MAX_NESTING is refused, positioned, before anything recurses. Run through the real bin, in its
 * own process, because the failure was an abort.
 */
import { describe, expect, it } from "vitest";
import { MAX_NESTING, parseTomlFields, parseYamlMapping } from "../../src/files/raw.ts";
import { runCliJson } from "../support/cli.ts";
import { layout } from "./fixture.ts";

const N = 3000;

describe("deep nesting", () => {
	it("is a positioned parse-error in every syntax, and the process survives it", () => {
		const l = layout({
			"project/.pi/subagents.json": `{"roles": ${'{"a": '.repeat(N)}1${"}".repeat(N)}}`,
			"project/.pi/agents/flow.md": `---\ndescription: Flow\ntools: ${"[".repeat(N)}${"]".repeat(N)}\n---\nFlow.\n`,
			"project/.pi/agents/seq.md": `---\ninputs:\n  ${"- ".repeat(N)}x\n---\nSeq.\n`,
			"project/.pi/roles/plan.toml": `prompt = ${"[".repeat(N)}${"]".repeat(N)}\n`,
			"project/.pi/personas/p.toml": `description = ${"{a = ".repeat(N)}1${"}".repeat(N)}\n`,
		});
		const run = runCliJson<{ diagnostics: { file: string; line: number; column: number; code: string; message: string }[] }>(
			["check", "--cwd", l.project],
			{ env: { PI_CODING_AGENT_DIR: l.agent, HOME: l.home } },
		);
		expect(run.code).toBe(1);
		expect(run.json.diagnostics.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual([
			".pi/agents/flow.md:3 parse-error",
			".pi/agents/seq.md:3 parse-error",
			".pi/personas/p.toml:1 parse-error",
			".pi/roles/plan.toml:1 parse-error",
			".pi/subagents.json:1 parse-error",
		]);
		for (const d of run.json.diagnostics) expect(d.message).toMatch(/nested/);
	});

	it(`allows ${MAX_NESTING} levels and refuses one more`, () => {
		const flow = (n: number) => `a: ${"[".repeat(n)}${"]".repeat(n)}`;
		expect(parseYamlMapping(flow(MAX_NESTING - 1)).ok).toBe(true);
		const refused = parseYamlMapping(flow(MAX_NESTING + 1));
		expect(refused.ok).toBe(false);
		if (!refused.ok) expect(refused.error.message).toContain(`more than ${MAX_NESTING} levels`);
		expect(parseTomlFields(`a = ${"[".repeat(MAX_NESTING - 1)}${"]".repeat(MAX_NESTING - 1)}`).ok).toBe(true);
		expect(parseTomlFields(`a = ${"[".repeat(MAX_NESTING + 1)}${"]".repeat(MAX_NESTING + 1)}`).ok).toBe(false);
	});
});
