/**
 * One child's sandbox (ADR 0150): its private temp dir, its policy (src/resolve/sandbox-policy.ts),
 * the wrap of its commands computed once, at its first command (its first bash call or its verify:
 * a child that runs none never makes one, nor starts the library), the hard links found in its
 * write roots, its one long-lived sandboxed shell for bash (ADR 0195), and the tools that enforce
 * it. Disposing ends the shell, removes the temp dir and releases the wrap. Blocked attempts the
 * platform or the file tools report become `sandbox-blocked` diagnostics of the run.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { Diagnostic } from "../core/diagnostics.ts";
import { type SandboxPolicy, type SandboxPolicyInput, sandboxPolicy } from "../resolve/sandbox-policy.ts";
import { type ChildWrap, releaseChild, sandboxedCommand, wrapChild } from "./manager.ts";
import { hardLinkedFiles, pathGuard } from "./path-guard.ts";
import { sandboxShell } from "./sandbox-shell.ts";
import { sandboxedTools } from "../runtime/pi/sandboxed-tools.ts";

/** What a child's sandbox is prepared from: the policy's inputs but its temp dir, which the child gets of its own. */
export type ChildSandboxOptions = Omit<SandboxPolicyInput, "tempDir">;

export interface ChildSandbox {
	policy: SandboxPolicy;
	tools: ToolDefinition[];
	/** `command` as it runs inside this sandbox (cadre's own commands for the child: its verify). */
	shell(command: string, env: Readonly<Record<string, string | undefined>>): Promise<{ command: string; env: Record<string, string> }>;
	/** `sandbox-blocked` diagnostics: what the file tools refused. */
	diagnostics(): Diagnostic[];
	dispose(): void;
}

/** The top of the git worktree (or repository) holding `cwd`, else `cwd`. */
export function checkoutTop(cwd: string): string {
	for (let dir = cwd; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return dir;
		if (dirname(dir) === dir) return cwd;
	}
}

/** Read-only policies made, by resolved config, by sandbox settings (both kept unchanged once made), by paths. */
const readOnlyPolicies = new WeakMap<object, WeakMap<object, Map<string, SandboxPolicy>>>();

/**
 * The policy of a read-only child: made once for the same config, settings and paths, and shared
 * by the children it is made for (issue 28). `sandboxPolicy` is pure and nothing changes a policy;
 * the resolution cache and the files' cache hand out the same config and settings objects while
 * nothing they come from changed, and a new object is a new key. A writable child has a temp dir
 * of its own, so its policy is its own.
 */
function readOnlyPolicy(options: ChildSandboxOptions): SandboxPolicy {
	let bySettings = readOnlyPolicies.get(options.config);
	if (!bySettings) readOnlyPolicies.set(options.config, (bySettings = new WeakMap()));
	let byPaths = bySettings.get(options.settings);
	if (!byPaths) bySettings.set(options.settings, (byPaths = new Map()));
	const key = [options.cwd, options.writeRoot, options.homeDir, options.agentDir, options.baseDir].join("\0");
	let policy = byPaths.get(key);
	if (!policy) byPaths.set(key, (policy = sandboxPolicy({ ...options, tempDir: "" })));
	return policy;
}

/** Prepares the sandbox of one child (the library is started on the first call of the process). */
export async function prepareChildSandbox(options: ChildSandboxOptions): Promise<ChildSandbox> {
	const readOnly = options.config.capabilityMode === "read-only";
	const tempDir = readOnly ? "" : mkdtempSync(join(tmpdir(), "cadre-sandbox-"));
	const policy = readOnly ? readOnlyPolicy(options) : sandboxPolicy({ ...options, tempDir });
	const hardLinks = policy.write.length > 0 ? hardLinkedFiles(policy.write.filter((root) => statSync(root, { throwIfNoEntry: false })?.isDirectory())) : [];
	try {
		// The wrap is made at the first command that needs it (ADR 0188): none for a child that runs none.
		let made: Promise<ChildWrap> | null = null;
		let disposed = false;
		const wrap = () => (made ??= wrapChild(policy, hardLinks));
		const guard = pathGuard(policy, hardLinks);
		// bash runs in one long-lived sandbox per child, started at its first call (ADR 0195).
		const bash = sandboxShell(wrap, policy);
		const tools = sandboxedTools({ cwd: options.cwd, tools: options.config.tools, policy, bash, guard });
		return {
			policy,
			tools,
			shell: async (command, env) => sandboxedCommand(await wrap(), policy, command, env),
			diagnostics: () =>
				guard.blocked().map((attempt) => ({
					severity: "warning" as const,
					file: null,
					line: null,
					column: null,
					code: "sandbox-blocked" as const,
					message: `the sandbox blocked ${attempt}`,
					hint: "widen the policy in settings sandbox (docs/sandbox.md) if the child needs it",
				})),
			dispose() {
				if (disposed) return;
				disposed = true;
				bash.close();
				if (tempDir) rmSync(tempDir, { recursive: true, force: true });
				if (made) void made.then(releaseChild).catch(() => {});
			},
		};
	} catch (error) {
		if (tempDir) rmSync(tempDir, { recursive: true, force: true });
		throw error;
	}
}
