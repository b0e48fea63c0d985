/**
 * What a pi parent has now, as the plan takes it (ADR 0090): its cwd, model, thinking level,
 * tools and tool universe, its prompt (pi's prompt options, or its prompt text before its first
 * request) with pi's tool guidance, and its conversation for `inherit_context`.
 */
import type { BuildSystemPromptOptions, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { normalizeThinking } from "../../core/values.ts";
import { parentPromptOptionsFromPi } from "../../prompt/pi-options.ts";
import type { ParentPrompt } from "../../prompt/types.ts";
import { builtinToolNames } from "../../resolve/tools.ts";
import type { ParentFacts } from "../../resolve/types.ts";
import type { ChildExtensionSet } from "../../runtime/pi/child-extensions.ts";
import { childMessages } from "../../runtime/pi/conversation.ts";
import { piDocPaths } from "../../runtime/pi/pi-defaults.ts";
import { contextTrust } from "../../runtime/pi/project-trust.ts";
import { builtinToolGuidance } from "../../runtime/pi/tool-guidance.ts";
import type { ParentSnapshot } from "./plan.ts";
import { SPAWN_TOOLS } from "./tool-names.ts";

/** The parent a snapshot is taken of. */
export interface SnapshotSource {
	pi: ExtensionAPI;
	ctx: ExtensionContext;
	/** pi's structured prompt options of the parent's latest request, or null before its first. */
	promptOptions: BuildSystemPromptOptions | null;
	agentDir: string;
	homeDir: string;
	/** The git root of a cwd, or null. */
	repoRootOf(cwd: string): string | null;
	/** Adjusts the parent's facts (the CLI's flags). */
	facts?(facts: ParentFacts): ParentFacts;
	/** cadre's trust of the project, when the caller decided it already (a spawn checks its files with it first); else decided here. */
	projectTrusted?: boolean;
}

/** The user and assistant text of the parent's current branch, last `maxChars` (inherit_context). */
function conversationText(ctx: ExtensionContext, maxChars = 8000): string | null {
	const messages = ctx.sessionManager.getBranch().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
	const parts: string[] = [];
	for (const message of childMessages(messages)) {
		if (message.role !== "user" && message.role !== "assistant") continue;
		if (message.text.trim()) parts.push(`${message.role}: ${message.text.trim()}`);
	}
	const text = parts.join("\n\n");
	return text ? text.slice(-maxChars) : null;
}

/** The prompt part of a snapshot: pi hands new prompt options once per parent turn. */
interface PromptPart {
	prompt: ParentPrompt;
	snippets: Readonly<Record<string, string>>;
	guidelines: Readonly<Record<string, readonly string[]>>;
}
const promptParts = new WeakMap<BuildSystemPromptOptions, PromptPart>();
/** The options converted last, and their part. */
let lastPart: { options: BuildSystemPromptOptions; part: PromptPart } | null = null;

/** Whether two values of plain data (strings, numbers, booleans, null, undefined, arrays, plain objects) are equal throughout. */
function sameData(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const keys = Object.keys(a);
	if (keys.length !== Object.keys(b).length) return false;
	return keys.every((key) => Object.hasOwn(b, key) && sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * The parent's prompt and tool guidance from pi's prompt options, converted once per options
 * object. pi hands a fresh copy of its options at every parent turn, most often equal to the last
 * (the strings in it are pi's same strings): then the last part stands, so the prompts a spawn
 * keeps per part (prompt-memo.ts) outlive the turn (issue 28).
 */
function promptPart(options: BuildSystemPromptOptions): PromptPart {
	let part = promptParts.get(options);
	if (!part) {
		part =
			lastPart && sameData(lastPart.options, options)
				? lastPart.part
				: {
						prompt: { kind: "options", options: parentPromptOptionsFromPi(options, piDocPaths()) },
						snippets: options.toolSnippets ?? {},
						guidelines: options.toolGuidelines ?? {},
					};
		promptParts.set(options, part);
		lastPart = { options, part };
	}
	return part;
}

/** What the parent has now, with the given child extension set. */
export function parentSnapshot(source: SnapshotSource, set: ChildExtensionSet): ParentSnapshot {
	const { pi, ctx, promptOptions } = source;
	const builtins = builtinToolNames();
	const excluded = new Set(set.excluded);
	const extensionTools = pi
		.getAllTools()
		.filter((tool) => !builtins.includes(tool.name) && !SPAWN_TOOLS.has(tool.name) && !excluded.has(tool.sourceInfo.path))
		.map((tool) => tool.name)
		.sort();
	// Before the parent's first prompt (a service spawn) pi has handed no prompt options yet:
	// pi's own guidance for its built-in tools stands in.
	const part = promptOptions ? promptPart(promptOptions) : null;
	const guidance = part ?? builtinToolGuidance(ctx.cwd);
	const prompt: ParentPrompt = part ? part.prompt : { kind: "text", text: ctx.getSystemPrompt(), source: "pi" };
	const facts: ParentFacts = {
		cwd: ctx.cwd,
		model: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : null,
		thinking: normalizeThinking(pi.getThinkingLevel()) ?? "medium",
		activeTools: pi.getActiveTools().filter((name) => !SPAWN_TOOLS.has(name)),
		toolUniverse: [...builtins, ...new Set(extensionTools)],
		repoRoot: source.repoRootOf(ctx.cwd),
	};
	return {
		cwd: ctx.cwd,
		agentDir: source.agentDir,
		homeDir: source.homeDir,
		// cadre's files: pi's trust as cadre takes it (ADR 0190).
		projectTrusted: source.projectTrusted ?? contextTrust(ctx, source.agentDir, source.homeDir),
		facts: source.facts ? source.facts(facts) : facts,
		prompt,
		// pi's own objects, read only: the prompts a spawn keeps are keyed on them (prompt-memo.ts).
		toolSnippets: guidance.snippets,
		toolGuidelines: guidance.guidelines,
		conversation: () => conversationText(ctx),
	};
}
