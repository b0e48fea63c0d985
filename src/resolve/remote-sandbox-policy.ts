/**
 * The sandbox policy of a child on an SSH workspace (issue 25, ADR 0191): the policy of
 * src/resolve/sandbox-policy.ts mapped onto the remote machine, as a pure function. Enforced there
 * by the remote's bubblewrap (src/workspaces/remote-sandbox.ts) and by the remote file tools.
 *
 * - writes: the child's remote worktree and its private remote temp dir; nothing for read-only;
 * - reads denied: the remote user's secrets (the same {@link SECRET_PATHS}, under the remote
 *   home), the whole workspace `root` except this child's worktree, the clone its git needs
 *   (read-only, as a local child reads the parent's repository) and cadre's helper directory, plus
 *   settings `sandbox.denyRead` (`~/` = the remote home, a relative path = inside the worktree);
 * - environment: the same credential patterns and `sandbox.env.allow`;
 * - network: none — there is no filtering proxy on the remote, so `sandbox.allowNetwork` is not
 *   honoured there (the resolution refuses `required` and warns for `auto`).
 */
import { posix } from "node:path";
import type { SandboxSettings } from "../files/types.ts";
import { CREDENTIAL_ENV_PATTERNS, isWithin, outsideTools, SECRET_PATHS, type SandboxPolicy } from "./sandbox-policy.ts";

/** What a remote child's policy is computed from (every path absolute on the remote). */
export interface RemoteSandboxPolicyInput {
	readOnly: boolean;
	/** The child's tools (extension tools are listed as outside). */
	tools: readonly string[];
	/** The child's remote worktree. */
	worktree: string;
	/** The workspace's bare clone the worktree's git reads. */
	clone: string;
	/** The workspace's `root`. */
	root: string;
	/** Where cadre keeps the seccomp helper (`<root>/.cadre`). */
	helperDir: string;
	/** The remote user's home directory. */
	home: string;
	/** The child's private remote temp dir; null for read-only. */
	tempDir: string | null;
	settings: SandboxSettings;
}

/** A remote child's policy: {@link SandboxPolicy}, with `allowRead` the paths re-opened (read-only but the write roots) inside a denied one. */
export type RemoteSandboxPolicy = SandboxPolicy & {
	/** Domains settings asked for that the remote sandbox does not open (it has no network at all). */
	networkRefused: string[];
};

function expand(path: string, home: string, base: string): string {
	if (path === "~") return home;
	if (path.startsWith("~/")) return posix.join(home, path.slice(2));
	return posix.isAbsolute(path) ? posix.normalize(path) : posix.resolve(base, path);
}

/** The policy of one remote child. Pure. */
export function remoteSandboxPolicy(input: RemoteSandboxPolicyInput): RemoteSandboxPolicy {
	const write = input.readOnly ? [] : [input.worktree, ...(input.tempDir ? [input.tempDir] : [])];
	const denied = [...SECRET_PATHS.map((path) => posix.join(input.home, path)), input.root];
	for (const path of input.settings.denyRead) denied.push(expand(path, input.home, input.worktree));
	// a denied path holding the worktree is denied around it (the root); one equal to it cannot be honoured without refusing every tool
	const denyRead = [...new Set(denied)].filter((path) => path !== input.worktree);
	const reopen = [input.worktree, input.clone, input.helperDir];
	const allowRead = reopen.filter((path) => denyRead.some((deny) => isWithin(path, deny) && path !== deny));
	return {
		sandboxed: true,
		write,
		denyRead,
		allowRead,
		env: { deny: [...CREDENTIAL_ENV_PATTERNS], allow: [...input.settings.envAllow] },
		network: [],
		networkRefused: [...input.settings.allowNetwork],
		tempDir: input.readOnly ? null : input.tempDir,
		outside: outsideTools(input.tools),
	};
}

/** Whether the remote path `real` may be read by a child under `policy` (denied unless re-opened by a deeper allow). */
export function remoteReadable(real: string, policy: Pick<SandboxPolicy, "denyRead" | "allowRead" | "write">): boolean {
	const reopened = [...policy.allowRead, ...policy.write];
	return policy.denyRead.every((denied) => !isWithin(real, denied) || reopened.some((open) => isWithin(real, open) && isWithin(open, denied) && open !== denied));
}
