/**
 * Captures real pi 1.6 system prompts as test fixtures (spec 03 "The identity cut").
 *
 * For each case it builds a throwaway HOME, agent dir and project, writes a tiny extension that
 * registers pi-ai's faux provider and records, on `before_agent_start` (loaded last, so it sees
 * what earlier extensions did), the chained system prompt and the structured prompt options,
 * then runs the real `pi -p hi` offline. The recorded files go to
 * `test/fixtures/prompts/<case>/` with machine-specific paths replaced by stable placeholders:
 *
 * - `prompt.txt`   the parent's system prompt text as pi hands it to extensions
 * - `options.json` the structured options (`event.systemPromptOptions`), skills reduced to plain data
 * - `case.json`    what the case sets up and the placeholder paths, for tests
 *
 * Run with `npm run capture-prompts` after upgrading pi; review the diff before committing.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const piPackage = join(repo, "node_modules", "@earendil-works", "pi-coding-agent");
const piAi = join(repo, "node_modules", "@earendil-works", "pi-ai", "dist", "index.js");
const piBin = join(repo, "node_modules", ".bin", "pi");
const fixturesDir = join(repo, "test", "fixtures", "prompts");

/** Stable stand-ins for the per-run temporary paths, so fixtures are deterministic. */
export const PLACEHOLDERS = {
	project: "/work/project",
	agentDir: "/home/user/.pi/agent",
	home: "/home/user",
	extensions: "/work/extensions",
	piPackage: "/usr/lib/node_modules/@earendil-works/pi-coding-agent",
} as const;

/** One capture: files to write (relative to the case root) and extra pi arguments. */
interface CaptureCase {
	name: string;
	description: string;
	/** Paths relative to the case root: `home/`, `agent/`, `project/`, `extensions/`. */
	files: Record<string, string>;
	args: string[];
}

const QUOTING_AGENTS = `# Tag quoting project

pi's prompt uses whole-line tags. This file quotes them on purpose:

<tools>
- fake: a tool that does not exist
</tools>

<skills>
fake skills catalogue
</skills>

<cwd>
/not/the/real/cwd
</cwd>

<rules>
- not a real rule
</rules>

Keep answers short.`;

const QUOTING_SYSTEM = `You are Ada, the team's release engineer.

pi will append blocks like these after this text; treat them as data:

<skills>
(a catalogue of skills)
</skills>

<cwd>
/somewhere/else
</cwd>

Never push to main.
`;

const SECTION_EXTENSION = `export default function (pi) {
	pi.on("before_agent_start", (event) => {
		event.systemPromptOptions.sections.team_policy = "Open a ticket before touching production.";
	});
}
`;

const APPENDING_EXTENSION = `export default function (pi) {
	pi.on("before_agent_start", (event) => {
		return { systemPrompt: event.systemPrompt + "\\n\\n<orchestration>\\nDelegate with the subagent tool.\\n</orchestration>" };
	});
}
`;

const SKILL = (name: string, description: string) => `---
name: ${name}
description: ${description}
---

# ${name}

Steps for ${name}.
`;

const CASES: CaptureCase[] = [
	{ name: "default", description: "no configuration at all", files: {}, args: [] },
	{
		name: "agents-md",
		description: "a global AGENTS.md in the agent dir and a project AGENTS.md",
		files: {
			"agent/AGENTS.md": "# Global rules\n\nPrefer small commits.",
			"project/AGENTS.md": "# Project rules\n\nRun `npm test` before you finish.",
		},
		args: [],
	},
	{
		name: "skills",
		description: "two global skills and a project AGENTS.md",
		files: {
			"agent/skills/release-notes/SKILL.md": SKILL("release-notes", "Write release notes from the git log."),
			"agent/skills/db-migrate/SKILL.md": SKILL("db-migrate", "Create and check a database migration."),
			"project/AGENTS.md": "# Project rules\n\nUse pnpm.",
		},
		args: [],
	},
	{
		name: "system-md",
		description: "a global SYSTEM.md replacing pi's default preamble, plus a project AGENTS.md",
		files: {
			"agent/SYSTEM.md": "You are Ada, the team's careful release engineer.\n\nNever push to main.",
			"project/AGENTS.md": "# Project rules\n\nUse pnpm.",
		},
		args: [],
	},
	{
		name: "append-file",
		description: "a global APPEND_SYSTEM.md (pi's <addendum>) and a project AGENTS.md",
		files: {
			"agent/APPEND_SYSTEM.md": "Answer in British English.",
			"project/AGENTS.md": "# Project rules\n\nUse pnpm.",
		},
		args: [],
	},
	{
		name: "append-flag",
		description: "two --append-system-prompt flags (pi then ignores APPEND_SYSTEM.md) and a project AGENTS.md",
		files: {
			"agent/APPEND_SYSTEM.md": "Answer in British English.",
			"project/AGENTS.md": "# Project rules\n\nUse pnpm.",
		},
		args: ["--append-system-prompt", "Mention the ticket number in commit messages.", "--append-system-prompt", "Never force-push."],
	},
	{
		name: "system-md-quoting",
		description: "a SYSTEM.md whose own text quotes pi's <skills> and <cwd> blocks, with a skill and a project AGENTS.md",
		files: {
			"agent/SYSTEM.md": QUOTING_SYSTEM,
			"agent/skills/release-notes/SKILL.md": SKILL("release-notes", "Write release notes from the git log."),
			"project/AGENTS.md": "# Project rules\n\nUse pnpm.",
		},
		args: [],
	},
	{
		name: "extension-section",
		description: "an extension that adds a custom section through systemPromptOptions.sections",
		files: {
			"extensions/section.js": SECTION_EXTENSION,
			"project/AGENTS.md": "# Project rules\n\nUse pnpm.",
		},
		args: ["-e", "@extensions/section.js"],
	},
	{
		name: "extension-append",
		description: "an extension that returns a modified system prompt with an extra block appended",
		files: {
			"extensions/append.js": APPENDING_EXTENSION,
			"project/AGENTS.md": "# Project rules\n\nUse pnpm.",
		},
		args: ["-e", "@extensions/append.js"],
	},
	{
		name: "quoting-tags",
		description: "a project AGENTS.md quoting pi's <tools>, <skills>, <cwd> and <rules> lines, with a skill",
		files: {
			"project/AGENTS.md": QUOTING_AGENTS,
			"agent/skills/release-notes/SKILL.md": SKILL("release-notes", "Write release notes from the git log."),
		},
		args: [],
	},
];

/** The recording extension, loaded last. It also registers the faux provider the run uses. */
function captureExtension(outDir: string): string {
	return `import { fauxProvider, fauxAssistantMessage } from ${JSON.stringify(pathToFileURL(piAi).href)};
import { writeFileSync } from "node:fs";

export default function (pi) {
	const faux = fauxProvider();
	faux.setResponses([fauxAssistantMessage("ok")]);
	pi.registerProvider(faux.provider);
	pi.on("before_agent_start", (event, ctx) => {
		const o = event.systemPromptOptions;
		const options = {
			customPrompt: o.customPrompt ?? null,
			forceSystemPrompt: o.forceSystemPrompt ?? null,
			selectedTools: o.selectedTools,
			hiddenTools: o.hiddenTools,
			toolSnippets: o.toolSnippets,
			toolGuidelines: o.toolGuidelines,
			promptGuidelines: o.promptGuidelines,
			appendSystemPrompt: o.appendSystemPrompt,
			sections: o.sections,
			cwd: o.cwd,
			contextFiles: o.contextFiles,
			skills: o.skills.map((s) => ({ name: s.name, description: s.description, filePath: s.filePath, disableModelInvocation: s.disableModelInvocation })),
		};
		writeFileSync(${JSON.stringify(join(outDir, "options.json"))}, JSON.stringify(options, null, "\\t") + "\\n");
		writeFileSync(${JSON.stringify(join(outDir, "prompt.txt"))}, ctx.getSystemPrompt());
	});
}
`;
}

function runCase(c: CaptureCase): void {
	const root = mkdtempSync(join(tmpdir(), "cadre-capture-"));
	try {
		const dirs = {
			home: join(root, "home"),
			agentDir: join(root, "home", ".pi", "agent"),
			project: join(root, "work", "project"),
			extensions: join(root, "work", "extensions"),
			out: join(root, "out"),
		};
		for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
		const mapPath = (rel: string) =>
			rel.startsWith("agent/")
				? join(dirs.agentDir, rel.slice(6))
				: rel.startsWith("project/")
					? join(dirs.project, rel.slice(8))
					: rel.startsWith("extensions/")
						? join(dirs.extensions, rel.slice(11))
						: join(dirs.home, rel.slice(5));
		for (const [rel, text] of Object.entries(c.files)) {
			const path = mapPath(rel);
			mkdirSync(dirname(path), { recursive: true });
			writeFileSync(path, text);
		}
		const capture = join(dirs.extensions, "capture.js");
		writeFileSync(capture, captureExtension(dirs.out));
		const args = c.args.map((a) => (a.startsWith("@") ? mapPath(a.slice(1)) : a));
		const result = spawnSync(
			piBin,
			[...args, "-e", capture, "--model", "faux/faux-1", "--no-session", "--offline", "-p", "hi"],
			{
				cwd: dirs.project,
				encoding: "utf8",
				env: {
					PATH: `${join(repo, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
					HOME: dirs.home,
					PI_CODING_AGENT_DIR: dirs.agentDir,
					TMPDIR: root,
					PI_OFFLINE: "1",
					PI_TELEMETRY: "0",
				},
				timeout: 120_000,
			},
		);
		let prompt: string;
		let options: string;
		try {
			prompt = readFileSync(join(dirs.out, "prompt.txt"), "utf8");
			options = readFileSync(join(dirs.out, "options.json"), "utf8");
		} catch {
			throw new Error(`case ${c.name}: pi exited ${result.status}\n${result.stdout}\n${result.stderr}`);
		}
		const stable = (text: string) =>
			text
				.replaceAll(piPackage, PLACEHOLDERS.piPackage)
				.replaceAll(dirs.agentDir, PLACEHOLDERS.agentDir)
				.replaceAll(dirs.home, PLACEHOLDERS.home)
				.replaceAll(dirs.project, PLACEHOLDERS.project)
				.replaceAll(dirs.extensions, PLACEHOLDERS.extensions);
		const target = join(fixturesDir, c.name);
		rmSync(target, { recursive: true, force: true });
		mkdirSync(target, { recursive: true });
		writeFileSync(join(target, "prompt.txt"), stable(prompt));
		writeFileSync(join(target, "options.json"), stable(options));
		writeFileSync(
			join(target, "case.json"),
			`${JSON.stringify({ name: c.name, description: c.description, files: c.files, args: c.args, cwd: PLACEHOLDERS.project, agentDir: PLACEHOLDERS.agentDir, piVersion: piVersion() }, null, "\t")}\n`,
		);
		process.stdout.write(`captured ${c.name} (${Buffer.byteLength(prompt)} bytes)\n`);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

function piVersion(): string {
	return (JSON.parse(readFileSync(join(piPackage, "package.json"), "utf8")) as { version: string }).version;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
	const only = process.argv.slice(2);
	for (const c of CASES) if (only.length === 0 || only.includes(c.name)) runCase(c);
}
