/**
 * pi's settings for a child (issue 28): read once per parent cwd, agent dir and trust — pi's
 * `SettingsManager.create` reads `settings.json` under a file lock, about a millisecond — and read
 * again only when one of the two settings files' stat changed. Each child gets an in-memory copy:
 * what a child changes in its settings is never written back to the user's or the project's file,
 * nor seen by its siblings.
 */
import { join } from "node:path";
import { SettingsManager } from "@earendil-works/pi-coding-agent";

/** pi's settings as the child starts with them. */
export type Settings = ReturnType<SettingsManager["getSettings"]>;
import { racySince, statKey } from "../stat-key.ts";

const read = new Map<string, { key: string | null; settings: Settings }>();
/** Checks in flight: children started at once share one. */
const checking = new Map<string, Promise<Settings>>();

/** The settings for `id`, read again when a file's stat changed. */
async function current(id: string, cwd: string, agentDir: string, projectTrusted: boolean): Promise<Settings> {
	const files = [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
	let hit = read.get(id);
	if (!hit?.key || (await statKey(files)) !== hit.key) {
		const since = racySince();
		const settings = SettingsManager.create(cwd, agentDir, { projectTrusted }).getSettings();
		hit = { key: await statKey(files, since), settings };
		read.set(id, hit);
	}
	return hit.settings;
}

/**
 * The settings at `cwd` (project) and `agentDir` (user), checked now (children started at once
 * share the check). A spawn starts it first, so its `stat` runs while the spawn resolves (ADR 0194).
 */
export function childSettings(cwd: string, agentDir: string, projectTrusted: boolean): Promise<Settings> {
	const id = JSON.stringify([cwd, agentDir, projectTrusted]);
	let settings = checking.get(id);
	if (!settings) {
		settings = current(id, cwd, agentDir, projectTrusted).finally(() => checking.delete(id));
		checking.set(id, settings);
	}
	return settings;
}

/** A child's settings manager, in memory: from `checked` (a {@link childSettings} its spawn started), else checked now. */
export async function childSettingsManager(cwd: string, agentDir: string, projectTrusted: boolean, checked?: Promise<Settings>): Promise<SettingsManager> {
	const settings = await (checked ?? childSettings(cwd, agentDir, projectTrusted));
	return SettingsManager.inMemory(structuredClone(settings), { projectTrusted });
}
