/**
 * pi's settings for a child (issue 28): read once per parent cwd, agent dir and trust — pi's
 * `SettingsManager.create` reads `settings.json` under a file lock, about a millisecond — and read
 * again only when one of the two settings files' stat changed. Each child gets an in-memory copy:
 * what a child changes in its settings is never written back to the user's or the project's file,
 * nor seen by its siblings.
 */
import { join } from "node:path";
import { SettingsManager } from "@earendil-works/pi-coding-agent";

type Settings = ReturnType<SettingsManager["getSettings"]>;
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

/** A child's settings manager: the settings at `cwd` (project) and `agentDir` (user), in memory. */
export async function childSettingsManager(cwd: string, agentDir: string, projectTrusted: boolean): Promise<SettingsManager> {
	const id = JSON.stringify([cwd, agentDir, projectTrusted]);
	let settings = checking.get(id);
	if (!settings) {
		settings = current(id, cwd, agentDir, projectTrusted).finally(() => checking.delete(id));
		checking.set(id, settings);
	}
	return SettingsManager.inMemory(structuredClone(await settings), { projectTrusted });
}
