/**
 * Children's system prompts kept per resolved config (issue 28): `assemblePrompt` is pure over
 * its input, so a spawn whose input is the same objects as an earlier one's — the resolution's
 * config (the resolution cache hands out the same one while nothing it read changed), the
 * parent's prompt and tool guidance (kept per equal pi options, parent-snapshot.ts) — and the
 * same place (type, cwds, worktree, branch) takes that spawn's text instead of assembling again.
 * Only prompts that read no file are kept (a child in the parent's cwd under a parent with pi's
 * prompt options: no project context of its own).
 */
import type { ParentPrompt } from "../../prompt/types.ts";
import type { EffectiveConfig } from "../../resolve/types.ts";

/** Places kept per config (type, cwd, …): past this many, the oldest goes. */
const LIMIT = 16;

/** What a kept text was assembled from, besides its config and place. */
export interface PromptSources {
	prompt: ParentPrompt;
	snippets: object;
	guidelines: object;
}

const kept = new WeakMap<EffectiveConfig, Map<string, PromptSources & { text: string }>>();

/** The text `assemble` gives for `config`, `sources` and `place`: assembled once while they are the same. */
export function keptPromptText(config: EffectiveConfig, sources: PromptSources, place: readonly (string | null)[], assemble: () => string): string {
	const key = JSON.stringify(place);
	let places = kept.get(config);
	const hit = places?.get(key);
	if (hit && hit.prompt === sources.prompt && hit.snippets === sources.snippets && hit.guidelines === sources.guidelines) return hit.text;
	const text = assemble();
	if (!places) kept.set(config, (places = new Map()));
	if (places.size >= LIMIT && !places.has(key)) places.delete(places.keys().next().value as string);
	places.set(key, { ...sources, text });
	return text;
}
