/** Which types a spawn may use: the definition's `enabled`, overridden both ways by settings `toggle`. */
import { nameKey } from "../core/values.ts";
import type { Entry, LoadResult } from "../files/types.ts";

/** Types a spawn may use: enabled after the settings toggle, sorted. */
export function enabledTypes(loaded: LoadResult): string[] {
	return [...loaded.definitions.values()]
		.filter((entry) => isEnabled(entry, loaded))
		.map((entry) => entry.name)
		.sort((a, b) => a.localeCompare(b));
}

/** Whether a type may be spawned: the settings `toggle` overrides the definition's `enabled` both ways. */
export function isEnabled(entry: Entry<"definition">, loaded: LoadResult): boolean {
	const toggle = loaded.settings.toggle[nameKey(entry.name)];
	return toggle ? toggle.value : (entry.keys.enabled?.value ?? true);
}
