/**
 * `cadre worktrees list | apply ID | apply --all [--dry-run] | clean` (spec 06, 05 "Applying back"): the worktree
 * administration functions of `src/isolation/worktree-admin.ts`, rendered by `worktree-report.ts`. `--json` prints the
 * functions' results as documented in docs/cli-worktrees.md.
 */
import { resolve } from "node:path";
import { formatDiagnostic } from "../../core/diagnostics.ts";
import { safeFields } from "../../core/terminal-text.ts";
import { type AdminFailure, applyCadreWorktree, cleanCadreWorktrees, listCadreWorktrees } from "../../isolation/worktree-admin.ts";
import { renderApply, renderClean, renderListing } from "../../isolation/worktree-report.ts";
import { agentDirFrom } from "../../files/discovery.ts";
import { loadAll } from "../../files/load.ts";
import { runMergeQueue } from "../../isolation/merge-queue.ts";
import { renderQueue } from "../../isolation/worktree-report.ts";
import { listRuns } from "../../runtime/run-reader.ts";
import type { VerifyCommand } from "../../runtime/verify.ts";
import { EXIT_FAILED, EXIT_OK, type CliIo, UsageError } from "./io.ts";
import { cliHome } from "./list-command.ts";
import { cliRecordsDir } from "./runs-command.ts";
import type { CommonOptions } from "./options.ts";

/** `cadre worktrees apply`'s options beyond the common ones. */
export interface ApplyCommandOptions extends CommonOptions {
	all?: boolean;
	dryRun?: boolean;
	trustProject?: boolean;
}

/** Runs one `cadre worktrees` action and returns the exit code. */
export async function runWorktrees(
	action: "list" | "apply" | "clean",
	id: string | null,
	opts: CommonOptions,
	io: CliIo,
): Promise<number> {
	const cwd = resolve(io.cwd, opts.cwd ?? ".");
	if (action === "list") {
		const listing = await listCadreWorktrees(cwd);
		if (opts.json) return printJson(io, listing);
		if (!listing.ok) return printFailure(io, listing);
		// Subjects and paths come from runs and the repository: shown escaped (ADR 0075).
		io.out(renderListing(safeFields(listing), io.isTty));
		return EXIT_OK;
	}
	if (action === "apply") {
		if (!id) throw new UsageError("worktrees apply needs the run id");
		const applied = await applyCadreWorktree({ cwd, id });
		if (opts.json) return printJson(io, applied);
		io[applied.ok ? "out" : "err"](renderApply(safeFields(applied)));
		return applied.ok ? EXIT_OK : EXIT_FAILED;
	}
	const cleaned = await cleanCadreWorktrees(cwd);
	if (opts.json) return printJson(io, cleaned);
	if (!cleaned.ok) return printFailure(io, cleaned);
	io.out(renderClean(safeFields(cleaned)));
	return EXIT_OK;
}

function printJson(io: CliIo, value: { ok: boolean }): number {
	io.out(`${JSON.stringify(value, null, 2)}\n`);
	return value.ok ? EXIT_OK : EXIT_FAILED;
}

function printFailure(io: CliIo, failure: AdminFailure): number {
	const shown = safeFields(failure);
	io.err(`cadre: ${shown.message}\n  ${shown.hint}\n`);
	return EXIT_FAILED;
}

/**
 * The `verify` each run resolved to, by id, from the run records in the agent dir (pi's and `cadre
 * run`'s): what the merge queue runs when settings have no `worktree.verify` (ADR 0115). The
 * records' verify was trust-gated when the run was resolved; a value of another shape is ignored.
 */
export function recordedVerify(recordsDir: string): (id: string) => VerifyCommand | null {
	let byId: Map<string, VerifyCommand> | null = null;
	return (id) => {
		byId ??= new Map(
			listRuns(recordsDir).runs.flatMap((run) => {
				const verify = (run.config as { verify?: unknown }).verify as Partial<VerifyCommand> | null | undefined;
				const valid = verify && typeof verify.command === "string" && verify.command.trim() !== "" && typeof verify.timeoutMs === "number" && verify.timeoutMs > 0;
				return valid ? [[run.id, { command: verify.command as string, timeoutMs: verify.timeoutMs as number }] as const] : [];
			}),
		);
		return byId.get(id) ?? null;
	};
}

/**
 * `cadre worktrees apply --all [--dry-run]`: the merge queue (ADR 0115), verified with settings
 * `worktree.verify` — from user settings, or the project's only with `--trust-project` — else with
 * each run's own `verify` from its record.
 */
export async function runMergeQueueCommand(id: string | null, opts: ApplyCommandOptions, io: CliIo): Promise<number> {
	if (id !== null) throw new UsageError("worktrees apply takes a run id or --all, not both");
	const cwd = resolve(io.cwd, opts.cwd ?? ".");
	const homeDir = cliHome(io);
	const loaded = loadAll({ cwd, agentDir: agentDirFrom(io.env, homeDir), homeDir, projectTrusted: opts.trustProject === true });
	for (const d of loaded.diagnostics) {
		if (d.code === "untrusted-setting" && d.message.includes("worktree.verify")) io.err(`${formatDiagnostic(safeFields(d))} (pass --trust-project to honour it)\n`);
	}
	const queued = await runMergeQueue({ cwd, dryRun: opts.dryRun === true, verify: loaded.settings.worktree.verify ?? null, verifyFor: recordedVerify(cliRecordsDir(io)) });
	if (opts.json) return printJson(io, queued);
	io[queued.ok ? "out" : "err"](renderQueue(safeFields(queued)));
	return queued.ok ? EXIT_OK : EXIT_FAILED;
}
