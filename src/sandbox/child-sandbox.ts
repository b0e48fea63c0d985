/**
 * One child's sandbox (ADR 0150): its private temp dir, its policy (src/resolve/sandbox-policy.ts),
 * the wrap of its commands computed once — only for a child with bash (ADR 0188) —, the hard links found in its write roots, and the tools
 * that enforce it. Disposing removes the temp dir and releases the wrap. Blocked attempts the
 * platform or the file tools report become `sandbox-blocked` diagnostics of the run.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { Diagnostic } from "../core/diagnostics.ts";
import { type SandboxPolicy, type SandboxPolicyInput, sandboxPolicy } from "../resolve/sandbox-policy.ts";
import { releaseChild, wrapChild } from "./manager.ts";
import { hardLinkedFiles, pathGuard } from "./path-guard.ts";
import { sandboxedTools } from "../runtime/pi/sandboxed-tools.ts";

/** What a child's sandbox is prepared from: the policy's inputs but its temp dir, which the child gets of its own. */
export type ChildSandboxOptions = Omit<SandboxPolicyInput, "tempDir">;

export interface ChildSandbox {
	policy: SandboxPolicy;
	tools: ToolDefinition[];
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

/** Prepares the sandbox of one child (the library is started on the first call of the process). */
export async function prepareChildSandbox(options: ChildSandboxOptions): Promise<ChildSandbox> {
	const readOnly = options.config.capabilityMode === "read-only";
	const tempDir = readOnly ? "" : mkdtempSync(join(tmpdir(), "cadre-sandbox-"));
	const policy = sandboxPolicy({ ...options, tempDir });
	const hardLinks = policy.write.length > 0 ? hardLinkedFiles(policy.write.filter((root) => statSync(root, { throwIfNoEntry: false })?.isDirectory())) : [];
	try {
		// Only bash runs through the wrap: a child with file tools only needs none (nor the library).
		const wrap = options.config.tools.includes("bash") ? await wrapChild(policy, hardLinks) : null;
		const guard = pathGuard(policy, hardLinks);
		const tools = sandboxedTools({ cwd: options.cwd, tools: options.config.tools, policy, wrap, guard });
		let disposed = false;
		return {
			policy,
			tools,
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
				if (tempDir) rmSync(tempDir, { recursive: true, force: true });
				if (wrap) void releaseChild(wrap).catch(() => {});
			},
		};
	} catch (error) {
		if (tempDir) rmSync(tempDir, { recursive: true, force: true });
		throw error;
	}
}
