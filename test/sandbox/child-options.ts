/**
 * What the sandbox tests prepare a child's sandbox from: a fresh temp dir as its cwd and write
 * root, the test's HOME and agent dir, default sandbox settings.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { defaultSandboxSettings } from "../../src/files/sandbox-settings.ts";
import type { ChildSandboxOptions } from "../../src/sandbox/child-sandbox.ts";

export function childSandboxOptions(tools: string[], capabilityMode: "read-only" | null, prefix = "sandbox-child-"): ChildSandboxOptions {
	const dir = mkdtempSync(join(process.env.TMPDIR as string, prefix));
	return {
		config: { sandbox: "auto", sandboxed: true, capabilityMode, tools },
		cwd: dir,
		writeRoot: dir,
		homeDir: process.env.HOME as string,
		agentDir: process.env.PI_CODING_AGENT_DIR as string,
		baseDir: dir,
		settings: defaultSandboxSettings(),
	};
}
