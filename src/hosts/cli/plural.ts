/**
 * Counted nouns for what the CLI prints: `1 role`, `2 roles`, never "1 roles" (issue 19), and the
 * one counts line `cadre check` ends with, which names the disabled definitions.
 */
import type { LoadResult } from "../../files/types.ts";
import { isEnabled } from "../../resolve/resolve.ts";

/** `n` and the noun, `-s` added unless `n` is 1 (or `plural` given for an irregular noun). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
	return `${n} ${n === 1 ? noun : plural}`;
}

/** `3 definitions (1 disabled: builder), 0 roles, 1 persona`: what was loaded, and which types no spawn uses. */
export function loadedCounts(loaded: LoadResult): string {
	const off = [...loaded.definitions.values()].filter((entry) => !isEnabled(entry, loaded)).map((entry) => entry.name);
	const disabled = off.length === 0 ? "" : ` (${off.length} disabled: ${off.join(", ")})`;
	return `${counted(loaded.definitions.size, "definition")}${disabled}, ${counted(loaded.roles.size, "role")}, ${counted(loaded.personas.size, "persona")}`;
}
