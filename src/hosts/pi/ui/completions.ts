/**
 * Completion of `/subagents` arguments (issue 11 item 4): the subcommands, the types after
 * `explain`, the run ids after `stop`, `transcript` and `open`, the worktree actions and, after
 * `worktrees apply`, run ids. pi replaces the whole argument text with an item's `value`.
 */
import { shown } from "./text.ts";

/** A completion item as pi's editor takes it. */
export interface CompletionItem {
	value: string;
	label: string;
	description?: string;
}

/** What completion draws from. */
export interface CompletionSource {
	/** Run ids with their state and description, newest last. */
	runs(): { id: string; state: string; description: string }[];
	/** Enabled type names. */
	types(): string[];
}

const SUBCOMMANDS: [string, string][] = [
	["list", "list the runs of this session"],
	["stop", "stop a queued or running run"],
	["explain", "what a spawn of a type would get, and why"],
	["transcript", "where a run's transcript is"],
	["worktrees", "list, apply or clean cadre's worktrees"],
];

const WORKTREE_ACTIONS: [string, string][] = [
	["list", "cadre's worktrees and branches"],
	["apply", "merge a run's branch into the current branch"],
	["clean", "remove leftover worktrees"],
];

function matching(prefix: string, entries: readonly [string, string][], before: string): CompletionItem[] {
	return entries
		.filter(([name]) => name.startsWith(prefix))
		.map(([name, description]) => ({ value: `${before}${name}`, label: shown(name), description: shown(description) }));
}

/** The items for the argument text typed so far, or null when there are none. */
export function subagentsCompletions(argumentText: string, source: CompletionSource): CompletionItem[] | null {
	const words = argumentText.replace(/^\s+/, "").split(/\s+/);
	const last = words[words.length - 1] ?? "";
	const before = words.slice(0, -1).join(" ");
	const lead = before ? `${before} ` : "";
	const runIds = (onlyLive: boolean) =>
		source
			.runs()
			.filter((run) => !onlyLive || run.state === "queued" || run.state === "running")
			.map((run): [string, string] => [run.id, `${run.state} · ${run.description}`])
			.reverse();
	let items: CompletionItem[] = [];
	if (words.length === 1) items = matching(last, SUBCOMMANDS, "");
	else if (words.length === 2 && words[0] === "stop") items = matching(last, runIds(true), lead);
	else if (words.length === 2 && (words[0] === "transcript" || words[0] === "open")) items = matching(last, runIds(false), lead);
	else if (words.length === 2 && words[0] === "explain") items = matching(last, source.types().map((type): [string, string] => [type, "type"]), lead);
	else if (words.length === 2 && words[0] === "worktrees") items = matching(last, WORKTREE_ACTIONS, lead);
	else if (words.length === 3 && words[0] === "worktrees" && words[1] === "apply") items = matching(last, runIds(false), lead);
	return items.length > 0 ? items : null;
}
