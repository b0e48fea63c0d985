/**
 * Maps the structured prompt options pi hands extensions (`before_agent_start`
 * `event.systemPromptOptions`, `ctx.getSystemPromptOptions()`, type `BuildSystemPromptOptions`)
 * to cadre's plain `ParentPromptOptions`. Pure, and typed structurally so the core never imports
 * pi: the pi host passes pi's object and pi's documentation paths (`getReadmePath()`,
 * `getDocsPath()`, `getExamplesPath()`).
 */
import type { PiDocPaths } from "./pi-prompt-shape.ts";
import type { ParentPromptOptions } from "./types.ts";

/** The fields of pi's `BuildSystemPromptOptions` the identity cut reads. */
export interface PiPromptOptionsLike {
	customPrompt?: string;
	forceSystemPrompt?: string;
	appendSystemPrompt?: string;
	sections?: Record<string, string>;
	cwd: string;
	contextFiles?: ReadonlyArray<{ path: string; content: string }>;
}

/**
 * Snapshot of what the parent's session had when the child is spawned (spec 03: "record what the
 * parent's session had"): copies every value, so later edits to pi's mutable options do not leak in.
 */
export function parentPromptOptionsFromPi(options: PiPromptOptionsLike, docPaths: PiDocPaths): ParentPromptOptions {
	return {
		customPrompt: options.customPrompt ?? null,
		forceSystemPrompt: options.forceSystemPrompt ?? null,
		appendSystemPrompt: options.appendSystemPrompt ?? "",
		contextFiles: (options.contextFiles ?? []).map((file) => ({ path: file.path, content: file.content })),
		docPaths: { ...docPaths },
		extensionSections: Object.entries(options.sections ?? {})
			.filter(([, content]) => Boolean(content))
			.map(([name]) => name),
	};
}
