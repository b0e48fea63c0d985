/**
 * What spawning needs of the OS sandbox (ADR 0150), for every host: the platform facts the
 * resolution decides with, the child's sandbox prepared where its session is created, and the
 * handle that carries its blocked attempts into the run's diagnostics and disposes it with the session.
 */
import type { LoadResult } from "../files/types.ts";
import type { EffectiveConfig, ParentFacts } from "../resolve/types.ts";
import type { ChildHandle } from "../runtime/pi/child-session.ts";
import { type ChildSandbox, checkoutTop, prepareChildSandbox } from "./child-sandbox.ts";
import { sandboxPlatform } from "./platform.ts";

export type { ChildSandbox } from "./child-sandbox.ts";

/** The parent's facts with the project's trust and this platform's sandbox (when the host did not state them). */
export function sandboxFacts(parent: { facts: ParentFacts; projectTrusted: boolean }): ParentFacts {
	return { ...parent.facts, projectTrusted: parent.facts.projectTrusted ?? parent.projectTrusted, sandbox: parent.facts.sandbox ?? sandboxPlatform() };
}

/** The sandbox of a child about to start in `cwd`, or null when it runs unsandboxed. */
export async function childSandboxFor(options: {
	config: EffectiveConfig;
	cwd: string;
	isolated: boolean;
	parent: { cwd: string; agentDir: string; homeDir: string; facts: ParentFacts };
	loaded: LoadResult;
}): Promise<ChildSandbox | null> {
	const { config, cwd, parent, loaded } = options;
	if (config.sandboxed !== true) return null;
	const writeRoot = options.isolated ? checkoutTop(cwd) : (parent.facts.repoRoot ?? loaded.projectDir ?? cwd);
	return prepareChildSandbox({
		config,
		cwd,
		writeRoot,
		homeDir: parent.homeDir,
		agentDir: parent.agentDir,
		baseDir: loaded.projectDir ?? parent.cwd,
		settings: loaded.settings.sandbox,
	});
}

/** The child's handle, with the sandbox's diagnostics added and the sandbox disposed with it. */
export async function withSandbox(sandbox: ChildSandbox | null, create: () => Promise<ChildHandle>): Promise<ChildHandle> {
	if (!sandbox) return create();
	let handle: ChildHandle;
	try {
		handle = await create();
	} catch (error) {
		sandbox.dispose();
		throw error;
	}
	return {
		...handle,
		shell: sandbox.shell,
		diagnostics: () => [...handle.diagnostics(), ...sandbox.diagnostics()],
		dispose: () => {
			handle.dispose();
			sandbox.dispose();
		},
	};
}
