/**
 * The child's prompt in its one shape (spec 03): section order and content, the section table,
 * optional blocks, the worktree sentence, relocated-child project context, the generic identity,
 * and the shared-prefix property that siblings of one parent share sections 1–2 byte for byte.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { assemblePrompt, sharedBoundary } from "../../src/prompt/assemble.ts";
import { GENERIC_IDENTITY, cutIdentityFromText } from "../../src/prompt/identity-cut.ts";
import { renderProjectContext } from "../../src/prompt/project-context.ts";
import type { AssembledPrompt, ParentPrompt, PromptInput } from "../../src/prompt/types.ts";
import type { EffectiveConfig } from "../../src/resolve/types.ts";
import { PROJECT, config, loadFixture } from "./support.ts";

const skills = loadFixture("skills");
const textParent: ParentPrompt = { kind: "text", text: skills.text, source: null };

function input(overrides: Partial<PromptInput> = {}, cfg: Partial<EffectiveConfig> = {}): PromptInput {
	return {
		parent: textParent,
		parentCwd: PROJECT,
		childCwd: PROJECT,
		config: config(cfg),
		type: "general-purpose",
		environment: { platform: "linux", gitBranch: "main" },
		worktreeParentDir: null,
		toolGuidance: [],
		projectContext: null,
		...overrides,
	};
}

function sectionText(prompt: AssembledPrompt, name: string): string | undefined {
	const s = prompt.sections.find((x) => x.name === name);
	if (!s) return undefined;
	return Buffer.from(prompt.text, "utf8").subarray(s.offset, s.offset + s.bytes).toString("utf8");
}

describe("assemblePrompt", () => {
	it("writes the sections in spec order, each a blank line apart, with a table that matches the text", () => {
		const prompt = assemblePrompt(
			input(
				{ type: "reviewer", toolGuidance: ["Your tools:", "- read: Read file contents"] },
				{ standingInstructions: "Review the diff.", rolePrompt: "Be strict.", persona: "Grace", personaInstructions: "Speak plainly." },
			),
		);
		expect(prompt.sections.map((s) => s.name)).toEqual(["identity", "header", "standing-instructions", "role", "persona"]);
		const bytes = Buffer.from(prompt.text, "utf8");
		let expectedOffset = 0;
		for (const s of prompt.sections) {
			expect(s.offset).toBe(expectedOffset);
			const text = bytes.subarray(s.offset, s.offset + s.bytes).toString("utf8");
			expect(s.sha256).toBe(createHash("sha256").update(text).digest("hex"));
			expectedOffset = s.offset + s.bytes + 2;
		}
		expect(expectedOffset - 2).toBe(bytes.length);
		expect(sectionText(prompt, "identity")).toBe(cutIdentityFromText(skills.text, true, null).text);
		expect(sectionText(prompt, "header")).toBe(
			[
				'<active_agent name="reviewer"/>',
				"",
				"<environment>\nWorking directory: /work/project\nGit branch: main\nPlatform: linux\n</environment>",
				"",
				"Your tools:\n- read: Read file contents",
			].join("\n"),
		);
		expect(sectionText(prompt, "standing-instructions")).toBe("<agent_instructions>\nReview the diff.\n</agent_instructions>");
		expect(sectionText(prompt, "role")).toBe("<role_instructions>\nBe strict.\n</role_instructions>");
		expect(sectionText(prompt, "persona")).toBe('<persona name="Grace">\nSpeak plainly.\n</persona>');
	});

	it("counts offsets and lengths in UTF-8 bytes", () => {
		const prompt = assemblePrompt(input({}, { standingInstructions: "Größe prüfen — ✓" }));
		const s = prompt.sections.find((x) => x.name === "standing-instructions");
		expect(s?.bytes).toBe(Buffer.byteLength("<agent_instructions>\nGröße prüfen — ✓\n</agent_instructions>"));
		expect((s?.offset ?? 0) + (s?.bytes ?? 0)).toBe(Buffer.byteLength(prompt.text));
	});

	it("writes no instructions block for an empty or blank body", () => {
		for (const body of [null, "", "  \n\t "]) {
			const prompt = assemblePrompt(input({}, { standingInstructions: body }));
			expect(prompt.sections.map((s) => s.name)).toEqual(["identity", "header"]);
			expect(prompt.text).not.toContain("<agent_instructions>");
		}
	});

	it("writes no persona block when the persona failed to load, and no role block for an empty role", () => {
		const prompt = assemblePrompt(
			input({}, { persona: "ghost", personaInstructions: null, personaError: "persona ghost not found", rolePrompt: "" }),
		);
		expect(prompt.sections.map((s) => s.name)).toEqual(["identity", "header"]);
		expect(prompt.text).not.toContain("<persona");
		expect(prompt.text).not.toContain("<role_instructions>");
	});

	it("escapes the type and persona names in attributes", () => {
		const prompt = assemblePrompt(input({ type: 'a"b' }, { persona: "x<y", personaInstructions: "Hi." }));
		expect(prompt.text).toContain('<active_agent name="a&quot;b"/>');
		expect(prompt.text).toContain('<persona name="x&lt;y">');
	});

	it("says 'not a git repository' outside one", () => {
		const prompt = assemblePrompt(input({ environment: { platform: "darwin", gitBranch: null } }));
		expect(sectionText(prompt, "header")).toContain("Git: not a git repository\nPlatform: darwin");
	});

	it("tells a worktree child to stay in its directory, and gives it the project context of its own cwd", () => {
		const worktree = "/work/project/.cadre/worktrees/r1";
		const projectContext = renderProjectContext([{ path: `${worktree}/AGENTS.md`, content: "# Worktree rules" }]);
		const prompt = assemblePrompt(input({ childCwd: worktree, worktreeParentDir: PROJECT, projectContext }, { isolation: "worktree" }));
		expect(prompt.sections.map((s) => s.name)).toEqual(["identity", "project-context", "header"]);
		expect(sectionText(prompt, "identity")).toBe(cutIdentityFromText(skills.text, false, null).text);
		expect(sectionText(prompt, "identity")).not.toContain("<project_context>");
		expect(sectionText(prompt, "project-context")).toBe(
			'<project_context>\nProject-specific instructions and guidelines:\n\n<project_instructions path="/work/project/.cadre/worktrees/r1/AGENTS.md">\n# Worktree rules\n</project_instructions>\n</project_context>',
		);
		expect(sectionText(prompt, "header")).toContain(`Working directory: ${worktree}`);
		expect(sectionText(prompt, "header")).toContain(`Work only inside this directory, never in ${PROJECT}.`);
	});

	it("writes no worktree sentence for a child in the parent's tree", () => {
		expect(assemblePrompt(input()).text).not.toContain("Work only inside");
	});

	it("ignores the relocated project context for a child in the parent's cwd (it inherits the parent's)", () => {
		const projectContext = renderProjectContext([{ path: "/elsewhere/AGENTS.md", content: "nope" }]);
		const prompt = assemblePrompt(input({ projectContext }));
		expect(prompt.text).not.toContain("nope");
		expect(prompt.text).toContain("Use pnpm.");
	});

	it("uses the generic identity without a parent prompt, plus the child's project context", () => {
		const projectContext = renderProjectContext([{ path: "/work/project/AGENTS.md", content: "Use pnpm." }]);
		const prompt = assemblePrompt(input({ parent: { kind: "none" }, projectContext }));
		expect(sectionText(prompt, "identity")).toBe(GENERIC_IDENTITY);
		expect(prompt.sections.map((s) => s.name)).toEqual(["identity", "project-context", "header"]);
		expect(prompt.diagnostics).toEqual([]);
	});

	it("passes on the identity-unrecognized diagnostic", () => {
		const prompt = assemblePrompt(input({ parent: { kind: "text", text: "Odd prompt.", source: "p.txt" } }));
		expect(prompt.diagnostics.map((d) => d.code)).toEqual(["identity-unrecognized"]);
		expect(sectionText(prompt, "identity")).toBe("Odd prompt.");
	});

	it("gives the same prompt from pi's options and from pi's text", () => {
		const a = assemblePrompt(input({ parent: { kind: "options", options: skills.options } }, { standingInstructions: "x" }));
		const b = assemblePrompt(input({}, { standingInstructions: "x" }));
		expect(a.text).toBe(b.text);
	});
});

describe("contract sections (issue 13)", () => {
	const persona = { persona: "grace", personaInstructions: "Speak plainly." };
	const outputs: EffectiveConfig["outputs"] = [
		{ name: "report", io_type: "text", required: true, description: "findings, most severe first.", path: null },
		{ name: "patch", io_type: "file", required: false, description: null, path: "out/patch.diff" },
	];
	const inputs = (text: string): EffectiveConfig["inputs"] => [
		{ name: "target", ioType: "file", required: true, description: 'the "file"', status: "ok", text, note: null },
		{ name: "depth", ioType: "json", required: false, description: null, status: "not-given", text: null, note: null },
		{ name: "extra", ioType: null, required: false, description: null, status: "undeclared", text: "a </input> b", note: "x" },
	];

	it("writes <outputs> then <inputs> after the persona: what cadre checks, how each output is named, the passed inputs", () => {
		const prompt = assemblePrompt(input({}, { ...persona, outputs, outputSchema: { type: "object" }, inputs: inputs("src/a.ts") }));
		expect(prompt.sections.map((s) => s.name)).toEqual(["identity", "header", "persona", "outputs", "inputs"]);
		expect(sectionText(prompt, "outputs")).toBe(
			[
				"<outputs>",
				"cadre checks these outputs when you finish and tells the parent which are missing.",
				'- report (text, required): findings, most severe first. Put it in your final answer as <output name="report">…</output>.',
				"- patch (file). Write it to out/patch.diff, relative to your working directory.",
				"- structured (result, required). Call submit_result with it: its parameters are the result's JSON Schema. When it answers with validation errors, fix them and call it again; a valid call ends your run.",
				"</outputs>",
			].join("\n"),
		);
		expect(sectionText(prompt, "inputs")).toBe(
			[
				"<inputs>",
				"The parent passed these inputs; paths are relative to your working directory.",
				'<input name="target" type="file" description="the &quot;file&quot;">src/a.ts</input>',
				'<input name="extra">a &lt;/input> b</input>',
				"</inputs>",
			].join("\n"),
		);
	});

	it("siblings that differ only in their inputs share every byte before the inputs section; without a contract there is none", () => {
		const a = assemblePrompt(input({}, { ...persona, outputs, inputs: inputs("src/a.ts") }));
		const b = assemblePrompt(input({}, { ...persona, outputs, inputs: inputs("src/b.ts") }));
		const start = a.sections.find((s) => s.name === "inputs")?.offset ?? 0;
		expect(start).toBeGreaterThan(0);
		expect(a.text.slice(0, start)).toBe(b.text.slice(0, start));
		const plain = assemblePrompt(input({}, persona));
		expect(plain.sections.map((s) => s.name)).toEqual(["identity", "header", "persona"]);
		expect(a.text.startsWith(plain.text)).toBe(true);
	});
});

describe("shared prefix between siblings", () => {
	const variants: Array<{ type: string; cfg: Partial<EffectiveConfig>; guidance: string[] }> = [];
	const types = ["general-purpose", "explore", "Plan", "reviewer"];
	const personas: Array<[string | null, string | null]> = [
		[null, null],
		["grace", "Speak like Grace Hopper."],
		["ada", "Speak like Ada."],
	];
	const roles = [null, "", "Only read.", "Write tests first."];
	const bodies = [null, "Explore the code.", "Plan the change.\n\nStep by step."];
	const tools = [["read", "bash"], ["read", "grep", "find", "ls"], [], ["read", "bash", "edit", "write"]];
	const models = ["test/model-a", "test/model-b", null];
	let i = 0;
	for (const type of types)
		for (const [persona, personaInstructions] of personas)
			for (const rolePrompt of roles) {
				const body = bodies[i % bodies.length] as string | null;
				const toolList = tools[i % tools.length] as string[];
				variants.push({
					type,
					cfg: { persona, personaInstructions, rolePrompt, standingInstructions: body, tools: toolList, model: models[i % models.length] ?? null },
					guidance: toolList.map((t) => `- ${t}`),
				});
				i++;
			}

	// Contracts vary per spawn too (issue 13): outputs, a structured result, inputs.
	const report = { name: "report", io_type: "text" as const, required: true, description: "findings", path: null };
	const target = { name: "target", ioType: "file" as const, required: true, description: null, status: "ok" as const, note: null };
	variants.push(
		{ type: "reviewer", cfg: { persona: "grace", personaInstructions: "Speak like Grace Hopper.", outputs: [report], inputs: [{ ...target, text: "src/a.ts" }] }, guidance: [] },
		{ type: "reviewer", cfg: { persona: "grace", personaInstructions: "Speak like Grace Hopper.", outputs: [report], inputs: [{ ...target, text: "src/b.ts" }] }, guidance: [] },
		{ type: "reviewer", cfg: { outputSchema: { type: "object" } }, guidance: [] },
	);

	function firstDifference(a: string, b: string): number {
		const x = Buffer.from(a, "utf8");
		const y = Buffer.from(b, "utf8");
		let k = 0;
		while (k < x.length && k < y.length && x[k] === y[k]) k++;
		return k;
	}

	for (const [label, parent, childCwd, projectContext] of [
		["text parent, same cwd", textParent, PROJECT, null],
		["structured parent, same cwd", { kind: "options", options: skills.options }, PROJECT, null],
		["no parent", { kind: "none" }, PROJECT, renderProjectContext([{ path: "/work/project/AGENTS.md", content: "Use pnpm." }])],
		["relocated children", textParent, "/work/project/packages/api", renderProjectContext([{ path: "/work/project/packages/api/AGENTS.md", content: "API rules." }])],
	] as Array<[string, ParentPrompt, string, string | null]>) {
		it(`${label}: varying text never starts before the end of section 2 (${variants.length} variants)`, () => {
			const prompts = variants.map((v) =>
				assemblePrompt(input({ parent, childCwd, projectContext, type: v.type, toolGuidance: v.guidance }, v.cfg)),
			);
			const boundary = sharedBoundary(prompts[0] as AssembledPrompt);
			expect(boundary).toBeGreaterThan(0);
			for (let a = 0; a < prompts.length; a++) {
				const pa = prompts[a] as AssembledPrompt;
				expect(sharedBoundary(pa)).toBe(boundary);
				for (let b = a + 1; b < prompts.length; b++) {
					const pb = prompts[b] as AssembledPrompt;
					if (pa.text === pb.text) continue;
					expect(firstDifference(pa.text, pb.text)).toBeGreaterThanOrEqual(boundary);
				}
			}
			// and the shared sections carry identical hashes
			const hashes = new Set(prompts.map((p) => p.sections.filter((s) => s.name === "identity" || s.name === "project-context").map((s) => s.sha256).join()));
			expect(hashes.size).toBe(1);
		});
	}

	it("children in different cwds share section 1", () => {
		const a = assemblePrompt(input({ type: "explore" }));
		const b = assemblePrompt(
			input({ type: "reviewer", childCwd: "/work/wt", worktreeParentDir: PROJECT, projectContext: renderProjectContext([{ path: "/work/wt/AGENTS.md", content: "wt" }]) }),
		);
		const identity = (p: AssembledPrompt) => p.sections.find((s) => s.name === "identity")?.sha256;
		expect(identity(a)).not.toBeUndefined();
		// the same-cwd child keeps project_context inside its identity; the relocated one does not
		const c = assemblePrompt(input({ type: "x", childCwd: "/work/other", projectContext: null }));
		expect(identity(b)).toBe(identity(c));
	});
});
