/**
 * pi's settings for a child (issue 28): read once per parent cwd, agent dir and trust — pi's
 * `SettingsManager.create` reads `settings.json` under a file lock, about a millisecond — and read
 * again only when one of the two settings files' stat changed (a synchronous stat each, ADR 0198).
 * Each child gets an in-memory copy: what a child changes in its settings is never written back to
 * the user's or the project's file, nor seen by its siblings.
 */
import { join } from "node:path";
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { racySince, statKey } from "../stat-key.ts";

/** pi's settings as the child starts with them. */
export type Settings = ReturnType<SettingsManager["getSettings"]>;

const read = new Map<string, { key: string | null; settings: Settings }>();

/** The settings at `cwd` (project) and `agentDir` (user), read again when a file's stat changed. */
export function childSettings(cwd: string, agentDir: string, projectTrusted: boolean): Settings {
	const id = `${cwd}\0${agentDir}\0${projectTrusted}`;
	const files = [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
	let hit = read.get(id);
	if (!hit?.key || statKey(files) !== hit.key) {
		const since = racySince();
		const settings = SettingsManager.create(cwd, agentDir, { projectTrusted }).getSettings();
		hit = { key: statKey(files, since), settings };
		read.set(id, hit);
	}
	return hit.settings;
}

/** A child's settings manager, in memory, over a copy of the settings checked now (pi's `inMemory` copies them). */
export function childSettingsManager(cwd: string, agentDir: string, projectTrusted: boolean): SettingsManager {
	return SettingsManager.inMemory(childSettings(cwd, agentDir, projectTrusted), { projectTrusted });
}
