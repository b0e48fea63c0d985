/**
 * The inputs and outputs of prompt assembly (spec 03): the parent's prompt in one of its three
 * forms, the child's effective config and environment facts in; the child's prompt text with a
 * table of its sections and any diagnostics out. Plain data only.
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import type { EffectiveConfig } from "../resolve/types.ts";
import type { ContextFile, PiDocPaths } from "./pi-prompt-shape.ts";

/**
 * The parent's prompt as the structured options pi hands extensions (`before_agent_start`
 * `event.systemPromptOptions`, `ctx.getSystemPromptOptions()`), reduced to what the identity cut
 * reads. Build it with `parentPromptOptionsFromPi` (pi-options.ts).
 */
export interface ParentPromptOptions {
	/** `SYSTEM.md`, `--system-prompt` or a custom template: replaces pi's default preamble. */
	customPrompt: string | null;
	/** An exact replacement of the whole prompt set by an extension: opaque, cut as text. */
	forceSystemPrompt: string | null;
	/** `APPEND_SYSTEM.md` / `--append-system-prompt` text (pi's `<addendum>`). */
	appendSystemPrompt: string;
	/** The context files pi loaded for the parent's cwd, in pi's order. */
	contextFiles: ContextFile[];
	/** Where pi's documentation lives, for the `<docs>` section pi writes with its default preamble. */
	docPaths: PiDocPaths;
	/** Names of the sections extensions added (dropped by the cut; kept for reporting). */
	extensionSections: string[];
}

/** The parent's prompt in whichever form the host has it. */
export type ParentPrompt =
	| { kind: "options"; options: ParentPromptOptions }
	| {
			kind: "text";
			text: string;
			/** Where the text came from, for diagnostics (e.g. the `--parent-prompt` path as shown). */
			source: string | null;
	  }
	| { kind: "none" };

/** Facts about the child's environment, detected (and cached) by the caller: the assembler does no I/O. */
export interface EnvironmentFacts {
	/** `process.platform` of the machine the child runs on. */
	platform: string;
	/**
	 * The git branch checked out at the child's cwd (`HEAD (detached at abc1234)` for a detached
	 * HEAD), or null when the cwd is not inside a git repository.
	 */
	gitBranch: string | null;
}

export interface PromptInput {
	/** The parent's system prompt, or `{ kind: "none" }` (CLI runs without `--parent-prompt`). */
	parent: ParentPrompt;
	/** Absolute working directory of the parent. */
	parentCwd: string;
	/** Absolute working directory of the child (the worktree path for a worktree child). */
	childCwd: string;
	/** The resolved config (spec 02); the assembler reads its instructions, role and persona. */
	config: EffectiveConfig;
	/** The canonical type name, written into `<active_agent name="…"/>`. */
	type: string;
	environment: EnvironmentFacts;
	/** For a worktree child, the parent's directory the child must stay out of; else null. */
	worktreeParentDir: string | null;
	/**
	 * The child's own tool guidance, one line each, written verbatim at the end of the header (the
	 * pi host passes `toolGuidanceLines` for the child's effective tools); empty for none.
	 */
	toolGuidance: string[];
	/**
	 * pi's `<project_context>` section rendered for the child's cwd (`renderProjectContext`), or
	 * null when no context file applies. Used when the child's cwd differs from the parent's, and
	 * when there is no parent prompt to inherit it from.
	 */
	projectContext: string | null;
}

export type PromptSectionName = "identity" | "project-context" | "header" | "standing-instructions" | "role" | "persona" | "outputs" | "inputs";

/** One part of the assembled prompt; offsets and lengths in UTF-8 bytes of `text`. */
export interface PromptSection {
	name: PromptSectionName;
	offset: number;
	bytes: number;
	/** Hex SHA-256 of the section's own text (without the blank lines around it). */
	sha256: string;
}

export interface AssembledPrompt {
	/** cadre's part of the child's prompt (sections 1–8 joined by one blank line). */
	text: string;
	/** The sections present, in prompt order. */
	sections: PromptSection[];
	diagnostics: Diagnostic[];
}
