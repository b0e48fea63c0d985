/**
 * `cadre prompt TYPE [flags] [--parent-prompt FILE]` (spec 06): resolve the spawn like `explain`,
 * then assemble the child's system prompt (spec 03) and print it with its section table. Without
 * `--parent-prompt` the child gets the generic identity and its cwd's project context; with it, the
 * identity is cut from that text. `--json` prints `{ text, sections, diagnostics, refused }`
 * (docs/cli-prompt.md). A refused resolution prints the refusal and exits 1.
 *
 * What this command fills in that the pi host knows for real: the git branch is read from HEAD; a
 * worktree child's directory is the path its worktree would get, with `<run-id>` standing in for
 * the id, on branch `cadre/<run-id>`; tool guidance is pi's, for pi's built-in tools.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve as resolvePath } from "node:path";
import { type Diagnostic, formatDiagnostic } from "../../core/diagnostics.ts";
import { bold, red, safeFields, safeLine, safeText } from "../../core/terminal-text.ts";
import { wrapLine } from "../../core/wrap.ts";
import { displayPath } from "../../files/discovery.ts";
import { assemblePrompt } from "../../prompt/assemble.ts";
import type { ContextFile } from "../../prompt/pi-prompt-shape.ts";
import { renderProjectContext } from "../../prompt/project-context.ts";
import { findContextFiles, readGitBranch } from "../../prompt/project-files.ts";
import { toolGuidanceLines } from "../../prompt/tool-guidance.ts";
import type { AssembledPrompt, ParentPrompt, PromptInput, PromptSection } from "../../prompt/types.ts";
import { resolve } from "../../resolve/resolve.ts";
import type { EffectiveConfig, Refusal, ResolveInput } from "../../resolve/types.ts";
import { builtinToolGuidance } from "../../runtime/pi/tool-guidance.ts";
import { worktreeRepoDir } from "../../isolation/worktree.ts";
import { worktreeFeasibility } from "../../resolve/explain.ts";
import { type CliIo, EXIT_FAILED, EXIT_OK, UsageError } from "./io.ts";
import { useColor } from "./list-command.ts";
import type { RequestFlagOptions } from "./options.ts";
import { buildCliResolveInput, cliDirs } from "./request-context.ts";
import { outWidth } from "./width.ts";

/** Options of `cadre prompt`: the request flags plus the parent's prompt file. */
export interface PromptCommandOptions extends RequestFlagOptions {
	/** A file holding the parent's system prompt text. */
	parentPrompt?: string;
}

/** The `--json` object: spec 06's `{ text, sections, diagnostics }` plus `refused`. */
export interface PromptJson {
	/** cadre's part of the child's prompt; null when the spawn is refused. */
	text: string | null;
	sections: PromptSection[];
	diagnostics: Diagnostic[];
	/** Null, or the refusal (spec 02 codes) when the spawn would be refused. */
	refused: Refusal | null;
}

/** Stands in for the run id in a previewed worktree path and branch. */
export const RUN_ID_PLACEHOLDER = "<run-id>";

function readParentPrompt(file: string, io: CliIo, projectDir: string | null): ParentPrompt {
	const path = resolvePath(io.cwd, file);
	try {
		return { kind: "text", text: readFileSync(path, "utf8"), source: displayPath(path, projectDir) };
	} catch (error) {
		throw new UsageError(`--parent-prompt ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
	}
}

/** Where the child works, and what the header says about it. */
interface ChildPlace {
	childCwd: string;
	gitBranch: string | null;
	worktreeParentDir: string | null;
	contextFiles: ContextFile[];
	/** Context files the reader refused (ADR 0060). */
	problems: Diagnostic[];
}

function childPlace(config: EffectiveConfig, input: ResolveInput, io: CliIo): ChildPlace {
	const { agentDir, homeDir } = cliDirs(io);
	const parentCwd = input.parent.cwd;
	const parentSide = resolvePath(parentCwd, config.cwd);
	const repoRoot = input.parent.repoRoot ?? null;
	const problems: Diagnostic[] = [];
	const found = findContextFiles(parentSide, agentDir, problems, input.loaded.settings.maxFileBytes);
	if (config.isolation !== "worktree" || repoRoot === null) {
		return { childCwd: parentSide, gitBranch: readGitBranch(parentSide), worktreeParentDir: null, contextFiles: found, problems };
	}
	// The worktree does not exist yet: show where it would be, and the context files it would
	// check out (the repository's files for the same directory, moved into the worktree).
	const worktreeRoot = join(worktreeRepoDir(repoRoot, agentDir, input.loaded.settings.worktree.baseDir, homeDir), RUN_ID_PLACEHOLDER);
	const childCwd = join(worktreeRoot, relative(repoRoot, parentSide));
	const contextFiles: ContextFile[] = [];
	for (const file of found) {
		const rel = relative(repoRoot, file.path);
		if (!rel.startsWith("..") && !isAbsolute(rel)) contextFiles.push({ path: join(worktreeRoot, rel), content: file.content });
		else if (file.path.startsWith(resolvePath(agentDir))) contextFiles.push(file);
	}
	return { childCwd, gitBranch: `cadre/${RUN_ID_PLACEHOLDER}`, worktreeParentDir: repoRoot, contextFiles, problems };
}

/** Resolves, then assembles: the object `--json` prints. */
export function buildPrompt(input: ResolveInput, parent: ParentPrompt, io: CliIo): PromptJson {
	const result = resolve(input);
	const feasibility = worktreeFeasibility(result, input);
	const resolution = feasibility ? [...result.diagnostics, feasibility] : result.diagnostics;
	// The prompt does not contain the model: a model pi cannot use here (no credential, no model at
	// all) does not keep it from being shown; the model's diagnostics still are (ADR 0103).
	const refused = result.refused?.code === "model-unresolvable" ? null : result.refused;
	if (refused || result.config === null) {
		return {
			text: null,
			sections: [],
			diagnostics: resolution,
			refused: refused ?? { code: "unknown-type", message: `unknown type ${result.type}` },
		};
	}
	const place = childPlace(result.config, input, io);
	const promptInput: PromptInput = {
		parent,
		parentCwd: input.parent.cwd,
		childCwd: place.childCwd,
		config: result.config,
		type: result.type,
		environment: { platform: process.platform, gitBranch: place.gitBranch },
		worktreeParentDir: place.worktreeParentDir,
		toolGuidance: toolGuidanceLines(result.config.tools, builtinToolGuidance(place.childCwd)),
		projectContext: renderProjectContext(place.contextFiles),
	};
	const assembled: AssembledPrompt = assemblePrompt(promptInput);
	return {
		text: assembled.text,
		sections: assembled.sections,
		diagnostics: [...resolution, ...place.problems, ...assembled.diagnostics],
		refused: null,
	};
}

/** The human form: the prompt text, then the section table, then diagnostics. */
export function renderPrompt(output: PromptJson, type: string, tty: boolean, width: number | null = null): string {
	const heading = (s: string) => (tty ? bold(s) : s);
	const lines: string[] = [];
	if (output.refused) {
		const text = wrapLine(`${type}: refused: ${output.refused.code} — ${output.refused.message}`, width, "  ");
		lines.push(...(tty ? text.map((line) => red(line)) : text));
	} else {
		lines.push(output.text ?? "", "");
		const rows = [["section", "offset", "bytes", "sha256"], ...output.sections.map((s) => [s.name, String(s.offset), String(s.bytes), s.sha256])];
		const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => (r[c] as string).length)));
		lines.push(heading("── sections ──"));
		rows.forEach((row, r) => {
			const [name, offset, bytes, sha] = row as [string, string, string, string];
			const line = `${name.padEnd(widths[0] as number)}  ${offset.padStart(widths[1] as number)}  ${bytes.padStart(widths[2] as number)}  ${sha}`;
			lines.push(r === 0 ? heading(line) : line);
		});
	}
	if (output.diagnostics.length > 0) {
		lines.push("", heading("diagnostics"), ...output.diagnostics.map(formatDiagnostic));
	}
	return `${lines.join("\n")}\n`;
}

export async function runPrompt(type: string, opts: PromptCommandOptions, io: CliIo): Promise<number> {
	const input = await buildCliResolveInput(type, opts, io);
	const parent: ParentPrompt = opts.parentPrompt === undefined ? { kind: "none" } : readParentPrompt(opts.parentPrompt, io, input.loaded.projectDir);
	const output = buildPrompt(input, parent, io);
	if (opts.json) io.out(`${JSON.stringify(output, null, 2)}\n`);
	else {
		// Every string shown escaped (the prompt text keeps its lines), then styled (ADR 0075).
		const shown = { ...safeFields(output), text: output.text === null ? null : safeText(output.text) };
		io.out(renderPrompt(shown, safeLine(type), useColor(io), outWidth(io)));
	}
	return output.refused ? EXIT_FAILED : EXIT_OK;
}
