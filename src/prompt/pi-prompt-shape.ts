/**
 * What pi 1.6 writes into a system prompt, mirrored as plain data so the core never imports pi:
 * the section order, the default preamble, the `<docs>` text, and the `<project_context>` rendering
 * (pi's `buildSystemPromptSections` in `dist/core/system-prompt.js`, which the package does not
 * export). The fixtures under `test/fixtures/prompts/`, captured from the real `pi` binary, pin
 * every string here; when pi is upgraded, re-run `npm run capture-prompts` and the tests say what moved.
 */

/** pi's built-in sections in the order pi writes them after the untagged preamble. */
export const PI_SECTION_ORDER = ["tools", "rules", "docs", "addendum", "project_context", "skills", "cwd"] as const;
export type PiSectionName = (typeof PI_SECTION_ORDER)[number] | "preamble";

/** The sections a child inherits (spec 03): `project_context` only when the cwd is the parent's. */
export const INHERITED_SECTIONS: readonly PiSectionName[] = ["preamble", "docs", "addendum", "project_context"];

/** pi's preamble when no `SYSTEM.md`, `--system-prompt` or custom template replaces it. */
export const PI_DEFAULT_PREAMBLE =
	"You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code.";

/** First line of pi's `<project_context>` body. */
export const PROJECT_CONTEXT_HEADING = "Project-specific instructions and guidelines:";

/** First line of pi's `<skills>` body (from `formatSkillsForPrompt`). */
export const SKILLS_HEADING = "The following skills provide specialized instructions for specific tasks.";

/** First line of pi's `<docs>` body. */
export const DOCS_HEADING =
	"Pi documentation (read only when the user asks about the harness itself, its SDK, extensions, themes, skills, or TUI):";

/** Where pi's own documentation lives: `getReadmePath()`, `getDocsPath()`, `getExamplesPath()`. */
export interface PiDocPaths {
	readme: string;
	docs: string;
	examples: string;
}

/** The body of pi's `<docs>` section for the given paths, byte for byte as pi 1.6 writes it. */
export function renderPiDocs(paths: PiDocPaths): string {
	return `${DOCS_HEADING}
- Main documentation: ${paths.readme}
- Additional docs: ${paths.docs}
- Examples: ${paths.examples} (extensions, custom tools, SDK)
- When reading pi docs or examples, resolve docs/... under Additional docs and examples/... under Examples, not the current working directory
- When asked about: extensions (docs/extensions.md, examples/extensions/), themes (docs/themes.md), skills (docs/skills.md), prompt templates (docs/prompt-templates.md), TUI components (docs/tui.md), keybindings (docs/keybindings.md), SDK integrations (docs/sdk.md), custom providers (docs/custom-provider.md), adding models (docs/models.md), packages (docs/packages.md), environment variables (docs/environment-variables.md), MCP servers (docs/mcp.md), codemode scripts and non-LLM models such as classifiers and image models (docs/codemode.md)
- Before implementing harness changes, read the relevant docs and examples in full, following related cross-references.`;
}

/** One loaded context file (AGENTS.md, CLAUDE.md, …) as pi holds it. */
export interface ContextFile {
	/** Absolute path, as pi prints it in `<project_instructions path="…">`. */
	path: string;
	content: string;
}

/** The body of pi's `<project_context>` section (pi's `renderProjectContext`). */
export function renderProjectContextBody(files: readonly ContextFile[]): string {
	return [
		PROJECT_CONTEXT_HEADING,
		...files.map(({ path, content }) => `<project_instructions path="${path}">\n${content}\n</project_instructions>`),
	].join("\n\n");
}

/** A section as pi renders it: the preamble bare, every other one wrapped in its tag on whole lines. */
export function wrapSection(name: string, body: string): string {
	return name === "preamble" ? body : `<${name}>\n${body}\n</${name}>`;
}

/** pi joins the rendered sections with one blank line (pi-ai `getSystemMessageText`). */
export const SECTION_SEPARATOR = "\n\n";
