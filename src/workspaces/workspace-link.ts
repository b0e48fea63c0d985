/**
 * A child's link to its SSH workspace, with the fault rules of issue 25 (ADR 0183): one
 * connection, reconnected when it drops. While it is down a tool call fails at once with a clear
 * error (it is never queued or retried behind the model's back); cadre keeps reconnecting for the
 * grace period, and when the host is not back by then `lost` settles with a `workspace-lost`
 * error — the run fails with it, and its remote worktree is kept for `cadre worktrees recover`.
 */
import { hostName } from "./known-hosts.ts";
import { type ConnectOptions, connectSsh, type SshConnection, type SshTarget, WorkspaceError } from "./ssh-connection.ts";

/** Options of a link (tests shorten them). */
export interface WorkspaceLinkOptions {
	/** How long the host may stay unreachable before the run fails `workspace-lost` (ms, 60000). */
	graceMs?: number;
	/** ms between reconnect attempts (1000). */
	retryMs?: number;
	connect?: ConnectOptions;
}

export interface WorkspaceLink {
	readonly target: SshTarget;
	/** The live connection; throws a clear `WorkspaceError` while the host is unreachable. */
	connection(): Promise<SshConnection>;
	/** Settles with `workspace-lost` once the grace period passed without the host. */
	readonly lost: Promise<WorkspaceError>;
	/** Whether the grace period ran out. */
	readonly isLost: boolean;
	close(): void;
}

/** Opens the link (the first connection must succeed: a spawn is refused otherwise). */
export async function openWorkspaceLink(target: SshTarget, options: WorkspaceLinkOptions = {}): Promise<WorkspaceLink> {
	const graceMs = options.graceMs ?? 60_000;
	const retryMs = options.retryMs ?? 1000;
	let current: SshConnection | null = await connectSsh(target, options.connect);
	let downSince: number | null = null;
	let downWhy = "";
	let lostError: WorkspaceError | null = null;
	let closed = false;
	let timer: NodeJS.Timeout | null = null;
	let markLost!: (error: WorkspaceError) => void;
	const lost = new Promise<WorkspaceError>((resolve) => (markLost = resolve));
	const where = `${target.user}@${hostName(target.host, target.port)}`;

	const retry = async () => {
		timer = null;
		if (closed || lostError) return;
		try {
			const next = await connectSsh(target, options.connect);
			if (closed) return next.close();
			watch(next);
			current = next;
			downSince = null;
		} catch (error) {
			// a host that now shows a different key is not "back": it is refused like at spawn
			if ((error as WorkspaceError).code === "workspace-untrusted-host") downWhy = (error as Error).message;
			else downWhy = (error as Error).message;
			if (Date.now() - (downSince ?? Date.now()) >= graceMs) {
				lostError = new WorkspaceError(
					"workspace-lost",
					`workspace ${target.name} (${where}) has been unreachable for ${Math.round(graceMs / 1000)} s (${downWhy}); the run failed and its remote worktree is kept — run \`cadre worktrees recover\` once the host is back to fetch what was committed there`,
				);
				markLost(lostError);
			} else timer = setTimeout(retry, retryMs);
		}
	};
	const watch = (connection: SshConnection) =>
		connection.onClose((error) => {
			if (closed || current !== connection) return;
			current = null;
			downSince = Date.now();
			downWhy = error?.message ?? "the connection closed";
			timer ??= setTimeout(retry, Math.min(retryMs, 100));
		});
	watch(current);

	return {
		target,
		get isLost() {
			return lostError !== null;
		},
		lost,
		async connection() {
			if (lostError) throw lostError;
			if (current?.alive) return current;
			const seconds = downSince === null ? 0 : Math.round((Date.now() - downSince) / 1000);
			throw new WorkspaceError(
				"workspace-disconnected",
				`workspace ${target.name} (${where}) is unreachable (${downWhy || "connection lost"}, ${seconds} s ago); this tool call did not run. cadre reconnects for ${Math.round(graceMs / 1000)} s — retry the call shortly`,
			);
		},
		close() {
			closed = true;
			if (timer) clearTimeout(timer);
			current?.close();
			current = null;
		},
	};
}
