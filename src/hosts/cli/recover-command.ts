/**
 * `cadre worktrees recover` (issue 25, ADR 0183): fetches the work of runs whose SSH workspace was
 * lost — their remote worktrees were kept — now that the host is back. For each recorded run with
 * a kept remote worktree: connect (the host key checked), commit what the worktree holds, and fetch
 * it as the local branch `cadre/<id>`. Reads run records and user settings; never pi's SDK.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { safeLine } from "../../core/terminal-text.ts";
import { agentDirFrom } from "../../files/discovery.ts";
import { gitOrThrow } from "../../isolation/git.ts";
import { listRuns } from "../../runtime/run-reader.ts";
import { clonePath } from "../../workspaces/remote-worktree.ts";
import { recoverRemoteRun } from "../../workspaces/remote-child.ts";
import { type CliIo, EXIT_OK } from "./io.ts";
import { cliHome, loadForCli } from "./list-command.ts";
import type { CommonOptions } from "./options.ts";
import { cliRecordsDir } from "./runs-command.ts";

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

/**
 * Where run records are: `cadre run`'s, and each pi session's children's under pi's default
 * sessions folder (`<agentDir>/sessions/<project>/cadre/<session id>/`, ADR 0045). A session
 * folder moved by pi's `sessionDir` setting is not looked in.
 */
export function recordDirs(io: CliIo): string[] {
	const sessions = join(agentDirFrom(io.env, cliHome(io)), "sessions");
	const dirs = [cliRecordsDir(io)];
	for (const project of listDir(sessions)) for (const session of listDir(join(sessions, project, "cadre"))) dirs.push(join(sessions, project, "cadre", session));
	return dirs;
}

function listDir(dir: string): string[] {
	try {
		return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
	} catch {
		return [];
	}
}

export async function runRecover(opts: CommonOptions, io: CliIo): Promise<number> {
	const runs = recordDirs(io).flatMap((dir) => listRuns(dir).runs);
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
