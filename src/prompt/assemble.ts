/**
 * Assembles a child's system prompt in its one shape (spec 03), a pure function:
 *
 * 1. identity              the parent's prompt, cut (identity-cut.ts), or a generic identity without one
 * 2. project-context       pi's `<project_context>` for the child's cwd, when it differs from the parent's
 * 3. header                `<active_agent name="TYPE"/>`, the environment block, the worktree
 *                          sentence, the child's tool guidance
 * 4. standing-instructions `<agent_instructions>` … (only if nonempty)
 * 5. role                  `<role_instructions>` … (only if nonempty)
 * 6. persona               `<persona name="NAME">` … (only if a persona applies)
 * 7. outputs               `<outputs>` … what cadre checks at the end (persona outputs, structured result)
 * 8. inputs                `<inputs>` … the values the parent passed (they vary per spawn: last)
 *
 * Sections are joined by one blank line. Sections 1–2 read only the parent prompt and the cwds, so
 * every same-cwd sibling shares them byte for byte whatever its type, persona, role, tools or model.
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import { attribute, inputsBlock, outputsBlock } from "./contract-blocks.ts";
import { GENERIC_IDENTITY, cutIdentityFromOptions, cutIdentityFromText } from "./identity-cut.ts";
import type { AssembledPrompt, PromptInput, PromptSection, PromptSectionName } from "./types.ts";

const SEPARATOR = "\n\n";

/** Sections 1 and 2: everything a same-cwd sibling shares. */
function inheritedSections(input: PromptInput): { parts: Array<[PromptSectionName, string]>; diagnostics: Diagnostic[] } {
	const sameCwd = resolve(input.childCwd) === resolve(input.parentCwd);
	const parts: Array<[PromptSectionName, string]> = [];
	let diagnostics: Diagnostic[] = [];
	const parent = input.parent;
	if (parent.kind === "none") {
		parts.push(["identity", GENERIC_IDENTITY]);
	} else {
		const cut =
			parent.kind === "options"
				? cutIdentityFromOptions(parent.options, sameCwd)
				: cutIdentityFromText(parent.text, sameCwd, parent.source);
		parts.push(["identity", cut.text]);
		diagnostics = cut.diagnostics;
	}
	// Without a parent prompt there is nothing to inherit the project's words from, so the child
	// gets them rendered for its own cwd (ADR 0031).
	if ((!sameCwd || parent.kind === "none") && input.projectContext) {
		parts.push(["project-context", input.projectContext]);
	}
	return { parts, diagnostics };
}

function header(input: PromptInput): string {
	const git = input.environment.gitBranch === null ? "Git: not a git repository" : `Git branch: ${input.environment.gitBranch}`;
	const blocks = [
		`<active_agent name="${attribute(input.type)}"/>`,
		["<environment>", `Working directory: ${input.childCwd}`, git, `Platform: ${input.environment.platform}`, "</environment>"].join("\n"),
	];
	if (input.worktreeParentDir !== null) {
		blocks.push(`Work only inside this directory, never in ${input.worktreeParentDir}.`);
	}
	if (input.toolGuidance.length > 0) blocks.push(input.toolGuidance.join("\n"));
	return blocks.join(SEPARATOR);
}

function wrapped(open: string, close: string, body: string | null): string | null {
	const text = body?.trim() ?? "";
	return text.length === 0 ? null : `${open}\n${text}\n${close}`;
}

/** Assembles the child's prompt and its section table. */
export function assemblePrompt(input: PromptInput): AssembledPrompt {
	const { parts, diagnostics } = inheritedSections(input);
	parts.push(["header", header(input)]);
	const config = input.config;
	const optional: Array<[PromptSectionName, string | null]> = [
		["standing-instructions", wrapped("<agent_instructions>", "</agent_instructions>", config.standingInstructions)],
		["role", wrapped("<role_instructions>", "</role_instructions>", config.rolePrompt)],
		[
			"persona",
			config.persona !== null && config.personaError === null
				? wrapped(`<persona name="${attribute(config.persona)}">`, "</persona>", config.personaInstructions)
				: null,
		],
		["outputs", outputsBlock(config)],
		["inputs", inputsBlock(config)],
	];
	for (const [name, text] of optional) if (text !== null) parts.push([name, text]);

	const sections: PromptSection[] = [];
	let offset = 0;
	for (const [name, text] of parts) {
		const bytes = Buffer.byteLength(text, "utf8");
		sections.push(section(name, offset, bytes, text));
		offset += bytes + SEPARATOR.length;
	}
	return { text: parts.map(([, text]) => text).join(SEPARATOR), sections, diagnostics };
}

/**
 * A prompt section whose `sha256` is computed when first read (issue 28: a spawn never reads it;
 * `cadre prompt`, the record and the tests do). Enumerable, so JSON and copies carry it.
 */
function section(name: string, offset: number, bytes: number, text: string): PromptSection {
	let hash: string | null = null;
	const out = { name, offset, bytes } as PromptSection;
	Object.defineProperty(out, "sha256", {
		enumerable: true,
		get: () => (hash ??= createHash("sha256").update(text, "utf8").digest("hex")),
	});
	return out;
}

/** Byte offset where section 2 ends (section 1 when there is no section 2): the shared-prefix boundary. */
export function sharedBoundary(prompt: AssembledPrompt): number {
	const shared = prompt.sections.filter((s) => s.name === "identity" || s.name === "project-context");
	const last = shared[shared.length - 1];
	return last === undefined ? 0 : last.offset + last.bytes;
}
