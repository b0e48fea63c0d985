/**
 * SSH workspaces as the run lifecycle's isolation hooks (issue 25): a run whose resolved
 * `workspace` names remote workspaces is placed on the least loaded one with room
 * ({@link WorkspacePlacer}), connected (an untrusted host key refuses the spawn
 * `workspace-untrusted-host`), and given a remote worktree of the parent's HEAD; its child's tools
 * are {@link remoteRunOf}'s. When it ends, its work is fetched home as `cadre/<id>` — or, when the
 * link was lost, kept there and reported for `cadre worktrees recover`. Runs placed on `local` go
 * to the local hooks untouched.
 */
import { gitOrThrow } from "../isolation/git.ts";
import { commitUncommitted } from "../isolation/uncommitted.ts";
import { commitIdentityEnv } from "../isolation/worktree.ts";
import type { Settings } from "../files/types.ts";
import { LOCAL_WORKSPACE } from "../files/workspace-settings.ts";
import type { IsolationHooks, RunRecord, TerminalState } from "../runtime/runs.ts";
import { createPlacer, type Placement, type WorkspacePlacer } from "./placement.ts";
import { prepareRemoteChild, type RemoteChild } from "./remote-child.ts";
import type { WorkspaceLinkOptions } from "./workspace-link.ts";

/** The remote children of this process, by run id (the plan's child factory takes their tools). */
const remoteRuns = new Map<string, RemoteChild>();

/** The remote child of run `id`, when it runs on an SSH workspace. */
export function remoteRunOf(id: string): RemoteChild | undefined {
	return remoteRuns.get(id);
}

/** Options of {@link withRemoteWorkspaces}. */
export interface RemoteWorkspacesOptions {
	/** The settings as of this spawn. */
	settings(): Settings | null;
	/** The parent's cwd: its repository is the one synced. */
	parentCwd: string;
	link?: WorkspaceLinkOptions;
	/** A run's record (this session's or an earlier process's): a resume continues where it ran. */
	record?(id: string): RunRecord | undefined;
	/** The first run of the resume chain of run `id` (its worktree and branch are the chain's). */
	chainRoot?(id: string): string;
}

/** Where a resumed run ran, when that was an SSH workspace: its workspace and its worktree's base. */
function remoteOrigin(record: RunRecord | undefined): { workspace: string; base: string } | null {
	const isolation = record?.isolation as Record<string, unknown> | null | undefined;
	const { workspace, base } = isolation ?? {};
	return typeof workspace === "string" && workspace !== LOCAL_WORKSPACE && typeof base === "string" ? { workspace, base } : null;
}

function placerFor(settings: Settings, placers: Map<string, WorkspacePlacer>): WorkspacePlacer {
	const key = JSON.stringify(Object.entries(settings.workspaces).map(([name, spec]) => [name, spec.maxConcurrent]));
	let placer = placers.get(key);
	if (!placer) {
		// one placer per set of capacities: a settings change that keeps them keeps the counts
		placer = createPlacer(Object.entries(settings.workspaces).map(([name, spec]) => ({ name, max: spec.maxConcurrent })));
		placers.clear();
		placers.set(key, placer);
	}
	return placer;
}

async function uncommittedBase(repo: string, head: string, runId: string): Promise<string> {
	const gitDir = (await gitOrThrow(["rev-parse", "--absolute-git-dir"], { cwd: repo })).trim();
	return commitUncommitted({ root: repo, gitDir, head, runId, env: await commitIdentityEnv(repo) });
}

/** Wraps the local isolation hooks with SSH workspaces. */
export function withRemoteWorkspaces(local: IsolationHooks, options: RemoteWorkspacesOptions): IsolationHooks {
	const placers = new Map<string, WorkspacePlacer>();
	const placements = new Map<string, Placement>();
	const localRoot = local.repoRoot?.bind(local);
	return {
		// The receipt's repository lookup (ADR 0188): the local hooks' for a local run; none on a workspace.
		...(localRoot ? { repoRoot: (run: RunRecord, cwd: string) => (remoteRuns.has(run.id) ? Promise.resolve(null) : localRoot(run, cwd)) } : {}),
		ready: (run: RunRecord) => (remoteRuns.has(run.id) ? null : (local.ready?.(run) ?? null)),
		async prepare(run: RunRecord) {
			// A resume continues on the workspace it ran on, in its chain's worktree (ADR 0196).
			const origin = run.resumeOf ? remoteOrigin(options.record?.(run.resumeOf)) : null;
			const allowed = origin ? [origin.workspace] : (run.config.workspace ?? [LOCAL_WORKSPACE]);
			const settings = options.settings();
			if (origin && !settings?.workspaces[origin.workspace]) throw new Error(`Spawn refused (workspace-unknown): run ${run.resumeOf} ran on workspace ${origin.workspace}, which is no longer in settings workspaces; add it back to resume the run there`);
			if (!settings || allowed.every((name) => name === LOCAL_WORKSPACE)) return local.prepare(run);
			const placement = await placerFor(settings, placers).place(allowed);
			const spec = settings.workspaces[placement.workspace];
			if (placement.workspace === LOCAL_WORKSPACE || !spec) {
				placement.release();
				return local.prepare(run);
			}
			try {
				const repo = (await gitOrThrow(["rev-parse", "--show-toplevel"], { cwd: options.parentCwd })).trim();
				const head = (await gitOrThrow(["rev-parse", "HEAD"], { cwd: repo })).trim();
				// copy_uncommitted (ADR 0087): the parent's uncommitted work as a base commit, made here, synced like any
				const base = run.config.copyUncommitted ? await uncommittedBase(repo, head, run.id) : head;
				const resume = origin && run.resumeOf ? { chainId: options.chainRoot?.(run.resumeOf) ?? run.resumeOf, base: origin.base } : undefined;
				// the resolution decided whether it runs sandboxed (ADR 0191); the remote's probe is checked again there
				const sandbox = run.config.sandboxed === true ? { readOnly: run.config.capabilityMode === "read-only", settings: settings.sandbox } : null;
				const link = { graceMs: (spec.graceSeconds ?? 60) * 1000, ...options.link };
				const child = await prepareRemoteChild({ name: placement.workspace, spec, localRepo: repo, base, id: run.id, localCwd: run.plannedCwd, tools: run.config.tools, sandbox, link, ...(resume ? { resume } : {}) });
				remoteRuns.set(run.id, child);
				placements.set(run.id, placement);
				return { cwd: null, report: { isolation: "worktree", workspace: placement.workspace, branch: child.worktree.branch, remoteWorktree: child.worktree.dir, base: child.worktree.base } };
			} catch (error) {
				placement.release();
				const code = (error as { code?: string }).code;
				const message = error instanceof Error ? error.message : String(error);
				if (code === "sandbox-unavailable") throw new Error(message);
				throw new Error(code === "workspace-untrusted-host" ? `Spawn refused (workspace-untrusted-host): ${message}` : `workspace ${placement.workspace} cannot be used: ${message}`);
			}
		},
		async finish(run: RunRecord, state: TerminalState) {
			const child = remoteRuns.get(run.id);
			if (!child) return local.finish(run, state);
			remoteRuns.delete(run.id);
			const report = { ...(run.isolation ?? {}) };
			try {
				if (child.link.isLost) return { ...report, kept: true, error: (await child.lost).message };
				const done = await child.finish();
				const escapeWarning = done.escaped.length > 0 ? `the child changed files on the workspace outside its worktree: ${done.escaped.join(", ")}` : null;
				return { ...report, branch: done.branch, tip: done.tip, committedLeftovers: done.committed, escapedPaths: done.escaped, escapeWarning };
			} catch (error) {
				return { ...report, kept: true, error: `${error instanceof Error ? error.message : String(error)}; the remote worktree is kept — \`cadre worktrees recover\` fetches it later` };
			} finally {
				child.dispose();
				placements.get(run.id)?.release();
				placements.delete(run.id);
			}
		},
	};
}
