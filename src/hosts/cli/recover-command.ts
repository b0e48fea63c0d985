/**
 * `cadre worktrees recover` (issue 25, ADR 0183): fetches the work of runs whose SSH workspace was
 * lost — their remote worktrees were kept — now that the host is back. For each recorded run with
 * a kept remote worktree: connect (the host key checked), commit what the worktree holds, and fetch
 * it as the local branch `cadre/<id>`. Reads run records and user settings; never pi's SDK.
 */
import { safeLine } from "../../core/terminal-text.ts";
import { agentDirFrom } from "../../files/discovery.ts";
import { gitOrThrow } from "../../isolation/git.ts";
import { listRuns, recordDirs } from "../../runtime/run-reader.ts";
import { clonePath } from "../../workspaces/remote-worktree.ts";
import { recoverRemoteRun } from "../../workspaces/remote-child.ts";
import { type CliIo, EXIT_OK } from "./io.ts";
import { cliHome, loadForCli } from "./list-command.ts";
import type { CommonOptions } from "./options.ts";

interface KeptRemote {
	workspace: string;
	remoteWorktree: string;
	branch: string;
	base: string;
}

function keptRemote(isolation: Record<string, unknown> | null): KeptRemote | null {
	if (!isolation || isolation.kept !== true) return null;
	const { workspace, remoteWorktree, branch, base } = isolation;
	return typeof workspace === "string" && typeof remoteWorktree === "string" && typeof branch === "string" && typeof base === "string" ? { workspace, remoteWorktree, branch, base } : null;
}

export async function runRecover(opts: CommonOptions, io: CliIo): Promise<number> {
	// `cadre run`'s records and a pi session's children's
	const runs = recordDirs(agentDirFrom(io.env, cliHome(io))).flatMap((dir) => listRuns(dir).runs);
	const loaded = loadForCli(opts, io);
	const kept = runs.flatMap((run) => {
		const remote = keptRemote(run.isolation as Record<string, unknown> | null);
		return remote ? [{ run, remote }] : [];
	});
	if (kept.length === 0) {
		io.out("no kept remote worktrees to recover\n");
		return EXIT_OK;
	}
	let failed = 0;
	for (const { run, remote } of kept) {
		const spec = loaded.settings.workspaces[remote.workspace];
		try {
			if (!spec) throw new Error(`workspace ${remote.workspace} is no longer in settings workspaces`);
			const repo = (await gitOrThrow(["rev-parse", "--show-toplevel"], { cwd: run.plannedCwd })).trim();
			const tip = await recoverRemoteRun({
				name: remote.workspace,
				spec,
				localRepo: repo,
				base: remote.base,
				id: run.id,
				worktree: { clone: clonePath(spec.root, repo), dir: remote.remoteWorktree, branch: remote.branch, base: remote.base },
			});
			if (tip === null) io.out(`${run.id}: nothing to recover: its remote worktree is gone (recovered or resumed already)\n`);
			else io.out(`${run.id}: fetched ${remote.branch} at ${tip.slice(0, 10)} from workspace ${safeLine(remote.workspace)}\n`);
		} catch (error) {
			failed++;
			io.err(`${run.id}: not recovered: ${safeLine(error instanceof Error ? error.message : String(error))}\n`);
		}
	}
	return failed > 0 ? 1 : EXIT_OK;
}
