/**
 * `cadre prompt` through the real bin: the JSON schema of spec 06, the human text and section
 * table, the identity cut from `--parent-prompt`, relocated and worktree children, the
 * environment block, refusals (exit 1) and an unreadable parent prompt (exit 2).
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cutIdentityFromText } from "../../src/prompt/identity-cut.ts";
import { GENERIC_IDENTITY } from "../../src/prompt/identity-cut.ts";
import { REPO_ROOT, runCli, runCliJson } from "../support/cli.ts";

interface PromptJson {
	text: string | null;
	sections: { name: string; offset: number; bytes: number; sha256: string }[];
	diagnostics: { code: string; severity: string; file: string | null; line: number | null }[];
	refused: { code: string; message: string } | null;
}

const MODELS = JSON.stringify({
	providers: {
		test: {
			baseUrl: "http://127.0.0.1:9/v1",
			api: "openai-completions",
			apiKey: "none",
			models: [{ id: "model-a", reasoning: true }],
		},
	},
});

function project(files: Record<string, string> = {}, git = true): { root: string; dir: string; env: Record<string, string> } {
	const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-prompt-cli-"));
	const dir = join(root, "project");
	mkdirSync(dir, { recursive: true });
	if (git) {
		mkdirSync(join(dir, ".git"), { recursive: true });
		writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
	}
	for (const [path, text] of Object.entries({ "agent/models.json": MODELS, ...files })) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
	mkdirSync(join(root, "home"), { recursive: true });
	return { root, dir, env: { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") } };
}

function section(json: PromptJson, name: string): string | undefined {
	const s = json.sections.find((x) => x.name === name);
	return s && json.text !== null ? Buffer.from(json.text).subarray(s.offset, s.offset + s.bytes).toString() : undefined;
}

const FIXTURE = join(REPO_ROOT, "test", "fixtures", "prompts", "agents-md", "prompt.txt");
const base = (dir: string) => ["--cwd", dir, "--parent-model", "test/model-a"];

describe("cadre prompt --json", () => {
	it("prints text, sections and diagnostics as spec 06 describes, with a consistent section table", () => {
		const p = project({ "project/AGENTS.md": "# Rules\n\nUse pnpm." });
		const run = runCliJson<PromptJson>(["prompt", "explore", ...base(p.dir)], { env: p.env });
		expect(run.code).toBe(0);
		expect(Object.keys(run.json).sort()).toEqual(["diagnostics", "refused", "sections", "text"]);
		expect(run.json.refused).toBeNull();
		expect(run.json.sections.map((s) => s.name)).toEqual(["identity", "project-context", "header", "standing-instructions"]);
		for (const s of run.json.sections) {
			const text = section(run.json, s.name) as string;
			expect(createHash("sha256").update(text).digest("hex")).toBe(s.sha256);
		}
		expect(section(run.json, "identity")).toBe(GENERIC_IDENTITY);
		expect(section(run.json, "project-context")).toContain(`<project_instructions path="${join(p.dir, "AGENTS.md")}">\n# Rules\n\nUse pnpm.`);
		const header = section(run.json, "header") as string;
		expect(header.startsWith('<active_agent name="explore"/>')).toBe(true);
		expect(header).toContain(`Working directory: ${p.dir}\nGit branch: main\nPlatform: ${process.platform}`);
		expect(header).toContain("- read: Read file contents");
		expect(header).not.toContain("- write:");
		expect(section(run.json, "standing-instructions")?.startsWith("<agent_instructions>\n")).toBe(true);
	});

	it("cuts the identity from --parent-prompt and keeps the parent's project context for a same-cwd child", () => {
		const p = project();
		const run = runCliJson<PromptJson>(["prompt", "general-purpose", ...base(p.dir), "--parent-prompt", FIXTURE], { env: p.env });
		expect(run.code).toBe(0);
		const parent = readFileSync(FIXTURE, "utf8");
		expect(section(run.json, "identity")).toBe(cutIdentityFromText(parent, true, null).text);
		expect(run.json.sections.map((s) => s.name)).not.toContain("project-context");
		expect(run.json.diagnostics).toEqual([]);
	});

	it("gives a relocated child its own directory's project context after the parent's identity", () => {
		const p = project({ "project/packages/api/AGENTS.md": "API rules." });
		const run = runCliJson<PromptJson>(
			["prompt", "general-purpose", ...base(p.dir), "--parent-prompt", FIXTURE, "--cwd-request", "packages/api"],
			{ env: p.env },
		);
		expect(run.code).toBe(0);
		const parent = readFileSync(FIXTURE, "utf8");
		expect(section(run.json, "identity")).toBe(cutIdentityFromText(parent, false, null).text);
		expect(section(run.json, "project-context")).toContain("API rules.");
		expect(section(run.json, "header")).toContain(`Working directory: ${join(p.dir, "packages/api")}`);
	});

	it("previews a worktree child: its future directory, branch, and the sentence keeping it out of the parent's", () => {
		const p = project({ "project/AGENTS.md": "Repo rules." });
		const run = runCliJson<PromptJson>(["prompt", "general-purpose", ...base(p.dir), "--isolation", "worktree"], { env: p.env });
		expect(run.code).toBe(0);
		const header = section(run.json, "header") as string;
		expect(header).toMatch(/Working directory: .*<run-id>/);
		expect(header).toContain("Git branch: cadre/<run-id>");
		expect(header).toContain(`Work only inside this directory, never in ${p.dir}.`);
		expect(section(run.json, "project-context")).toMatch(/<project_instructions path=".*<run-id>\/AGENTS.md">\nRepo rules\./);
	});

	it("says 'not a git repository' outside one", () => {
		const p = project({}, false);
		const run = runCliJson<PromptJson>(["prompt", "explore", ...base(p.dir)], { env: p.env });
		expect(section(run.json, "header")).toContain("Git: not a git repository");
	});

	it("reports an unrecognised parent prompt and keeps it whole", () => {
		const p = project();
		const odd = join(p.dir, "odd.txt");
		writeFileSync(odd, "You are the orchestrator.\nDelegate everything.");
		const run = runCliJson<PromptJson>(["prompt", "explore", ...base(p.dir), "--parent-prompt", odd], { env: p.env });
		expect(run.code).toBe(0);
		expect(section(run.json, "identity")).toBe("You are the orchestrator.\nDelegate everything.");
		// No `.pi/` here, so there is no project directory and the file is shown absolute.
		expect(run.json.diagnostics).toEqual([expect.objectContaining({ code: "identity-unrecognized", file: odd, line: 1 })]);
	});

	it("names the --parent-prompt file relative to the project directory, also when --cwd is a subdirectory", () => {
		const p = project({ "project/.pi/agents/.keep": "" });
		const sub = join(p.dir, "packages", "api");
		mkdirSync(sub, { recursive: true });
		const odd = join(sub, "odd.txt");
		writeFileSync(odd, "You are the orchestrator.");
		const run = runCliJson<PromptJson>(["prompt", "explore", ...base(sub), "--parent-prompt", odd], { env: p.env });
		expect(run.code).toBe(0);
		expect(run.json.diagnostics).toEqual([expect.objectContaining({ code: "identity-unrecognized", file: "packages/api/odd.txt" })]);
	});

	it("prints the refusal and exits 1 for an unknown type", () => {
		const p = project();
		const run = runCliJson<PromptJson>(["prompt", "nosuch", ...base(p.dir)], { env: p.env });
		expect(run.code).toBe(1);
		expect(run.json.refused?.code).toBe("unknown-type");
		expect(run.json.text).toBeNull();
		expect(run.json.sections).toEqual([]);
	});
});

describe("cadre prompt (human)", () => {
	it("prints the prompt, then the section table with bytes and sha256", () => {
		const p = project();
		const run = runCli(["prompt", "explore", ...base(p.dir)], { env: p.env });
		expect(run.code).toBe(0);
		const json = runCliJson<PromptJson>(["prompt", "explore", ...base(p.dir)], { env: p.env }).json;
		expect(run.stdout.startsWith(json.text as string)).toBe(true);
		const table = run.stdout.slice((json.text as string).length);
		expect(table).toContain("── sections ──");
		for (const s of json.sections) expect(table).toMatch(new RegExp(`${s.name}\\s+${s.offset}\\s+${s.bytes}\\s+${s.sha256}`));
	});

	it("prints a refusal and exits 1", () => {
		const p = project();
		const run = runCli(["prompt", "explore", ...base(p.dir), "--persona", "ghost"], { env: p.env });
		expect(run.code).toBe(1);
		expect(run.stdout).toContain("refused: persona-error");
	});

	it("exits 2 when --parent-prompt cannot be read", () => {
		const p = project();
		const run = runCli(["prompt", "explore", ...base(p.dir), "--parent-prompt", join(p.dir, "missing.txt")], { env: p.env });
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("--parent-prompt");
	});
});
