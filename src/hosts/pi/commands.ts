/**
 * The `/subagents` command (spec 04 "Operator control"): list runs (state, type, description,
 * elapsed, tokens), `stop <id>`, `explain <type>` through the resolver, `transcript <id>`, and
 * `worktrees [list] | apply <id> | apply --all | apply --dry-run | clean` (spec 05 "Applying back", the same as `cadre worktrees`).
 */
import { safeFields, safeLine, safeText } from "../../core/terminal-text.ts";
import type { LoadResult } from "../../files/types.ts";
import { explain, renderExplain } from "../../resolve/explain.ts";
import type { ExplainDirs } from "../../resolve/explain-sandbox.ts";
import type { ModelCatalog } from "../../resolve/types.ts";
import { counted, formatUsage } from "../../runtime/result.ts";
import type { RunRegistry } from "../../runtime/runs.ts";
import { applyCadreWorktree, cleanCadreWorktrees, listCadreWorktrees } from "../../isolation/worktree-admin.ts";
import { runMergeQueue } from "../../isolation/merge-queue.ts";
import { renderApply, renderClean, renderListing, renderQueue } from "../../isolation/worktree-report.ts";
import { spawnReader } from "../../resolve/spawn-reader.ts";
import type { ParentSnapshot } from "../spawn/plan.ts";
import { inTreeOrder, treeIndent } from "../../runtime/run-tree.ts";

/** What `explain` needs, built lazily by the extension. */
export interface ExplainInputs {
	loaded: LoadResult | null;
	parent: ParentSnapshot;
	models: ModelCatalog;
	type: string;
	/** The home and agent dir: explain shows the sandbox policy under them. */
	dirs?: ExplainDirs;
}

export interface SubagentsCommandContext {
	registry: RunRegistry;
	explain(type: string): ExplainInputs;
	/** The parent's working directory: the repository `worktrees` acts on. */
	cwd: string;
	/** Run records of earlier processes that could not be loaded, as diagnostic lines. */
	skippedRecords?: readonly string[];
}

const USAGE = "Usage: /subagents [list] | stop <id> | explain <type> | transcript <id> | worktrees [list] | worktrees apply <id> | worktrees apply --all | worktrees apply --dry-run | worktrees clean";

/** `/subagents worktrees …`: the same listing, apply and clean as `cadre worktrees`. */
async function worktreesCommand(action: string, id: string, context: SubagentsCommandContext): Promise<string> {
	const cwd = context.cwd;
	if (action === "list") {
		const listing = await listCadreWorktrees(cwd);
		return listing.ok ? renderListing(listing, false) : `${listing.message}\n${listing.hint}`;
	}
	if (action === "apply" && (id === "--all" || id === "--dry-run")) return mergeQueue(id, context);
	if (action === "apply") return id ? renderApply(await applyCadreWorktree({ cwd, id })) : "Usage: /subagents worktrees apply <id> | --all | --dry-run";
	if (action === "clean") {
		const cleaned = await cleanCadreWorktrees(cwd);
		return cleaned.ok ? renderClean(cleaned) : `${cleaned.message}\n${cleaned.hint}`;
	}
	return USAGE;
}

/**
 * `/subagents worktrees apply --all` (`--dry-run`: only the order): the merge queue (ADR 0115), with
 * settings `worktree.verify` as the session loads them (a project's only when pi trusts it).
 */
async function mergeQueue(flag: string, context: SubagentsCommandContext): Promise<string> {
	return (await mergeQueueReport(context, flag === "--dry-run")).text;
}

/** The merge queue's report (`dryRun`: its order) and how many branches it queued: the `/subagents` view's `m`. */
export async function mergeQueueReport(context: SubagentsCommandContext, dryRun: boolean): Promise<{ text: string; branches: number }> {
	const verify = context.explain("general-purpose").loaded?.settings.worktree.verify ?? null;
	// without settings' verify, a run of this session verifies its own branch's merge with its own verify
	const verifyFor = (id: string) => context.registry.get(id)?.config.verify ?? null;
	const queued = await runMergeQueue({ cwd: context.cwd, dryRun, verify, verifyFor });
	return { text: safeText(renderQueue(safeFields(queued))).trimEnd(), branches: queued.queue.length };
}

function elapsed(ms: number): string {
	return ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** What a spawn of the type would get, in the same rendering as `cadre explain` (one resolver, one table). */
export function explainType(inputs: ExplainInputs): string {
	if (!inputs.loaded) return "cadre: the definitions could not be loaded.";
	const output = explain({
		request: { subagent_type: inputs.type },
		type: inputs.type,
		loaded: inputs.loaded,
		parent: inputs.parent.facts,
		models: inputs.models,
		reader: spawnReader,
		toolKinds: inputs.loaded.settings.toolKinds,
	}, [], inputs.dirs);
	return renderExplain(output, false);
}

/**
 * Runs the command and returns the text to show, every control character in it escaped: it quotes
 * definition files, requests and commit subjects, and pi shows it as it is (ADR 0075).
 */
export async function subagentsCommand(args: string, context: SubagentsCommandContext): Promise<string> {
	return safeText(await commandText(args, context));
}

async function commandText(args: string, context: SubagentsCommandContext): Promise<string> {
	const [verb = "list", id = "", extra = ""] = args.trim().split(/\s+/).filter(Boolean);
	const now = Date.now();
	switch (verb) {
		case "list": {
			// Each run followed by the runs it spawned, indented (issue 21).
			const runs = inTreeOrder(context.registry.list());
			const skipped = context.skippedRecords?.length ? [`Skipped run records:`, ...context.skippedRecords] : [];
			if (runs.length === 0) return ["No sub-agent runs in this session.", ...skipped].join("\n");
			// Padded columns; elapsed is the running time, the time spent queued is its own column.
			// Cells are escaped before they are padded: an escaped control character is wider than itself.
			const rows = runs.map((run) => [
				`${treeIndent(run.depth)}${safeLine(run.id)}`,
				run.state,
				safeLine(run.type),
				`"${safeLine(run.description)}"`,
				run.startedAt === null ? "-" : elapsed((run.endedAt ?? now) - run.startedAt),
				(run.startedAt ?? run.endedAt ?? now) - run.createdAt >= 100 ? `queued ${elapsed((run.startedAt ?? run.endedAt ?? now) - run.createdAt)}` : "",
				formatUsage(run.usage),
				// The run's trace when telemetry is on (ADR 0145): find it in the tracing backend.
				run.traceId ? `trace ${run.traceId}` : "",
			]);
			const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
			const lines = rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  ").trimEnd());
			return [...lines, ...skipped].join("\n");
		}
		case "stop": {
			const run = await context.registry.stop(id);
			if (!run) return `No sub-agent run with id ${id}.`;
			return run.endedAt === null && run.activity !== run.state ? `${run.id} is ${run.activity}; stop it there.` : `${run.id} is ${run.state}.`;
		}
		case "explain":
			return id ? explainType(context.explain(id)) : "Usage: /subagents explain <type>";
		case "transcript":
		case "open": {
			const run = context.registry.get(id);
			if (!run) return `No sub-agent run with id ${id}.`;
			return `${run.id} (${run.state}, ${counted(run.turns, "turn")}, ${counted(run.toolUses, "tool use")}): ${run.transcript ?? "no transcript"}${run.traceId ? `\ntrace ${run.traceId}` : ""}`;
		}
		case "worktrees":
			return (await worktreesCommand(id || "list", extra, context)).trimEnd();
		default:
			return USAGE;
	}
}
