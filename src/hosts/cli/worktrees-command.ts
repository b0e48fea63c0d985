/**
 * `cadre worktrees list | apply ID | clean` (spec 06, 05 "Applying back"): the worktree
 * administration functions of `src/isolation/worktree-admin.ts`, rendered by `worktree-report.ts`. `--json` prints the
 * functions' results as documented in docs/cli-worktrees.md.
 */
import { resolve } from "node:path";
import { safeFields } from "../../core/terminal-text.ts";
import { type AdminFailure, applyCadreWorktree, cleanCadreWorktrees, listCadreWorktrees } from "../../isolation/worktree-admin.ts";
import { renderApply, renderClean, renderListing } from "../../isolation/worktree-report.ts";
import { EXIT_FAILED, EXIT_OK, type CliIo, UsageError } from "./io.ts";
import type { CommonOptions } from "./options.ts";

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
