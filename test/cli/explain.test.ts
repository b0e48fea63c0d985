/**
 * `cadre explain` in-process through the CLI entry (`main`): the JSON schema, the human table and
 * its diagnostics section, exit codes, request flags and parent facts, worktree feasibility.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_FIELDS } from "../../src/resolve/order.ts";
import { cadreInTree, cliTree, testModels } from "../support/cli.ts";

const tree = (files: Record<string, string> = {}) => cliTree("explain-", testModels(), files);
const cadre = cadreInTree;

const scout = "---\ndescription: Scout\nmodel: test/model-a\nthinking: low\n---\nScout the code.\n";

describe("cadre explain --json", () => {
	it("prints exactly type, refused, config, trace, diagnostics and sandbox, with one trace entry per config field", async () => {
		const root = tree({ "project/.pi/agents/scout.md": scout });
		const { code, out } = await cadre(root, ["explain", "scout", "--parent-model", "test/parent-model", "--json"]);
		expect(code).toBe(0);
		const json = JSON.parse(out);
		expect(Object.keys(json)).toEqual(["type", "refused", "config", "trace", "diagnostics", "sandbox"]);
		expect(Object.keys(json.config)).toEqual([...CONFIG_FIELDS]);
		expect(Object.keys(json.trace)).toEqual([...CONFIG_FIELDS]);
		expect(json.trace.model).toMatchObject({ value: "test/model-a", layer: "definition", source: ".pi/agents/scout.md:3" });
		expect(json.trace.reasoningEffort).toMatchObject({ value: "low", applied: "low" });
		expect(json.config.definition).toEqual({ name: "scout", source: ".pi/agents/scout.md" });
	});

	it("exits 1 with config null and an empty trace for an unknown type", async () => {
		const { code, out } = await cadre(tree(), ["explain", "nope", "--parent-model", "test/parent-model", "--json"]);
		expect(code).toBe(1);
		expect(JSON.parse(out)).toMatchObject({ type: "nope", refused: { code: "unknown-type" }, config: null, trace: {} });
	});

	it("lets a flag override the same key of --request and turns --max-turns into a number", async () => {
		const { out } = await cadre(tree(), [
			"explain",
			"general-purpose",
			"--request",
			'{"model": "test/model-a", "thinking": "high"}',
			"--model",
			"test/model-b",
			"--max-turns",
			"7",
			"--parent-model",
			"test/parent-model",
			"--json",
		]);
		const json = JSON.parse(out);
		expect(json.config).toMatchObject({ model: "test/model-b", reasoningEffort: "high", maxTurns: 7 });
	});

	it.each([
		['{"subagent_type": "explore"}', "subagent_type"],
		['{"resume": "abc"}', "resume"],
		["[1, 2]", "JSON object"],
		["{not json", "not valid JSON"],
		['{"modle": "test/model-b"}', "did you mean model?"],
		['{"maxTurns": 3}', "did you mean max_turns?"],
	])("treats --request %s as a usage error", async (request, message) => {
		const { code, err } = await cadre(tree(), ["explain", "general-purpose", "--request", request, "--json"]);
		expect(code).toBe(2);
		expect(err).toContain(message);
	});

	it("takes the parent's model and thinking from pi's settings.json by default", async () => {
		const root = tree({ "agent/settings.json": JSON.stringify({ defaultProvider: "test", defaultModel: "model-b", defaultThinkingLevel: "minimal" }) });
		const json = JSON.parse((await cadre(root, ["explain", "general-purpose", "--json"])).out);
		expect(json.config).toMatchObject({ model: "test/model-b", reasoningEffort: "minimal" });
		expect(json.trace.model.layer).toBe("parent");
	});

	it("uses --parent-thinking and --parent-tools", async () => {
		const json = JSON.parse(
			(await cadre(tree(), ["explain", "general-purpose", "--parent-model", "test/parent-model", "--parent-thinking", "xhigh", "--parent-tools", "read,grep", "--json"])).out,
		);
		expect(json.config).toMatchObject({ reasoningEffort: "xhigh", tools: ["read", "grep"] });
	});

	it("warns worktree-unavailable outside a git repository, never refusing", async () => {
		const files = { "project/.pi/agents/scout.md": scout, "project/.pi/roles/scout.md": "---\nisolation: worktree\n---\n" };
		const outside = JSON.parse((await cadre(tree(files), ["explain", "scout", "--json"])).out);
		expect(outside.refused).toBeNull();
		expect(outside.diagnostics.map((d: { code: string }) => d.code)).toContain("worktree-unavailable");
		const repo = tree(files);
		mkdirSync(join(repo, ".git"));
		const inside = JSON.parse((await cadre(repo, ["explain", "scout", "--json"])).out);
		expect(inside.diagnostics.map((d: { code: string }) => d.code)).not.toContain("worktree-unavailable");
	});
});

describe("cadre explain (human)", () => {
	it("prints a table of field, value, from and what it beat", async () => {
		const root = tree({ "project/.pi/agents/scout.md": scout });
		const { code, out } = await cadre(root, ["explain", "scout", "--thinking", "high", "--parent-model", "test/parent-model"]);
		expect(code).toBe(0);
		const lines = out.split("\n");
		expect(lines[0]).toBe("scout: would spawn");
		expect(lines.find((line) => line.startsWith("field"))).toMatch(/^field\s+value\s+from\s+beat$/);
		const thinking = lines.find((line) => line.startsWith("reasoningEffort")) ?? "";
		expect(thinking).toMatch(/reasoningEffort\s+high\s+request\s+definition low \.pi\/agents\/scout\.md:4; parent medium/);
		expect(lines.find((line) => line.startsWith("model "))).toMatch(/test\/model-a\s+definition \.pi\/agents\/scout\.md:3\s+parent test\/parent-model/);
	});

	it("shows the diagnostics of the files involved and counts the rest", async () => {
		const root = tree({
			"project/.pi/agents/scout.md": "---\ndescription: Scout\nmodel: test/model-a\nmax_turn: 3\n---\nScout.\n",
			"project/.pi/agents/other.md": "---\ndescription: Other\ncolour: red\n---\nOther.\n",
			"project/.pi/agents/third.md": "---\ndescription: Third\nshape: round\n---\nThird.\n",
		});
		const { out } = await cadre(root, ["explain", "scout", "--parent-model", "test/parent-model"]);
		expect(out).toMatch(/\.pi\/agents\/scout\.md:4:\d+ (warning|error) unknown-key/);
		expect(out).not.toContain("other.md");
		expect(out).toContain("2 more — run `cadre check`");
	});

	it("states the refusal and exits 1", async () => {
		const { code, out } = await cadre(tree(), ["explain", "general-purpose", "--persona", "ghost", "--parent-model", "test/parent-model"]);
		expect(code).toBe(1);
		expect(out.split("\n")[0]).toMatch(/^general-purpose: refused: persona-error — persona "ghost"/);
		expect(out).toMatch(/personaError\s+persona "ghost"/);
	});
});

describe("colour", () => {
	it.each(["explain", "prompt"])("%s colours only on a terminal, and never with NO_COLOR (like list and check)", async (command) => {
		const args = [command, "general-purpose", "--persona", "ghost", "--parent-model", "test/model-a"];
		const tty = await cadre(tree(), args, { isTty: true });
		expect(tty.out).toContain("\x1b[");
		const noColor = await cadre(tree(), args, { isTty: true, env: { NO_COLOR: "1" } });
		expect(noColor.code).toBe(1);
		expect(noColor.out).not.toContain("\x1b[");
		const flag = await cadre(tree(), [...args, "--no-color"], { isTty: true });
		expect(flag.code).toBe(1);
		expect(flag.out).not.toContain("\x1b[");
	});
});

describe("sources of inline settings entries", () => {
	it("gives derived role and persona fields settings:<path>:<line>, like every other settings value", async () => {
		const settings = '{\n  "roles": {\n    "general-purpose": { "prompt_file": "role.md" }\n  },\n  "personas": {\n    "terse": { "instructions_file": "terse.md" }\n  }\n}\n';
		const root = tree({ "project/.pi/subagents.json": settings, "project/role.md": "Role text.", "project/terse.md": "Be terse." });
		const { code, out } = await cadre(root, ["explain", "general-purpose", "--persona", "terse", "--parent-model", "test/model-a", "--json"]);
		expect(code).toBe(0);
		const trace = JSON.parse(out).trace;
		expect(trace.roleName).toMatchObject({ layer: "role", source: "settings:.pi/subagents.json:3" });
		expect(trace.rolePrompt).toMatchObject({ value: "Role text.", layer: "role", source: "settings:.pi/subagents.json:3" });
		expect(trace.personaInstructions).toMatchObject({ value: "Be terse.", layer: "persona", source: "settings:.pi/subagents.json:6" });
	});
});

describe("the input check (issue 13)", () => {
	const reviewer =
		"---\ndescription: Reviewer\ninputs:\n  - name: target\n    io_type: file\n    required: true\n    description: the file to review\n  - name: depth\n    io_type: json\n---\nReview.\n";
	const files = { "project/.pi/personas/reviewer.md": reviewer, "project/src/a.ts": "export {};\n" };

	it("shows each input with its type, whether it is required and the outcome, then the did-you-mean warning", async () => {
		const request = JSON.stringify({ persona: "reviewer", inputs: { target: "src/a.ts", dpeth: 2 } });
		const { code, out } = await cadre(tree(files), ["explain", "general-purpose", "--request", request, "--parent-model", "test/model-a"]);
		expect(code).toBe(0);
		expect(out).toMatch(/inputs\s+target ok, depth not-given, dpeth undeclared\s+request/);
		expect(out).toMatch(/inputs:\n {2}target +file +required +ok: src\/a\.ts\n {2}depth +json +optional +not-given\n {2}dpeth +— +optional +undeclared: it declares target, depth — did you mean depth\?/);
		expect(out).toMatch(/warning input-unknown request input "dpeth" is not an input of persona "reviewer" \(\.pi\/personas\/reviewer\.md:\d+:\d+\)/);
	});

	it("a missing required input is the refusal, with the input's description", async () => {
		const request = JSON.stringify({ persona: "reviewer", inputs: {} });
		const { code, out } = await cadre(tree(files), ["explain", "general-purpose", "--request", request, "--parent-model", "test/model-a"]);
		expect(code).toBe(1);
		// Positioned at the persona's inputs key (issue 19).
		expect(out.split("\n")[0]).toMatch(/^general-purpose: refused: input-missing — input "target" \(file, required\) of persona "reviewer" \(\.pi\/personas\/reviewer\.md:\d+:\d+\) is missing: the file to review/);
		expect(out).toMatch(/\.pi\/personas\/reviewer\.md:\d+:\d+ error input-missing/);
		expect(out).toMatch(/target +file +required +missing: required, not given/);
	});
});
