/**
 * `cadre run` (ADR 0090): a parent pi session for a directory without pi's UI — built as `pi -p`
 * builds its session there (the user's settings, models, credentials, pi's project trust, the
 * user's extensions and what they register, skills, context files, pi's system prompt), never
 * prompted, so its children are spawned exactly as the extension spawns them. Owned by the CLI
 * run area.
 */

import {
	createAgentSessionFromServices,
	createAgentSessionRuntime,
	createAgentSessionServices,
	type Extension,
	type ExtensionAPI,
	type ExtensionCommandContext,
	hasTrustRequiringProjectResources,
	ProjectTrustStore,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { type ChildExtensionSet, childExtensionSet, isCadre } from "./child-extensions.ts";

/** Options for {@link createHeadlessParent}. */
export interface HeadlessParentOptions {
	/** The parent's cwd (absolute). */
	cwd: string;
	agentDir: string;
	/** `--trust-project`: trust the project whatever pi decided; otherwise pi's own decision. */
	trustProject?: boolean;
}

/** A parent session as an extension sees its own: the API and a context. */
export interface HeadlessParent {
	pi: ExtensionAPI;
	ctx: ExtensionCommandContext;
	/** The extensions pi loaded for the parent, as children reload them (cadre's own left out). */
	childExtensions(exclude: readonly string[]): ChildExtensionSet;
	/** pi's startup diagnostics (extension load errors, settings problems), in pi's words. */
	diagnostics: { type: string; message: string }[];
	/** The project has trust-gated resources (`.pi/` settings, extensions, …) that were not loaded: it is not trusted. */
	untrustedResources: boolean;
	/** End the session as pi does at exit (`session_shutdown`, credential writes settled). */
	dispose(): Promise<void>;
}

/**
 * Whether pi would trust the project at `cwd` without asking anyone (pi's print mode): a project
 * with nothing trust-gated is trusted unless the user said otherwise; else the user's stored
 * decision, else settings `defaultProjectTrust: "always"`; else not. (An extension's
 * `project_trust` answer is not asked: it could only widen.)
 */
export function headlessProjectTrust(cwd: string, agentDir: string): boolean {
	const stored = new ProjectTrustStore(agentDir).get(cwd);
	if (!hasTrustRequiringProjectResources(cwd)) return stored ?? true;
	if (stored !== null) return stored;
	return SettingsManager.create(cwd, agentDir, { projectTrusted: false }).getDefaultProjectTrust() === "always";
}

/**
 * The parent session `cadre run` spawns from, for `cwd`: in memory, never prompted, its extensions
 * bound as in `pi -p` (their `session_start` runs, providers they register are in its model
 * runtime). cadre's own extension, if the user's pi loads it, is left out (depth 1). pi's CLI-only
 * built-ins (code mode, tool search, MCP) are not loaded: children never get them.
 */
export async function createHeadlessParent(options: HeadlessParentOptions): Promise<HeadlessParent> {
	const projectTrusted = options.trustProject === true || headlessProjectTrust(options.cwd, options.agentDir);
	let api: ExtensionAPI | null = null;
	// The parent's extension API, as cadre's extension gets it in a pi session.
	const probe = {
		name: "cadre-run",
		hidden: true,
		factory: (pi: ExtensionAPI) => {
			api = pi;
		},
	};
	let extensions: Extension[] = [];
	const runtime = await createAgentSessionRuntime(
		async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
			const services = await createAgentSessionServices({
				cwd,
				agentDir,
				settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted }),
				resourceLoaderOptions: {
					extensionFactories: [probe],
					extensionsOverride: (base) => ({ ...base, extensions: base.extensions.filter((extension) => !isCadre(extension)) }),
				},
			});
			extensions = services.resourceLoader.getExtensions().extensions;
			const created = await createAgentSessionFromServices({ services, sessionManager, sessionStartEvent });
			const loadErrors = services.resourceLoader
				.getExtensions()
				.errors.map(({ path, error }) => ({ type: "error" as const, message: `Failed to load extension "${path}": ${error}` }));
			return { ...created, services, diagnostics: [...services.diagnostics, ...loadErrors] };
		},
		{ cwd: options.cwd, agentDir: options.agentDir, sessionManager: SessionManager.inMemory(options.cwd) },
	);
	await runtime.session.bindExtensions({ mode: "print" });
	if (!api) throw new Error("cadre: pi did not load the parent session's extensions.");
	return {
		pi: api,
		// A command's context: an extension's, plus the parent's prompt options.
		ctx: runtime.session.extensionRunner.createCommandContext(),
		childExtensions: (exclude) => childExtensionSet(extensions, exclude),
		diagnostics: runtime.diagnostics.map((d) => ({ type: d.type, message: d.message })),
		untrustedResources: !projectTrusted && hasTrustRequiringProjectResources(options.cwd),
		dispose: () => runtime.dispose(),
	};
}
