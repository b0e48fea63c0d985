/**
 * Project context for a child whose cwd differs from its parent's (spec 03 section 2): pi's own
 * `<project_context>` section, rendered for the context files found for the child's cwd, so the
 * child reads its directory's AGENTS.md/CLAUDE.md exactly the way pi would have shown them.
 */
import { type ContextFile, renderProjectContextBody, wrapSection } from "./pi-prompt-shape.ts";

/** The `<project_context>` block for these files, or null when there are none. */
export function renderProjectContext(files: readonly ContextFile[]): string | null {
	return files.length === 0 ? null : wrapSection("project_context", renderProjectContextBody(files));
}
