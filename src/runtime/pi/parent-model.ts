/**
 * The one parent-model rule for a host without a session (issue 19, ADR 0103): the model pi would
 * pick for a new session in `cwd` — its settings default when pi can use it, else its automatic
 * default among the available models. pi decides, not a copy of its rule: an in-memory session is
 * created with nothing loaded (no extensions, skills, templates, themes or context files) and its
 * model read, after pi's asynchronous availability check has settled. `cadre run` and the pi
 * extension get the same pick from their real parent session; `explain` and `prompt` call this.
 * When pi picks nothing (no credential anywhere), the settings default is still named, unverified.
 */
import { join } from "node:path";
import { createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";

export interface NewSessionModelOptions {
	agentDir: string;
	cwd: string;
	/** Whether the project's `.pi/settings.json` counts (pi reads it only for a trusted project). */
	projectTrusted: boolean;
	/** The model runtime to ask (default: one over `<agentDir>/auth.json` and `models.json`). */
	runtime?: ModelRuntime;
}

export interface NewSessionModel {
	/** `provider/id`, or null when pi would start without a model and settings name none. */
	model: string | null;
	/**
	 * `settings`: the settings default, usable; `automatic`: pi's default among the available
	 * models; `unverified`: the settings default, which pi cannot use here (no credential); `none`.
	 */
	how: "settings" | "automatic" | "unverified" | "none";
	/** The runtime asked, for the host's model catalog (one runtime, one view of availability). */
	runtime: ModelRuntime;
}

/** What pi would pick for a new session in `options.cwd`. */
export async function newSessionModel(options: NewSessionModelOptions): Promise<NewSessionModel> {
	const { agentDir, cwd } = options;
	const runtime =
		options.runtime ??
		(await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), allowModelNetwork: false }));
	// pi's pick reads the availability snapshot: let the asynchronous check land first.
	await runtime.getAvailable().catch(() => undefined);
	const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: options.projectTrusted });
	const provider = settingsManager.getDefaultProvider();
	const id = settingsManager.getDefaultModel();
	const configured = provider && id ? `${provider}/${id}` : null;
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({ cwd, agentDir, modelRuntime: runtime, settingsManager, resourceLoader, sessionManager: SessionManager.inMemory(cwd) });
	// Without a model pi's session holds a placeholder that no provider has.
	const chosen = session.model && runtime.getModel(session.model.provider, session.model.id) ? session.model : null;
	const picked = chosen ? `${chosen.provider}/${chosen.id}` : null;
	session.dispose();
	if (picked !== null) return { model: picked, how: picked === configured ? "settings" : "automatic", runtime };
	return configured === null ? { model: null, how: "none", runtime } : { model: configured, how: "unverified", runtime };
}
