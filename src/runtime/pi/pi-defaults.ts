/**
 * pi's defaults for a parent without a session (the CLI): the default model and thinking level
 * from pi's `settings.json`, pi's built-in thinking default, and where pi's documentation lives.
 */

import { getDocsPath, getExamplesPath, getReadmePath, SettingsManager as PiSettingsManager } from "@earendil-works/pi-coding-agent";
import { normalizeThinking, type ThinkingLevel as CadreThinkingLevel } from "../../core/values.ts";

/** pi's built-in default thinking level (`DEFAULT_THINKING_LEVEL` in pi's core/defaults). */
export const PI_DEFAULT_THINKING_LEVEL: CadreThinkingLevel = "medium";

/** pi's configured defaults for a parent without a session (the CLI). */
export interface PiDefaults {
	/** `provider/model` (or the bare model) from `defaultProvider`/`defaultModel`, or null. */
	model: string | null;
	/** `defaultThinkingLevel`, else pi's built-in default. */
	thinking: CadreThinkingLevel;
}

/**
 * Reads pi's `settings.json` (`<agentDir>/settings.json`, plus the project's `.pi/settings.json`
 * only when the project is trusted — what pi itself would use in `cwd`).
 */
export function piDefaults(options: { agentDir: string; cwd: string; projectTrusted: boolean }): PiDefaults {
	const settings = PiSettingsManager.create(options.cwd, options.agentDir, { projectTrusted: options.projectTrusted });
	const provider = settings.getDefaultProvider();
	const model = settings.getDefaultModel();
	return {
		model: model ? (provider ? `${provider}/${model}` : model) : null,
		thinking: normalizeThinking(settings.getDefaultThinkingLevel()) ?? PI_DEFAULT_THINKING_LEVEL,
	};
}

/** pi's configured default model (`defaultProvider/defaultModel`), or null. */
export function defaultParentModel(agentDir: string, cwd: string = agentDir): string | null {
	return piDefaults({ agentDir, cwd, projectTrusted: false }).model;
}

/** pi's configured default thinking level, else pi's built-in default. */
export function defaultThinkingLevel(agentDir: string, cwd: string = agentDir): CadreThinkingLevel {
	return piDefaults({ agentDir, cwd, projectTrusted: false }).thinking;
}

/** Where pi's documentation lives (the `<docs>` section of pi's default prompt). */
export function piDocPaths(): { readme: string; docs: string; examples: string } {
	// pi's package does not move while the process runs: found once (each lookup walks the disk).
	docPaths ??= { readme: getReadmePath(), docs: getDocsPath(), examples: getExamplesPath() };
	return { ...docPaths };
}

let docPaths: { readme: string; docs: string; examples: string } | null = null;
